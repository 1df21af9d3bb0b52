"""The unmodified qiskit-ibm-runtime client pointed at a `qchess serve` with its own settings
(see check_runtime.py for why each is needed), and the circuits the client checks share."""

import math
import os
import warnings

warnings.filterwarnings("ignore")

KEY = "test"
CRN = "crn:v1:bluemix:public:quantum-computing:us-east:a/0123456789:qchess-test::"
os.environ["QISKIT_FUNCTIONS_EXPERIMENTAL"] = "1"


def service(base):
    """A QiskitRuntimeService whose key exchange and API are the server at `base`."""
    from qiskit_ibm_runtime import QiskitRuntimeService

    os.environ["IAM_URL"] = base
    return QiskitRuntimeService(channel="ibm_quantum_platform", token=KEY, instance=CRN, url=base,
                                url_resolver=lambda url, instance, *args, **kwargs: f"{base}/api/v1")


def isa(circuit, backend):
    """`circuit` transpiled for `backend` as a user would (level 1, seeded)."""
    from qiskit import transpile

    return transpile(circuit, backend=backend, optimization_level=1, seed_transpiler=0)


def bell():
    """A measured Bell pair."""
    from qiskit import QuantumCircuit

    qc = QuantumCircuit(2)
    qc.h(0)
    qc.cx(0, 1)
    qc.measure_all()
    return qc


def within(count, shots, p, sigmas=6.0):
    """Whether `count` of `shots` is within `sigmas` binomial sigmas of `shots * p` (6 sigmas:
    a false alarm with probability below 2e-9)."""
    sigma = math.sqrt(shots * p * (1 - p))
    return abs(count - shots * p) <= sigmas * max(sigma, 0.5)

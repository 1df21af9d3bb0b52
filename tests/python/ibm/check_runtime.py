"""The unmodified qiskit-ibm-runtime client against `qchess serve`'s IBM Quantum stand-in.

Usage: check_runtime.py http://127.0.0.1:PORT   (the server runs with --api-key test;
tests/python/ibm/run.sh starts it).

The client is pointed at the local URL with its own settings, none of its code changed:
* `IAM_URL`: the API-key exchange goes to the server's `/identity/token` (ibm-cloud-sdk-core decodes
  the token as a JWT to schedule its refresh);
* `url_resolver=`: the API is the server's `/api/v1` (the default resolver turns any `url` into
  `https://[region.]quantum.<host>/api/v1`);
* `QISKIT_FUNCTIONS_EXPERIMENTAL=1`: the instance is taken as given instead of being looked up in IBM
  Cloud's Global Search and Global Catalog (whose URLs the client derives as
  `https://api.global-search-tagging.<host>` and `https://globalcatalog.<host>/api/v1`, without the
  port, so no local server can stand in for them).

What runs: the token exchange, the backend list, `IBMBackend`s built from the stand-in's
configurations and calibrations (qubits, gates, coupling, error rates), their status, the instance's
usage, and transpiling to them. What does not: Sampler jobs. The client sends each circuit as QPY
(`{"__type__": "QuantumCircuit", "__value__": base64 QPY}`), which the stand-in does not read (it
reads the OpenQASM 3 circuits of IBM's REST guides, as qchess sends them); the last check pins the
400 that names this. Prints 'N passed, M failed'.
"""

import json
import os
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import checklist  # noqa: E402  (tests/python, beside this directory)
from checklist import check  # noqa: E402

warnings.filterwarnings("ignore")

BASE = sys.argv[1].rstrip("/") if len(sys.argv) > 1 else "http://127.0.0.1:8080"
KEY = "test"
CRN = "crn:v1:bluemix:public:quantum-computing:us-east:a/0123456789:qchess-test::"
PROPERTIES = Path(__file__).resolve().parents[3] / "crates" / "qchess-route" / "data" / "props_fez.json"
os.environ["IAM_URL"] = BASE
os.environ["QISKIT_FUNCTIONS_EXPERIMENTAL"] = "1"


def service():
    from qiskit_ibm_runtime import QiskitRuntimeService

    return QiskitRuntimeService(channel="ibm_quantum_platform", token=KEY, instance=CRN, url=BASE,
                                url_resolver=lambda url, instance, *args, **kwargs: f"{BASE}/api/v1")


@check
def the_key_is_exchanged_and_both_devices_are_listed():
    names = sorted(backend.name for backend in service().backends())
    assert names == ["ibm_brisbane", "ibm_fez"], names


@check
def ibm_fez_is_built_from_the_published_configuration_and_calibration():
    backend = service().backend("ibm_fez")
    assert backend.num_qubits == 156, backend.num_qubits
    target = backend.target
    assert {"cz", "sx", "x", "rz", "measure"} <= set(target.operation_names), target.operation_names
    assert (87, 88) in target["cz"], "qubits 87 and 88 are coupled"
    published = json.loads(PROPERTIES.read_text())
    readout = next(p["value"] for p in published["qubits"][87] if p["name"] == "readout_error")
    assert abs(backend.properties().readout_error(87) - readout) < 1e-12, backend.properties().readout_error(87)
    cz = next(g for g in published["gates"] if g["gate"] == "cz" and g["qubits"] == [87, 88])
    cz_error = next(p["value"] for p in cz["parameters"] if p["name"] == "gate_error")
    assert abs(target["cz"][(87, 88)].error - cz_error) < 1e-12, target["cz"][(87, 88)].error


@check
def broken_couplers_are_flagged_as_the_service_flags_them():
    # The stand-in marks each qubit and gate `operational` (0 where the published calibration has a
    # gate error of 1); the client reads them as faulty and leaves them out of the target.
    backend = service().backend("ibm_fez")
    faulty = {tuple(gate.qubits) for gate in backend.properties().faulty_gates() if gate.gate == "cz"}
    assert {(27, 28), (28, 27), (80, 81), (139, 155)} <= faulty and len(faulty) == 14, sorted(faulty)
    assert (27, 28) not in backend.target["cz"] and (87, 88) in backend.target["cz"]
    assert backend.properties().faulty_qubits() == [], backend.properties().faulty_qubits()


@check
def ibm_brisbane_is_an_eagle_with_directed_ecr():
    backend = service().backend("ibm_brisbane")
    assert backend.num_qubits == 127, backend.num_qubits
    assert "ecr" in backend.target.operation_names and "cz" not in backend.target.operation_names
    assert backend.status().operational


@check
def the_instance_has_used_no_time():
    usage = service().usage()
    assert usage["usage_limit_reached"] is False and usage["usage_consumed_seconds"] == 0, usage


def transpiled_bell(backend):
    """A measured Bell pair transpiled by Qiskit for `backend`."""
    from qiskit import QuantumCircuit, transpile

    bell = QuantumCircuit(2)
    bell.h(0)
    bell.cx(0, 1)
    bell.measure_all()
    return transpile(bell, backend=backend, optimization_level=1, seed_transpiler=0)


@check
def circuits_transpile_to_the_stand_ins_devices():
    isa = transpiled_bell(service().backend("ibm_brisbane"))
    assert set(isa.count_ops()) <= {"ecr", "rz", "sx", "x", "measure", "barrier"}, isa.count_ops()


@check
def sampler_jobs_are_refused_because_they_carry_qpy():
    from qiskit_ibm_runtime import SamplerV2

    backend = service().backend("ibm_fez")
    isa = transpiled_bell(backend)
    try:
        SamplerV2(mode=backend).run([isa], shots=100).result()
    except Exception as error:
        assert "QPY circuit" in str(error) and "OpenQASM 3" in str(error), error
    else:
        raise AssertionError("the stand-in ran a QPY job; update this check and the README")


if __name__ == "__main__":
    sys.exit(checklist.run())

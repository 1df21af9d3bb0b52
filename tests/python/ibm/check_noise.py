"""`--ibm-noise device` against qiskit-aer's `NoiseModel.from_backend(FakeFez())`, through the
unmodified client: the cheap version of noise_vs_aer.py (which measures 100,000 shots for the
README), on the same circuits (a Bell pair, GHZ on 5 and 12 qubits, a routed 10-move game).

Usage: check_noise.py DEVICE_URL QCHESS_BINARY   (a stand-in run with --ibm-noise device)

Each circuit runs SHOTS shots through SamplerV2; aer gives the exact noisy distribution. Two tests,
each failing falsely with probability below 1e-6 when the models agree:
* Pearson's chi-squared goodness of fit, p > 1e-6 (cells expected below 5 shots pooled);
* the total variation distance of our frequencies from aer's distribution is at most its
  expectation for a SHOTS-shot sample of aer's own distribution (estimated from 50 samples)
  plus t = sqrt(ln(1e6) / (2 SHOTS)): one shot moves the distance by at most 1/SHOTS, so by
  McDiarmid's inequality a sample of the right distribution exceeds its mean by t with
  probability at most exp(-2 SHOTS t^2) = 1e-6. At 20,000 shots t = 0.0186; the old global
  depolarizing model is 0.055 to 0.061 away on GHZ 12 and the game (README), so both tests
  fail it.
Estimator: <ZZ> and <XX> of the Bell pair estimated from shots, within 6 of their reported
standard errors of aer's values (the readout errors scale a parity by (1 - 2 r) per qubit).
"""

import math
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import checklist  # noqa: E402
from checklist import check  # noqa: E402
import noise_vs_aer  # noqa: E402
from client import bell, isa, service  # noqa: E402

DEVICE = sys.argv[1].rstrip("/")
BINARY = sys.argv[2]
SHOTS = 20_000
FALSE_ALARM = 1e-6

_STATE = {}


def setup():
    if not _STATE:
        _STATE["backend"] = service(DEVICE).backend("ibm_fez")
        _STATE["device"] = noise_vs_aer.device_model()
    return _STATE["backend"], _STATE["device"]


def sampled(circuit, shots):
    """Our shots of `circuit` through SamplerV2, each as the packed measured bits."""
    from qiskit_ibm_runtime import SamplerV2

    backend, device = setup()
    result = SamplerV2(mode=backend).run([circuit], shots=shots).result()[0]
    registers = {name: [int(b, 2) for b in getattr(result.data, name).get_bitstrings()] for name in result.data}
    probabilities, clbits = noise_vs_aer.aer_exact(circuit, device)
    return noise_vs_aer.outcomes(circuit, registers, clbits), probabilities


def compare(name, circuit):
    counts, probabilities = sampled(circuit, SHOTS)
    noise_vs_aer.assert_reads_as_aer(name, counts, probabilities, SHOTS, FALSE_ALARM)


def ghz(n):
    from qiskit import QuantumCircuit

    qc = QuantumCircuit(n)
    qc.h(0)
    for i in range(n - 1):
        qc.cx(i, i + 1)
    qc.measure_all()
    return qc


@check
def a_bell_pair_reads_as_aer_reads_it():
    compare("bell", isa(bell(), setup()[0]))


@check
def ghz_on_5_qubits_reads_as_aer_reads_it():
    compare("ghz_5", isa(ghz(5), setup()[0]))


@check
def ghz_on_12_qubits_reads_as_aer_reads_it():
    compare("ghz_12", isa(ghz(12), setup()[0]))


@check
def a_routed_10_move_game_reads_as_aer_reads_it():
    name, circuit, _ = noise_vs_aer.game_circuit(BINARY)
    compare(name, circuit)


@check
def estimated_expectation_values_agree_with_aer_within_their_standard_errors():
    from qiskit.quantum_info import SparsePauliOp
    from qiskit_ibm_runtime import EstimatorV2

    backend, device = setup()
    circuit = bell()
    circuit.remove_final_measurements()
    circuit = isa(circuit, backend)
    observables = [SparsePauliOp(label).apply_layout(circuit.layout) for label in ("ZZ", "XX")]
    result = EstimatorV2(mode=backend).run([(circuit, observables)]).result()[0]
    parities, readout = noise_vs_aer.aer_parities(circuit, ("ZZ", "XX"), device)
    for index, label in enumerate(("ZZ", "XX")):
        expected = parities[index] * math.prod(1 - 2 * r for r in readout)
        value, std = result.data.evs[index], result.data.stds[index]
        print(f"     <{label}>: {value:.4f} +- {std:.4f}, aer {expected:.4f}")
        assert std > 0 and abs(value - expected) <= 6 * std, (label, value, std, expected)
        assert abs(expected - 1.0) > 6 * std, f"<{label}>: the noise ({expected}) shows beyond the standard error {std}"


if __name__ == "__main__":
    sys.exit(checklist.run())

"""The client-side primitives of the unmodified qiskit-ibm-runtime client (`executor_sampler.Sampler`,
`executor_estimator.Estimator`, `Executor`), which submit `program_id: executor` with a quantum
program, against the stand-in: on a Bell pair, GHZ and a parameter sweep, within sampling error of
the exact values (an ideal stand-in: qiskit's own Statevector) and of qiskit-aer's model of the
device (a stand-in with --ibm-noise device), and their refusals.

Usage: check_executor.py IDEAL_URL DEVICE_URL
  IDEAL_URL:  a stand-in without noise;
  DEVICE_URL: one with --ibm-noise device.
tests/python/ibm/run.sh starts them. Prints 'N passed, M failed'.

Counts are checked within 6 binomial sigmas, expectation values within 6 of their standard errors
(each false alarm below 2e-9); the noisy Sampler by chi-squared p > 1e-6 and the TVD bound of
check_noise.py.
"""

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import checklist  # noqa: E402
from checklist import check  # noqa: E402
import noise_vs_aer  # noqa: E402
from client import bell, isa, service, within  # noqa: E402

IDEAL, DEVICE = (url.rstrip("/") for url in sys.argv[1:3])
SHOTS = 4000
NOISY_SHOTS = 20_000
FALSE_ALARM = 1e-6
_BACKENDS = {}  # the backends by URL, and aer's device model


def fez(base=IDEAL):
    if base not in _BACKENDS:
        _BACKENDS[base] = service(base).backend("ibm_fez")
    return _BACKENDS[base]


def ghz(n, measured=True):
    from qiskit import QuantumCircuit

    qc = QuantumCircuit(n)
    qc.h(0)
    for i in range(n - 1):
        qc.cx(i, i + 1)
    if measured:
        qc.measure_all()
    return qc


def sweep():
    """ry(θ) then a CNOT and a tail of one-qubit gates, θ a parameter: what a sweep looks like."""
    from qiskit import QuantumCircuit
    from qiskit.circuit import Parameter

    theta = Parameter("θ")
    qc = QuantumCircuit(2)
    qc.ry(theta, 0)
    qc.cx(0, 1)
    qc.rx(theta / 2, 1)
    qc.s(0)
    return qc


THETAS = np.linspace(0.0, math.pi, 5)


def sampler(base=IDEAL, **options):
    from qiskit_ibm_runtime.executor_sampler import Sampler

    return Sampler(mode=fez(base), options=options or None)


def estimator(base=IDEAL):
    from qiskit_ibm_runtime.executor_estimator import Estimator

    primitive = Estimator(mode=fez(base))
    # Twirling and measurement mitigation sample randomness the stand-in does not run.
    primitive.options.resilience_level = 0
    return primitive


def exact_counts_match(counts, probabilities, shots):
    """Each outcome's count within 6 sigmas of `shots * p`, no outcome of probability 0."""
    for outcome in set(counts) | set(probabilities):
        p = probabilities.get(outcome, 0.0)
        assert p > 1e-12 or counts.get(outcome, 0) == 0, (outcome, counts)
        assert within(counts.get(outcome, 0), shots, p), (outcome, counts.get(outcome, 0), shots, p)


def statevector_probabilities(circuit):
    """Outcome probabilities of a measured circuit's measured bits, by Qiskit's Statevector."""
    from qiskit.quantum_info import Statevector

    unmeasured = circuit.remove_final_measurements(inplace=False)
    return Statevector(unmeasured).probabilities_dict()


@check
def the_sampler_samples_a_bell_pair():
    result = sampler().run([isa(bell(), fez())], shots=SHOTS).result()
    counts = result[0].data.meas.get_counts()
    exact_counts_match(counts, {"00": 0.5, "11": 0.5}, SHOTS)


@check
def the_sampler_samples_ghz_on_four_qubits_with_two_pubs():
    result = sampler().run([isa(ghz(4), fez()), isa(bell(), fez())], shots=SHOTS).result()
    exact_counts_match(result[0].data.meas.get_counts(), {"0000": 0.5, "1111": 0.5}, SHOTS)
    exact_counts_match(result[1].data.meas.get_counts(), {"00": 0.5, "11": 0.5}, SHOTS)


@check
def the_client_side_primitives_run_in_a_session():
    from qiskit.quantum_info import SparsePauliOp
    from qiskit_ibm_runtime import Session
    from qiskit_ibm_runtime.executor_estimator import Estimator
    from qiskit_ibm_runtime.executor_sampler import Sampler

    backend = fez()
    circuit = isa(bell().remove_final_measurements(inplace=False), backend)
    with Session(backend=backend) as session:
        counts = Sampler(mode=session).run([isa(bell(), backend)], shots=SHOTS).result()[0].data.meas.get_counts()
        zz = Estimator(mode=session).run([(circuit, [SparsePauliOp("ZZ").apply_layout(circuit.layout)])]).result()[0]
        jobs = service(IDEAL).jobs(session_id=session.session_id)
    exact_counts_match(counts, {"00": 0.5, "11": 0.5}, SHOTS)
    assert abs(zz.data.evs[0] - 1) < 1e-9, zz.data.evs
    assert len(jobs) == 2 and {job.primitive_id for job in jobs} == {"executor"}, jobs


@check
def the_sampler_sweeps_a_parameter():
    circuit = sweep()
    circuit.measure_all()
    result = sampler().run([(isa(circuit, fez()), THETAS.reshape(-1, 1))], shots=SHOTS).result()[0]
    assert result.data.meas.shape == (len(THETAS),), result.data.meas.shape
    for index, theta in enumerate(THETAS):
        expected = statevector_probabilities(circuit.assign_parameters([theta]))
        exact_counts_match(result.data.meas.get_counts(index), expected, SHOTS)


@check
def dynamical_decoupling_applied_by_the_client_runs_as_sent():
    from qiskit import QuantumCircuit

    # Idle stretches on qubit 2 for the client to fill with delays and X gates; the scheduling
    # needs every gate's length from the device's properties, `rz`'s 0 included.
    qc = QuantumCircuit(3)
    qc.h(0)
    qc.cx(0, 1)
    qc.cx(1, 2)
    qc.cx(0, 1)
    qc.measure_all()
    decoupled = sampler(dynamical_decoupling={"enable": True})
    result = decoupled.run([isa(qc, fez())], shots=SHOTS).result()
    exact_counts_match(result[0].data.meas.get_counts(), {"000": 0.5, "101": 0.5}, SHOTS)


@check
def the_estimator_gives_a_bell_pairs_parities():
    from qiskit.quantum_info import SparsePauliOp

    circuit = isa(bell().remove_final_measurements(inplace=False), fez())
    labels = ["ZZ", "XX", "YY", "ZI", "XY"]
    observables = [SparsePauliOp(label).apply_layout(circuit.layout) for label in labels]
    result = estimator().run([(circuit, observables)], precision=0.02).result()[0]
    for label, value, std, expected in zip(labels, result.data.evs, result.data.stds, [1, 1, -1, 0, 0]):
        print(f"     <{label}> = {value:+.4f} +- {std:.4f} (exact {expected:+d})")
        assert std < 0.05 and abs(value - expected) <= 6 * max(std, 1e-3), (label, value, std)


@check
def the_estimator_gives_ghz_expectation_values():
    from qiskit.quantum_info import SparsePauliOp, Statevector

    logical = ghz(3, measured=False)
    circuit = isa(logical, fez())
    labels = ["ZZI", "XXX", "YYX", "IIZ", "ZZZ"]
    observables = [SparsePauliOp(label).apply_layout(circuit.layout) for label in labels]
    result = estimator().run([(circuit, observables)], precision=0.02).result()[0]
    state = Statevector(logical)
    for label, value, std in zip(labels, result.data.evs, result.data.stds):
        expected = state.expectation_value(SparsePauliOp(label)).real
        print(f"     <{label}> = {value:+.4f} +- {std:.4f} (exact {expected:+.4f})")
        assert abs(value - expected) <= 6 * max(std, 1e-3), (label, value, std, expected)


@check
def the_estimator_sweeps_a_parameter_against_several_observables():
    from qiskit.quantum_info import SparsePauliOp, Statevector

    logical = sweep()
    circuit = isa(logical, fez())
    labels = ["ZZ", "XI", "IY", "YX"]
    observables = [[SparsePauliOp(label).apply_layout(circuit.layout)] for label in labels]
    values = THETAS.reshape(1, -1, 1)
    result = estimator().run([(circuit, observables, values)], precision=0.03).result()[0]
    assert result.data.evs.shape == (len(labels), len(THETAS)), result.data.evs.shape
    for i, label in enumerate(labels):
        for j, theta in enumerate(THETAS):
            state = Statevector(logical.assign_parameters([theta]))
            expected = state.expectation_value(SparsePauliOp(label)).real
            value, std = result.data.evs[i, j], result.data.stds[i, j]
            assert abs(value - expected) <= 6 * max(std, 1e-3), (label, theta, value, std, expected)
    print(f"     {len(labels)} observables x {len(THETAS)} angles within 6 standard errors")


@check
def the_executor_runs_a_quantum_program_of_two_items():
    from qiskit_ibm_runtime import Executor, QuantumProgram

    backend = fez()
    measured = sweep()
    measured.measure_all()
    program = QuantumProgram(shots=SHOTS)
    program.append_circuit_item(isa(measured, backend), circuit_arguments=THETAS.reshape(-1, 1))
    program.append_circuit_item(isa(ghz(3), backend))
    result = Executor(backend).run(program).result()
    swept, plain = result[0]["meas"], result[1]["meas"]
    assert swept.shape == (len(THETAS), SHOTS, 2) and swept.dtype == bool, (swept.shape, swept.dtype)
    assert plain.shape == (SHOTS, 3), plain.shape
    for index, theta in enumerate(THETAS):
        expected = statevector_probabilities(measured.assign_parameters([theta]))
        counts = {}
        for bits in swept[index]:
            key = "".join("1" if b else "0" for b in reversed(bits))
            counts[key] = counts.get(key, 0) + 1
        exact_counts_match(counts, expected, SHOTS)
    ones = int(plain.all(axis=1).sum())
    assert within(ones, SHOTS, 0.5) and int((~plain).all(axis=1).sum()) == SHOTS - ones


def device_model():
    """aer's model of the device, built once."""
    if "device" not in _BACKENDS:
        _BACKENDS["device"] = noise_vs_aer.device_model()
    return _BACKENDS["device"]


def noisy_counts(circuit, registers):
    """`circuit`'s measured bits per shot, packed as aer's distribution orders them, with aer's
    exact noisy distribution."""
    probabilities, clbits = noise_vs_aer.aer_exact(circuit, device_model())
    return noise_vs_aer.outcomes(circuit, registers, clbits), probabilities


@check
def the_noisy_sampler_reads_as_aers_device_model():
    backend = fez(DEVICE)
    for name, circuit in [("bell", isa(bell(), backend)), ("ghz_5", isa(ghz(5), backend))]:
        result = sampler(DEVICE).run([circuit], shots=NOISY_SHOTS).result()[0]
        registers = {register: [int(b, 2) for b in getattr(result.data, register).get_bitstrings()] for register in result.data}
        counts, probabilities = noisy_counts(circuit, registers)
        noise_vs_aer.assert_reads_as_aer(name, counts, probabilities, NOISY_SHOTS, FALSE_ALARM)


@check
def the_noisy_executor_sweep_reads_as_aers_device_model():
    from qiskit_ibm_runtime import Executor, QuantumProgram

    backend = fez(DEVICE)
    measured = sweep()
    measured.measure_all()
    circuit = isa(measured, backend)
    angles = THETAS[[1, 3]]
    program = QuantumProgram(shots=NOISY_SHOTS)
    program.append_circuit_item(circuit, circuit_arguments=angles.reshape(-1, 1))
    bits = Executor(backend).run(program).result()[0]["meas"]
    for index, theta in enumerate(angles):
        values = [sum(1 << j for j, b in enumerate(shot) if b) for shot in bits[index]]
        bound = circuit.assign_parameters([theta])
        counts, probabilities = noisy_counts(bound, {"meas": values})
        noise_vs_aer.assert_reads_as_aer(f"sweep at {theta:.3f}", counts, probabilities, NOISY_SHOTS, FALSE_ALARM)


@check
def the_noisy_estimator_agrees_with_aer_within_its_standard_errors():
    from qiskit.quantum_info import SparsePauliOp
    from qiskit_ibm_runtime.executor_estimator import Estimator

    circuit = isa(bell().remove_final_measurements(inplace=False), fez(DEVICE))
    labels = ("ZZ", "XX")
    observables = [SparsePauliOp(label).apply_layout(circuit.layout) for label in labels]
    parities, readout = noise_vs_aer.aer_parities(circuit, labels, device_model())
    raw = estimator(DEVICE).run([(circuit, observables)], precision=0.01).result()[0]
    # The default resilience level measures the readout error (TREX) and divides it out.
    mitigated = Estimator(mode=fez(DEVICE)).run([(circuit, observables)], precision=0.01).result()[0]
    for index, label in enumerate(labels):
        for name, result, expected in (
            ("raw", raw, parities[index] * math.prod(1 - 2 * r for r in readout)),
            ("TREX", mitigated, parities[index]),
        ):
            value, std = result.data.evs[index], result.data.stds[index]
            print(f"     <{label}> {name}: {value:.4f} +- {std:.4f}, aer {expected:.4f}")
            assert std > 0 and abs(value - expected) <= 6 * std, (label, name, value, std, expected)
        readout_loss = parities[index] * (1 - math.prod(1 - 2 * r for r in readout))
        assert readout_loss > 6 * raw.data.stds[index], f"<{label}>: the readout error shows beyond the standard error"


def token(base):
    """A bearer token of the stand-in at `base`, for reading a job's raw results."""
    from client import KEY

    form = {"grant_type": "urn:ibm:params:oauth:grant-type:apikey", "apikey": KEY}
    return noise_vs_aer.request(f"{base}/identity/token", data=form, form=True)["access_token"]


def refused(run, *fragments):
    try:
        run().result()
    except Exception as error:  # the client raises its own error types with the server's message
        message = str(error)
        for fragment in fragments:
            assert fragment in message, (fragment, message)
    else:
        raise AssertionError(f"ran, though it should be refused with {fragments}")


@check
def a_twirled_sampler_runs_with_identity_twirls_and_says_so():
    circuit = isa(ghz(3), fez())
    twirled = sampler(twirling={"enable_gates": True, "enable_measure": True})
    job = twirled.run([circuit], shots=SHOTS)
    exact_counts_match(job.result()[0].data.meas.get_counts(), {"000": 0.5, "111": 0.5}, SHOTS)
    raw = noise_vs_aer.request(f"{IDEAL}/api/v1/jobs/{job.job_id()}/results", token=token(IDEAL))
    ignored = raw["metadata"]["stand_in"]["ignored_options"]
    assert "twirling (identity twirls drawn)" in ignored, ignored


@check
def the_default_estimator_runs_its_measurement_mitigation():
    # Resilience level 1: measurement twirling and TREX, whose calibration item measures |0>.
    from qiskit.quantum_info import SparsePauliOp
    from qiskit_ibm_runtime.executor_estimator import Estimator

    circuit = isa(bell().remove_final_measurements(inplace=False), fez())
    observables = [SparsePauliOp(label).apply_layout(circuit.layout) for label in ("ZZ", "XX", "ZI")]
    result = Estimator(mode=fez()).run([(circuit, observables)], precision=0.02).result()[0]
    for label, value, std, expected in zip(("ZZ", "XX", "ZI"), result.data.evs, result.data.stds, (1, 1, 0)):
        print(f"     <{label}> = {value:+.4f} +- {std:.4f} (exact {expected:+d})")
        assert abs(value - expected) <= 6 * max(std, 1e-3), (label, value, std)


@check
def an_instruction_the_stand_in_cannot_run_is_named():
    from qiskit import QuantumCircuit
    from qiskit_ibm_runtime import Executor, QuantumProgram

    qc = QuantumCircuit(2, 2)
    qc.h(0)
    qc.cx(0, 1)
    qc.measure([0, 1], [0, 1])
    program = QuantumProgram(shots=10)
    program.append_circuit_item(qc)  # `h` and `cx` are not ibm_fez's basis gates
    refused(lambda: Executor(fez()).run(program), "400", "quantum_program.items[0]", "not an ISA circuit", "instruction h")


if __name__ == "__main__":
    sys.exit(checklist.run())

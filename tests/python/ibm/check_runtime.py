"""The unmodified qiskit-ibm-runtime client against `qchess serve`'s IBM Quantum stand-in (ideal).

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
configurations and calibrations, their status, the instance's usage, transpiling to them, and
SamplerV2 and EstimatorV2 jobs (the client sends QPY circuits, NumPy parameter values and Pauli
observables; the stand-in answers Qiskit's typed results). Counts are checked within sampling
error of the exact probabilities (6 binomial sigmas), expectation values against Qiskit's
Statevector to 1e-9. Prints 'N passed, M failed'.
"""

import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import checklist  # noqa: E402  (tests/python, beside this directory)
from checklist import check  # noqa: E402
from client import bell, within  # noqa: E402
import client  # noqa: E402

BASE = sys.argv[1].rstrip("/") if len(sys.argv) > 1 else "http://127.0.0.1:8080"
PROPERTIES = Path(__file__).resolve().parents[3] / "crates" / "qchess-route" / "data" / "props_fez.json"


def service():
    return client.service(BASE)


_FEZ = []


def fez():
    """The stand-in's ibm_fez, built once."""
    if not _FEZ:
        _FEZ.append(service().backend("ibm_fez"))
    return _FEZ[0]


def isa(circuit, backend=None):
    return client.isa(circuit, backend or fez())


@check
def the_key_is_exchanged_and_both_devices_are_listed():
    names = sorted(backend.name for backend in service().backends())
    assert names == ["ibm_brisbane", "ibm_fez"], names


@check
def ibm_fez_is_built_from_the_published_configuration_and_calibration():
    backend = fez()
    assert backend.num_qubits == 156, backend.num_qubits
    target = backend.target
    assert {"cz", "sx", "x", "rz", "measure"} <= set(target.operation_names), target.operation_names
    assert (87, 88) in target["cz"], "qubits 87 and 88 are coupled"
    published = json.loads(PROPERTIES.read_text())
    readout = next(p["value"] for p in published["qubits"][87] if p["name"] == "readout_error")
    assert abs(backend.properties().readout_error(87) - readout) < 1e-12, backend.properties().readout_error(87)
    cz = next(g for g in published["gates"] if g["gate"] == "cz" and g["qubits"] == [87, 88])
    cz_error = next(p["value"] for p in cz["parameters"] if p["name"] == "gate_error")
    cz_length = next(p["value"] for p in cz["parameters"] if p["name"] == "gate_length")
    assert abs(target["cz"][(87, 88)].error - cz_error) < 1e-12, target["cz"][(87, 88)].error
    assert abs(target["cz"][(87, 88)].duration - cz_length * 1e-9) < 1e-15, target["cz"][(87, 88)].duration


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


@check
def sampler_runs_a_transpiled_bell_pair():
    from qiskit_ibm_runtime import SamplerV2

    shots = 4000
    job = SamplerV2(mode=fez()).run([isa(bell())], shots=shots)
    result = job.result()
    assert job.status() == "DONE", job.status()
    counts = result[0].data.meas.get_counts()
    assert set(counts) <= {"00", "11"} and sum(counts.values()) == shots, counts
    assert within(counts.get("11", 0), shots, 0.5), counts
    assert result[0].data.meas.num_shots == shots and result[0].data.meas.num_bits == 2
    assert result.metadata["stand_in"]["noise"] == "ideal", result.metadata


@check
def sampler_runs_eagle_circuits_with_directed_ecr():
    from qiskit import QuantumCircuit
    from qiskit_ibm_runtime import SamplerV2

    brisbane = service().backend("ibm_brisbane")
    ghz = QuantumCircuit(5)
    ghz.h(0)
    for i in range(4):
        ghz.cx(i, i + 1)
    ghz.measure_all()
    circuit = isa(ghz, brisbane)
    assert "ecr" in circuit.count_ops(), circuit.count_ops()
    counts = SamplerV2(mode=brisbane).run([circuit], shots=2000).result()[0].data.meas.get_counts()
    assert set(counts) == {"00000", "11111"}, counts
    assert within(counts["11111"], 2000, 0.5), counts


@check
def sampler_binds_parameter_values_in_the_clients_shape():
    from qiskit import QuantumCircuit
    from qiskit.circuit import Parameter
    from qiskit_ibm_runtime import SamplerV2

    theta, phi = Parameter("θ"), Parameter("phi")
    qc = QuantumCircuit(2)
    qc.ry(theta, 0)
    qc.rx(phi, 1)
    qc.measure_all()
    circuit = isa(qc)
    values = np.array([[0.3, 1.2], [2.0, 0.5], [1.0, 2.5]])  # rows of (phi, θ): Qiskit's order
    assert [str(p) for p in circuit.parameters] == ["phi", "θ"], circuit.parameters
    shots = 3000
    result = SamplerV2(mode=fez()).run([(circuit, values)], shots=shots).result()[0]
    assert result.data.meas.shape == (3,), result.data.meas.shape
    for row, (phi_value, theta_value) in enumerate(values):
        counts = result.data.meas[row].get_counts()
        q0 = sum(n for bits, n in counts.items() if bits[-1] == "1")
        q1 = sum(n for bits, n in counts.items() if bits[-2] == "1")
        assert within(q0, shots, math.sin(theta_value / 2) ** 2), (row, counts)
        assert within(q1, shots, math.sin(phi_value / 2) ** 2), (row, counts)


@check
def sampler_runs_dynamic_circuits_with_two_registers():
    from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister
    from qiskit_ibm_runtime import SamplerV2

    q, c, d = QuantumRegister(2, "q"), ClassicalRegister(1, "c"), ClassicalRegister(2, "d")
    qc = QuantumCircuit(q, c, d)
    qc.h(0)
    qc.measure(0, c[0])
    with qc.if_test((c[0], 1)) as otherwise:
        qc.x(1)
    with otherwise:
        qc.id(1)
    qc.reset(0)
    qc.measure(0, d[0])
    qc.measure(1, d[1])
    shots = 2000
    data = SamplerV2(mode=fez()).run([isa(qc)], shots=shots).result()[0].data
    first, last = data.c.get_bitstrings(), data.d.get_bitstrings()
    assert all(b[0] == a and b[1] == "0" for a, b in zip(first, last)), "d = (c, 0) in every shot"
    assert within(sum(a == "1" for a in first), shots, 0.5), data.c.get_counts()


@check
def estimator_gives_exact_expectation_values_and_broadcasts():
    from qiskit import QuantumCircuit
    from qiskit.circuit import Parameter
    from qiskit.quantum_info import SparsePauliOp, Statevector
    from qiskit_ibm_runtime import EstimatorV2

    theta = Parameter("θ")
    qc = QuantumCircuit(3)
    qc.ry(theta, 0)
    qc.cx(0, 1)
    qc.rx(0.7, 2)
    qc.cz(1, 2)
    circuit = isa(qc)
    observables = [SparsePauliOp(["ZZI", "IXY"], [1.0, -0.5]), SparsePauliOp(["XXX", "IIZ", "III"], [0.25, 2.0, 0.1])]
    values = np.array([[0.4], [1.3], [2.9]])
    mapped = [[o.apply_layout(circuit.layout)] for o in observables]  # shape (2, 1)
    result = EstimatorV2(mode=fez()).run([(circuit, mapped, values)]).result()[0]
    assert result.data.evs.shape == (2, 3), result.data.evs.shape
    for i, observable in enumerate(observables):
        for j, (value,) in enumerate(values):
            exact = Statevector(qc.assign_parameters([value])).expectation_value(observable).real
            assert abs(result.data.evs[i, j] - exact) < 1e-9, (i, j, result.data.evs[i, j], exact)
    assert np.all(result.data.stds == 0), result.data.stds
    assert result.metadata["target_precision"] == 0.015625, result.metadata


@check
def options_the_stand_in_does_not_apply_are_reported_as_ignored():
    from qiskit_ibm_runtime import SamplerV2

    sampler = SamplerV2(mode=fez())
    sampler.options.dynamical_decoupling.enable = True
    sampler.options.dynamical_decoupling.sequence_type = "XY4"
    sampler.options.twirling.enable_gates = True
    sampler.options.default_shots = 321
    result = sampler.run([isa(bell())]).result()
    ignored = result.metadata["stand_in"]["ignored_options"]
    assert {"dynamical_decoupling.enable", "dynamical_decoupling.sequence_type", "twirling.enable_gates"} <= set(ignored), ignored
    assert "default_shots" not in ignored and result[0].data.meas.num_shots == 321, (ignored, result[0].data.meas.num_shots)


@check
def seed_simulator_makes_jobs_repeatable():
    from qiskit_ibm_runtime import SamplerV2

    def run():
        sampler = SamplerV2(mode=fez())
        sampler.options.simulator.seed_simulator = 42
        return sampler.run([isa(bell())], shots=500).result()[0].data.meas.get_bitstrings()

    assert run() == run()


@check
def a_circuit_the_stand_in_cannot_read_is_refused_with_the_reason():
    from qiskit import QuantumCircuit
    from qiskit_ibm_runtime import SamplerV2

    qc = QuantumCircuit(1, 1)
    with qc.for_loop(range(2)):
        qc.x(0)
    qc.measure(0, 0)
    try:
        SamplerV2(mode=fez()).run([isa(qc)], shots=10).result()
    except Exception as error:
        message = str(error)
        assert "400" in message and "pub 0: its QPY circuit: instruction 0 (`ForLoopOp`)" in message, message
        assert "control flow `ForLoopOp` is not supported" in message, message
    else:
        raise AssertionError("a for loop ran")


if __name__ == "__main__":
    sys.exit(checklist.run())

"""Qiskit and Cirq conversions, and reading simulator results as a board through a sidecar.

A board circuit keeps every mid-game measurement as a deferred one: no later gate touches a
measured qubit. So its statevector without measurements, restricted to the runs whose
deferred measurements read the recorded outcomes (`sidecar["postselect"]`), gives the board:
square `s` is occupied when its qubit (`sidecar["squares"][s]`) reads 1, or, without a qubit,
when bit `s` of `sidecar["classical"]` is set.
"""

from __future__ import annotations

from typing import Any

from ._board import SQUARES


def _without_measurements(circuit: Any) -> Any:
    stripped = circuit.copy_empty_like()
    for instruction in circuit.data:
        if instruction.operation.name not in ("measure", "barrier"):
            stripped.append(instruction)
    return stripped


def to_qiskit(qasm2: str, sidecar: dict, measurements: bool = True) -> Any:
    """A `qiskit.QuantumCircuit` from our OpenQASM 2, the sidecar in `metadata["qchess"]`."""
    try:
        import qiskit.qasm2
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("to_qiskit needs qiskit: pip install 'qchess[qiskit]'") from error
    circuit = qiskit.qasm2.loads(qasm2)
    if not measurements:
        circuit = _without_measurements(circuit)
    circuit.metadata = {"qchess": sidecar}
    return circuit


def to_cirq(qasm2: str, measurements: bool = True) -> Any:
    """A `cirq.Circuit` from our OpenQASM 2, qubit `q[i]` as `cirq.LineQubit(i)`."""
    try:
        import cirq
        from cirq.contrib.qasm_import import circuit_from_qasm
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("to_cirq needs cirq: pip install 'qchess[cirq]'") from error
    circuit = circuit_from_qasm(qasm2)
    if not measurements:
        circuit = cirq.Circuit(op for op in circuit.all_operations() if not cirq.is_measurement(op))
    qubits = sorted(circuit.all_qubits(), key=lambda q: int(str(q).split("_")[-1]))
    mapping = {q: cirq.LineQubit(int(str(q).split("_")[-1])) for q in qubits}
    return circuit.transform_qubits(lambda q: mapping[q])


def board_probabilities(probabilities: Any, sidecar: dict, little_endian: bool = True) -> dict[str, float]:
    """Every square's occupancy probability from the outcome probabilities of a board circuit.

    `probabilities` has one entry per basis state of all the circuit's qubits (|amplitude|^2 of
    a statevector); `little_endian` says qubit i is bit i of the index (Qiskit), otherwise
    qubit 0 is the most significant bit (Cirq with `LineQubit` order).
    """
    import numpy as np

    vector = np.asarray(probabilities, dtype=float)
    qubits = int(round(np.log2(len(vector)))) if len(vector) > 1 else 0
    if 1 << qubits != len(vector):
        raise ValueError(f"{len(vector)} probabilities is not a power of two")
    tensor = vector.reshape([2] * qubits) if qubits else vector.reshape(())

    def axis(qubit: int) -> int:
        if qubit >= qubits:
            raise ValueError(f"the sidecar names qubit {qubit} but the circuit has {qubits}")
        return qubits - 1 - qubit if little_endian else qubit

    selection: list[Any] = [slice(None)] * qubits
    for entry in sidecar["postselect"]:
        value = int(entry["value"])
        selection[axis(int(entry["qubit"]))] = slice(value, value + 1)
    kept = tensor[tuple(selection)]
    total = float(kept.sum())
    if total <= 0:
        raise ValueError("the post-selected outcomes have probability 0")
    square_axes = {axis(int(qubit)): name for name, qubit in sidecar["squares"].items()}
    result = {}
    for index, name in enumerate(SQUARES):
        occupied = [a for a, n in square_axes.items() if n == name]
        if occupied:
            result[name] = float(kept.take([1], axis=occupied[0]).sum()) / total
        else:
            result[name] = float((int(sidecar["classical"]) >> index) & 1)
    return result


def probability_array(source: Any) -> Any:
    """The 64 probabilities of a `Game` or `Board` (or a dict by square) as a numpy array,
    a1 = index 0."""
    import numpy as np

    if hasattr(source, "probability_list"):
        return np.asarray(source.probability_list(), dtype=float)
    return np.asarray([float(source[sq]) for sq in SQUARES], dtype=float)

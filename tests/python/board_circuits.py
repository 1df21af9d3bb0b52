"""Reading the board circuits `qchess compile` writes, independently of qchess: load the file in
Qiskit (OpenQASM 2 or 3, or IonQ JSON through the QIS gate meanings), drop the deferred
measurements (checking that no later gate touches a measured qubit), take qiskit-aer's exact
statevector, keep the part that satisfies the sidecar's post-selections and read every square
from its qubit or from the sidecar's classical occupancy."""

import numpy as np
import qiskit.qasm2
import qiskit.qasm3
from qiskit import QuantumCircuit, transpile
from qiskit.circuit.library import (
    HGate,
    RXGate,
    RXXGate,
    RYGate,
    RYYGate,
    RZGate,
    RZZGate,
    SdgGate,
    SGate,
    SwapGate,
    SXdgGate,
    SXGate,
    TdgGate,
    TGate,
    XGate,
    YGate,
    ZGate,
)
from qiskit_aer import AerSimulator

SQUARES = [file + rank for rank in "12345678" for file in "abcdefgh"]

# Statevectors above this many qubits would not fit comfortably in memory.
MAX_QUBITS = 26


def load(text: str, kind: str) -> QuantumCircuit:
    """A circuit from OpenQASM 2 (`qasm2`), OpenQASM 3 (`qasm3`) or IonQ JSON (`ionq-json`, a dict)."""
    if kind == "qasm2":
        return qiskit.qasm2.loads(text)
    if kind == "qasm3":
        return qiskit.qasm3.loads(text)
    if kind == "ionq-json":
        return ionq_circuit(text)
    raise ValueError(f"unknown kind {kind}")


def ionq_circuit(data: dict) -> QuantumCircuit:
    """An `ionq.circuit.v1` QIS circuit with IonQ's gate meanings: `v` = sqrt(X), `si` = S†,
    `xx`/`yy`/`zz` = exp(-i rotation/2 P⊗P), controls active on |1>."""
    if data.get("gateset") != "qis":
        raise AssertionError(f"gate set {data.get('gateset')!r} is not qis")
    fixed = {
        "x": XGate, "not": XGate, "cnot": XGate, "y": YGate, "z": ZGate, "h": HGate,
        "s": SGate, "si": SdgGate, "t": TGate, "ti": TdgGate, "v": SXGate, "vi": SXdgGate, "swap": SwapGate,
    }
    rotations = {"rx": RXGate, "ry": RYGate, "rz": RZGate, "xx": RXXGate, "yy": RYYGate, "zz": RZZGate}
    qc = QuantumCircuit(data["qubits"])
    for gate in data["circuit"]:
        name = gate["gate"]
        targets = list(gate.get("targets", [])) + ([gate["target"]] if "target" in gate else [])
        controls = list(gate.get("controls", [])) + ([gate["control"]] if "control" in gate else [])
        if name in fixed:
            operation = fixed[name]()
        elif name in rotations:
            operation = rotations[name](float(gate["rotation"]))
        else:
            raise AssertionError(f"unknown QIS gate {name!r}")
        if controls:
            operation = operation.control(len(controls))
        qc.append(operation, controls + targets)
    return qc


def without_measurements(qc: QuantumCircuit) -> QuantumCircuit:
    """The gates of `qc` on its qubits, measurements dropped. A gate on a qubit measured before
    it, a condition or a reset would make that wrong, so each is an error."""
    out = QuantumCircuit(qc.num_qubits)
    measured: set[int] = set()
    for instruction in qc.data:
        operation = instruction.operation
        qubits = [qc.find_bit(q).index for q in instruction.qubits]
        if operation.name == "measure":
            measured.update(qubits)
            continue
        if operation.name == "barrier":
            continue
        if operation.name == "reset" or getattr(operation, "condition", None) is not None:
            raise AssertionError(f"{operation.name}: board circuits have no resets or conditions")
        touched = measured.intersection(qubits)
        if touched:
            raise AssertionError(f"{operation.name} touches qubit(s) {sorted(touched)} after measuring them")
        out.append(operation, qubits)
    return out


def statevector(qc: QuantumCircuit) -> np.ndarray:
    """qiskit-aer's exact final statevector (qubit i = bit i of the index)."""
    if qc.num_qubits > MAX_QUBITS:
        raise AssertionError(f"{qc.num_qubits} qubits is more than this check simulates ({MAX_QUBITS})")
    if qc.num_qubits == 0:
        # A fully classical board: nothing to simulate (aer refuses empty circuits).
        return np.ones(1, dtype=complex)
    simulator = AerSimulator(method="statevector")
    circuit = qc.copy()
    circuit.save_statevector()
    result = simulator.run(transpile(circuit, simulator, optimization_level=0)).result()
    return np.asarray(result.get_statevector())


class Board:
    """What a simulated circuit says about the board, read through its sidecar."""

    def __init__(self, state: np.ndarray, qubits: int, sidecar: dict):
        self.qubits = qubits
        tensor = (np.abs(state) ** 2).reshape([2] * qubits)
        # Axis k of the tensor is qubit qubits-1-k; a post-selection keeps one slice of its axis.
        selection = [slice(None)] * qubits
        for entry in sidecar["postselect"]:
            axis = qubits - 1 - entry["qubit"]
            selection[axis] = slice(entry["value"], entry["value"] + 1)
        kept = tensor[tuple(selection)]
        #: The probability of the post-selected outcomes.
        self.kept = float(kept.sum())
        if self.kept <= 0:
            raise AssertionError("the post-selected outcomes have probability 0")
        square_axes = {qubits - 1 - qubit: name for name, qubit in sidecar["squares"].items()}
        other_axes = tuple(axis for axis in range(qubits) if axis not in square_axes)
        # Over the square qubits only, their axes in increasing order.
        self._marginal = kept.sum(axis=other_axes) / self.kept
        self._square_order = [square_axes[axis] for axis in sorted(square_axes)]
        self._classical = sidecar["classical"]

    def probabilities(self) -> dict[str, float]:
        """Every square's occupancy probability."""
        result = {}
        for index, name in enumerate(SQUARES):
            if name in self._square_order:
                axis = self._square_order.index(name)
                result[name] = float(self._marginal.take(1, axis=axis).sum())
            else:
                result[name] = float((self._classical >> index) & 1)
        return result

    def distribution(self, floor: float = 1e-14) -> dict[int, float]:
        """The probability of every board (u64, a1 = bit 0) above `floor`."""
        if self._marginal.ndim == 0:
            # No square has a qubit: the board is classical.
            return {self._classical: float(self._marginal)}
        bits = [1 << SQUARES.index(name) for name in self._square_order]
        boards: dict[int, float] = {}
        for index in zip(*np.nonzero(self._marginal > floor)):
            board = self._classical
            for bit, value in zip(bits, index):
                if value:
                    board |= bit
            boards[board] = boards.get(board, 0.0) + float(self._marginal[index])
        return boards


def simulate(text_or_json, kind: str, sidecar: dict) -> Board:
    """Loads a circuit, simulates it exactly in aer and reads it as a board."""
    qc = without_measurements(load(text_or_json, kind))
    return Board(statevector(qc), qc.num_qubits, sidecar)


def max_difference(ours: dict[str, float], theirs: dict[str, float]) -> tuple[float, str]:
    """The largest |difference| over the 64 squares and the square where it is."""
    return max((abs(ours[sq] - theirs[sq]), sq) for sq in SQUARES)


def distribution_difference(ours: dict[int, float], theirs: dict[int, float]) -> float:
    """The largest |difference| of two board distributions (a board missing from one has 0)."""
    return max((abs(ours.get(b, 0.0) - theirs.get(b, 0.0)) for b in set(ours) | set(theirs)), default=0.0)


def boards_of(board_json: dict) -> dict[int, float]:
    """`qchess board --json`'s "boards" as {bitboard: probability}."""
    return {entry["bitboard"]: entry["probability"] for entry in board_json["boards"]}


def outcome_product(moves: list[dict]) -> float:
    """The probability of every recorded outcome, one after the other."""
    product = 1.0
    for move in moves:
        if move.get("outcome_probability") is not None:
            product *= move["outcome_probability"]
    return product


def compare(report, label: str, circuit, fmt: str, sidecar: dict, probabilities: dict,
            boards: dict | None, product: float | None, tolerance: float = 1e-9) -> None:
    """One exported circuit, simulated in aer and post-selected, against our simulator's
    per-square probabilities and, when given, its board distribution and the probability of the
    recorded outcomes; the result is one check in `report`."""
    try:
        simulated = simulate(circuit, fmt, sidecar)
    except Exception as error:  # noqa: BLE001 - any loader or simulator failure is a finding
        report.check(label, False, f"{type(error).__name__}: {error}")
        return
    error, square = max_difference(simulated.probabilities(), probabilities)
    ok = error < tolerance
    detail = f"{simulated.qubits} qubits, max |dp| = {error:.1e} ({square})"
    if boards is not None:
        board_error = distribution_difference(simulated.distribution(), boards)
        ok = ok and board_error < tolerance
        detail += f", boards max |dp| = {board_error:.1e}"
    if product is not None:
        ok = ok and abs(simulated.kept - product) < tolerance
        detail += f", P(postselect) = {simulated.kept:.6f} vs {product:.6f}"
    report.check(label, ok, detail)

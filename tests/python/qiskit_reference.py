"""Circuits and their exact distributions from Qiskit and qiskit-aer, shared by the simulator
cross-checks (check_sim.py on OpenQASM 2, check_qasm3.py on OpenQASM 3): GHZ states, QFTs of
random product states, random circuits over Qiskit's standard gates, aer's exact probabilities,
and the check of `qchess sim --exact` against them."""

from pathlib import Path

import numpy as np
from qiskit import QuantumCircuit, transpile
from qiskit.circuit.library import QFTGate
from qiskit_aer import AerSimulator

from qchess_helpers import Report, probabilities_vector, run_qchess

TOLERANCE = 1e-9


def ghz(n: int) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.h(0)
    for i in range(n - 1):
        qc.cx(i, i + 1)
    return qc


def qft(n: int, seed: int) -> QuantumCircuit:
    """QFT of a product state with random rotations (so the output is not uniform)."""
    rng = np.random.default_rng(seed)
    qc = QuantumCircuit(n)
    for q in range(n):
        qc.ry(rng.uniform(0, np.pi), q)
        qc.rz(rng.uniform(0, 2 * np.pi), q)
    qc.append(QFTGate(n), range(n))
    return qc


ONE_QUBIT = ["h", "x", "y", "z", "s", "sdg", "t", "tdg", "sx", "sxdg", "rx", "ry", "rz", "p", "u"]
TWO_QUBIT = ["cx", "cy", "cz", "ch", "swap", "crx", "cry", "crz", "cp", "rzz", "rxx", "ryy", "iswap", "cu", "csx"]


def random_circuit(n: int, gates: int, seed: int) -> QuantumCircuit:
    """Random one- and two-qubit gates from Qiskit's standard library."""
    rng = np.random.default_rng(seed)
    qc = QuantumCircuit(n)
    angle = lambda: float(rng.uniform(-2 * np.pi, 2 * np.pi))
    for _ in range(gates):
        if n == 1 or rng.random() < 0.5:
            name = ONE_QUBIT[rng.integers(len(ONE_QUBIT))]
            q = int(rng.integers(n))
            if name in ("rx", "ry", "rz", "p"):
                getattr(qc, name)(angle(), q)
            elif name == "u":
                qc.u(angle(), angle(), angle(), q)
            else:
                getattr(qc, name)(q)
        else:
            name = TWO_QUBIT[rng.integers(len(TWO_QUBIT))]
            a, b = (int(x) for x in rng.choice(n, 2, replace=False))
            if name in ("crx", "cry", "crz", "cp", "rzz", "rxx", "ryy"):
                getattr(qc, name)(angle(), a, b)
            elif name == "cu":
                qc.cu(angle(), angle(), angle(), angle(), a, b)
            else:
                getattr(qc, name)(a, b)
    return qc


def aer_probabilities(qc: QuantumCircuit) -> np.ndarray:
    simulator = AerSimulator(method="statevector")
    circuit = qc.copy()
    circuit.save_statevector()
    state = simulator.run(transpile(circuit, simulator, optimization_level=0)).result().get_statevector()
    return np.abs(np.asarray(state)) ** 2


def check_exact(report: Report, name: str, qc: QuantumCircuit, path: Path) -> np.ndarray:
    """`qchess sim --exact` on `qc` as written at `path` against aer's probabilities, which it
    returns for the checks that follow."""
    expected = aer_probabilities(qc)
    try:
        exact = run_qchess("sim", str(path), "--exact")
        ours = probabilities_vector(exact["probabilities"], exact["qubits"])
        error = float(np.max(np.abs(ours - expected)))
        report.check(f"exact   {name}", exact["qubits"] == qc.num_qubits and error < TOLERANCE, f"max |dp| = {error:.2e}")
    except AssertionError as failure:
        report.check(f"exact   {name}", False, str(failure))
    return expected

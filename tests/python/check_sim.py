"""`qchess sim` against qiskit-aer on general circuits written by Qiskit's own OpenQASM 2 exporter:
exact probabilities to 1e-9 against aer's statevector, and sampled counts by a chi-squared test
against the exact distribution (fixed seeds, p > 1e-6)."""

import sys
import tempfile
from pathlib import Path

import numpy as np
import qiskit
import qiskit.qasm2
from qiskit import QuantumCircuit, transpile
from qiskit.circuit.library import QFTGate
from qiskit_aer import AerSimulator

from qchess_helpers import Report, goodness_of_fit, probabilities_vector, run_qchess

TOLERANCE = 1e-9
SHOTS = 4000


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


def feed_forward() -> tuple[str, int]:
    """Mid-circuit measurement, a classical condition and a reset, written by hand (Qiskit's
    exporter does not write `if`), with its final qubits measured into a second register."""
    return (
        'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[3];\ncreg m[1];\ncreg out[3];\n'
        "ry(1.1) q[0];\nh q[2];\nmeasure q[0] -> m[0];\nif (m == 1) x q[1];\ncx q[2], q[0];\n"
        "reset q[2];\nry(0.4) q[2];\nmeasure q[0] -> out[0];\nmeasure q[1] -> out[1];\nmeasure q[2] -> out[2];\n",
        3,
    )


def main() -> int:
    return run().finish()


def run() -> Report:
    report = Report("check_sim")
    circuits = [("ghz_3", ghz(3)), ("ghz_10", ghz(10)), ("ghz_20", ghz(20)), ("qft_5", qft(5, 1)), ("qft_12", qft(12, 2))]
    for n, gates, seed in [(1, 20, 3), (2, 30, 4), (3, 40, 5), (5, 60, 6), (8, 80, 7), (12, 120, 8), (16, 100, 9), (20, 60, 10)]:
        circuits.append((f"random_{n}q_{seed}", random_circuit(n, gates, seed)))

    with tempfile.TemporaryDirectory() as tmp:
        for name, qc in circuits:
            path = Path(tmp) / f"{name}.qasm"
            path.write_text(qiskit.qasm2.dumps(qc))
            expected = check_exact(report, name, qc, path)

            if qc.num_qubits <= 12:
                measured = qc.copy()
                measured.measure_all()
                sampled_path = Path(tmp) / f"{name}_measured.qasm"
                sampled_path.write_text(qiskit.qasm2.dumps(measured))
                for seed in (1, 2):
                    try:
                        result = run_qchess("sim", str(sampled_path), "--shots", str(SHOTS), "--seed", str(seed))
                        p = goodness_of_fit(result["counts"], expected, SHOTS)
                        report.check(f"sampled {name} seed {seed}", p > 1e-6, f"p = {p:.3g}")
                    except AssertionError as failure:
                        report.check(f"sampled {name} seed {seed}", False, str(failure))

        # Feed-forward: our exact branching distribution against aer's sampling of the same file.
        text, qubits = feed_forward()
        path = Path(tmp) / "feed_forward.qasm"
        path.write_text(text)
        exact = run_qchess("sim", str(path), "--exact")
        ours = probabilities_vector(exact["probabilities"], qubits)
        aer = AerSimulator(method="statevector", seed_simulator=17)
        counts = aer.run(transpile(qiskit.qasm2.loads(text), aer), shots=20000).result().get_counts()
        # Qiskit keys: registers separated by spaces, last register leftmost: "out m".
        out_counts: dict[str, int] = {}
        for key, n in counts.items():
            out_bits = key.split()[0]
            out_counts[str(int(out_bits, 2))] = out_counts.get(str(int(out_bits, 2)), 0) + n
        p = goodness_of_fit(out_counts, ours, 20000)
        report.check("exact   feed_forward vs aer shots", p > 1e-6, f"p = {p:.3g}")
        for seed in (3, 4):
            result = run_qchess("sim", str(path), "--shots", str(SHOTS), "--seed", str(seed))
            # Our keys cover every classical bit: m is bit 0, out is bits 1..3.
            ours_out: dict[str, int] = {}
            for key, n in result["counts"].items():
                out = str(int(key) >> 1)
                ours_out[out] = ours_out.get(out, 0) + n
            p = goodness_of_fit(ours_out, ours, SHOTS)
            report.check(f"sampled feed_forward seed {seed}", p > 1e-6, f"p = {p:.3g}")
    return report


if __name__ == "__main__":
    sys.exit(main())

"""`qchess sim` against qiskit-aer on general circuits written by Qiskit's own OpenQASM 2 exporter:
exact probabilities to 1e-9 against aer's statevector, and sampled counts by a chi-squared test
against the exact distribution (fixed seeds, p > 1e-6)."""

import sys
import tempfile
from pathlib import Path

import qiskit.qasm2
from qiskit import transpile
from qiskit_aer import AerSimulator

from qchess_helpers import Report, check_sampled, goodness_of_fit, probabilities_vector, run_qchess
from qiskit_reference import check_exact, ghz, qft, random_circuit

SHOTS = 4000


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
                    check_sampled(report, f"sampled {name} seed {seed}", sampled_path, expected, SHOTS, seed)

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
            # Our keys cover every classical bit: m is bit 0, out is bits 1..3.
            check_sampled(report, f"sampled feed_forward seed {seed}", path, ours, SHOTS, seed, lambda key: int(key) >> 1)
    return report


if __name__ == "__main__":
    sys.exit(main())

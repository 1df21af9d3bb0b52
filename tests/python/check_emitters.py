"""Our OpenQASM 2.0 and 3.0 emitters against Qiskit: every exported circuit (every gate kind
under 0 to 3 mixed controls and anti-controls, the move compiler's shapes, wide multi-controlled
X) must load with `qiskit.qasm2.loads` / `qiskit.qasm3.loads` and have the unitary our dense
simulator computed: up to global phase for OpenQASM 2 (which cannot control a defined gate),
exactly for OpenQASM 3 (where `ctrl @` makes a definition's phase observable).

Usage: check_emitters.py DIR   (DIR written by `cargo run -p qchess-qasm --example export_circuits`)
"""

import json
import sys
from pathlib import Path

import numpy as np
import qiskit.qasm2
import qiskit.qasm3
from qiskit.quantum_info import Operator

from qchess_helpers import Report

TOLERANCE = 1e-9


def load_unitary(path: Path) -> np.ndarray:
    data = json.loads(path.read_text())
    rows = np.array(data["unitary"], dtype=float)
    return rows[..., 0] + 1j * rows[..., 1]


def distance_up_to_phase(actual: np.ndarray, expected: np.ndarray) -> float:
    pivot = np.unravel_index(np.argmax(np.abs(expected)), expected.shape)
    phase = actual[pivot] / expected[pivot]
    phase /= abs(phase)
    return float(np.max(np.abs(actual - phase * expected)))


def main() -> int:
    return run(Path(sys.argv[1])).finish()


def run(directory: Path) -> Report:
    names = json.loads((directory / "index.json").read_text())
    report = Report("check_emitters")
    for name in names:
        expected = load_unitary(directory / f"{name}.json")
        for version, loads, exact in (("qasm2", qiskit.qasm2.loads, False), ("qasm3", qiskit.qasm3.loads, True)):
            text = (directory / f"{name}.{version}").read_text()
            try:
                actual = Operator(loads(text)).data
            except Exception as error:  # noqa: BLE001 - any loader failure is a finding
                report.check(f"{version} {name}", False, f"does not load: {type(error).__name__}: {error}")
                continue
            if actual.shape != expected.shape:
                report.check(f"{version} {name}", False, f"shape {actual.shape} != {expected.shape}")
                continue
            error = float(np.max(np.abs(actual - expected))) if exact else distance_up_to_phase(actual, expected)
            kind = "exact" if exact else "up to phase"
            report.check(f"{version} {name}", error < TOLERANCE, f"{kind} max |dU| = {error:.1e}")
    return report


if __name__ == "__main__":
    sys.exit(main())

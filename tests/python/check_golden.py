"""The golden circuits in circuits/ against Qiskit and qiskit-aer: every case of
circuits/manifest.json must load with `qiskit.qasm2.loads` (NAME.qasm) and `qiskit.qasm3.loads`
(NAME.qasm3), and its post-selected aer statevector, read through the sidecar NAME.json, must
give the per-square probabilities and the distribution over boards that `qchess board --json`
gives for the case's setup (to 1e-9).
The probability of the post-selected outcomes must equal the product of the recorded outcomes'
probabilities, and the sidecar's setup must rebuild the same board."""

import json
import sys

from board_circuits import boards_of, compare, max_difference, outcome_product
from qchess_helpers import REPO, Report, run_qchess

TOLERANCE = 1e-9
CIRCUITS = REPO / "circuits"


def main() -> int:
    return run().finish()


def run() -> Report:
    report = Report("check_golden")
    cases = json.loads((CIRCUITS / "manifest.json").read_text())
    for case in cases:
        name = case["name"]
        try:
            sidecar = json.loads((CIRCUITS / f"{name}.json").read_text())
            board = run_qchess("board", "--init", case["init"], "--moves", case["moves"])
            setup = sidecar["setup"]
            replay = run_qchess("board", "--init", str(setup["init"]), "--moves", setup["moves"])
        except (AssertionError, OSError, KeyError, ValueError) as failure:
            report.check(f"golden  {name}", False, str(failure))
            continue
        expected = board["square_probabilities"]
        replayed, _ = max_difference(replay["square_probabilities"], expected)
        report.check(f"setup   {name}", replayed == 0.0, f"sidecar setup replays the board, max |dp| = {replayed:.1e}")
        product = outcome_product(board["moves"])
        for kind, suffix in (("qasm2", "qasm"), ("qasm3", "qasm3")):
            label = f"{kind}   {name}"
            text = (CIRCUITS / f"{name}.{suffix}").read_text()
            if not text.startswith(f"// {name}: "):
                report.check(label, False, "the file does not start with its one-line description")
                continue
            compare(report, label, text, kind, sidecar, expected, boards_of(board), product, TOLERANCE)
    return report


if __name__ == "__main__":
    sys.exit(main())

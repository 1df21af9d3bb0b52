"""The golden circuits in circuits/ against Qiskit and qiskit-aer: every case of
circuits/manifest.json must load with `qiskit.qasm2.loads` (NAME.qasm) and `qiskit.qasm3.loads`
(NAME.qasm3), and its post-selected aer statevector, read through the sidecar NAME.json, must
give the per-square probabilities and the distribution over boards that `qchess board --json`
gives for the case's setup (to 1e-9).
The probability of the post-selected outcomes must equal the product of the recorded outcomes'
probabilities, and the sidecar's setup must rebuild the same board."""

import json
import sys

from board_circuits import boards_of, distribution_difference, max_difference, simulate
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
        product = 1.0
        for move in board["moves"]:
            if move["outcome_probability"] is not None:
                product *= move["outcome_probability"]
        for kind, suffix in (("qasm2", "qasm"), ("qasm3", "qasm3")):
            label = f"{kind}   {name}"
            text = (CIRCUITS / f"{name}.{suffix}").read_text()
            if not text.startswith(f"// {name}: "):
                report.check(label, False, "the file does not start with its one-line description")
                continue
            try:
                simulated = simulate(text, kind, sidecar)
            except Exception as error:  # noqa: BLE001 - any loader or simulator failure is a finding
                report.check(label, False, f"{type(error).__name__}: {error}")
                continue
            error, square = max_difference(simulated.probabilities(), expected)
            boards = distribution_difference(simulated.distribution(), boards_of(board))
            ok = error < TOLERANCE and boards < TOLERANCE and abs(simulated.kept - product) < TOLERANCE
            detail = (
                f"{simulated.qubits} qubits, max |dp| = {error:.1e} ({square}), boards max |dp| = {boards:.1e}, "
                f"P(postselect) = {simulated.kept:.6f} vs {product:.6f}"
            )
            report.check(label, ok, detail)
    return report


if __name__ == "__main__":
    sys.exit(main())

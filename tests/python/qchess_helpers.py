"""Shared helpers of the Python cross-checks: running the qchess binary, comparing
distributions, and the chi-squared goodness-of-fit test."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from scipy.stats import chi2

REPO = Path(__file__).resolve().parents[2]


def qchess_binary() -> str:
    """The qchess binary: $QCHESS, else target/debug/qchess under $CARGO_TARGET_DIR or the repo."""
    if os.environ.get("QCHESS"):
        return os.environ["QCHESS"]
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return str(target / "debug" / "qchess")


def run_qchess(*args: str) -> dict:
    """Runs qchess with --json and returns the parsed output; fails loudly on a non-zero exit."""
    result = subprocess.run([qchess_binary(), *args, "--json"], capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"qchess {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
    return json.loads(result.stdout)


def probabilities_vector(probabilities: dict, qubits: int) -> np.ndarray:
    """qchess's sparse {"k": p} over all qubits as a dense vector."""
    vector = np.zeros(2**qubits)
    for key, p in probabilities.items():
        vector[int(key)] = p
    return vector


def goodness_of_fit(counts: dict, expected: np.ndarray, shots: int) -> float:
    """Pearson's chi-squared test of counts {"k": n} against exact probabilities; cells with an
    expected count below 5 are pooled into one. Returns the p-value."""
    observed = np.zeros(len(expected))
    for key, n in counts.items():
        index = int(key)
        if expected[index] <= 0:
            raise AssertionError(f"outcome {index} was sampled but has probability 0")
        observed[index] = n
    wanted = expected * shots
    small = wanted < 5
    cells_observed = list(observed[~small])
    cells_wanted = list(wanted[~small])
    if small.any() and wanted[small].sum() > 0:
        cells_observed.append(observed[small].sum())
        cells_wanted.append(wanted[small].sum())
    cells_observed = np.array(cells_observed)
    cells_wanted = np.array(cells_wanted)
    statistic = float(((cells_observed - cells_wanted) ** 2 / cells_wanted).sum())
    degrees = max(len(cells_wanted) - 1, 1)
    return float(chi2.sf(statistic, degrees))


def check_sampled(report, label: str, path: Path, expected: np.ndarray, shots: int, seed: int, outcome=int) -> None:
    """`qchess sim --shots` on the circuit at `path` against the exact distribution `expected`
    by the goodness-of-fit test (fixed seed, p > 1e-6), each sampled key read as the outcome
    `outcome(key)` gives; a run that fails is a failed check."""
    try:
        counts: dict[str, int] = {}
        for key, n in run_qchess("sim", str(path), "--shots", str(shots), "--seed", str(seed))["counts"].items():
            counts[str(outcome(key))] = counts.get(str(outcome(key)), 0) + n
        p = goodness_of_fit(counts, expected, shots)
        report.check(label, p > 1e-6, f"p = {p:.3g}")
    except AssertionError as failure:
        report.check(label, False, str(failure))


class Report:
    """Collects pass/fail lines and prints the closing summary."""

    def __init__(self, name: str):
        self.name = name
        self.passed = 0
        self.failures: list[str] = []

    def check(self, label: str, ok: bool, detail: str = "") -> None:
        if ok:
            self.passed += 1
            print(f"ok    {label} {detail}".rstrip())
        else:
            self.failures.append(f"{label}: {detail}")
            print(f"FAIL  {label} {detail}".rstrip())
        sys.stdout.flush()

    def finish(self) -> int:
        print(f"{self.name}: {self.passed} passed, {len(self.failures)} failed")
        for failure in self.failures:
            print(f"  {failure}")
        return 0 if not self.failures else 1

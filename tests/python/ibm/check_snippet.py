"""Runs the notebook/CI snippet of the guide (the Python block after `<!-- ibm snippet -->` in docs/src/ibm.md,
"The local IBM Quantum") as a user would, with the qchess binary given, in a scratch directory,
and checks what it prints: Sampler counts dominated by 000 and 111 with a little device noise,
and a `qchess compare` report of the same circuit that finds the noisy stand-in different from
the exact simulation.

Usage: check_snippet.py QCHESS_BINARY
"""

import ast
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHAPTER = Path(__file__).resolve().parents[3] / "docs" / "src" / "ibm.md"


def snippet() -> str:
    text = CHAPTER.read_text()
    after = text.split("<!-- ibm snippet -->", 1)[1]
    return after.split("```python\n", 1)[1].split("```", 1)[0]


def main() -> int:
    binary = str(Path(sys.argv[1]).resolve())
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "snippet.py"
        script.write_text(snippet())
        run = subprocess.run([sys.executable, str(script)], cwd=scratch, capture_output=True, text=True, timeout=900,
                             env={**os.environ, "QCHESS": binary})
    lines = run.stdout.splitlines()
    try:
        assert run.returncode == 0, f"the snippet exited {run.returncode}:\n{run.stdout}\n{run.stderr}"
        counts = ast.literal_eval(lines[0])
        top = sorted(counts, key=counts.get, reverse=True)[:2]
        assert sorted(top) == ["000", "111"] and sum(counts.values()) == 4000, counts
        assert 0 < sum(n for k, n in counts.items() if k not in ("000", "111")) < 400, f"device noise shows, a little: {counts}"
        assert any(line.startswith("## qchess compare: `local` vs `ibm:ibm_fez") for line in lines), run.stdout
        # The device noise is what the gate sees: exact simulation and the noisy stand-in differ.
        assert "**Verdict: the backends DISAGREE.**" in run.stdout, run.stdout
    except AssertionError as failure:
        print(f"FAIL the_guide_snippet_runs\n{failure}")
        print("0 passed, 1 failed")
        return 1
    print("ok   the_guide_snippet_runs")
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

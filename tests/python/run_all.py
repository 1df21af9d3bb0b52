"""Runs every Python cross-check and prints one closing line.

Usage: run_all.py EMITTED_DIR   (see run_all.sh, which prepares everything)
"""

import sys
from pathlib import Path

import check_dynamic
import check_emitters
import check_golden
import check_qasm3
import check_routing
import check_sequences
import check_sim


def main() -> int:
    reports = [check_sim.run(), check_emitters.run(Path(sys.argv[1])), check_golden.run(), check_qasm3.run(), check_sequences.run(), check_routing.run(), check_dynamic.run()]
    for report in reports:
        report.finish()
    passed = sum(r.passed for r in reports)
    failed = sum(len(r.failures) for r in reports)
    print(f"python: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

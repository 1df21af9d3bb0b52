"""Named checks run one after another, as the third-party client checks run them: each check
is a function registered with @check; run() prints ok/FAIL per check and returns the exit code."""

import time
import traceback

CHECKS = []


def check(function):
    CHECKS.append(function)
    return function


def run():
    passed = failed = 0
    for function in CHECKS:
        started = time.monotonic()
        try:
            function()
        except Exception:
            failed += 1
            print(f"FAIL {function.__name__}")
            traceback.print_exc()
        else:
            passed += 1
            print(f"ok   {function.__name__} ({time.monotonic() - started:.1f} s)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0

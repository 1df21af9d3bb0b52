"""Job status, cancelling and failures as the unmodified qiskit-ibm-runtime client sees them.

Usage: check_jobs.py QUEUED_URL EXPIRED_URL IDEAL_URL
  QUEUED_URL:  a stand-in whose jobs wait in the queue (--queue-delay-ms 600000);
  EXPIRED_URL: one whose job time limit is a microsecond (--time-limit 0.000001), so every job
               runs out of time at its first check (after binding and scheduling its circuit);
  IDEAL_URL:   one that runs jobs at once.
tests/python/ibm/run.sh starts them. Prints 'N passed, M failed'.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import checklist  # noqa: E402
from checklist import check  # noqa: E402

from client import bell, isa, service  # noqa: E402

QUEUED, EXPIRED, IDEAL = (url.rstrip("/") for url in sys.argv[1:4])


def bell_job(base):
    """A Bell pair submitted to the server at `base`."""
    from qiskit_ibm_runtime import SamplerV2

    backend = service(base).backend("ibm_fez")
    return SamplerV2(mode=backend).run([isa(bell(), backend)], shots=100)


@check
def a_queued_job_is_queued_then_cancelled():
    from qiskit_ibm_runtime.exceptions import RuntimeInvalidStateError

    job = bell_job(QUEUED)
    assert job.status() == "QUEUED", job.status()
    job.cancel()
    assert job.status() == "CANCELLED" and job.cancelled(), job.status()
    try:
        job.result()
    except RuntimeInvalidStateError as error:
        assert "cancelled" in str(error), error
    else:
        raise AssertionError("a cancelled job gave results")


@check
def a_finished_job_cannot_be_cancelled():
    from qiskit_ibm_runtime.exceptions import RuntimeInvalidStateError

    job = bell_job(IDEAL)
    job.result()
    assert job.done()
    try:
        job.cancel()
    except RuntimeInvalidStateError as error:
        assert "cannot be cancelled" in str(error), error
    else:
        raise AssertionError("a finished job was cancelled")
    metrics = job.metrics()
    # Its usage is the time it ran: from running to finished.
    assert metrics["timestamps"]["finished"] and 0 < metrics["usage"]["quantum_seconds"] < 60, metrics
    assert job.usage() == metrics["usage"]["quantum_seconds"], (job.usage(), metrics)


@check
def a_job_that_runs_out_of_time_fails_as_the_service_reports_it():
    from qiskit_ibm_runtime.exceptions import RuntimeJobMaxTimeoutError

    job = bell_job(EXPIRED)
    started = time.monotonic()
    try:
        job.result(timeout=120)
    except RuntimeJobMaxTimeoutError as error:
        assert "Ran too long" in str(error) or "time" in str(error).lower(), error
    else:
        raise AssertionError("a job past its time limit gave results")
    assert job.status() == "ERROR", job.status()
    # The client recognises the service's reason code 1305 and words the message itself.
    assert "ran longer than maximum execution time" in (job.error_message() or ""), job.error_message()
    assert time.monotonic() - started < 120


if __name__ == "__main__":
    sys.exit(checklist.run())

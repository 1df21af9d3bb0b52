"""Sessions and batches as the unmodified qiskit-ibm-runtime client drives them, as IBM's
tutorials write them (`with Session(backend=backend) as session`, `Batch`, `Session.from_id`).

Usage: check_sessions.py IDEAL_URL DELAYED_URL QUEUED_URL
  IDEAL_URL:   a stand-in that runs jobs at once;
  DELAYED_URL: one whose jobs wait a moment in the queue (--queue-delay-ms 1500);
  QUEUED_URL:  one whose jobs wait in the queue (--queue-delay-ms 600000).
tests/python/ibm/run.sh starts them. Prints 'N passed, M failed'.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import checklist  # noqa: E402
from checklist import check  # noqa: E402

from client import bell, isa, service, within  # noqa: E402

IDEAL, DELAYED, QUEUED = (url.rstrip("/") for url in sys.argv[1:4])
SHOTS = 400


def fez(base=IDEAL):
    return service(base).backend("ibm_fez")


def sample(mode, backend):
    """A Bell pair sampled in `mode`: the job."""
    from qiskit_ibm_runtime import SamplerV2

    return SamplerV2(mode=mode).run([isa(bell(), backend)], shots=SHOTS)


def assert_bell(job):
    counts = job.result()[0].data.meas.get_counts()
    assert set(counts) <= {"00", "11"} and within(counts.get("11", 0), SHOTS, 0.5), counts


def estimate(mode, backend):
    """<ZZ> and <XX> of a Bell pair (both 1) estimated in `mode`: the values."""
    from qiskit.quantum_info import SparsePauliOp
    from qiskit_ibm_runtime import EstimatorV2

    circuit = bell()
    circuit.remove_final_measurements()
    circuit = isa(circuit, backend)
    observables = [[SparsePauliOp(name).apply_layout(circuit.layout)] for name in ("ZZ", "XX")]
    return EstimatorV2(mode=mode).run([(circuit, observables)]).result()[0].data.evs


def refused(submit, *expected):
    """Runs `submit`, which must be refused with a message holding each of `expected`."""
    try:
        submit()
    except Exception as error:  # the client wraps the service's error in its own types
        assert all(text in str(error) for text in expected), error
        return error
    raise AssertionError(f"not refused; expected {expected}")


@check
def a_session_runs_sampler_and_estimator_jobs_then_closes():
    from qiskit_ibm_runtime import Session

    backend = fez()
    with Session(backend=backend) as session:
        job = sample(session, backend)
        assert_bell(job)
        assert job.session_id == session.session_id, (job.session_id, session.session_id)
        evs = estimate(session, backend)
        assert abs(evs[0][0] - 1) < 1e-9 and abs(evs[1][0] - 1) < 1e-9, evs
        details = session.details()
        assert details["mode"] == "dedicated" and details["backend_name"] == "ibm_fez", details
        assert details["state"] == "active" and details["accepting_jobs"] is True, details
        assert details["started_at"] and details["last_job_completed"] and details["max_time"] == 28800, details
        assert session.status() == "In progress, accepting new jobs", session.status()
    details = session.details()
    assert details["state"] == "closed" and details["accepting_jobs"] is False, details
    assert [step["status"] for step in details["timestamps"]] == ["open", "active", "closed"], details
    assert session.status() == "Closed" and details["usage_time"] > 0, details
    # The client knows its session is closed and refuses on its own.
    refused(lambda: sample(session, backend), "The session is closed")


@check
def a_batch_runs_its_jobs_side_by_side():
    from qiskit_ibm_runtime import Batch

    backend = fez()
    with Batch(backend=backend) as batch:
        jobs = [sample(batch, backend) for _ in range(3)]
        evs = estimate(batch, backend)
        for job in jobs:
            assert_bell(job)
            assert job.session_id == batch.session_id
        assert abs(evs[1][0] - 1) < 1e-9, evs
        assert batch.details()["mode"] == "batch", batch.details()
    assert batch.details()["state"] == "closed", batch.details()


@check
def session_from_id_rejoins_a_session_of_its_mode():
    from qiskit_ibm_runtime import Batch, Session
    from qiskit_ibm_runtime.exceptions import IBMInputValueError

    backend = fez()
    first = Session(backend=backend)
    assert_bell(sample(first, backend))
    again = Session.from_id(first.session_id, service(IDEAL))
    assert again.session_id == first.session_id and again.backend() == "ibm_fez"
    job = sample(again, backend)
    assert_bell(job)
    assert job.session_id == first.session_id
    error = refused(lambda: Batch.from_id(first.session_id, service(IDEAL)), "execution mode dedicated")
    assert isinstance(error, IBMInputValueError), type(error)
    first.close()
    # A closed session rejoined is known closed.
    assert Session.from_id(first.session_id, service(IDEAL)).status() == "Closed"


@check
def a_job_for_a_closed_session_is_refused_by_the_service():
    from qiskit_ibm_runtime import Session

    backend = fez()
    session = Session(backend=backend)
    other = Session.from_id(session.session_id, service(IDEAL))  # still open as far as it knows
    session.close()
    refused(lambda: sample(other, backend), "Failed to run program", "has been closed", "1217")


@check
def a_job_for_an_expired_session_is_refused_by_the_service():
    from qiskit_ibm_runtime import Session

    backend = fez()
    session = Session(backend=backend, max_time=1)
    assert session.details()["max_time"] == 1
    assert_bell(sample(session, backend))  # its clock starts with its first job
    time.sleep(1.2)
    assert session.details()["state"] == "closed", session.details()
    refused(lambda: sample(session, backend), "has been closed", "maximum time to live")


@check
def a_session_runs_its_jobs_ahead_of_others_on_its_device():
    from qiskit_ibm_runtime import Session

    backend = fez(DELAYED)
    session = Session(backend=backend)  # no `with`: inside one, the client puts every job in it
    assert_bell(sample(session, backend))  # active now: the device is the session's
    lone = sample(backend, backend)
    first, second = sample(session, backend), sample(session, backend)
    assert_bell(first)
    assert_bell(second)
    assert lone.status() == "QUEUED" and lone.session_id is None, lone.status()
    session.close()
    assert_bell(lone)  # once the session is closed
    times = [job.metrics()["timestamps"] for job in (first, second, lone)]
    assert times[0]["finished"] <= times[1]["running"], times  # back to back, one at a time
    assert times[1]["finished"] <= times[2]["running"], times


@check
def a_closed_session_finishes_its_queued_jobs():
    from qiskit_ibm_runtime import Session

    backend = fez(DELAYED)
    with Session(backend=backend) as session:
        job = sample(session, backend)
    details = session.details()
    assert job.status() == "QUEUED" and details["accepting_jobs"] is False, (job.status(), details)
    assert details["state"] == "open", details
    assert_bell(job)
    assert session.details()["state"] == "closed", session.details()


@check
def cancelling_a_session_cancels_its_queued_jobs():
    from qiskit_ibm_runtime import Batch

    backend = fez(QUEUED)
    batch = Batch(backend=backend)
    jobs = [sample(batch, backend) for _ in range(2)]
    assert [job.status() for job in jobs] == ["QUEUED", "QUEUED"]
    batch.cancel()
    assert [job.status() for job in jobs] == ["CANCELLED", "CANCELLED"]
    assert batch.details()["state"] == "closed", batch.details()


@check
def unknown_sessions_and_devices_are_refused_with_the_services_errors():
    from qiskit_ibm_runtime import Session
    from qiskit_ibm_runtime.api.exceptions import RequestsApiError
    from qiskit_ibm_runtime.exceptions import IBMInputValueError

    runtime = service(IDEAL)
    backend = runtime.backend("ibm_fez")
    error = refused(lambda: Session.from_id("s0000000000000000000", runtime), "Session not found", "s0000")
    assert isinstance(error, IBMInputValueError), type(error)
    stray = Session(backend=backend, create_new=False)
    stray._session_id = "s0000000000000000000"  # a job naming a session the service never opened
    refused(lambda: sample(stray, backend), "Failed to run program", "Session `s0000000000000000000` not found", "1228")
    client = runtime._get_api_client()
    for args, status, text in [
        (("ibm_nowhere", None, None, "dedicated"), 404, "Backend `ibm_nowhere` not found."),
        (("ibm_fez", None, None, "exclusive"), 400, "mode must be `dedicated` or `batch`, not `exclusive`"),
        (("ibm_fez", None, 99999, "batch"), 400, "max_ttl must be whole seconds from 1 to 28800, not 99999"),
    ]:
        error = refused(lambda: client.create_session(*args), text)
        assert isinstance(error, RequestsApiError) and error.status_code == status, (error, status)


if __name__ == "__main__":
    sys.exit(checklist.run())

"""Jobs and sessions of the IBM stand-in outlive a restart of `qchess serve --db FILE`, as the
unmodified qiskit-ibm-runtime client sees them: `service.job(id)` (status, results, metrics,
logs), `service.jobs(...)` with its filters, `Session.from_id` and `details()`, and
`service.usage()`; a job left queued when the server stopped is failed with the reason.

Usage: check_restart.py QCHESS_BIN
Starts the servers itself, on free ports of 127.0.0.1, one after another on one SQLite file:
  first:  no queue delay; runs a tagged job alone and one in a session, then is killed
          (SIGKILL: what was finished must already be written);
  second: --queue-delay-ms 600000; sees the first's jobs, takes a job that stays queued, then
          is stopped (SIGTERM);
  third:  sees it all again, and the queued job failed with the reason.
Prints 'N passed, M failed'.
"""

import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import checklist  # noqa: E402
from checklist import check  # noqa: E402

from client import bell, isa, service  # noqa: E402

BIN = str(Path(sys.argv[1]).resolve())
SCRATCH = tempfile.TemporaryDirectory()
DB = str(Path(SCRATCH.name) / "kept.db")
RUN = f"run-{uuid.uuid4().hex[:12]}"
SHOTS = 100


class Server:
    """`qchess serve --db DB` with `flags`, on a free port."""

    def __init__(self, *flags):
        self.process = subprocess.Popen(
            [BIN, "serve", "--addr", "127.0.0.1:0", "--api-key", "test", "--seed", "1", "--db", DB, *flags],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("listening on "):
            self.process.kill()
            raise RuntimeError(f"qchess serve did not start: {line}{self.process.stderr.read()}")
        self.url = line.removeprefix("listening on ").strip()

    def stop(self, kill=False):
        if self.process.poll() is None:
            self.process.kill() if kill else self.process.terminate()
        self.process.wait(timeout=60)


def sampler(mode, backend, *tags):
    """A tagged Bell-pair sampler job in `mode`."""
    from qiskit_ibm_runtime import SamplerV2

    sampler = SamplerV2(mode=mode)
    sampler.options.environment.job_tags = [RUN, *tags]
    return sampler.run([isa(bell(), backend)], shots=SHOTS)


def seen(job):
    """What the client sees of a finished job."""
    return {
        "status": job.status(),
        "counts": job.result()[0].data.meas.get_counts(),
        "metrics": job.metrics(),
        "logs": job.logs(),
        "session": job.session_id,
        "tags": job.tags,
        "usage": job.usage(),
    }


SESSION_KEYS = ("id", "backend_name", "mode", "state", "accepting_jobs", "max_time", "started_at", "closed_at",
                "last_job_started", "last_job_completed")


def session_seen(details):
    return {key: details.get(key) for key in SESSION_KEYS}


def first_run():
    """Runs a job alone (tags a) and one in a session (tag b), closes the session, kills the
    server; what the client saw of them."""
    from qiskit_ibm_runtime import Session

    server = Server()
    try:
        runtime = service(server.url)
        fez = runtime.backend("ibm_fez")
        alone = sampler(fez, fez, "a")
        alone.result()
        with Session(backend=fez) as session:
            in_session = sampler(session, fez, "b")
            in_session.result()
        jobs = {"alone": alone.job_id(), "in_session": in_session.job_id()}
        before = {name: seen(runtime.job(job_id)) for name, job_id in jobs.items()}
        details = session_seen(Session.from_id(session.session_id, service=runtime).details())
        usage = runtime.usage()
    finally:
        server.stop(kill=True)
    return jobs, before, session.session_id, details, usage


JOBS, BEFORE, SESSION, DETAILS, USAGE = first_run()
SECOND = Server("--queue-delay-ms", "600000")


def assert_kept(url):
    runtime = service(url)
    for name, job_id in JOBS.items():
        after = seen(runtime.job(job_id))
        assert after == BEFORE[name], (name, BEFORE[name], after)
    return runtime


@check
def a_finished_job_is_found_after_a_kill_with_its_results_metrics_and_logs():
    assert BEFORE["alone"]["status"] == "DONE" and sum(BEFORE["alone"]["counts"].values()) == SHOTS, BEFORE
    assert BEFORE["alone"]["usage"] > 0, "a job that ran used the device"
    assert_kept(SECOND.url)


@check
def job_lists_and_their_filters_see_the_kept_jobs():
    runtime = service(SECOND.url)

    def listed(**filters):
        return [job.job_id() for job in runtime.jobs(job_tags=[RUN], **filters)]

    both = [JOBS["in_session"], JOBS["alone"]]
    assert listed() == both, listed()
    assert listed(descending=False) == both[::-1]
    assert listed(limit=1) == both[:1] and listed(skip=1) == both[1:]
    assert listed(backend_name="ibm_fez") == both and listed(backend_name="ibm_brisbane") == []
    assert listed(program_id="sampler") == both and listed(program_id="estimator") == []
    assert listed(session_id=SESSION) == [JOBS["in_session"]]
    assert listed(pending=False) == both and listed(pending=True) == []
    assert runtime.jobs(job_tags=[RUN, "b"])[0].job_id() == JOBS["in_session"]
    created = runtime.job(JOBS["in_session"]).creation_date
    assert listed(created_after=created) == [JOBS["in_session"]], listed(created_after=created)
    assert listed(created_before=created) == both


@check
def the_session_is_rejoined_and_its_details_are_kept():
    from qiskit_ibm_runtime import Session

    runtime = service(SECOND.url)
    details = Session.from_id(SESSION, service=runtime).details()
    assert session_seen(details) == DETAILS, (DETAILS, details)
    assert DETAILS["state"] == "closed" and DETAILS["accepting_jobs"] is False, DETAILS


@check
def usage_counts_the_seconds_the_jobs_ran_and_outlives_the_restart():
    runtime = service(SECOND.url)
    ran = sum(BEFORE[name]["usage"] for name in JOBS)
    assert abs(USAGE["usage_consumed_seconds"] - ran) < 0.002, (USAGE, ran)
    after = runtime.usage()
    assert after["usage_consumed_seconds"] == USAGE["usage_consumed_seconds"], (USAGE, after)
    assert after["usage_limit_reached"] is False and after["usage_period"]["end_time"], after


@check
def a_job_queued_at_the_stop_is_failed_with_the_reason_after_the_restart():
    runtime = service(SECOND.url)
    fez = runtime.backend("ibm_fez")
    queued = sampler(fez, fez, "queued")
    assert queued.status() == "QUEUED", queued.status()
    SECOND.stop()
    third = Server()
    try:
        failed_after_restart(assert_kept(third.url), queued.job_id())
    finally:
        third.stop()


def failed_after_restart(runtime, queued):
    from qiskit_ibm_runtime.exceptions import RuntimeJobFailureError

    job = runtime.job(queued)
    assert job.status() == "ERROR", job.status()
    message = job.error_message()
    assert "Error code 1010" in message and "restarted while the job was queued" in message, message
    try:
        job.result()
    except RuntimeJobFailureError as failure:
        assert "restarted while the job was queued" in str(failure), failure
    else:
        raise AssertionError("a failed job has no results")
    assert [j.job_id() for j in runtime.jobs(job_tags=[RUN, "queued"])] == [queued]
    assert "Failed: The server restarted while the job was queued" in job.logs(), job.logs()


if __name__ == "__main__":
    try:
        status = checklist.run()
    finally:
        SECOND.stop()
        SCRATCH.cleanup()
    sys.exit(status)

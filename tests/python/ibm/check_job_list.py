"""Job lists as the unmodified qiskit-ibm-runtime client asks for them: `service.jobs(...)` with
each of its filters and its paging, and tags kept with each job.

Usage: check_job_list.py IDEAL_URL QUEUED_URL
  IDEAL_URL:  a stand-in that runs jobs at once;
  QUEUED_URL: one whose jobs wait in the queue (--queue-delay-ms 600000).
Each run tags its jobs with a tag of its own, so jobs of other checks on the same servers are
left out. tests/python/ibm/run.sh starts them. Prints 'N passed, M failed'.
"""

import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import checklist  # noqa: E402
from checklist import check  # noqa: E402

from client import bell, isa, service  # noqa: E402

IDEAL, QUEUED = (url.rstrip("/") for url in sys.argv[1:3])
RUN = f"run-{uuid.uuid4().hex[:12]}"


def submitted():
    """Four finished jobs tagged RUN: a sampler on ibm_fez (tag a), an estimator on ibm_fez
    (tag b), a sampler on ibm_brisbane (tags a, b), a sampler in a batch on ibm_fez; the
    service and the jobs, oldest first."""
    from qiskit.quantum_info import SparsePauliOp
    from qiskit_ibm_runtime import Batch, EstimatorV2, SamplerV2

    runtime = service(IDEAL)
    fez, brisbane = runtime.backend("ibm_fez"), runtime.backend("ibm_brisbane")

    def sampler(mode, backend, tags):
        sampler = SamplerV2(mode=mode)
        sampler.options.environment.job_tags = [RUN, *tags]
        return sampler.run([isa(bell(), backend)], shots=10)

    circuit = bell()
    circuit.remove_final_measurements()
    circuit = isa(circuit, fez)
    estimator = EstimatorV2(mode=fez)
    estimator.options.environment.job_tags = [RUN, "b"]
    jobs = [sampler(fez, fez, ["a"])]
    jobs[0].result()  # each job is created after the one before, whatever the clock's grain
    jobs.append(estimator.run([(circuit, SparsePauliOp("ZZ").apply_layout(circuit.layout))]))
    jobs[1].result()
    jobs.append(sampler(brisbane, brisbane, ["a", "b"]))
    jobs[2].result()
    with Batch(backend=fez) as batch:
        jobs.append(sampler(batch, fez, []))
        jobs[3].result()
    return runtime, jobs


RUNTIME, JOBS = submitted()


def listed(**filters):
    """The ids `service.jobs` lists for this run's jobs with `filters`."""
    tags = filters.pop("job_tags", [])
    return [job.job_id() for job in RUNTIME.jobs(job_tags=[RUN, *tags], **filters)]


def ids(*indices):
    return [JOBS[i].job_id() for i in indices]


@check
def jobs_are_listed_newest_first_with_their_tags():
    assert listed() == ids(3, 2, 1, 0), listed()
    assert listed(descending=False) == ids(0, 1, 2, 3)
    job = RUNTIME.jobs(job_tags=[RUN, "a", "b"])[0]
    assert sorted(job.tags) == sorted([RUN, "a", "b"]) and job.job_id() == ids(2)[0], job.tags


@check
def limit_and_skip_page_through_them():
    assert listed(limit=2) == ids(3, 2)
    assert listed(limit=2, skip=1) == ids(2, 1)
    assert listed(limit=None, skip=3) == ids(0)
    assert listed(limit=None) == ids(3, 2, 1, 0)


@check
def each_filter_keeps_its_jobs():
    assert listed(backend_name="ibm_brisbane") == ids(2)
    assert listed(program_id="estimator") == ids(1)
    assert listed(job_tags=["a"]) == ids(2, 0)
    assert listed(job_tags=["a", "b"]) == ids(2)
    assert listed(session_id=JOBS[3].session_id) == ids(3)
    assert listed(pending=False) == ids(3, 2, 1, 0)
    assert listed(pending=True) == []


@check
def created_after_and_before_are_inclusive():
    assert listed(created_after=JOBS[2].creation_date) == ids(3, 2)
    assert listed(created_before=JOBS[1].creation_date) == ids(1, 0)
    assert listed(created_after=JOBS[1].creation_date, created_before=JOBS[2].creation_date) == ids(2, 1)


@check
def a_finished_jobs_logs_tell_its_life():
    logs = JOBS[3].logs()
    lines = logs.splitlines()
    assert len(lines) == 3, logs
    assert f"job {JOBS[3].job_id()} (sampler) queued for ibm_fez in session {JOBS[3].session_id}" in lines[0], logs
    assert lines[1].endswith(" running") and lines[2].endswith(" Completed"), logs


@check
def pending_keeps_queued_jobs():
    from qiskit_ibm_runtime import SamplerV2

    runtime = service(QUEUED)
    backend = runtime.backend("ibm_fez")
    sampler = SamplerV2(mode=backend)
    sampler.options.environment.job_tags = [RUN]
    job = sampler.run([isa(bell(), backend)], shots=10)
    try:
        assert [j.job_id() for j in runtime.jobs(job_tags=[RUN], pending=True)] == [job.job_id()]
        assert runtime.jobs(job_tags=[RUN], pending=False) == []
    finally:
        job.cancel()
    assert [j.job_id() for j in runtime.jobs(job_tags=[RUN], pending=False)] == [job.job_id()]


if __name__ == "__main__":
    sys.exit(checklist.run())

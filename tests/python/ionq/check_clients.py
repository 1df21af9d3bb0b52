"""The unmodified cirq-ionq and qiskit-ionq clients against `qchess serve`.

Usage: check_clients.py http://127.0.0.1:PORT   (the server runs with --api-key test, a short
queue delay and --max-qubits 12; tests/python/ionq/run.sh starts it).

Each check submits real jobs through the client's public API and asserts on what the client
hands back: results, bit order (X on qubit 0 of 3 is qiskit '001' and cirq histogram key 4),
statuses after cancel, and the error a failed job raises. Prints 'N passed, M failed'.
"""

import os
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import checklist  # noqa: E402  (tests/python, beside this directory)
from checklist import check  # noqa: E402

warnings.filterwarnings("ignore")

BASE = sys.argv[1].rstrip("/") if len(sys.argv) > 1 else "http://127.0.0.1:8080"
KEY = "test"
os.environ["IONQ_API_KEY"] = KEY
os.environ["IONQ_API_URL"] = BASE + "/v0.4"


# ---- qiskit-ionq ----


def qiskit_backend(name="simulator"):
    from qiskit_ionq import IonQProvider

    return IonQProvider(token=KEY, url=BASE + "/v0.4").get_backend(name)


def x_on_qubit_zero_of_three_qiskit():
    from qiskit import QuantumCircuit

    circuit = QuantumCircuit(3, 3)
    circuit.x(0)
    circuit.measure([0, 1, 2], [0, 1, 2])
    return circuit


@check
def qiskit_bit_order_on_the_ideal_simulator():
    counts = qiskit_backend().run(x_on_qubit_zero_of_three_qiskit(), shots=50).result().get_counts()
    assert counts == {"001": 50}, counts


@check
def qiskit_bell_state_and_probabilities():
    from qiskit import QuantumCircuit

    bell = QuantumCircuit(2, 2)
    bell.h(0)
    bell.cx(0, 1)
    bell.measure([0, 1], [0, 1])
    job = qiskit_backend().run(bell, shots=400)
    counts = job.result().get_counts()
    assert set(counts) == {"00", "11"}, counts
    assert sum(counts.values()) == 400, counts
    probabilities = job.get_probabilities()
    assert abs(probabilities["00"] - 0.5) < 1e-9 and abs(probabilities["11"] - 0.5) < 1e-9, probabilities


@check
def qiskit_qpu_backend_counts_are_hardware_counts():
    counts = qiskit_backend("qpu.aria-1").run(x_on_qubit_zero_of_three_qiskit(), shots=30).result().get_counts()
    assert counts == {"001": 30}, counts


@check
def qiskit_cancel():
    from qiskit.providers import JobStatus

    job = qiskit_backend().run(x_on_qubit_zero_of_three_qiskit(), shots=10)
    job.cancel()
    status = job.status()
    assert status == JobStatus.CANCELLED, status


@check
def qiskit_failed_job_too_many_qubits():
    from qiskit import QuantumCircuit

    wide = QuantumCircuit(14, 14)
    wide.h(13)
    wide.measure(range(14), range(14))
    try:
        qiskit_backend().run(wide, shots=10).result()
    except Exception as error:  # the client's own exception type: any failure is what we want
        text = f"{type(error).__name__}: {error}"
        assert "NotEnoughQubits" in text and "has 12" in text, text
        return
    raise AssertionError("a 14-qubit job on a 12-qubit backend did not fail")


# ---- cirq-ionq ----


def cirq_service():
    import cirq_ionq

    return cirq_ionq.Service(remote_host=BASE, api_key=KEY, default_target="simulator")


def x_on_qubit_zero_of_three_cirq():
    import cirq

    q = cirq.LineQubit.range(3)
    return cirq.Circuit(cirq.X(q[0]), cirq.measure(*q, key="m"))


@check
def cirq_bit_order_on_the_ideal_simulator():
    result = cirq_service().run(x_on_qubit_zero_of_three_cirq(), repetitions=20)
    histogram = result.histogram(key="m")
    assert dict(histogram) == {4: 20}, histogram


@check
def cirq_bell_state_probabilities():
    import cirq

    q = cirq.LineQubit.range(2)
    bell = cirq.Circuit(cirq.H(q[0]), cirq.CNOT(q[0], q[1]), cirq.measure(*q, key="m"))
    job = cirq_service().create_job(bell, repetitions=100)
    results = job.results()
    probabilities = results.probabilities() if hasattr(results, "probabilities") else results[0].probabilities()
    assert set(probabilities) == {0, 3}, probabilities
    assert all(abs(p - 0.5) < 1e-9 for p in probabilities.values()), probabilities


@check
def cirq_qpu_target_counts():
    service = cirq_service()
    result = service.run(x_on_qubit_zero_of_three_cirq(), repetitions=25, target="qpu.aria-1")
    assert dict(result.histogram(key="m")) == {4: 25}, result.histogram(key="m")


@check
def cirq_cancel_and_status():
    job = cirq_service().create_job(x_on_qubit_zero_of_three_cirq(), repetitions=10)
    job.cancel()
    assert job.status() == "canceled", job.status()


@check
def cirq_failed_job_too_many_qubits():
    import cirq

    q = cirq.LineQubit.range(14)
    wide = cirq.Circuit(cirq.H(q[13]), cirq.measure(*q, key="m"))
    job = cirq_service().create_job(wide, repetitions=10)
    try:
        job.results(timeout_seconds=30)
    except Exception as error:
        text = f"{type(error).__name__}: {error}"
        assert "failed" in text.lower() and "has 12" in text, text
        assert job.status() == "failed", job.status()
        return
    raise AssertionError("a 14-qubit job on a 12-qubit backend did not fail")


@check
def cirq_lists_jobs():
    jobs = cirq_service().list_jobs(limit=5)
    assert 1 <= len(jobs) <= 5, jobs
    assert all(job.status() in {"completed", "failed", "canceled", "submitted", "ready", "started"} for job in jobs)


if __name__ == "__main__":
    sys.exit(checklist.run())

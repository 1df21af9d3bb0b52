"""The unmodified Amazon Braket SDK against `qchess serve`'s Braket stand-in:

* `AwsDevice.get_devices()` lists the seven devices; `AwsDevice(arn).properties` parses each
  device's capabilities with the SDK's `braket.device_schema` models;
* a Bell pair and a GHZ circuit on every device (`AwsDevice(arn).run(circuit, shots)`), counts
  against the exact distribution (chi-squared, fixed seed, p > 1e-6); each `results.json`
  read back with boto3 parses as `braket.task_result.GateModelTaskResult` and its program as
  `braket.ir.openqasm.Program`;
* on a server started with `--braket-noise calibrated`, a verbatim Bell pair on each QPU
  against the noise model the SDK's own `LocalEmulator` builds from the same capabilities
  (its density-matrix probabilities, with its readout bit flips);
* an OpenQASM 3 `Program` on sv1, in the SDK's default bucket (named through STS
  `GetCallerIdentity`, made with `CreateBucket`); `task.state()`, `task.cancel()` of a queued task and
  `AwsQuantumTask(arn)` reloaded; a request signed with the wrong secret refused with
  `InvalidSignatureException`, a verbatim box with a gate the device does not have refused
  naming it.
"""

import json
import math
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))
import standin  # noqa: E402
from qchess_helpers import Report, goodness_of_fit  # noqa: E402

DATA = HERE.parents[2] / "crates" / "qchess-route" / "data"
BUCKET = ("qchess-sdk-results", "tasks")
SHOTS = 400
PI = math.pi
QPUS = {
    "arn:aws:braket:eu-north-1::device/qpu/iqm/Garnet": ("braket_iqm_garnet.json", (1, 2)),
    "arn:aws:braket:eu-north-1::device/qpu/iqm/Emerald": ("braket_iqm_emerald.json", (1, 2)),
    "arn:aws:braket:us-west-1::device/qpu/rigetti/Ankaa-3": ("braket_rigetti_ankaa_3.json", None),
    "arn:aws:braket:us-west-1::device/qpu/rigetti/Cepheus-1-108Q": ("braket_rigetti_cepheus_1_108q.json", None),
    "arn:aws:braket:us-east-1::device/qpu/ionq/Forte-Enterprise-1": ("braket_ionq_forte_enterprise_1.json", (0, 1)),
}
SIMULATORS = ["arn:aws:braket:::device/quantum-simulator/amazon/sv1", "arn:aws:braket:::device/quantum-simulator/amazon/dm1"]


def point_sdk_at(url: str, secret: str = standin.SECRET) -> None:
    for key in [k for k in os.environ if k.startswith("AWS_")]:
        del os.environ[key]
    os.environ.update(standin.environment(url, AWS_ACCESS_KEY_ID=standin.KEY, AWS_SECRET_ACCESS_KEY=secret,
                                          AWS_DEFAULT_REGION="us-east-1"))


def counts_by_index(counts: dict) -> dict:
    """The SDK's bit strings (first character: the first measured qubit) as integers, bit i =
    measured qubit i, as goodness_of_fit reads them."""
    return {str(int(bits[::-1], 2)): n for bits, n in counts.items()}


def coupled_pair(capabilities: dict) -> tuple[int, int]:
    graph = capabilities["paradigm"]["connectivity"]["connectivityGraph"]
    two = capabilities["standardized"]["twoQubitProperties"]
    for a in sorted(graph, key=int):
        for b in graph[a]:
            if f"{a}-{b}" in two:
                return int(a), int(b)
    raise AssertionError("no coupled pair with figures")


def native_bell(capabilities: dict, a: int, b: int):
    """A Bell pair on physical qubits a, b in the device's native gates, in a verbatim box."""
    from braket.circuits import Circuit
    natives = [g.lower() for g in capabilities["paradigm"]["nativeGateSet"]]
    if "prx" in natives:  # IQM: H = prx(pi/2, pi/2) up to a Z frame; CNOT = H cz H on the target
        box = Circuit().prx(a, PI / 2, PI / 2).prx(b, PI / 2, PI / 2).cz(a, b).prx(b, PI / 2, 3 * PI / 2)
    elif "iswap" in natives:  # Rigetti Ankaa: iSWAP on |+i>|+i> is maximally entangled
        box = Circuit().rx(a, PI / 2).rx(b, PI / 2).iswap(a, b).rz(b, PI / 2).rx(b, PI / 2)
    elif "cz" in natives:  # Rigetti Cepheus
        box = Circuit().rz(a, PI / 2).rx(a, PI / 2).rz(a, PI / 2).rz(b, PI / 2).rx(b, PI / 2).rz(b, PI / 2)
        box = box.cz(a, b).rz(b, PI / 2).rx(b, PI / 2).rz(b, PI / 2)
    else:  # IonQ Forte: gpi2 and zz
        box = Circuit().gpi2(a, 0).gpi2(b, 0).zz(a, b, PI / 2).gpi2(b, 3 * PI / 2)
    return Circuit().add_verbatim_box(box).measure([a, b])


def emulator_distribution(capabilities_text: str, circuit, qubits) -> np.ndarray:
    """The distribution the SDK's LocalEmulator's noise model gives: its noisy circuit's exact
    probabilities on the density-matrix simulator, then each bit flipped with its readout error."""
    from braket.circuits import Circuit
    from braket.devices import LocalSimulator
    from braket.emulation.local_emulator import LocalEmulator
    emulator = LocalEmulator.from_json(capabilities_text)
    noisy = emulator.noise_model.apply(circuit)
    flips, gates = [], Circuit()
    for instruction in noisy.instructions:
        name = type(instruction.operator).__name__
        if name == "Measure":
            continue
        if name == "BitFlip":
            flips.append(instruction.operator.probability)
            continue
        gates.add_instruction(instruction)
    gates.probability(target=list(qubits))
    probabilities = np.array(LocalSimulator("braket_dm").run(gates, shots=0).result().values[0])
    # The simulator's first target is the most significant bit; bit i = qubits[i] here.
    n = len(qubits)
    vector = np.zeros(2**n)
    for index, p in enumerate(probabilities):
        vector[int(format(index, f"0{n}b")[::-1], 2)] += p
    for bit, flip in enumerate(flips[:n]):
        flipped = vector.copy()
        for index in range(2**n):
            flipped[index] = (1 - flip) * vector[index] + flip * vector[index ^ (1 << bit)]
        vector = flipped
    return vector


def check_results_object(report: Report, label: str, task) -> None:
    import boto3
    from braket.ir.openqasm import Program
    from braket.task_result import GateModelTaskResult
    metadata = task.metadata()
    body = boto3.client("s3").get_object(Bucket=metadata["outputS3Bucket"],
                                         Key=f"{metadata['outputS3Directory']}/results.json")["Body"].read()
    result = GateModelTaskResult.parse_raw(body)
    Program.parse_obj(result.additionalMetadata.action)
    report.check(f"{label}: results.json is a GateModelTaskResult", len(result.measurements) == SHOTS, "")


def main() -> int:
    from braket.aws import AwsDevice, AwsQuantumTask
    from braket.circuits import Circuit
    from braket.ir.openqasm import Program

    report = Report("braket sdk")
    process, url = standin.start("--seed", "5")
    try:
        point_sdk_at(url)
        listed = {d.arn for d in AwsDevice.get_devices()}
        report.check("get_devices lists the seven devices", listed == set(QPUS) | set(SIMULATORS), str(sorted(listed)))
        bell = Circuit().h(0).cnot(0, 1)
        ghz = Circuit().h(0).cnot(0, 1).cnot(1, 2)
        for arn in [*QPUS, *SIMULATORS]:
            device = AwsDevice(arn)
            properties = device.properties
            report.check(f"{arn}: properties parse", properties.service.shotsRange[1] >= SHOTS, type(properties).__name__)
            if device.status != "ONLINE":
                continue
            for name, circuit, qubits in [("Bell", bell, 2), ("GHZ", ghz, 3)]:
                task = device.run(circuit, shots=SHOTS, s3_destination_folder=BUCKET)
                result = task.result()
                expected = np.zeros(2**qubits)
                expected[0] = expected[-1] = 0.5
                p = goodness_of_fit(counts_by_index(result.measurement_counts), expected, SHOTS)
                report.check(f"{arn}: {name} counts against the exact distribution", p > 1e-6, f"p = {p:.3g}")
            check_results_object(report, arn, task)

        garnet = AwsDevice("arn:aws:braket:eu-north-1::device/qpu/iqm/Garnet")
        refused = ""
        try:
            garnet.run(Circuit().add_verbatim_box(Circuit().h(1)), shots=10, s3_destination_folder=BUCKET)
        except Exception as error:  # noqa: BLE001 - the message is what is checked
            refused = str(error)
        report.check("a verbatim box with a gate the device lacks is refused naming it",
                     "ValidationException" in refused and "gate `h`" in refused, refused[:200])

        sv1 = AwsDevice(SIMULATORS[0])
        source = "OPENQASM 3.0;\nqubit[2] q;\nbit[2] c;\nx q[0];\ncnot q[0], q[1];\nc = measure q;\n"
        # No destination: the SDK names its default bucket through STS and creates it.
        program_task = sv1.run(Program(source=source), shots=50)
        counts = program_task.result().measurement_counts
        bucket = program_task.metadata()["outputS3Bucket"]
        report.check("an OpenQASM 3 Program runs, its results in the SDK's default bucket",
                     dict(counts) == {"11": 50} and bucket == "amazon-braket-us-east-1-123456789012",
                     f"{dict(counts)} in {bucket}")

        point_sdk_at(url, secret="not the secret")
        refused = ""
        try:
            AwsDevice(SIMULATORS[0])
        except Exception as error:  # noqa: BLE001
            refused = str(error)
        report.check("a request signed with the wrong secret is refused", "InvalidSignatureException" in refused, refused[:200])
    finally:
        standin.stop(process)

    process, url = standin.start("--seed", "6", "--queue-delay-ms", "2000")
    try:
        point_sdk_at(url)
        task = AwsDevice(SIMULATORS[0]).run(bell, shots=10, s3_destination_folder=BUCKET)
        queued = task.state()
        task.cancel()
        reloaded = AwsQuantumTask(task.id)
        report.check("task.state(), task.cancel() and AwsQuantumTask(arn)", queued == "QUEUED"
                     and reloaded.state() == "CANCELLED", f"{queued} then {reloaded.state()}")
        done = AwsDevice(SIMULATORS[0]).run(bell, shots=10, s3_destination_folder=BUCKET)
        first = done.result().measurement_counts
        again = AwsQuantumTask(done.id).result().measurement_counts
        report.check("a task reloaded by its ARN reads the same results", first == again, f"{first} vs {again}")
    finally:
        standin.stop(process)

    process, url = standin.start("--seed", "7", "--braket-noise", "calibrated")
    try:
        point_sdk_at(url)
        shots = 4000
        for arn, (file, pair) in QPUS.items():
            text = (DATA / file).read_text()
            capabilities = json.loads(text)
            a, b = pair or coupled_pair(capabilities)
            circuit = native_bell(capabilities, a, b)
            expected = emulator_distribution(text, circuit, (a, b))
            counts = AwsDevice(arn).run(circuit, shots=shots, s3_destination_folder=BUCKET).result().measurement_counts
            p = goodness_of_fit(counts_by_index(counts), expected, shots)
            bell_pair = expected[0] + expected[3] > 0.8
            report.check(f"{arn}: calibrated verbatim Bell pair against LocalEmulator's noise model", p > 1e-6 and bell_pair,
                         f"p = {p:.3g}, errors {1 - expected[0] - expected[3]:.4f} expected")
    finally:
        standin.stop(process)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())

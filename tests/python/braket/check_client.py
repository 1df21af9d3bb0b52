"""qchess's Amazon Braket client, end to end, against `qchess serve`'s Braket stand-in (and, for
the signatures alone, against sdk_endpoint.py, where botocore's own signer checks each one):

* `qchess devices --provider braket` lists the devices with their status (IQM Emerald started
  `--braket-offline`);
* `qchess game --backend braket:iqm-garnet` (a verbatim program, checked by the stand-in
  against Garnet's native gates and connectivity) and `--backend braket:sv1` (the default
  bucket, named through STS) agree with the exact local game within sampling error (each
  square's probability within 5.5 standard errors: p > 1e-6 per square for the game's few
  squares); `qchess compile --target braket:DEVICE` output is accepted by the stand-in's
  verbatim check on every published device (sent with boto3);
* the credentials come from a profile of a temporary ~/.aws/credentials (AWS_PROFILE);
* a kept game detached while its task is queued resumes from its task ARN and ends as the
  same game, with no second task (SearchQuantumTasks); a kept game whose results object was
  deleted fails its resume with S3's NoSuchKey (exit 1) and keeps its move waiting;
* bad input: an unknown device or a wrong key exit 2, a device offline exits 1, a task that
  fails (past the server's time limit) exits 1 with its reason, no credentials exits 2 naming
  where it looked, a region that does not match the ARN exits 2; each message says what was
  wrong;
* botocore verifies the signature of every request of a game and of `qchess devices`.
"""

import json
import math
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import boto3

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))
import sdk_endpoint  # noqa: E402
import standin  # noqa: E402
from qchess_helpers import Report, qchess_binary  # noqa: E402

MOVES = "b1^a3c3 e7e6 a3c3^b5 g8^f6h6"
SHOTS = 2000
DEVICES = ["iqm-garnet", "iqm-emerald", "rigetti-ankaa-3", "rigetti-cepheus-1-108q", "ionq-forte-enterprise-1"]


def qchess(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([qchess_binary(), *args], capture_output=True, text=True, env=env, timeout=300, input="")


def agrees(report: Report, label: str, played: dict, exact: dict, shots: int) -> None:
    worst = 0.0
    for square, p in exact["probabilities"].items():
        q = played["probabilities"].get(square, 0.0)
        sigma = math.sqrt(max(p * (1 - p), 1e-12) / shots)
        worst = max(worst, abs(q - p) / sigma if 0 < p < 1 else (0.0 if abs(q - p) < 1e-12 else math.inf))
    report.check(label, worst < 5.5, f"largest deviation {worst:.2f} standard errors over {shots} shots")


def refused(report: Report, label: str, run: subprocess.CompletedProcess, code: int, says: str) -> None:
    said = (run.stderr + run.stdout).strip()
    ok = run.returncode == code and says in said
    report.check(label, ok, f"exit {run.returncode}: {said[:300]}")


def aws(service: str, url: str):
    return boto3.client(service, endpoint_url=f"{url}/{service}", region_name="eu-north-1",
                        aws_access_key_id=standin.KEY, aws_secret_access_key=standin.SECRET)


def kept_game(report: Report, env: dict, db: str, label: str) -> str | None:
    """A kept game on Garnet that detaches while its task is queued; returns its id."""
    first = qchess(env, "game", "--store", "--db", db, "--moves", MOVES, "--backend", "braket:iqm-garnet",
                   "--shots", str(SHOTS), "--timeout", "1", "--seed", "3")
    found = re.search(r"game ([0-9a-f]{12})", first.stderr + first.stdout)
    report.check(f"{label}: detached while its task is queued", first.returncode == 1 and found is not None,
                 (first.stderr.strip() or first.stdout.strip())[:300])
    return found.group(1) if found else None


def stored_moves(env: dict, db: str, game_id: str) -> list:
    record = qchess(env, "games", "export", game_id, "--db", db)
    return record.stdout.split("\n\n", 1)[-1].split()


def main() -> int:
    report = Report("braket client")
    home = tempfile.mkdtemp()
    (Path(home) / ".aws").mkdir()
    (Path(home) / ".aws" / "credentials").write_text(
        f"[default]\naws_access_key_id = WRONG\naws_secret_access_key = wrong\n\n"
        f"[qchess-test]\naws_access_key_id = {standin.KEY}\naws_secret_access_key = {standin.SECRET}\n")

    process, url = standin.start("--braket-offline", "iqm-emerald", "--seed", "3")
    env = standin.environment(url, HOME=home, AWS_PROFILE="qchess-test")
    try:
        listed = qchess(env, "devices", "--provider", "braket", "--json")
        devices = {d["arn"]: d for d in json.loads(listed.stdout or "{}").get("devices", [])}
        garnet = devices.get("arn:aws:braket:eu-north-1::device/qpu/iqm/Garnet", {})
        report.check("devices: listed with their status", listed.returncode == 0 and len(devices) == 7
                     and garnet.get("status") == "ONLINE" and garnet.get("name") == "iqm-garnet"
                     and devices.get("arn:aws:braket:eu-north-1::device/qpu/iqm/Emerald", {}).get("status") == "OFFLINE",
                     listed.stderr.strip() or f"{len(devices)} devices")

        exact = json.loads(qchess(env, "game", "--moves", MOVES, "--json").stdout)
        for device, extra in [("iqm-garnet", ["--braket-output", "qchess-results/games"]), ("sv1", [])]:
            run = qchess(env, "game", "--moves", MOVES, "--backend", f"braket:{device}", "--shots", str(SHOTS),
                         "--seed", "3", "--json", *extra)
            if run.returncode != 0:
                report.check(f"game on braket:{device}", False, run.stderr.strip())
                continue
            agrees(report, f"game on braket:{device}: squares agree with the exact game", json.loads(run.stdout), exact,
                   SHOTS)

        braket = aws("braket", url)
        for device in [d for d in DEVICES if d != "iqm-emerald"]:
            compiled = qchess(env, "compile", "--position", "startpos", "--moves", MOVES, "--target", f"braket:{device}",
                              "--format", "qasm3", "--json")
            source = json.loads(compiled.stdout)["qasm"] if compiled.returncode == 0 else ""
            arn = next(d for d in devices if d.endswith(device.split("-", 1)[1].replace("ankaa-3", "Ankaa-3")) or
                       devices[d].get("name") == device)
            action = json.dumps({"braketSchemaHeader": {"name": "braket.ir.openqasm.program", "version": "1"},
                                 "source": source})
            try:
                braket.create_quantum_task(action=action, clientToken=f"compile-{device}", deviceArn=arn, shots=10,
                                           outputS3Bucket="qchess-results", outputS3KeyPrefix="compiled")
                report.check(f"compile --target braket:{device}: accepted by the verbatim check", True, "")
            except Exception as error:  # noqa: BLE001 - the refusal is the finding
                report.check(f"compile --target braket:{device}: accepted by the verbatim check", False, str(error)[:300])

        refused(report, "unknown device", qchess(env, "game", "--moves", MOVES, "--backend",
                "braket:arn:aws:braket:eu-north-1::device/qpu/iqm/Nowhere"), 2, "not found")
        refused(report, "unknown short name", qchess(env, "game", "--moves", MOVES, "--backend", "braket:garnet"), 2,
                "unknown Braket device `garnet`")
        refused(report, "device offline", qchess(env, "game", "--moves", MOVES, "--backend", "braket:iqm-emerald"), 1,
                "is OFFLINE")
        wrong = standin.environment(url, HOME=home, AWS_PROFILE="default")
        refused(report, "wrong key", qchess(wrong, "game", "--moves", MOVES, "--backend", "braket:iqm-garnet"), 2,
                "profile `default`")
        nothing = standin.environment(url, HOME=tempfile.mkdtemp())
        refused(report, "no credentials", qchess(nothing, "game", "--moves", MOVES, "--backend", "braket:iqm-garnet"), 2,
                ".aws/credentials")
        refused(report, "region not the ARN's", qchess(env, "game", "--moves", MOVES, "--backend", "braket:iqm-garnet",
                "--aws-region", "us-east-1"), 2, "does not match device")
    finally:
        standin.stop(process)

    process, url = standin.start("--time-limit", "0.000001")
    try:
        env = standin.environment(url, HOME=home, AWS_PROFILE="qchess-test")
        refused(report, "task fails with a reason", qchess(env, "game", "--moves", MOVES, "--backend",
                "braket:iqm-garnet"), 1, "--time-limit")
    finally:
        standin.stop(process)

    process, url = standin.start("--queue-delay-ms", "3000", "--seed", "3")
    try:
        env = standin.environment(url, HOME=home, AWS_PROFILE="qchess-test")
        braket, s3 = aws("braket", url), aws("s3", url)
        db = str(Path(home) / "kept.db")
        game_id = kept_game(report, env, db, "kept game")
        if game_id:
            waiting = json.loads(qchess(env, "games", "show", game_id, "--db", db, "--json").stdout or "{}")
            arns = [j.get("job_id", "") for j in waiting.get("jobs", [])]
            report.check("kept game: the task ARN is stored", any(a.startswith("arn:aws:braket:eu-north-1:") for a in arns),
                         f"jobs {arns}")
            before = len(braket.search_quantum_tasks(filters=[])["quantumTasks"])
            resumed = qchess(env, "games", "resume", game_id, "--db", db)
            after = len(braket.search_quantum_tasks(filters=[])["quantumTasks"])
            moves = stored_moves(env, db, game_id)
            report.check("kept game: resumed from its task, nothing submitted twice",
                         resumed.returncode == 0 and after == before and "b1^a3c3" in moves,
                         f"exit {resumed.returncode}, {after - before} new tasks, record {' '.join(moves)}; "
                         f"{resumed.stderr.strip()[-200:]}")
        lost = kept_game(report, env, db, "kept game, results deleted")
        if lost:
            task = braket.search_quantum_tasks(filters=[])["quantumTasks"][0]
            while braket.get_quantum_task(quantumTaskArn=task["quantumTaskArn"])["status"] != "COMPLETED":
                time.sleep(0.2)
            s3.delete_object(Bucket=task["outputS3Bucket"], Key=f"{task['outputS3Directory']}/results.json")
            resumed = qchess(env, "games", "resume", lost, "--db", db)
            refused(report, "missing result object", resumed, 1, "NoSuchKey")
            shown = json.loads(qchess(env, "games", "show", lost, "--db", db, "--json").stdout or "{}")
            report.check("missing result object: the kept game keeps its move waiting",
                         (shown.get("pending") or {}).get("move") == "b1^a3c3", str(shown.get("pending")))
    finally:
        standin.stop(process)

    server, endpoint, url = sdk_endpoint.start(standin.KEY, standin.SECRET, queue_seconds=0.1)
    env = standin.environment(url, HOME=home, AWS_PROFILE="qchess-test")
    listed = qchess(env, "devices", "--provider", "braket")
    played = qchess(env, "game", "--moves", MOVES, "--backend", "braket:iqm-garnet", "--shots", "200", "--seed", "3")
    report.check("botocore's signer verifies every request's signature",
                 listed.returncode == 0 and played.returncode == 0 and endpoint.signatures_checked > 5
                 and not endpoint.problems, f"{endpoint.signatures_checked} signatures; {endpoint.problems[:2]}; "
                 f"{played.stderr.strip()[:200]}")
    server.shutdown()
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())

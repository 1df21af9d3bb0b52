"""qchess's Amazon Braket client, end to end, against the endpoint of sdk_endpoint.py (botocore
verifies every signature, the SDK's models check every request, its simulator runs every task):

* `qchess devices --provider braket` lists the devices with their status;
* `qchess game --backend braket:iqm-garnet` (a verbatim program on the published Garnet) and
  `--backend braket:sv1` (the default bucket, named through STS) agree with the exact local game
  within sampling error (each square's probability within 5.5 standard errors: p > 1e-6 per
  square for the game's few squares);
* the credentials come from a profile of a temporary ~/.aws/credentials (AWS_PROFILE);
* a kept game detached mid-task (`--timeout` shorter than the queue) resumes from its task ARN
  and ends as the same game;
* bad input: an unknown device or a wrong key exit 2, a device offline, a task that fails and a
  missing result object exit 1, no credentials exits 2 naming where it looked, a region that does
  not match the ARN exits 2; each message says what was wrong.
"""

import json
import math
import re
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
import sdk_endpoint  # noqa: E402
from qchess_helpers import Report, qchess_binary  # noqa: E402

KEY, SECRET = "AKIDQCHESSTEST", "braket-test-secret"
MOVES = "b1^a3c3 e7e6 a3c3^b5 g8^f6h6"
SHOTS = 2000


def environment(home: str, url: str, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(HOME=home, AWS_PROFILE="qchess-test", AWS_ENDPOINT_URL_BRAKET=f"{url}/braket",
               AWS_ENDPOINT_URL_S3=f"{url}/s3", AWS_ENDPOINT_URL_STS=f"{url}/sts", AWS_REGION="us-east-1")
    env.update(extra)
    return env


def qchess(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([qchess_binary(), *args], capture_output=True, text=True, env=env, timeout=300)


def agrees(report: Report, label: str, played: dict, exact: dict, shots: int) -> None:
    worst = 0.0
    for square, p in exact["probabilities"].items():
        q = played["probabilities"].get(square, 0.0)
        sigma = math.sqrt(max(p * (1 - p), 1e-12) / shots)
        worst = max(worst, abs(q - p) / sigma if 0 < p < 1 else (0.0 if abs(q - p) < 1e-12 else math.inf))
    report.check(label, worst < 5.5, f"largest deviation {worst:.2f} standard errors over {shots} shots")


def refused(report: Report, label: str, run: subprocess.CompletedProcess, code: int, says: str) -> None:
    ok = run.returncode == code and says in run.stderr
    report.check(label, ok, f"exit {run.returncode}: {run.stderr.strip()[:300]}")


def main() -> int:
    report = Report("braket client")
    server, endpoint, url = sdk_endpoint.start(KEY, SECRET, queue_seconds=0.3)
    home = tempfile.mkdtemp()
    (Path(home) / ".aws").mkdir()
    (Path(home) / ".aws" / "credentials").write_text(
        f"[default]\naws_access_key_id = WRONG\naws_secret_access_key = wrong\n\n"
        f"[qchess-test]\naws_access_key_id = {KEY}\naws_secret_access_key = {SECRET}\n")
    env = environment(home, url)
    out = Path(home) / "out"

    listed = qchess(env, "devices", "--provider", "braket", "--json")
    devices = {d["arn"]: d for d in json.loads(listed.stdout or "{}").get("devices", [])}
    garnet = devices.get("arn:aws:braket:eu-north-1::device/qpu/iqm/Garnet", {})
    report.check("devices: listed with their status", listed.returncode == 0 and len(devices) == 6
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
        agrees(report, f"game on braket:{device}: squares agree with the exact game", json.loads(run.stdout), exact, SHOTS)

    db = str(out) + ".db"
    # Queued until the wait in the foreground is over, then done at once.
    endpoint.queue_seconds = 600
    first = qchess(env, "game", "--store", "--db", db, "--moves", MOVES, "--backend", "braket:iqm-garnet",
                   "--shots", str(SHOTS), "--timeout", "5", "--seed", "3")
    endpoint.queue_seconds = 0
    found = re.search(r"game ([0-9a-f]{12})", first.stderr + first.stdout)
    game_id = found.group(1) if found else None
    report.check("kept game: detached while its task is queued", first.returncode == 1 and game_id is not None,
                 (first.stderr.strip() or first.stdout.strip())[:300])
    if game_id:
        shown = qchess(env, "games", "show", game_id, "--db", db, "--json")
        waiting = json.loads(shown.stdout or "{}")
        arns = [j.get("job_id", "") for j in waiting.get("jobs", [])]
        report.check("kept game: the task ARN is stored", any(a.startswith("arn:aws:braket:eu-north-1:") for a in arns),
                     f"jobs {arns}")
        tasks_before = len(endpoint.tasks)
        resumed = subprocess.run([qchess_binary(), "games", "resume", game_id, "--db", db], input="", capture_output=True,
                                 text=True, env=env, timeout=300)
        record = qchess(env, "games", "export", game_id, "--db", db)
        moves = record.stdout.split("\n\n", 1)[-1].split()
        report.check("kept game: resumed from its task, nothing submitted twice",
                     resumed.returncode == 0 and len(endpoint.tasks) == tasks_before and "b1^a3c3" in moves,
                     f"exit {resumed.returncode}, {len(endpoint.tasks) - tasks_before} new tasks, record {' '.join(moves)}; "
                     f"{resumed.stderr.strip()[-200:]}")

    refused(report, "unknown device", qchess(env, "game", "--moves", MOVES, "--backend",
            "braket:arn:aws:braket:eu-north-1::device/qpu/iqm/Nowhere"), 2, "has no device")
    refused(report, "unknown short name", qchess(env, "game", "--moves", MOVES, "--backend", "braket:garnet"), 2,
            "unknown Braket device `garnet`")
    refused(report, "device offline", qchess(env, "game", "--moves", MOVES, "--backend", "braket:iqm-emerald"), 1,
            "is OFFLINE")
    refused(report, "task fails with a reason", qchess(env, "game", "--moves", MOVES, "--backend",
            "braket:rigetti-cepheus-1-108q", "--braket-output", "qchess-results"), 1, "the device could not calibrate")
    refused(report, "missing result object", qchess(env, "game", "--moves", MOVES, "--backend", "braket:rigetti-ankaa-3",
            "--braket-output", "qchess-results"), 1, "NoSuchKey")
    wrong = environment(home, url, AWS_PROFILE="default")
    refused(report, "wrong key", qchess(wrong, "game", "--moves", MOVES, "--backend", "braket:iqm-garnet"), 2,
            "profile `default`")
    nothing = environment(tempfile.mkdtemp(), url)
    del nothing["AWS_PROFILE"]
    refused(report, "no credentials", qchess(nothing, "game", "--moves", MOVES, "--backend", "braket:iqm-garnet"), 2,
            ".aws/credentials")
    refused(report, "region not the ARN's", qchess(env, "game", "--moves", MOVES, "--backend", "braket:iqm-garnet",
            "--aws-region", "us-east-1"), 2, "does not match device")
    report.check("every request's signature checked by botocore", endpoint.signatures_checked > 10 and not endpoint.problems,
                 f"{endpoint.signatures_checked} signatures; {endpoint.problems[:2]}")
    server.shutdown()
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A game's total wait in a busy device's queue, in a session against lone jobs.

Each run starts a fresh `qchess serve` whose IBM Quantum stand-in keeps every device busy with
other users' jobs (`--ibm-busy-jobs N --ibm-busy-job-ms MS`), plays one game on `ibm:ibm_fez`
with `qchess game --ibm-mode MODE`, then reads every job's metrics from the stand-in: its wait
in the queue is the time from `created` to `running`. The modes alternate run by run (session,
jobs, jobs, session, ...), so both see the same machine; the report gives each mode's median
total wait and the ratio of the medians, with the machine's load.

Usage: scripts/ibm-session-wait.py [--qchess target/release/qchess] [--runs 3]
       [--busy-jobs 3] [--busy-job-ms 1000] [--moves "..."] [--json] [--quick]

`--quick` (what CI runs: one run of each mode, the game's first six plies, one busy job of
150 ms) fails unless the session's
total wait is below the lone jobs': every lone job waits behind the whole queue, while a
session's jobs after its first go ahead of it.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEY = "session-wait-key"
CRN = "crn:v1:qchess:session-wait"
# Fourteen plies, six of them measured: each measurement runs a job (and leaves the position
# classical, so the final one needs none).
MOVES = "g1^f3h3 b8^a6c6 f2f3.m1 g8^f6h6 b1^a3c3 a7a6.m1 e2e3 h7h6.m1 a2a3.m0 c6^b4d4 b2b4.m1 d4^b5f5 d2d3 b7b5.m1"


def default_qchess():
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return str(target / "release" / "qchess")


def serve(qchess, busy_jobs, busy_job_ms):
    """A fresh `qchess serve` with its devices kept busy: (process, base URL)."""
    process = subprocess.Popen(
        [qchess, "serve", "--addr", "127.0.0.1:0", "--api-key", KEY, "--db", ":memory:",
         "--ibm-busy-jobs", str(busy_jobs), "--ibm-busy-job-ms", str(busy_job_ms)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline().strip()
    if not line.startswith("listening on "):
        process.kill()
        sys.exit(f"qchess serve did not start: {line!r}")
    return process, line.removeprefix("listening on ")


def api(url, path, token):
    request = urllib.request.Request(
        f"{url}/api/v1/{path}", headers={"Authorization": f"Bearer {token}", "Service-CRN": CRN})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def token(url):
    form = urllib.parse.urlencode(
        {"grant_type": "urn:ibm:params:oauth:grant-type:apikey", "apikey": KEY}).encode()
    request = urllib.request.Request(
        f"{url}/identity/token", data=form, headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)["access_token"]


def seconds(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def play(qchess, mode, moves, busy_jobs, busy_job_ms):
    """One game in `mode` on a fresh busy stand-in: its jobs, total queue wait and wall time."""
    process, url = serve(qchess, busy_jobs, busy_job_ms)
    try:
        started = time.monotonic()
        game = subprocess.run(
            [qchess, "game", "--json", "--backend", "ibm:ibm_fez", "--ibm-mode", mode, "--shots", "200",
             "--moves", moves, "--ibm-url", url, "--ibm-api-key", KEY, "--ibm-crn", CRN],
            capture_output=True, text=True, check=False)
        wall = time.monotonic() - started
        if game.returncode != 0:
            server = "" if process.poll() is None else f" (qchess serve had ended with {process.returncode})"
            sys.exit(f"qchess game --ibm-mode {mode} failed ({game.returncode}){server}: {game.stderr}")
        bearer = token(url)
        waits = []
        for job in api(url, "jobs?limit=100", bearer)["jobs"]:
            stamps = api(url, f"jobs/{job['id']}/metrics", bearer)["timestamps"]
            waits.append(seconds(stamps["running"]) - seconds(stamps["created"]))
        sessions = {job["session_id"] for job in api(url, "jobs?limit=100", bearer)["jobs"]}
        return {"mode": mode, "jobs": len(waits), "sessions": len(sessions - {None}),
                "wait_s": sum(waits), "wall_s": wall}
    finally:
        process.terminate()
        process.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qchess", default=default_qchess())
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--busy-jobs", type=int, default=3)
    parser.add_argument("--busy-job-ms", type=int, default=1000)
    parser.add_argument("--moves", default=MOVES)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true", help="one run each, a short queue; check the order")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.busy_jobs, args.busy_job_ms = 1, 1, 150
        args.moves = " ".join(args.moves.split()[:6])
    load = os.getloadavg()
    runs = []
    for index in range(args.runs):
        order = ["session", "jobs"] if index % 2 == 0 else ["jobs", "session"]
        for mode in order:
            runs.append(play(args.qchess, mode, args.moves, args.busy_jobs, args.busy_job_ms))
    median = {mode: statistics.median(r["wait_s"] for r in runs if r["mode"] == mode) for mode in ("session", "jobs")}
    wall = {mode: statistics.median(r["wall_s"] for r in runs if r["mode"] == mode) for mode in ("session", "jobs")}
    report = {
        "busy_jobs": args.busy_jobs, "busy_job_ms": args.busy_job_ms, "moves": args.moves,
        "load_before": load, "load_after": os.getloadavg(), "runs": runs,
        "median_wait_s": median, "median_wall_s": wall,
        "jobs_over_session": median["jobs"] / median["session"] if median["session"] > 0 else None,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for r in runs:
            print(f"{r['mode']:>7}: {r['jobs']} jobs in {r['sessions']} session(s), "
                  f"queue wait {r['wait_s']:.2f} s, game {r['wall_s']:.2f} s")
        print(f"median queue wait: session {median['session']:.2f} s, lone jobs {median['jobs']:.2f} s "
              f"({report['jobs_over_session'] or float('inf'):.1f}x); median game: session "
              f"{wall['session']:.2f} s, lone jobs {wall['jobs']:.2f} s")
        print(f"load average before {load[0]:.2f}, after {report['load_after'][0]:.2f} "
              f"({args.busy_jobs} busy jobs of {args.busy_job_ms} ms per device)")
    if args.quick and not median["session"] < median["jobs"]:
        sys.exit(f"a session's jobs should skip the queue: session waited {median['session']:.2f} s, "
                 f"lone jobs {median['jobs']:.2f} s")


if __name__ == "__main__":
    main()

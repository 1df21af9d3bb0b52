"""Shared fixtures: the qchess binary (for comparisons with the CLI) and a real `qchess serve`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def qchess_binary() -> str:
    if os.environ.get("QCHESS"):
        return os.environ["QCHESS"]
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return str(target / "debug" / "qchess")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([qchess_binary(), *args], capture_output=True, text=True, timeout=120)


def cli_json(*args: str) -> dict:
    result = run_cli(*args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="session")
def serve_url():
    """A `qchess serve` on a free port of 127.0.0.1, stopped after the session."""
    server = subprocess.Popen(
        [qchess_binary(), "serve", "--addr", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # The bound address is the first line of stdout.
    first = server.stdout.readline().strip()
    if server.poll() is not None or not first:
        server.kill()
        raise RuntimeError(f"qchess serve did not start: {server.stderr.read()[-2000:]}")
    address = first.split()[-1].removeprefix("http://").rstrip("/")
    yield f"http://{address}/v0.4"
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()

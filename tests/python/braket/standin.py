"""`qchess serve` as the Braket stand-in for the checks: started on a free port of 127.0.0.1
with the test key pair, and the environment that points the AWS SDKs (and qchess) at it."""

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
from qchess_helpers import qchess_binary  # noqa: E402

KEY, SECRET = "AKIDQCHESSTEST", "braket-test-secret"


def start(*flags: str) -> tuple[subprocess.Popen, str]:
    """Starts `qchess serve FLAGS` signed for KEY and SECRET; returns the process and its URL."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET)
    process = subprocess.Popen([qchess_binary(), "serve", "--addr", "127.0.0.1:0", *flags], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line.startswith("listening on "):
        process.kill()
        raise RuntimeError(f"qchess serve did not start: {line}{process.stderr.read()}")
    return process, line.split()[-1]


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(timeout=30)


def environment(url: str, **extra: str) -> dict:
    """The process environment with no AWS settings but the endpoints of the stand-in at `url`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_ENDPOINT_URL_BRAKET=f"{url}/braket", AWS_ENDPOINT_URL_S3=f"{url}/s3",
               AWS_ENDPOINT_URL_STS=f"{url}/sts", AWS_REGION="us-east-1")
    env.update(extra)
    return env

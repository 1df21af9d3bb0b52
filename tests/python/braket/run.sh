#!/usr/bin/env bash
# The Amazon Braket checks, with the unmodified, pinned amazon-braket-sdk (boto3, botocore, the
# schema models and the local simulator) in its own environment, .venv-braket:
#
# * check_programs.py: the programs `qchess compile --target braket:DEVICE` writes, against the
#   SDK's schema models, its LocalEmulator's validation (native gates, connectivity) and its exact
#   simulator, for every device whose capabilities are checked in;
# * check_client.py: qchess's Braket client (`--backend braket:DEVICE`, `qchess devices`) against
#   a Braket and S3 endpoint made of the SDK's own parts: botocore checks every signature, the
#   SDK's models check every request, its simulator runs every task.
#
# Builds nothing: the qchess binary comes from QCHESS_BIN (default target/debug/qchess, or
# $CARGO_TARGET_DIR/debug/qchess when that is set).
set -euo pipefail
cd "$(dirname "$0")/../../.."

source tests/python/serve.sh
bin="$(qchess_bin "braket")"
venv=.venv-braket
pinned_venv "$venv" tests/python/braket/requirements.txt

status=0
QCHESS="$bin" "$venv/bin/python" tests/python/braket/check_programs.py || status=1
QCHESS="$bin" "$venv/bin/python" tests/python/braket/check_client.py || status=1
exit "$status"

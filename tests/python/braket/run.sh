#!/usr/bin/env bash
# The Amazon Braket checks, with the unmodified, pinned amazon-braket-sdk (boto3, botocore, the
# schema models and the local simulator) in its own environment, .venv-braket:
#
# * check_programs.py: the programs `qchess compile --target braket:DEVICE` writes, against the
#   SDK's schema models, its LocalEmulator's validation (native gates, connectivity) and its exact
#   simulator, for every device whose capabilities are checked in;
# * check_sdk.py: the unmodified SDK (AwsDevice, AwsQuantumTask, boto3) against `qchess serve`'s
#   Braket stand-in: devices and their capabilities, Bell and GHZ circuits on every device,
#   calibrated verbatim programs against the SDK's LocalEmulator, tasks cancelled and reloaded,
#   wrong signatures refused;
# * check_client.py: qchess's Braket client (`--backend braket:DEVICE`, `qchess devices`,
#   kept games, every bad input) against the stand-in, and its signatures against botocore's
#   own signer (sdk_endpoint.py, an endpoint made of the SDK's parts).
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
QCHESS="$bin" "$venv/bin/python" tests/python/braket/check_sdk.py || status=1
QCHESS="$bin" "$venv/bin/python" tests/python/braket/check_client.py || status=1
exit "$status"

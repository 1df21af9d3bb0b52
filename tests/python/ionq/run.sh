#!/usr/bin/env bash
# Runs the unmodified cirq-ionq and qiskit-ionq clients against `qchess serve`: submit, poll,
# results, cancel and a failed job, with results and bit order checked.
#
# Builds nothing: the qchess binary comes from QCHESS_BIN (default target/debug/qchess, or
# $CARGO_TARGET_DIR/debug/qchess when that is set). Sets up .venv with scripts/python-env.sh,
# starts `qchess serve` on a free port of 127.0.0.1, runs the checks, and stops the server.
set -euo pipefail
cd "$(dirname "$0")/../../.."

source tests/python/serve.sh
bin="$(qchess_bin "ionq interop")"
scripts/python-env.sh

# A short queue delay keeps jobs cancelable for a moment; 12 qubits makes "too many" easy to ask for.
start_serve "ionq interop" "$bin" --api-key test --queue-delay-ms 300 --max-qubits 12 --seed 1
.venv/bin/python tests/python/ionq/check_clients.py "$served_url"

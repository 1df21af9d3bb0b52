#!/usr/bin/env bash
# Runs the unmodified qiskit-ibm-runtime client against `qchess serve`'s IBM Quantum stand-in (see
# check_runtime.py for what runs and what does not).
#
# Builds nothing: the qchess binary comes from QCHESS_BIN (default target/debug/qchess, or
# $CARGO_TARGET_DIR/debug/qchess when that is set). The client's pins (requirements.txt here) do
# not fit those of tests/python (ibm-cloud-sdk-core wants python-dateutil 2), so it gets its own
# environment, .venv-ibm-runtime; starts `qchess serve` on a free port of 127.0.0.1, runs the
# checks, and stops the server.
set -euo pipefail
cd "$(dirname "$0")/../../.."

source tests/python/serve.sh
bin="$(qchess_bin "ibm interop")"
venv=.venv-ibm-runtime
requirements=tests/python/ibm/requirements.txt
stamp="$venv/.requirements.sha256"
wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
    [[ -x "$venv/bin/python" ]] || "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
    echo "$wanted" > "$stamp"
fi

start_serve "ibm interop" "$bin" --api-key test --seed 1
"$venv/bin/python" tests/python/ibm/check_runtime.py "$served_url"

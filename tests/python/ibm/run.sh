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

bin="${QCHESS_BIN:-${CARGO_TARGET_DIR:-target}/debug/qchess}"
if [[ ! -x "$bin" ]]; then
    echo "ibm interop: no qchess binary at $bin; build it (cargo build -p qchess-cli) or set QCHESS_BIN" >&2
    exit 1
fi
venv=.venv-ibm-runtime
requirements=tests/python/ibm/requirements.txt
stamp="$venv/.requirements.sha256"
wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
    [[ -x "$venv/bin/python" ]] || "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
    echo "$wanted" > "$stamp"
fi

log="$(mktemp -d)"
"$bin" serve --addr 127.0.0.1:0 --api-key test --seed 1 >"$log/stdout" 2>"$log/stderr" &
server=$!
cleanup() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    rm -rf "$log"
}
trap cleanup EXIT

for _ in $(seq 1 100); do
    [[ -s "$log/stdout" ]] && break
    if ! kill -0 "$server" 2>/dev/null; then
        echo "ibm interop: qchess serve did not start:" >&2
        cat "$log/stderr" >&2
        exit 1
    fi
    sleep 0.1
done
url="$(head -n1 "$log/stdout" | sed 's/^listening on //')"
echo "ibm interop: qchess serve at $url"
"$venv/bin/python" tests/python/ibm/check_runtime.py "$url"

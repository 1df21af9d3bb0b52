#!/usr/bin/env bash
# Runs the unmodified cirq-ionq and qiskit-ionq clients against `qchess serve`: submit, poll,
# results, cancel and a failed job, with results and bit order checked.
#
# Builds nothing: the qchess binary comes from QCHESS_BIN (default target/debug/qchess, or
# $CARGO_TARGET_DIR/debug/qchess when that is set). Sets up .venv with scripts/python-env.sh,
# starts `qchess serve` on a free port of 127.0.0.1, runs the checks, and stops the server.
set -euo pipefail
cd "$(dirname "$0")/../../.."

bin="${QCHESS_BIN:-${CARGO_TARGET_DIR:-target}/debug/qchess}"
if [[ ! -x "$bin" ]]; then
    echo "ionq interop: no qchess binary at $bin; build it (cargo build -p qchess-cli) or set QCHESS_BIN" >&2
    exit 1
fi
scripts/python-env.sh

log="$(mktemp -d)"
# A short queue delay keeps jobs cancelable for a moment; 12 qubits makes "too many" easy to ask for.
"$bin" serve --addr 127.0.0.1:0 --api-key test --queue-delay-ms 300 --max-qubits 12 --seed 1 \
    >"$log/stdout" 2>"$log/stderr" &
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
        echo "ionq interop: qchess serve did not start:" >&2
        cat "$log/stderr" >&2
        exit 1
    fi
    sleep 0.1
done
url="$(head -n1 "$log/stdout" | sed 's/^listening on //')"
echo "ionq interop: qchess serve at $url"
.venv/bin/python tests/python/ionq/check_clients.py "$url"

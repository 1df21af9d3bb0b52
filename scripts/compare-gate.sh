#!/usr/bin/env bash
# The comparison gate: local against qchess serve on every game in examples/.
#
#  1. serve's exact simulator, its sampled hardware stand-in (no noise) and its Amazon Braket
#     stand-in (the games routed onto IQM Garnet) must agree with the local simulator (exit 0);
#  2. a serve with noise, and one with a deliberate wrong phase, must be caught: exit 1 and a
#     report that names a move.
#
# Builds nothing: it runs the binary in QCHESS_BIN (default target/debug/qchess). Every run is
# seeded, so the gate is deterministic.
set -euo pipefail
cd "$(dirname "$0")/.."

QCHESS_BIN="${QCHESS_BIN:-${CARGO_TARGET_DIR:-target}/debug/qchess}"
if [[ ! -x "$QCHESS_BIN" ]]; then
    echo "compare-gate: no qchess binary at $QCHESS_BIN; build it (cargo build -p qchess-cli) or set QCHESS_BIN" >&2
    exit 1
fi
work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# Starts `qchess serve` on a free port with extra flags, in this shell so the exit trap can
# stop it.
start_serve() {
    local name="$1"
    shift
    "$QCHESS_BIN" serve --addr 127.0.0.1:0 --seed 7 "$@" >"$work/$name.out" 2>"$work/$name.err" &
    pids+=("$!")
}

# The URL a started server announced on its first line.
url_of() {
    local name="$1"
    for _ in $(seq 100); do
        if [[ -s "$work/$name.out" ]]; then
            sed -n 's/^listening on //p' "$work/$name.out" | head -n 1
            return
        fi
        sleep 0.1
    done
    echo "compare-gate: qchess serve ($name) did not start" >&2
    cat "$work/$name.err" >&2
    exit 1
}

games=(examples/*.pgn)
start_serve ideal
start_serve noisy --depolarizing 0.002 --readout-error 0.02
start_serve defective --defect phase-flip:1:2
start_serve braket --aws-access-key-id AKIDCOMPAREGATE --aws-secret-access-key compare-gate-secret
ideal="$(url_of ideal)"
noisy="$(url_of noisy)"
defective="$(url_of defective)"
braket="$(url_of braket)"
[[ -n "$ideal" && -n "$noisy" && -n "$defective" && -n "$braket" ]] || exit 1

expect_agree() {
    local vs="$1"
    echo "-- local vs $vs: must agree"
    if ! "$QCHESS_BIN" compare --seed 1 --vs "$vs" --record "${games[@]}" >"$work/agree.md"; then
        cat "$work/agree.md"
        echo "compare-gate: FAILED: local and $vs disagree" >&2
        exit 1
    fi
    grep -m1 'Verdict' "$work/agree.md"
}

expect_caught() {
    local vs="$1"
    echo "-- local vs $vs: must be caught"
    local code=0
    "$QCHESS_BIN" compare --seed 1 --vs "$vs" --record "${games[@]}" --report-json "$work/caught.json" \
        >"$work/caught.md" 2>"$work/caught.err" || code=$?
    if [[ "$code" != 1 ]]; then
        cat "$work/caught.md" "$work/caught.err"
        echo "compare-gate: FAILED: expected exit 1 (disagree) against $vs, got $code" >&2
        exit 1
    fi
    if ! grep -q '^- \*\*examples/.*, step [0-9]* `' "$work/caught.md"; then
        cat "$work/caught.md"
        echo "compare-gate: FAILED: the report names no move" >&2
        exit 1
    fi
    grep -m1 'Verdict' "$work/caught.md"
    grep -m2 '^- \*\*examples/' "$work/caught.md" | cut -c1-200
}

expect_agree "$ideal"
expect_agree "$ideal,target=qpu.aria-1"
expect_caught "$noisy,target=qpu.aria-1"
expect_caught "$defective,target=qpu.aria-1"
# Amazon Braket's stand-in: the games routed onto IQM Garnet, as verbatim programs.
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL
export AWS_ACCESS_KEY_ID=AKIDCOMPAREGATE AWS_SECRET_ACCESS_KEY=compare-gate-secret
export AWS_ENDPOINT_URL_BRAKET="$braket/braket" AWS_ENDPOINT_URL_S3="$braket/s3" AWS_ENDPOINT_URL_STS="$braket/sts"
expect_agree "braket:iqm-garnet"
echo "compare-gate: passed"

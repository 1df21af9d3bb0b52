#!/usr/bin/env bash
# Runs the unmodified qiskit-ibm-runtime client against `qchess serve`'s IBM Quantum stand-in:
# check_runtime.py (service, devices, SamplerV2 and EstimatorV2 without noise), check_jobs.py
# (status, cancelling, a job out of time), check_sessions.py (sessions and batches),
# check_job_list.py (service.jobs with its filters), check_executor.py (the client-side
# Sampler, Estimator and Executor: the executor program), check_restart.py (jobs, sessions and
# usage outliving a restart of `serve --db`; it starts its own servers), check_noise.py (--ibm-noise device against qiskit-aer's
# noise model of the same device) and check_snippet.py (the guide's notebook/CI snippet, docs/src/ibm.md).
#
# Builds nothing: the qchess binary comes from QCHESS_BIN (default target/debug/qchess, or
# $CARGO_TARGET_DIR/debug/qchess when that is set). The client's pins (requirements.txt here) do
# not fit those of tests/python (ibm-cloud-sdk-core wants python-dateutil 2), so it gets its own
# environment, .venv-ibm-runtime. Starts each server on a free port of 127.0.0.1 and stops them
# all when it exits.
set -euo pipefail
cd "$(dirname "$0")/../../.."

source tests/python/serve.sh
bin="$(qchess_bin "ibm interop")"
venv=.venv-ibm-runtime
pinned_venv "$venv" tests/python/ibm/requirements.txt

# serve NAME FLAGS...: starts a server, and sets url_NAME to the URL it announced.
servers=()
logs="$(mktemp -d)"
stop_all() {
    for pid in "${servers[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$logs"
}
trap stop_all EXIT
serve() {
    local name="$1"
    shift
    "$bin" serve --addr 127.0.0.1:0 --api-key test "$@" >"$logs/$name.out" 2>"$logs/$name.err" &
    servers+=("$!")
    for _ in $(seq 1 100); do
        [[ -s "$logs/$name.out" ]] && break
        if ! kill -0 "${servers[-1]}" 2>/dev/null; then
            echo "ibm interop: qchess serve ($name) did not start:" >&2
            cat "$logs/$name.err" >&2
            exit 1
        fi
        sleep 0.1
    done
    printf -v "url_$name" '%s' "$(head -n1 "$logs/$name.out" | sed 's/^listening on //')"
}

serve ideal --seed 1
serve queued --seed 1 --queue-delay-ms 600000
serve delayed --seed 1 --queue-delay-ms 1500
serve expired --seed 1 --time-limit 0.000001
serve device --seed 1 --ibm-noise device
echo "ibm interop: qchess serve at $url_ideal (ideal), $url_queued (queued), $url_delayed (delayed), $url_expired (no time), $url_device (device noise)"

status=0
"$venv/bin/python" tests/python/ibm/check_runtime.py "$url_ideal" || status=1
"$venv/bin/python" tests/python/ibm/check_jobs.py "$url_queued" "$url_expired" "$url_ideal" || status=1
"$venv/bin/python" tests/python/ibm/check_sessions.py "$url_ideal" "$url_delayed" "$url_queued" || status=1
"$venv/bin/python" tests/python/ibm/check_job_list.py "$url_ideal" "$url_queued" || status=1
"$venv/bin/python" tests/python/ibm/check_restart.py "$bin" || status=1
"$venv/bin/python" tests/python/ibm/check_noise.py "$url_device" "$bin" || status=1
"$venv/bin/python" tests/python/ibm/check_executor.py "$url_ideal" "$url_device" || status=1
"$venv/bin/python" tests/python/ibm/check_snippet.py "$bin" || status=1
exit "$status"

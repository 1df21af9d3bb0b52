# Sourced by the third-party client checks: the qchess binary, and one `qchess serve` on a free
# port of 127.0.0.1 that is stopped when the script exits.

# qchess_bin LABEL: the binary from QCHESS_BIN (default target/debug/qchess, or
# $CARGO_TARGET_DIR/debug/qchess), or a clear failure when it is not built.
qchess_bin() {
    local bin="${QCHESS_BIN:-${CARGO_TARGET_DIR:-target}/debug/qchess}"
    if [[ ! -x "$bin" ]]; then
        echo "$1: no qchess binary at $bin; build it (cargo build -p qchess-cli) or set QCHESS_BIN" >&2
        exit 1
    fi
    printf '%s\n' "$bin"
}

# start_serve LABEL BIN FLAGS...: starts the server and sets served_url to the URL it announced.
start_serve() {
    local label="$1" bin="$2"
    shift 2
    served_log="$(mktemp -d)"
    "$bin" serve --addr 127.0.0.1:0 "$@" >"$served_log/stdout" 2>"$served_log/stderr" &
    served_pid=$!
    trap stop_serve EXIT
    for _ in $(seq 1 100); do
        [[ -s "$served_log/stdout" ]] && break
        if ! kill -0 "$served_pid" 2>/dev/null; then
            echo "$label: qchess serve did not start:" >&2
            cat "$served_log/stderr" >&2
            exit 1
        fi
        sleep 0.1
    done
    served_url="$(head -n1 "$served_log/stdout" | sed 's/^listening on //')"
    echo "$label: qchess serve at $served_url"
}

stop_serve() {
    kill "$served_pid" 2>/dev/null || true
    wait "$served_pid" 2>/dev/null || true
    rm -rf "$served_log"
}

# pinned_venv VENV REQUIREMENTS: makes (or reuses) a virtual environment with exactly the pinned
# packages; does nothing when the pins already match.
pinned_venv() {
    local venv="$1" requirements="$2"
    local stamp="$venv/.requirements.sha256" wanted
    wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
    if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
        [[ -x "$venv/bin/python" ]] || "${PYTHON:-python3}" -m venv "$venv"
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
        echo "$wanted" > "$stamp"
    fi
}

#!/usr/bin/env bash
# The Python cross-checks against Qiskit and qiskit-aer: sets up .venv (scripts/python-env.sh),
# builds the qchess binary and the exported test circuits, then runs tests/python/run_all.py.
# Honours CARGO_TARGET_DIR and QCHESS (path of a prebuilt binary).
set -euo pipefail
cd "$(dirname "$0")/../.."

scripts/python-env.sh
target="${CARGO_TARGET_DIR:-target}"
if [[ -z "${QCHESS:-}" ]]; then
    cargo build --quiet --locked -p qchess-cli --bin qchess
    export QCHESS="$target/debug/qchess"
fi
emitted="$(mktemp -d)"
trap 'rm -rf "$emitted"' EXIT
cargo run --quiet --locked -p qchess-qasm --example export_circuits -- "$emitted"
.venv/bin/python tests/python/run_all.py "$emitted"

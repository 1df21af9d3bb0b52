#!/usr/bin/env bash
# The Python package (crates/qchess-py): builds the wheel with maturin (the PEP 517 backend,
# dev profile so it reuses the test build), installs it into .venv and runs its pytest suite.
# Honours CARGO_TARGET_DIR and QCHESS (path of a prebuilt binary, used to compare with the CLI).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/python-env.sh
target="${CARGO_TARGET_DIR:-target}"
if [[ -z "${QCHESS:-}" ]]; then
    cargo build --quiet --locked -p qchess-cli --bin qchess
    export QCHESS="$target/debug/qchess"
fi
# maturin runs as a subprocess of pip and must be on PATH.
PATH="$PWD/.venv/bin:$PATH" MATURIN_PEP517_ARGS="--profile dev --locked" \
    .venv/bin/pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall \
    ./crates/qchess-py
.venv/bin/python -m pytest -q -p no:cacheprovider crates/qchess-py/tests

#!/usr/bin/env bash
# The test command: formatting, lints, docs and every test, as CI runs them.
set -euo pipefail
cd "$(dirname "$0")/.."

# Every build here starts from a clean tree in CI, where incremental caches only take disk.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

free_disk() { df -h --output=avail . | tail -n 1 | tr -d ' '; }
section() { printf '\n==== %s ==== (%s, %ss in, %s free)\n' "$*" "$(date +%T)" "$SECONDS" "$(free_disk)"; }

section "rustfmt"
cargo fmt --all --check

section "clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

section "rustdoc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

section "tests"
cargo test --workspace --locked

section "game store on PostgreSQL (a throwaway cluster; its tests fail, not skip, here)"
# `--workspace` keeps the features of the test build above, so nothing is compiled again.
tests/store/with-postgres.sh sh -c 'cargo test --workspace --locked --test store --test seats --test stored --test ibm_persist &&
    cargo test --workspace --locked --test cli store_instances'

section "documented figures: regression guards on the release build (scripts/guard-figures.py)"
cargo build --release --locked -p qchess-cli
python3 scripts/guard-figures.py --qchess "${CARGO_TARGET_DIR:-target}/release/qchess"

section "IBM sessions on a busy device: a game's queue wait in a session against lone jobs"
python3 scripts/ibm-session-wait.py --quick --qchess "${CARGO_TARGET_DIR:-target}/release/qchess"

section "the guide: mdbook build, links, runnable examples (scripts/check-guide.sh)"
scripts/check-guide.sh
tests/docs/broken-links.sh

section "backend comparison gate (local vs qchess serve, ideal, noisy and defective)"
QCHESS_BIN="${CARGO_TARGET_DIR:-target}/debug/qchess" scripts/compare-gate.sh

section "python cross-checks (qiskit, qiskit-aer)"
# Against the release build above: the build people run, and its routing of whole games takes a
# minute where the debug build's takes four.
QCHESS="${CARGO_TARGET_DIR:-target}/release/qchess" tests/python/run_all.sh

section "IonQ clients (cirq-ionq, qiskit-ionq) against qchess serve"
QCHESS_BIN="${CARGO_TARGET_DIR:-target}/debug/qchess" tests/python/ionq/run.sh

section "IBM client (qiskit-ibm-runtime) against qchess serve"
QCHESS_BIN="${CARGO_TARGET_DIR:-target}/debug/qchess" tests/python/ibm/run.sh

section "Amazon Braket: compiled programs, the SDK against the stand-in, the client against both"
QCHESS_BIN="${CARGO_TARGET_DIR:-target}/debug/qchess" tests/python/braket/run.sh

section "python package (maturin wheel, pytest)"
# The debug binary of the test build: building `-p qchess-cli` alone would unify its dependencies'
# features differently and compile the workspace crates once more (about three minutes here).
QCHESS="${CARGO_TARGET_DIR:-target}/debug/qchess" scripts/test-python-package.sh

section "web board in headless Chromium (selenium)"
QCHESS="${CARGO_TARGET_DIR:-target}/debug/qchess" tests/web/run.sh

section "all checks passed"

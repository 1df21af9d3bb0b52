#!/usr/bin/env bash
# The test command: formatting, lints, docs and every test, as CI runs them.
set -euo pipefail
cd "$(dirname "$0")/.."

section() { printf '\n==== %s ==== (%s, %ss in)\n' "$*" "$(date +%T)" "$SECONDS"; }

section "rustfmt"
cargo fmt --all --check

section "clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

section "rustdoc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

section "tests"
cargo test --workspace --locked

section "game store on PostgreSQL (a throwaway cluster; its tests fail, not skip, here)"
tests/store/with-postgres.sh sh -c 'cargo test --locked -p qchess-store --test store --test seats &&
    cargo test --locked -p qchess-server --test stored &&
    cargo test --locked -p qchess-cli --test cli store_instances'

section "documented figures: regression guards on the release build (scripts/guard-figures.py)"
cargo build --release --locked -p qchess-cli
python3 scripts/guard-figures.py --qchess "${CARGO_TARGET_DIR:-target}/release/qchess"

section "the guide: mdbook build, links, runnable examples (scripts/check-guide.sh)"
scripts/check-guide.sh

section "backend comparison gate (local vs qchess serve, ideal, noisy and defective)"
QCHESS_BIN="${CARGO_TARGET_DIR:-target}/debug/qchess" scripts/compare-gate.sh

section "python cross-checks (qiskit, qiskit-aer)"
tests/python/run_all.sh

section "IonQ clients (cirq-ionq, qiskit-ionq) against qchess serve"
QCHESS_BIN="${CARGO_TARGET_DIR:-target}/debug/qchess" tests/python/ionq/run.sh

section "IBM client (qiskit-ibm-runtime) against qchess serve"
QCHESS_BIN="${CARGO_TARGET_DIR:-target}/debug/qchess" tests/python/ibm/run.sh

section "python package (maturin wheel, pytest)"
scripts/test-python-package.sh

section "web board in headless Chromium (selenium)"
QCHESS="${CARGO_TARGET_DIR:-target}/debug/qchess" tests/web/run.sh

section "all checks passed"

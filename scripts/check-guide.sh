#!/usr/bin/env bash
# The guide: installs mdBook when missing (a pinned release, built once into the target
# directory), builds docs/ into target/book, then checks every link and anchor of the guide and
# the README, in the Markdown and in the built book, and runs every example marked runnable
# (scripts/check-docs.py, which takes the arguments given here too, such as --no-run).
# Honours CARGO_TARGET_DIR and QCHESS (the binary the examples run; the release build by default).
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
tools="$target/tools"
mdbook="$tools/bin/mdbook"
if [[ ! -x "$mdbook" ]] || ! "$mdbook" --version | grep -q "v0.4.52"; then
    echo "installing mdbook 0.4.52 into $tools"
    cargo install --quiet --locked --debug mdbook --version 0.4.52 --no-default-features --features search --root "$tools"
fi
"$mdbook" build docs
python3 scripts/check-docs.py --qchess "${QCHESS:-$target/release/qchess}" "$@"

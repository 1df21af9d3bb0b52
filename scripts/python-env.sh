#!/usr/bin/env bash
# Creates (or reuses) the Python virtual environment at .venv in the repository root and installs
# the pinned packages of tests/python/requirements.txt. Safe to run again: when the installed
# packages already match the pins, it does nothing.
#
# Usage: scripts/python-env.sh            # then run tests/python/run_all.sh
#        PYTHON=python3.11 scripts/python-env.sh
set -euo pipefail
cd "$(dirname "$0")/.."

python="${PYTHON:-python3}"
venv=.venv
requirements=tests/python/requirements.txt
stamp="$venv/.requirements.sha256"

if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
    echo "python-env: $python is older than 3.10; set PYTHON to a newer interpreter" >&2
    exit 1
fi

if [[ ! -x "$venv/bin/python" ]]; then
    echo "python-env: creating $venv with $("$python" --version)"
    "$python" -m venv "$venv"
fi

wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]]; then
    echo "python-env: $venv is up to date"
    exit 0
fi

echo "python-env: installing $requirements"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements"
echo "$wanted" > "$stamp"
echo "python-env: done"

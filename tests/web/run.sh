#!/usr/bin/env bash
# The web board in headless Chromium: installs Debian's chromium and chromium-driver (and a font
# with chess symbols) when missing, sets up .venv with selenium (scripts/python-env.sh), builds
# qchess, and runs tests/web/board_test.py. The screenshot of a position with superposition and
# entanglement is written to $QCHESS_WEB_ARTIFACTS (default target/web-artifacts/board.png).
# Then tests/web/friends_test.py: two players and a spectator in three browsers, through seat links;
# and tests/web/layout_test.py: the board fits laptop windows and a phone, the evaluation label's contrast.
# Honours CARGO_TARGET_DIR and QCHESS (path of a prebuilt binary).
set -euo pipefail
cd "$(dirname "$0")/../.."

missing=()
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
[[ -x /usr/bin/chromedriver ]] || missing+=(chromium-driver)
[[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]] || missing+=(fonts-dejavu-core)
if ((${#missing[@]})); then
    echo "web tests: installing ${missing[*]}"
    sudo=""
    [[ "$(id -u)" == 0 ]] || sudo=sudo
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

scripts/python-env.sh
target="${CARGO_TARGET_DIR:-target}"
if [[ -z "${QCHESS:-}" ]]; then
    cargo build --quiet --locked -p qchess-cli --bin qchess
    QCHESS="$target/debug/qchess"
fi
artifacts="${QCHESS_WEB_ARTIFACTS:-$target/web-artifacts}"
.venv/bin/python tests/web/board_test.py "$QCHESS" "$artifacts"
.venv/bin/python tests/web/friends_test.py "$QCHESS" "$artifacts"
.venv/bin/python tests/web/layout_test.py "$QCHESS" "$artifacts"

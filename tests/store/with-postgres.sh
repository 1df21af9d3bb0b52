#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL cluster: installs Debian's postgresql when missing,
# makes a cluster in a temporary directory (as the postgres user when run as root: PostgreSQL
# refuses to run as root), starts it on a free port of 127.0.0.1, runs the command with
# QCHESS_TEST_POSTGRES_URL set to it and QCHESS_TEST_POSTGRES=required (so tests that need
# PostgreSQL fail rather than skip), then stops the cluster and removes it.
#
# Usage: tests/store/with-postgres.sh COMMAND [ARGS...]
set -euo pipefail
cd "$(dirname "$0")/../.."

bin_dir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
if [[ -z "$(bin_dir)" || ! -x "$(bin_dir)/initdb" ]]; then
    echo "postgres: installing Debian's postgresql"
    sudo=""
    [[ "$(id -u)" == 0 ]] || sudo=sudo
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql
fi
bin="$(bin_dir)"

dir="$(mktemp -d "${TMPDIR:-/tmp}/qchess-postgres.XXXXXX")"
as_owner=()
if [[ "$(id -u)" == 0 ]]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    chown postgres "$dir"
    as_owner=(runuser -u postgres --)
fi
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"

stop() {
    "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap stop EXIT

"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U qchess --auth=trust --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log"; exit 1; }
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null \
    || { cat "$dir/server.log"; exit 1; }
echo "postgres: a throwaway cluster listens on 127.0.0.1:$port ($("$bin/postgres" --version))"

export QCHESS_TEST_POSTGRES_URL="postgres://qchess@127.0.0.1:$port/postgres"
export QCHESS_TEST_POSTGRES=required
"$@"

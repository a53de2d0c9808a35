#!/usr/bin/env bash
# Starts or stops a throw-away PostgreSQL cluster on a loopback port for the test suite.
#   scripts/test-postgres.sh start DIR PORT   -> prints the connection URL
#   scripts/test-postgres.sh stop DIR
# The server binaries refuse to run as root, so as root they run as the `postgres` user.
set -euo pipefail
action=${1:?usage: test-postgres.sh start DIR PORT | stop DIR}
dir=${2:?a directory is required}

find_bin() {
  if command -v "$1" >/dev/null 2>&1; then command -v "$1"; return; fi
  local candidate
  for candidate in /usr/lib/postgresql/*/bin/"$1"; do
    [ -x "$candidate" ] && { echo "$candidate"; return; }
  done
  return 1
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$1"; else bash -c "$1"; fi
}

case "$action" in
  start)
    port=${3:?a port is required}
    initdb=$(find_bin initdb) || { echo "test-postgres: no PostgreSQL server binaries (initdb) found" >&2; exit 3; }
    pg_ctl=$(find_bin pg_ctl)
    rm -rf "$dir" && mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    as_owner "'$initdb' -D '$dir/data' -A trust -U postgres >'$dir/initdb.log' 2>&1 \
      && '$pg_ctl' -D '$dir/data' -o \"-p $port -k '$dir' -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200\" -l '$dir/log' -w start >/dev/null"
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    pg_ctl=$(find_bin pg_ctl) || exit 0
    [ -d "$dir/data" ] && as_owner "'$pg_ctl' -D '$dir/data' -m fast stop >/dev/null" || true
    ;;
  *)
    echo "usage: test-postgres.sh start DIR PORT | stop DIR" >&2
    exit 2
    ;;
esac

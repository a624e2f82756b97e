#!/usr/bin/env bash
# Makes a real PostgreSQL server available for the tests and prints the line that points them at
# it:
#
#   eval "$(bash scripts/ci-postgres.sh)"      # exports AGENT_ADAPTOR_TEST_PG_URL
#   bash scripts/ci-postgres.sh stop           # stops the cluster this script started
#
# Order of preference:
#   1. AGENT_ADAPTOR_TEST_PG_URL is already set and answers: it is printed back unchanged.
#   2. A cluster this script started earlier (state under $AGENT_ADAPTOR_PG_STATE, default
#      ${TMPDIR:-/tmp}/agent-adaptor-pg-<user>) is running: reused.
#   3. Otherwise the server binaries are found (Debian's postgresql package is installed with
#      apt-get when they are missing), a throwaway cluster is initialised in the state directory,
#      started on 127.0.0.1 on a free port, and a test database is created.
#
# stdout carries only the export line; progress goes to stderr. Running it again is cheap.
set -euo pipefail

DB_NAME="${AGENT_ADAPTOR_PG_DB:-agent_adaptor_test}"
STATE="${AGENT_ADAPTOR_PG_STATE:-${TMPDIR:-/tmp}/agent-adaptor-pg-$(id -un)}"
DATA="$STATE/data"

log() { printf 'ci-postgres: %s\n' "$*" >&2; }

# Runs a command as the cluster owner: "postgres" when we are root (the server refuses to run as
# root), ourselves otherwise.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

find_bindir() {
  local dir
  if command -v pg_config >/dev/null 2>&1; then
    dir="$(pg_config --bindir 2>/dev/null || true)"
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  fi
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  return 1
}

install_server() {
  log "installing PostgreSQL from Debian packages"
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { log "not root and no sudo: install postgresql first"; exit 1; }
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >&2
  # The package's own "main" cluster is not needed; it stays stopped unless the system starts it.
  $sudo apt-get install -y -qq --no-install-recommends postgresql >&2
}

# Whether a server answers at a URL (psql when present, otherwise a TCP connect).
reachable() {
  local url="$1"
  if command -v psql >/dev/null 2>&1; then
    psql "$url" -Atqc 'select 1' >/dev/null 2>&1
  else
    local hostport="${url#*@}"; hostport="${hostport%%/*}"
    (exec 3<>"/dev/tcp/${hostport%%:*}/${hostport##*:}") 2>/dev/null
  fi
}

port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Whether the cluster's postmaster is running. A killed server whose parent is gone can linger
# as a zombie when nothing reaps orphans (containers); pg_ctl would still call it running.
server_alive() {
  local pid state
  pid="$(sed -n 1p "$DATA/postmaster.pid" 2>/dev/null || true)"
  [ -n "$pid" ] || return 1
  if [ -r "/proc/$pid/stat" ]; then
    state="$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f1)"
    [ "$state" != Z ] && [ "$state" != X ]
  elif [ -d /proc/self ]; then
    return 1
  else
    as_owner "$BINDIR/pg_ctl" -D "$DATA" status >/dev/null 2>&1
  fi
}

emit() {
  printf 'export AGENT_ADAPTOR_TEST_PG_URL=%q\n' "$1"
}

stop_cluster() {
  local bindir
  if [ -f "$DATA/postmaster.pid" ] && bindir="$(find_bindir)"; then
    as_owner "$bindir/pg_ctl" -D "$DATA" -m fast -w stop >&2 || true
  fi
  log "stopped"
}

if [ "${1:-}" = "stop" ]; then
  stop_cluster
  exit 0
fi

# 1. An explicitly configured server.
if [ -n "${AGENT_ADAPTOR_TEST_PG_URL:-}" ] && reachable "$AGENT_ADAPTOR_TEST_PG_URL"; then
  log "using the configured server"
  emit "$AGENT_ADAPTOR_TEST_PG_URL"
  exit 0
fi

BINDIR="$(find_bindir || true)"
if [ -z "$BINDIR" ]; then
  install_server
  BINDIR="$(find_bindir)" || { log "PostgreSQL server binaries not found after installing"; exit 1; }
fi
# psql/createdb from the same installation.
export PATH="$BINDIR:$PATH"

mkdir -p "$STATE"
if [ "$(id -u)" = 0 ]; then chown postgres: "$STATE"; fi
chmod 700 "$STATE"

# 2. Our own cluster from an earlier run; 3. otherwise a new one.
if [ -d "$DATA" ] && [ ! -f "$DATA/PG_VERSION" ]; then rm -rf "$DATA"; fi  # an interrupted initdb
if [ ! -f "$DATA/PG_VERSION" ]; then
  log "initialising a cluster with $BINDIR/initdb"
  as_owner "$BINDIR/initdb" -D "$DATA" --auth=trust --username=postgres --encoding=UTF8 --no-locale >/dev/null
fi

if server_alive; then
  log "reusing the running cluster"
  sed -n 4p "$DATA/postmaster.pid" > "$STATE/port"  # line 4 of postmaster.pid is the port
  as_owner "$BINDIR/pg_isready" -q -h 127.0.0.1 -p "$(cat "$STATE/port")" -t 30 || true
else
  PORT="$(cat "$STATE/port" 2>/dev/null || echo 55432)"
  while ! port_free "$PORT"; do PORT=$((PORT + 1)); done
  rm -f "$DATA/postmaster.pid"  # left by a killed server
  log "starting on 127.0.0.1:$PORT"
  as_owner "$BINDIR/pg_ctl" -D "$DATA" -l "$STATE/server.log" -w -t 60 start \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -c unix_socket_directories=$STATE -c max_connections=200" >&2 \
    || { tail -n 30 "$STATE/server.log" >&2 || true; exit 1; }
  echo "$PORT" > "$STATE/port"
fi
PORT="$(cat "$STATE/port")"

ADMIN_URL="postgres://postgres@127.0.0.1:$PORT/postgres"
if [ "$(psql "$ADMIN_URL" -Atqc "select 1 from pg_database where datname = '$DB_NAME'")" != 1 ]; then
  psql "$ADMIN_URL" -qc "create database \"$DB_NAME\"" >&2
fi

URL="postgres://postgres@127.0.0.1:$PORT/$DB_NAME"
reachable "$URL" || { log "the server does not answer at 127.0.0.1:$PORT"; exit 1; }
log "ready at 127.0.0.1:$PORT"
emit "$URL"

#!/usr/bin/env bash
# A private PostgreSQL cluster for load tests and benchmarks, with the
# settings an operator would use (postgresql.conf beside this file): initdb
# into a temporary directory with Debian's binaries (PGBIN, default
# /usr/lib/postgresql/15/bin; as the postgres user through runuser when
# run as root, since initdb refuses root), start it on a free port of
# 127.0.0.1 (its Unix socket in the same directory), create the database
# msgkit, and print its DSN and the fsync latency of the disk under it:
# pg_test_fsync's figure for the wal_sync_method in force, the floor of a
# durable commit. On exit the cluster is stopped and its directory removed.
#
#	bash examples/pgcluster/start.sh                     # until interrupted
#	bash examples/pgcluster/start.sh go test ./adapters/pgstore/   # a command with MSGKIT_PG and MSGKIT_TEST_PG set
#
# Sourced, it only defines pgcluster_start and pgcluster_stop, for scripts
# that keep their own exit trap (examples/smsload/targets.sh):
#
#	. examples/pgcluster/start.sh
#	pgcluster_start        # sets MSGKIT_PG, PGCLUSTER_DIR, PGCLUSTER_PID, PGCLUSTER_FSYNC_US
#	...
#	pgcluster_stop
#
# Environment: PGBIN, PGCLUSTER_BASE (the directory the cluster's goes in:
# TMPDIR or /tmp; on tmpfs fsync costs nothing and the figures mean
# nothing), PGCLUSTER_FSYNC_SECS (seconds per pg_test_fsync test, 1; 0
# skips it), PGCLUSTER_SHARED_BUFFERS and PGCLUSTER_CACHE (override the
# sizes taken from the RAM), PGCLUSTER_DB (msgkit).

pgcluster_conf=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/postgresql.conf

# pgcluster_start: initdb, start, create the database, measure fsync.
pgcluster_start() {
  local bin=${PGBIN:-/usr/lib/postgresql/15/bin} db=${PGCLUSTER_DB:-msgkit}
  local b
  for b in initdb pg_ctl psql pg_test_fsync; do
    [ -x "$bin/$b" ] || { echo "pgcluster: $bin/$b missing: apt-get install postgresql-15 (or set PGBIN)" >&2; return 1; }
  done
  PGCLUSTER_BIN=$bin
  PGCLUSTER_DIR=$(mktemp -d "${PGCLUSTER_BASE:-${TMPDIR:-/tmp}}/msgkit-pg.XXXXXX")
  if [ "$(stat -f -c %T "$PGCLUSTER_DIR")" = tmpfs ]; then
    echo "pgcluster: warning: $PGCLUSTER_DIR is on tmpfs, where fsync is free: set PGCLUSTER_BASE to a disk" >&2
  fi
  PGCLUSTER_AS=()
  if [ "$(id -u)" = 0 ]; then
    chown postgres: "$PGCLUSTER_DIR"
    PGCLUSTER_AS=(runuser -u postgres --)
  fi
  local data=$PGCLUSTER_DIR/data
  # -N: a throwaway cluster need not be synced to disk before it starts.
  "${PGCLUSTER_AS[@]}" "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C -N >"$PGCLUSTER_DIR/initdb.log" 2>&1 ||
    { cat "$PGCLUSTER_DIR/initdb.log" >&2; return 1; }
  cp "$pgcluster_conf" "$data/msgkit.conf"

  # A quarter of the RAM for shared_buffers (at most 8GB: beyond it the
  # kernel's cache does as well) and three quarters as the planner's idea
  # of what is cached; the memory is only touched as the data grows.
  local mem_mb
  mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
  local sb=${PGCLUSTER_SHARED_BUFFERS:-$(( mem_mb / 4 > 8192 ? 8192 : mem_mb / 4 ))MB}
  local cache=${PGCLUSTER_CACHE:-$(( mem_mb * 3 / 4 ))MB}

  local port try
  for try in 1 2 3 4 5; do
    port=$(pgcluster_free_port) || return 1
    cat >"$data/machine.conf" <<CONF
# Written by examples/pgcluster/start.sh for this machine and run.
shared_buffers = $sb
effective_cache_size = $cache
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$PGCLUSTER_DIR'
CONF
    if ! grep -q "^include 'msgkit.conf'" "$data/postgresql.conf"; then
      printf "include 'msgkit.conf'\ninclude 'machine.conf'\n" >>"$data/postgresql.conf"
    fi
    if "${PGCLUSTER_AS[@]}" "$bin/pg_ctl" start -w -t 60 -D "$data" -l "$PGCLUSTER_DIR/postgres.log" >/dev/null; then
      break
    fi
    # Someone took the port meanwhile: try another.
    if [ "$try" = 5 ]; then tail -20 "$PGCLUSTER_DIR/postgres.log" >&2; return 1; fi
  done
  PGCLUSTER_PID=$(head -1 "$data/postmaster.pid")
  PGCLUSTER_PORT=$port
  "$bin/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -c "CREATE DATABASE $db" || return 1
  export MSGKIT_PG="postgres://postgres@127.0.0.1:$port/$db?sslmode=disable"
  echo "pgcluster: PostgreSQL $("$bin/postgres" -V | awk '{print $3}') at $MSGKIT_PG (data $data, shared_buffers $sb, effective_cache_size $cache, settings examples/pgcluster/postgresql.conf)" >&2
  pgcluster_fsync
}

# pgcluster_free_port prints a port of 127.0.0.1 that nothing listens on.
pgcluster_free_port() {
  local p
  for p in $(shuf -i 20000-29999 -n 50); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  echo "pgcluster: no free port found" >&2
  return 1
}

# pgcluster_fsync prints pg_test_fsync's figure for one 8kB write and sync
# with the cluster's wal_sync_method, on the cluster's own filesystem, and
# sets PGCLUSTER_FSYNC_US. pg_test_fsync is stopped once that figure is out.
pgcluster_fsync() {
  local secs=${PGCLUSTER_FSYNC_SECS:-1} method out line p
  PGCLUSTER_FSYNC_US=""
  [ "$secs" = 0 ] && return 0
  method=$("$PGCLUSTER_BIN/psql" -Atq -h 127.0.0.1 -p "$PGCLUSTER_PORT" -U postgres -d postgres -c "SHOW wal_sync_method")
  out=$PGCLUSTER_DIR/fsync.out
  "$PGCLUSTER_BIN/pg_test_fsync" -s "$secs" -f "$PGCLUSTER_DIR/fsync.test" >"$out" 2>&1 &
  p=$!
  for _ in $(seq 1 $((secs * 100 + 100))); do
    # The first section ("one 8kB write") is the one a commit pays.
    line=$(awk -v m="$method" '/one 8kB write/ {s = 1; next} /8kB write/ {s = 0} s && $1 == m && /ops\/sec/ {print $2, $4; exit}' "$out")
    [ -n "$line" ] && break
    kill -0 "$p" 2>/dev/null || break
    sleep 0.1
  done
  kill "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
  if [ -z "$line" ]; then
    echo "pgcluster: pg_test_fsync gave no figure for $method:" >&2
    cat "$out" >&2
    return 0
  fi
  local ops us
  read -r ops us <<<"$line"
  PGCLUSTER_FSYNC_US=$us
  echo "pgcluster: fsync ($method, one 8kB write, pg_test_fsync -s $secs): ${ops%.*} ops/s, $us µs each: no durable commit answers sooner, and one connection commits at most ${ops%.*} times a second (commits that arrive together share a flush)" >&2
}

# pgcluster_stop stops the cluster and removes its directory; safe to call
# twice or before pgcluster_start.
pgcluster_stop() {
  [ -n "${PGCLUSTER_DIR:-}" ] || return 0
  if [ -f "$PGCLUSTER_DIR/data/postmaster.pid" ]; then
    "${PGCLUSTER_AS[@]}" "$PGCLUSTER_BIN/pg_ctl" stop -w -m fast -D "$PGCLUSTER_DIR/data" >/dev/null 2>&1 || true
  fi
  rm -rf "$PGCLUSTER_DIR"
  PGCLUSTER_DIR=""
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  trap pgcluster_stop EXIT
  trap 'exit 130' INT TERM
  pgcluster_start
  export MSGKIT_TEST_PG=$MSGKIT_PG
  if [ $# -gt 0 ]; then
    "$@"
  else
    echo "pgcluster: running until interrupted; MSGKIT_PG=$MSGKIT_PG" >&2
    sleep infinity &
    sleeper=$!
    trap 'kill "$sleeper" 2>/dev/null; pgcluster_stop' EXIT
    wait "$sleeper"
  fi
fi

# shellcheck shell=bash
# Sourced by compare.sh and cpu.sh: the targets they load, started the
# same way. The caller sets PORT (the platform's bulk SMS port; the bare
# handler takes PORT+1 and the platform's REST listener PORT-4000) and
# NAME (for messages and the PostgreSQL schema), then sources this file
# from the repository's root. It builds server, smsload and bare to $bin,
# starts the platform on STORE (postgres or memory; SMS_SEND=false makes
# it accept and queue only), the bare handler, on PostgreSQL the bare
# handler writing each submission before its 202 (bare -pg, on PORT+10:
# the floor of a durable answer on that cluster) and Kannel twice
# (kannel.sh): without a store on 13013 and with its spool store on 13113,
# waits until they listen, and stops them all on exit. It leaves their
# pids in $server, $bare, $bare_pg (0: not run), $kannel and $kannel_store
# (0: Kannel not run).
#
# PG says which PostgreSQL the platform uses when STORE=postgres:
#   own  (the default when MSGKIT_PG is unset) a private cluster started by
#        examples/pgcluster/start.sh with the operator's settings checked in
#        there, its fsync latency printed first; removed on exit.
#   env  (the default when MSGKIT_PG is set) the server at MSGKIT_PG, in a
#        fresh schema dropped on exit; its settings are whatever it has.
# KANNEL: auto (run Kannel when installed), install (apt-get install kannel
# kannel-extras when missing, as root, then run it) or off.
STORE=${STORE:-postgres}
if [ -n "${MSGKIT_PG:-}" ]; then PG=${PG:-env}; else PG=${PG:-own}; fi
KANNEL=${KANNEL:-auto}
bin=$(mktemp -d)
pids=()
schema=${NAME}_$$
. examples/pgcluster/start.sh
cleanup() {
  kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  if [ "$STORE" = postgres ] && [ "$PG" = env ]; then psql -q "$MSGKIT_PG" -c "DROP SCHEMA IF EXISTS $schema CASCADE" -c "DROP SCHEMA IF EXISTS ${schema}_bare CASCADE" 2>/dev/null || true; fi
  pgcluster_stop
  rm -rf "$bin"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
up() { for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; echo "$NAME: port $1 not up" >&2; exit 1; }

case $STORE in
memory) pg_label="" ;;
postgres)
  case $PG in
  own)
    pgcluster_start
    pg_label="PostgreSQL: own cluster (examples/pgcluster/postgresql.conf), fsync ${PGCLUSTER_FSYNC_US:-?} µs" ;;
  env)
    : "${MSGKIT_PG:?PG=env needs MSGKIT_PG}"
    pg_label="PostgreSQL: ${MSGKIT_PG%%\?*}, schema $schema" ;;
  *) echo "$NAME: PG must be own or env" >&2; exit 2 ;;
  esac ;;
*) echo "$NAME: STORE must be postgres or memory" >&2; exit 2 ;;
esac
if [ "$KANNEL" = install ] && [ ! -x /usr/sbin/bearerbox ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kannel kannel-extras >/dev/null
fi

for cmd in server smsload bare; do go build -o "$bin/$cmd" "./examples/$cmd"; done
args=(-bootstrap examples/smsload/bootstrap.json -demo false -log-level warn
  -addr "127.0.0.1:$((PORT - 4000))" -sms-http "127.0.0.1:$PORT" -sms-https "")
if [ "$STORE" = postgres ]; then args+=(-store postgres -pg "$MSGKIT_PG" -pg-schema "$schema" -sms-send "${SMS_SEND:-true}"); fi
"$bin/server" "${args[@]}" >"$bin/server.log" 2>&1 &
server=$!
pids+=("$server")
"$bin/bare" -addr "127.0.0.1:$((PORT + 1))" >/dev/null 2>&1 &
bare=$!
pids+=("$bare")
bare_pg=0
if [ "$STORE" = postgres ]; then
  "$bin/bare" -addr "127.0.0.1:$((PORT + 10))" -pg "$MSGKIT_PG" -pg-schema "${schema}_bare" >"$bin/bare-pg.log" 2>&1 &
  bare_pg=$!
  pids+=("$bare_pg")
fi
kannel=0 kannel_store=0
if [ "$KANNEL" != off ] && [ -x /usr/sbin/bearerbox ]; then
  bash examples/smsload/kannel.sh 2>/dev/null &
  kannel=$!
  pids+=("$kannel")
  KANNEL_STORE=spool KANNEL_OFFSET=100 bash examples/smsload/kannel.sh 2>/dev/null &
  kannel_store=$!
  pids+=("$kannel_store")
  up 13013
  up 13113
fi
up "$PORT"
up "$((PORT + 1))"
if [ "$bare_pg" != 0 ]; then up "$((PORT + 10))"; fi

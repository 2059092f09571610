# Sourced by compare.sh and cpu.sh: the targets they load, started the
# same way. The caller sets PORT (the platform's bulk SMS port; the bare
# handler takes PORT+1 and the platform's REST listener PORT-4000) and
# NAME (for messages and the PostgreSQL schema), then sources this file
# from the repository's root. It builds server, smsload and bare to $bin,
# starts the platform on STORE (postgres: a fresh schema at MSGKIT_PG,
# dropped on exit; SMS_SEND=false makes it accept and queue only), the
# bare handler and, when installed, Kannel (kannel.sh), waits until they
# listen, and stops them all on exit. It leaves their pids in $server,
# $bare and $kannel (0: not installed).
STORE=${STORE:-postgres}
PG=${MSGKIT_PG:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
bin=$(mktemp -d)
pids=()
schema=${NAME}_$$
cleanup() {
  kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  if [ "$STORE" = postgres ]; then psql -q "$PG" -c "DROP SCHEMA IF EXISTS $schema CASCADE" 2>/dev/null || true; fi
  rm -rf "$bin"
}
trap cleanup EXIT INT TERM
up() { for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; echo "$NAME: port $1 not up" >&2; exit 1; }

for cmd in server smsload bare; do go build -o "$bin/$cmd" "./examples/$cmd"; done
args=(-bootstrap examples/smsload/bootstrap.json -demo false -log-level warn
  -addr "127.0.0.1:$((PORT - 4000))" -sms-http "127.0.0.1:$PORT" -sms-https "")
if [ "$STORE" = postgres ]; then args+=(-store postgres -pg "$PG" -pg-schema "$schema" -sms-send "${SMS_SEND:-true}"); fi
"$bin/server" "${args[@]}" >"$bin/server.log" 2>&1 &
server=$!
pids+=("$server")
"$bin/bare" -addr "127.0.0.1:$((PORT + 1))" >/dev/null 2>&1 &
bare=$!
pids+=("$bare")
kannel=0
if [ -x /usr/sbin/bearerbox ]; then
  bash examples/smsload/kannel.sh 2>/dev/null &
  kannel=$!
  pids+=("$kannel")
  up 13013
fi
up "$PORT"
up "$((PORT + 1))"

#!/usr/bin/env bash
# End-to-end report figures with one command: builds the server, smsload and
# dlrsink to a temporary directory, starts the server on STORE (memory or
# postgres, see PG below) and the sink, loads
# N 2-part submissions asking for SENT_TO_SMSC and DELIVERED reports (4 per
# submission), and prints submissions/s, reports/s and the backlog: the last
# report's arrival less the end of the load.
#
#   examples/dlrsink/run.sh memory
#   examples/dlrsink/run.sh postgres                  # a PostgreSQL cluster of its own
#   PG=env MSGKIT_PG='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' examples/dlrsink/run.sh postgres
#
# PG: own (the default when MSGKIT_PG is unset) starts a private cluster
# with the operator's settings of examples/pgcluster (its DSN and fsync
# latency printed first) and removes it afterwards; env (the default when
# MSGKIT_PG is set) uses MSGKIT_PG, in a fresh schema dropped afterwards.
#
# NETWORK=smpp sends through SMPP instead of the simulated network: it
# starts examples/smsc (the SMSC simulator) and the server with -smpp, and
# at the end compares what the SMSC took and the reports with what was
# accepted. The sustained run of SMPP's figures (2,000 one-part messages
# a second for 60 s on PostgreSQL, DELIVERED reports only):
#
#   NETWORK=smpp RATE=2000 N=120000 DURATION=70s TEXT='Your code is 1234' MASK=1 \
#     examples/dlrsink/run.sh postgres
#
# Environment: KEEP_LOGS (a directory to copy the logs to), N (20000), C
# (32), MASK (9), IDLE (10s), RATE (0: as fast as
# the workers go), DURATION (2m), TEXT (a 2-part text), NETWORK (sim or
# smpp), with smpp BINDS (4), WINDOW (100) and RECEIPT_DELAY (1s, the
# SMSC's), and the ports API (18081), SMS (22021), SINK (12040), SMSC
# (22775).
set -euo pipefail
cd "$(dirname "$0")/../.."
store=${1:-memory}
N=${N:-20000} C=${C:-32} MASK=${MASK:-9} IDLE=${IDLE:-10s}
RATE=${RATE:-0} DURATION=${DURATION:-2m} TEXT=${TEXT:-} NETWORK=${NETWORK:-sim}
API=${API:-18081} SMS=${SMS:-22021} SINK=${SINK:-12040} SMSC=${SMSC:-22775}

if [ -n "${MSGKIT_PG:-}" ]; then PG=${PG:-env}; else PG=${PG:-own}; fi
tmp=$(mktemp -d)
pids=()
schema=""
. examples/pgcluster/start.sh
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  # (SIGTERM: the server stops gracefully and writes its -cpuprofile)
  wait 2>/dev/null || true
  if [ -n "${KEEP_LOGS:-}" ]; then mkdir -p "$KEEP_LOGS" && cp "$tmp"/*.log "$tmp"/*.out "$KEEP_LOGS"/ 2>/dev/null || true; fi
  if [ -n "$schema" ] && [ "$PG" = env ]; then psql -q "$MSGKIT_PG" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true; fi
  pgcluster_stop
  rm -rf "$tmp"
}
trap cleanup EXIT

for cmd in server smsload dlrsink smsc; do go build -o "$tmp/$cmd" "./examples/$cmd"; done
args=(-bootstrap examples/smsload/bootstrap.json -demo false -addr "127.0.0.1:$API" -sms-http "127.0.0.1:$SMS"
  -dlr-allow 127.0.0.0/8 -log-level warn)
smsc=""
case $NETWORK in
sim) ;;
smpp)
  "$tmp/smsc" -addr "127.0.0.1:$SMSC" -system-id msgkit -password secret -progress 5s -receipt-delay "${RECEIPT_DELAY:-1s}" >"$tmp/smsc.out" 2>"$tmp/smsc.log" &
  smsc=$!
  pids+=($smsc)
  cat >"$tmp/smpp.json" <<JSON
{"name": "smsc", "addr": "127.0.0.1:$SMSC", "systemId": "msgkit", "password": "secret", "binds": ${BINDS:-4}, "window": ${WINDOW:-100}}
JSON
  args+=(-smpp "$tmp/smpp.json") ;;
*) echo "NETWORK must be sim or smpp" >&2; exit 2 ;;
esac
case $store in
memory) ;;
postgres)
  case $PG in
  own) pgcluster_start ;;
  env) : "${MSGKIT_PG:?PG=env needs MSGKIT_PG}"; echo "PostgreSQL at ${MSGKIT_PG%%\?*}" ;;
  *) echo "PG must be own or env" >&2; exit 2 ;;
  esac
  schema="dlrsink_$(date +%s)_$$"
  args+=(-store postgres -pg "$MSGKIT_PG" -pg-schema "$schema") ;;
*) echo "usage: $0 memory|postgres" >&2; exit 2 ;;
esac

# SERVER_ARGS adds flags, e.g. SERVER_ARGS="-cpuprofile /tmp/server.cpu".
"$tmp/server" "${args[@]}" ${SERVER_ARGS:-} 2>"$tmp/server.log" &
pids+=($!)
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$API/readyz" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$API/readyz" >/dev/null || { cat "$tmp/server.log" >&2; exit 1; }

"$tmp/dlrsink" -addr "127.0.0.1:$SINK" -idle "$IDLE" >"$tmp/sink.out" 2>&1 &
sink=$!
pids+=($sink)
sleep 0.2
load_args=(-url "http://127.0.0.1:$SMS/bulk/sendsms" -user load -password loadpw -n "$N" -c "$C"
  -duration "$DURATION" -rate "$RATE" -dlr-url "http://127.0.0.1:$SINK/dlr" -dlr-mask "$MASK")
if [ -n "$TEXT" ]; then load_args+=(-text "$TEXT"); fi
load=$("$tmp/smsload" "${load_args[@]}")
end_ms=$(date +%s%3N)
wait "$sink" || true
echo "load: $load"
grep -v "^dlrsink: listening" "$tmp/sink.out"
if [ -s "$tmp/server.log" ]; then echo "server log (warnings and errors): $(wc -l <"$tmp/server.log") lines"; head -3 "$tmp/server.log"; fi

subs=$(sed -n 's/.*accepted (\([0-9]*\)\/s).*/\1/p' <<<"$load")
reps=$(sed -n 's/.*: \([0-9]*\) reports\/s$/\1/p' "$tmp/sink.out")
last=$(sed -n 's/.*unix_ms first=[0-9]* last=\([0-9]*\)/\1/p' "$tmp/sink.out")
backlog=$(awk -v l="${last:-0}" -v e="$end_ms" 'BEGIN { printf "%.1f", (l - e) / 1000 }')
echo "result $store ($NETWORK): submissions/s $subs, reports/s ${reps:-0}, backlog ${backlog}s"
if [ -n "$smsc" ]; then
  kill -TERM "$smsc"; wait "$smsc" 2>/dev/null || true
  cat "$tmp/smsc.out"
  accepted=$(sed -n 's/.*: \([0-9]*\) accepted.*/\1/p' <<<"$load")
  taken=$(sed -n 's/^smsc: \([0-9]*\) submits taken.*/\1/p' "$tmp/smsc.out")
  reports=$(sed -n 's/^summary: \([0-9]*\) reports.*/\1/p' "$tmp/sink.out")
  echo "smpp: accepted $accepted, taken by the SMSC $taken, reports $reports"
fi

#!/usr/bin/env bash
# End-to-end report figures with one command: builds the server, smsload and
# dlrsink to a temporary directory, starts the server on STORE (memory or
# postgres: MSGKIT_PG, a fresh schema dropped afterwards) and the sink, loads
# N 2-part submissions asking for SENT_TO_SMSC and DELIVERED reports (4 per
# submission), and prints submissions/s, reports/s and the backlog: the last
# report's arrival less the end of the load.
#
#   examples/dlrsink/run.sh memory
#   MSGKIT_PG='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' examples/dlrsink/run.sh postgres
#
# Environment: N (20000), C (32), MASK (9), IDLE (10s), and the ports
# API (18081), SMS (22021), SINK (12040).
set -euo pipefail
cd "$(dirname "$0")/../.."
store=${1:-memory}
N=${N:-20000} C=${C:-32} MASK=${MASK:-9} IDLE=${IDLE:-10s}
API=${API:-18081} SMS=${SMS:-22021} SINK=${SINK:-12040}

tmp=$(mktemp -d)
pids=()
schema=""
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ -n "$schema" ]; then psql -q "$MSGKIT_PG" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

for cmd in server smsload dlrsink; do go build -o "$tmp/$cmd" "./examples/$cmd"; done
args=(-bootstrap examples/smsload/bootstrap.json -demo false -addr "127.0.0.1:$API" -sms-http "127.0.0.1:$SMS"
  -dlr-allow 127.0.0.0/8 -log-level warn)
case $store in
memory) ;;
postgres)
  schema="dlrsink_$(date +%s)_$$"
  args+=(-store postgres -pg "${MSGKIT_PG:?set MSGKIT_PG}" -pg-schema "$schema") ;;
*) echo "usage: $0 memory|postgres" >&2; exit 2 ;;
esac

"$tmp/server" "${args[@]}" 2>"$tmp/server.log" &
pids+=($!)
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$API/readyz" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$API/readyz" >/dev/null || { cat "$tmp/server.log" >&2; exit 1; }

"$tmp/dlrsink" -addr "127.0.0.1:$SINK" -idle "$IDLE" >"$tmp/sink.out" 2>&1 &
sink=$!
pids+=($sink)
sleep 0.2
load=$("$tmp/smsload" -url "http://127.0.0.1:$SMS/bulk/sendsms" -user load -password loadpw -n "$N" -c "$C" \
  -duration 2m -dlr-url "http://127.0.0.1:$SINK/dlr" -dlr-mask "$MASK")
end_ms=$(date +%s%3N)
wait "$sink" || true
echo "load: $load"
grep -v "^dlrsink: listening" "$tmp/sink.out"
if [ -s "$tmp/server.log" ]; then echo "server log (warnings and errors): $(wc -l <"$tmp/server.log") lines"; head -3 "$tmp/server.log"; fi

subs=$(sed -n 's/.*accepted (\([0-9]*\)\/s).*/\1/p' <<<"$load")
reps=$(sed -n 's/.*: \([0-9]*\) reports\/s$/\1/p' "$tmp/sink.out")
last=$(sed -n 's/.*unix_ms first=[0-9]* last=\([0-9]*\)/\1/p' "$tmp/sink.out")
backlog=$(awk -v l="${last:-0}" -v e="$end_ms" 'BEGIN { printf "%.1f", (l - e) / 1000 }')
echo "result $store: submissions/s $subs, reports/s ${reps:-0}, backlog ${backlog}s"

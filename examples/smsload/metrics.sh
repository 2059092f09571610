#!/usr/bin/env bash
# Do metrics cost submissions? Two servers run side by side on one store
# kind, one without metrics (-metrics "") and one with them, scraped every
# second (harsher than Prometheus's usual 15 s); each round loads one,
# then the other (smsload, 32 clients, their order alternating), and the
# script prints every turn with the server's CPU per submission, then the
# median rate and CPU of each and their ratios (with metrics / without).
#
#	bash examples/smsload/metrics.sh                     # memory store, 5 rounds
#	STORE=postgres bash examples/smsload/metrics.sh      # a private cluster (examples/pgcluster)
#	STORE=postgres PG=env MSGKIT_PG=postgres://... bash examples/smsload/metrics.sh
#	ROUNDS=7 N=40000 C=32 bash examples/smsload/metrics.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-5}
N=${N:-20000}
C=${C:-32}
STORE=${STORE:-memory}
if [ -n "${MSGKIT_PG:-}" ]; then PG=${PG:-env}; else PG=${PG:-own}; fi
bin=$(mktemp -d)
schema=metrics_$$
servers=()
scraper=0
. examples/pgcluster/start.sh
cleanup() {
  if [ "$scraper" != 0 ]; then kill "$scraper" 2>/dev/null || true; fi
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  if [ "$STORE" = postgres ] && [ "$PG" = env ]; then
    psql -q "$MSGKIT_PG" -c "DROP SCHEMA IF EXISTS ${schema}_off CASCADE; DROP SCHEMA IF EXISTS ${schema}_on CASCADE" 2>/dev/null || true
  fi
  if [ "$STORE" = postgres ]; then pgcluster_stop || true; fi
  rm -rf "$bin"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
store=(-store memory)
label="memory store"
if [ "$STORE" = postgres ]; then
  case $PG in
  own) pgcluster_start; label="PostgreSQL, own cluster (examples/pgcluster/postgresql.conf), fsync ${PGCLUSTER_FSYNC_US:-?} µs" ;;
  env) : "${MSGKIT_PG:?PG=env needs MSGKIT_PG}"; label="PostgreSQL ${MSGKIT_PG%%\?*}" ;;
  *) echo "metrics: PG must be own or env" >&2; exit 2 ;;
  esac
  store=(-store postgres -pg "$MSGKIT_PG")
fi

for cmd in server smsload; do go build -o "$bin/$cmd" "./examples/$cmd"; done
cat >"$bin/bootstrap.json" <<'JSON'
{
  "smsAccounts": [{"username": "load", "password": "loadpw", "networks": ["127.0.0.0/8"], "balance": "100000000",
    "currency": "EUR", "validity": "1h", "maxParts": 10, "prices": {"386": "0.01"}}]
}
JSON
# serve NAME SMS-PORT METRICS-ADDR
serve() {
  local args=("${store[@]}")
  if [ "$STORE" = postgres ]; then args+=(-pg-schema "${schema}_$1"); fi
  "$bin/server" "${args[@]}" -bootstrap "$bin/bootstrap.json" -demo false -log-level warn -addr "127.0.0.1:$(($2 + 100))" \
    -sms-http "127.0.0.1:$2" -sms-https "" -metrics "$3" >"$bin/server-$1.log" 2>&1 &
  servers+=($!)
  for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/"$2") 2>/dev/null && return; sleep 0.1; done
  echo "metrics: the server $1 did not start:" >&2; cat "$bin/server-$1.log" >&2; exit 1
}
serve off 22390 ""
serve on 22391 127.0.0.1:22392
while :; do curl -s -o /dev/null http://127.0.0.1:22392/metrics; sleep 1; done &
scraper=$!

load() { "$bin/smsload" -url "http://127.0.0.1:$1/bulk/sendsms" -user load -password loadpw -c "$C" -duration 120s -progress 0 -n "$2"; }
load 22390 5000 >/dev/null # warm-up
load 22391 5000 >/dev/null
results=$bin/results
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; } # the server's CPU time so far, in clock ticks
tick_us=$((1000000 / $(getconf CLK_TCK)))
turn() { # turn NAME PORT PID
  local out rate before us
  before=$(cpu "$3")
  out=$(load "$2" "$N")
  us=$(awk -v t="$(( $(cpu "$3") - before ))" -v tick="$tick_us" -v n="$N" 'BEGIN {printf "%.1f", t * tick / n}')
  echo "round $round $1: $out; server CPU ${us} µs/submission"
  rate=$(sed -n 's/.*accepted (\([0-9]*\)\/s).*/\1/p' <<<"$out")
  echo "$1 $rate $us" >>"$results"
}
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then
    turn without 22390 "${servers[0]}"
    turn with 22391 "${servers[1]}"
  else
    turn with 22391 "${servers[1]}"
    turn without 22390 "${servers[0]}"
  fi
done
median() { awk -v n="$1" -v f="$2" '$1==n {print $f}' "$results" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
with=$(median with 2) without=$(median without 2)
with_cpu=$(median with 3) without_cpu=$(median without 3)
echo
echo "medians of $ROUNDS rounds ($N submissions, $C clients; $label):"
echo "  without metrics: $without/s, server CPU $without_cpu µs/submission"
echo "  with metrics, scraped every second: $with/s, server CPU $with_cpu µs/submission"
awk -v a="$with" -v b="$without" -v c="$with_cpu" -v d="$without_cpu" 'BEGIN {printf "  ratio with/without: rate %.3f, CPU per submission %.3f\n", a/b, c/d}'
curl -s http://127.0.0.1:22392/metrics | grep -E '^msgkit_(sms_submissions_total\{code="accepted"|http_requests_total\{family="bulksms")' | sed 's/^/  /' || true

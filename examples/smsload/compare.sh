#!/usr/bin/env bash
# Runs the platform and its peers side by side on this machine: each round
# loads, one after the other, the platform's /bulk/sendsms (on PostgreSQL
# by default), Kannel's sendsms (see kannel.sh) and the bare handler
# (examples/bare), at each concurrency, and prints every run, then the
# median rate and p99 per target and the platform's ratio to each peer.
#
#	bash examples/smsload/compare.sh                # PostgreSQL at $MSGKIT_PG, 5 rounds, 8 and 32 clients
#	STORE=memory ROUNDS=3 CLIENTS="32" N=40000 bash examples/smsload/compare.sh
#
# A peer that is not installed (Kannel) is left out. PostgreSQL runs use a
# fresh schema, dropped at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
STORE=${STORE:-postgres}
PG=${MSGKIT_PG:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
ROUNDS=${ROUNDS:-5}
CLIENTS=${CLIENTS:-8 32}
N=${N:-20000}
bin=$(mktemp -d)
pids=()
schema=load_$$
cleanup() {
  kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  if [ "$STORE" = postgres ]; then psql -q "$PG" -c "DROP SCHEMA IF EXISTS $schema CASCADE" 2>/dev/null || true; fi
  rm -rf "$bin"
}
trap cleanup EXIT INT TERM
up() { for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; echo "compare.sh: port $1 not up" >&2; exit 1; }

go build -o "$bin/server" ./examples/server
go build -o "$bin/smsload" ./examples/smsload
go build -o "$bin/bare" ./examples/bare
args=(-bootstrap examples/smsload/bootstrap.json -demo false -log-level warn -addr 127.0.0.1:18090 -sms-http 127.0.0.1:22090 -sms-https "")
if [ "$STORE" = postgres ]; then args+=(-store postgres -pg "$PG" -pg-schema "$schema"); fi
"$bin/server" "${args[@]}" >"$bin/server.log" 2>&1 & pids+=($!)
"$bin/bare" -addr 127.0.0.1:22091 >/dev/null 2>&1 & pids+=($!)
targets=("msgkit-$STORE bulk http://127.0.0.1:22090/bulk/sendsms" "bare bulk http://127.0.0.1:22091/bulk/sendsms")
if [ -x /usr/sbin/bearerbox ]; then
  bash examples/smsload/kannel.sh 2>/dev/null & pids+=($!)
  up 13013
  targets+=("kannel kannel http://127.0.0.1:13013/cgi-bin/sendsms")
fi
up 22090; up 22091

results=$bin/results
for round in $(seq 1 "$ROUNDS"); do
  for c in $CLIENTS; do
    for t in "${targets[@]}"; do
      read -r name api url <<<"$t"
      out=$("$bin/smsload" -api "$api" -url "$url" -user load -password loadpw -n "$N" -c "$c" -duration 60s -progress 0)
      echo "round $round c=$c $name: $out"
      rate=$(sed -n 's/.*accepted (\([0-9]*\)\/s).*/\1/p' <<<"$out")
      p99=$(sed -n 's/.*p99 \([^ ]*\) .*/\1/p' <<<"$out" | awk '/µs$/ {printf "%.3f", $1/1000; next} /ms$/ {printf "%.3f", $1+0; next} {printf "%.3f", $1*1000}')
      echo "$c $name $rate $p99" >>"$results"
    done
  done
done

echo
echo "medians of $ROUNDS rounds ($N submissions each):"
for c in $CLIENTS; do
  declare -A med=()
  for t in "${targets[@]}"; do
    read -r name _ _ <<<"$t"
    rate=$(awk -v c="$c" -v n="$name" '$1==c && $2==n {print $3}' "$results" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    p99=$(awk -v c="$c" -v n="$name" '$1==c && $2==n {print $4}' "$results" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    med[$name]=$rate
    echo "  c=$c $name: $rate/s p99 ${p99}ms"
  done
  for t in "${targets[@]:1}"; do
    read -r name _ _ <<<"$t"
    awk -v a="${med[msgkit-$STORE]}" -v b="${med[$name]}" -v c="$c" -v n="$name" -v s="$STORE" 'BEGIN {printf "  c=%s msgkit-%s / %s = %.2f\n", c, s, n, a/b}'
  done
  unset med
done

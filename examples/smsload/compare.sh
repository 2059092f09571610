#!/usr/bin/env bash
# Runs the platform and its peers side by side on this machine: each round
# loads, one after the other, the platform's /bulk/sendsms (on PostgreSQL
# by default), the bare handler (examples/bare), on PostgreSQL the bare
# handler writing each submission to the same cluster before its 202
# ("bare-pg": the floor of a durable answer there), Kannel's sendsms without
# a store ("kannel": its 202 is not durable) and with its spool store
# ("kannel-store": its 202 comes after the message's file is written; see
# kannel.sh), at each concurrency, and prints every run, then the median
# rate and p99 per target and the platform's ratio to each peer.
#
#	bash examples/smsload/compare.sh                # PostgreSQL of its own, 5 rounds, 8 and 32 clients
#	PG=env MSGKIT_PG=postgres://... bash examples/smsload/compare.sh   # an existing server instead
#	STORE=memory ROUNDS=3 CLIENTS="32" N=40000 bash examples/smsload/compare.sh
#
# PostgreSQL (PG in targets.sh): by default a private cluster with the
# operator's settings of examples/pgcluster, whose fsync latency (the floor
# of a durable commit) is printed first; PG=env uses MSGKIT_PG, in a fresh
# schema dropped at the end. Kannel, when not installed, is left out
# (KANNEL=install installs it, KANNEL=off leaves it out).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-5}
CLIENTS=${CLIENTS:-8 32}
N=${N:-20000}
PORT=22090 NAME=compare
. examples/smsload/targets.sh
targets=("msgkit-$STORE bulk http://127.0.0.1:22090/bulk/sendsms" "bare bulk http://127.0.0.1:22091/bulk/sendsms")
if [ "$bare_pg" != 0 ]; then targets+=("bare-pg bulk http://127.0.0.1:22100/bulk/sendsms"); fi
if [ "$kannel" != 0 ]; then
  targets+=("kannel kannel http://127.0.0.1:13013/cgi-bin/sendsms" "kannel-store kannel http://127.0.0.1:13113/cgi-bin/sendsms")
fi
if [ -n "$pg_label" ]; then echo "$pg_label"; fi

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
echo "medians of $ROUNDS rounds ($N submissions each)${pg_label:+; $pg_label}:"
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

#!/usr/bin/env bash
# CPU per submission, the figure behind a throughput limit on a machine the
# load generator, the server, PostgreSQL and the peer share: each target
# (the platform on STORE, Kannel without and with its spool store when
# installed, the bare handler) is loaded with N submissions from C clients,
# and the CPU time its processes spent meanwhile (from /proc: user +
# system) is divided by N, beside smsload's own. On PostgreSQL (PG, see
# targets.sh) the own cluster's processes count (the default: its
# postmaster and every backend, autovacuum and WAL writer included); with
# PG=env every postgres process on the machine counts, so run that on a
# server nothing else is using. Two cores give 2,000,000 µs of CPU a
# second: a target whose processes, smsload's included, spend X µs per
# submission cannot go past 2e6/X submissions a second here.
#
#	bash examples/smsload/cpu.sh                       # PostgreSQL of its own, C=32, N=20000
#	PG=env MSGKIT_PG=postgres://... bash examples/smsload/cpu.sh
#	STORE=memory C=8 bash examples/smsload/cpu.sh
#	SMS_SEND=false bash examples/smsload/cpu.sh        # the floor: accept, charge and queue only, nothing sent
set -euo pipefail
cd "$(dirname "$0")/../.."
C=${C:-32}
N=${N:-20000}
PORT=22092 NAME=cpu
. examples/smsload/targets.sh
ticks() { # CPU ticks (user + system) of the processes given
  local t=0 p
  for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done
  echo "$t"
}
hz=$(getconf CLK_TCK)

# measure NAME API URL LISTER [LISTER...]: warm up, then load and print the
# CPU per submission of the processes each lister names (their sum, then
# each when there are several), and smsload's.
measure() {
  local name=$1 api=$2 url=$3 out lu ls l
  shift 3
  "$bin/smsload" -api "$api" -url "$url" -user load -password loadpw -n 2000 -c 8 -progress 0 >/dev/null
  local before=() after=()
  for l in "$@"; do before+=("$(ticks $($l))"); done
  out=$(/usr/bin/env time -f "%U %S" -o "$bin/time" "$bin/smsload" -api "$api" -url "$url" -user load -password loadpw -n "$N" -c "$C" -progress 0)
  sleep 1 # what the load left queued (reports, status changes) counts too
  for l in "$@"; do after+=("$(ticks $($l))"); done
  read -r lu ls <"$bin/time"
  local parts="" i
  for i in "${!before[@]}"; do
    l=${*:i+1:1}
    l=${l%pids}
    parts+="${l%pid}=$((after[i] - before[i])) "
  done
  awk -v n="$N" -v name="$name" -v hz="$hz" -v lu="$lu" -v ls="$ls" -v out="$out" -v parts="$parts" 'BEGIN {
    rate = out; sub(/.*accepted \(/, "", rate); sub(/\/s\).*/, "", rate)
    k = split(parts, p, " "); total = 0; each = ""
    for (i = 1; i <= k; i++) { split(p[i], kv, "="); us = kv[2] * 1e6 / hz / n; total += us; each = each sprintf(", %s %.0f", kv[1], us) }
    if (k < 2) each = ""
    printf "%-16s %7s/s   CPU per submission: %5.0f µs%s; smsload %4.0f µs\n", name, rate, total, each, (lu + ls) * 1e6 / n
  }'
}
serverpid() { echo "$server"; }
postgrespids() {
  if [ "$PG" = own ]; then echo "$PGCLUSTER_PID"; pgrep -P "$PGCLUSTER_PID" || true; else pgrep -u postgres -x postgres || true; fi
}
barepid() { echo "$bare"; }
barepgpid() { echo "$bare_pg"; }
kannelpids() { pgrep -P "$kannel" || true; }          # bearerbox, smsbox, fakesmsc
kannelstorepids() { pgrep -P "$kannel_store" || true; }

echo "C=$C clients, N=$N submissions each${pg_label:+; $pg_label}"
if [ "$STORE" = postgres ]; then
  measure "msgkit-$STORE" bulk http://127.0.0.1:22092/bulk/sendsms serverpid postgrespids
else
  measure "msgkit-$STORE" bulk http://127.0.0.1:22092/bulk/sendsms serverpid
fi
if [ "$kannel" != 0 ]; then
  measure kannel kannel http://127.0.0.1:13013/cgi-bin/sendsms kannelpids
  measure kannel-store kannel http://127.0.0.1:13113/cgi-bin/sendsms kannelstorepids
fi
measure bare bulk http://127.0.0.1:22093/bulk/sendsms barepid
if [ "$bare_pg" != 0 ]; then
  measure bare-pg bulk http://127.0.0.1:22102/bulk/sendsms barepgpid postgrespids
fi

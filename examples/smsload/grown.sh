#!/usr/bin/env bash
# Whether grown tables slow the platform down, measured side by side so
# that the machine's own drift cancels out: decay.sh loads one server for
# a million messages, one chunk after the other, and on a shared or
# virtual machine the rate of a chunk can move by a quarter either way
# while the tables' size does nothing (a server whose retention keeps its
# tables small swings as much). Here two servers run at once on the same
# PostgreSQL, each in a schema of its own: "grown", first filled with FILL
# submissions, and "fresh", empty. Then each round loads one and then the
# other with N submissions from C clients, and prints each turn's rate
# and CPU per submission (the server's own, and the cluster's: every
# backend, autovacuum and checkpointer included, whichever schema they
# worked for). Over ROUNDS rounds the fresh server's tables hold the
# first ROUNDS x N messages and the grown server's the last ROUNDS x N of
# FILL + ROUNDS x N; the medians and their ratios, grown to fresh, come
# last. Before the rounds both servers are warmed up and, once the fill's
# parts have settled, both schemas are vacuumed and analyzed; the two go
# first in turn.
#
#	bash examples/smsload/grown.sh                       # 900,000 first, then 5 rounds of 20,000 each
#	FILL=200000 ROUNDS=3 bash examples/smsload/grown.sh  # a quick look
#
# PostgreSQL: a private cluster with the operator's settings
# (examples/pgcluster), or PG=env with MSGKIT_PG, as targets.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
FILL=${FILL:-900000}
ROUNDS=${ROUNDS:-5}
N=${N:-20000}
C=${C:-32}
if [ -n "${MSGKIT_PG:-}" ]; then PG=${PG:-env}; else PG=${PG:-own}; fi
bin=$(mktemp -d)
pids=()
. examples/pgcluster/start.sh
schemas=(grown_$$ fresh_$$)
cleanup() {
  kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  if [ "$PG" = env ]; then
    for s in "${schemas[@]}"; do psql -q "$MSGKIT_PG" -c "DROP SCHEMA IF EXISTS $s CASCADE" 2>/dev/null || true; done
  fi
  pgcluster_stop
  rm -rf "$bin"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
case $PG in
own) pgcluster_start; label="PostgreSQL: own cluster (examples/pgcluster/postgresql.conf), fsync ${PGCLUSTER_FSYNC_US:-?} µs" ;;
env) : "${MSGKIT_PG:?PG=env needs MSGKIT_PG}"; label="PostgreSQL: ${MSGKIT_PG%%\?*}" ;;
*) echo "grown: PG must be own or env" >&2; exit 2 ;;
esac
for cmd in server smsload; do go build -o "$bin/$cmd" "./examples/$cmd"; done
up() { for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; echo "grown: port $1 not up" >&2; exit 1; }

# The grown server on 22096, the fresh one on 22097.
declare -A port=([grown]=22096 [fresh]=22097) pid=()
for name in grown fresh; do
  schema=${name}_$$
  "$bin/server" -bootstrap examples/smsload/bootstrap.json -demo false -log-level warn \
    -addr "127.0.0.1:$((port[$name] - 4000))" -sms-http "127.0.0.1:${port[$name]}" -sms-https "" \
    -store postgres -pg "$MSGKIT_PG" -pg-schema "$schema" >"$bin/$name.log" 2>&1 &
  pid[$name]=$!
  pids+=("${pid[$name]}")
  up "${port[$name]}"
done
load() { # load NAME N: prints smsload's summary line
  "$bin/smsload" -api bulk -url "http://127.0.0.1:${port[$1]}/bulk/sendsms" -user load -password loadpw -n "$2" -c "$C" -duration 2h -progress 0
}

# ticks PID...: CPU ticks (user + system) of the processes; postgres:
# the postmaster with its exited children and the live ones.
ticks() {
  local t=0 p
  for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done
  echo "$t"
}
pgticks() {
  local pm
  if [ "$PG" = own ]; then pm=$PGCLUSTER_PID; else pm=$(pgrep -u postgres -x postgres -o); fi
  local kids
  kids=$(pgrep -P "$pm" || true)
  # shellcheck disable=SC2086 # one pid per word
  echo $(($(awk '{print $16 + $17}' "/proc/$pm/stat") + $(ticks "$pm" $kids)))
}
hz=$(getconf CLK_TCK)

# settle NAME: waits until the server's parts are final and its reports
# delivered (the simulated network reports 1.1 s after hand-over), then
# vacuums and analyzes its tables, so that no turn pays for what came
# before it.
settle() {
  local schema=${1}_$$
  while [ "$(psql -qAt "$MSGKIT_PG" -c "SELECT count(*) FROM $schema.sms_parts WHERE open")" != 0 ]; do sleep 0.2; done
  psql -q "$MSGKIT_PG" -c "VACUUM ANALYZE $schema.sms_parts" -c "VACUUM ANALYZE $schema.sms_messages" -c "VACUUM ANALYZE $schema.sms_outbound"
}

echo "$label"
for name in grown fresh; do load "$name" 2000 >/dev/null; done # connections, prepared statements
echo "filling grown with $FILL submissions ($C clients)"
load grown "$FILL" | sed 's/^/  /'
settle grown
settle fresh
results=$bin/results
for round in $(seq 1 "$ROUNDS"); do
  order="fresh grown"
  if [ $((round % 2)) = 0 ]; then order="grown fresh"; fi
  for name in $order; do
    s0=$(ticks "${pid[$name]}") p0=$(pgticks)
    out=$(load "$name" "$N")
    s1=$(ticks "${pid[$name]}") p1=$(pgticks)
    rate=$(sed -n 's/.*accepted (\([0-9]*\)\/s).*/\1/p' <<<"$out")
    awk -v r="$round" -v n="$name" -v rate="$rate" -v s=$((s1 - s0)) -v p=$((p1 - p0)) -v hz="$hz" -v k="$N" 'BEGIN {
      printf "round %s %-5s %6s/s  CPU per submission: server %4.0f µs, postgres %4.0f µs\n", r, n, rate, s * 1e6 / hz / k, p * 1e6 / hz / k
    }' | tee -a "$results"
  done
done

echo
echo "medians of $ROUNDS rounds ($N submissions each; grown held $FILL messages before the first); $label:"
med() { awk -v n="$1" -v f="$2" '$3 == n {print $f}' "$results" | tr -d '/s' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
for name in fresh grown; do
  echo "  $name: $(med "$name" 4)/s, server $(med "$name" 9) µs, postgres $(med "$name" 12) µs per submission"
done
awk -v r1="$(med fresh 4)" -v r2="$(med grown 4)" -v s1="$(med fresh 9)" -v s2="$(med grown 9)" -v p1="$(med fresh 12)" -v p2="$(med grown 12)" 'BEGIN {
  printf "  grown / fresh: rate %.2f, CPU per submission %.2f (server %.2f, postgres %.2f)\n", r2 / r1, (s2 + p2) / (s1 + p1), s2 / s1, p2 / p1
}'

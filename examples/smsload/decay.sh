#!/usr/bin/env bash
# Whether the platform slows down as its tables grow: one server on
# PostgreSQL (a private cluster with the operator's settings by default;
# PG, see targets.sh) takes CHUNKS loads of N submissions each from C
# clients, one after the other, and each chunk's rate and CPU per
# submission (server and PostgreSQL, every backend, autovacuum and
# checkpointer included) are printed, then the last chunk's against the
# first's, and, with six chunks or more, the median of the last three
# against the median of the first three (on a shared or virtual machine a
# single chunk's rate can swing by a quarter either way). After the last
# chunk it times how long the parts take to
# settle: until none is open (every part delivered, the simulated network
# answering a second after hand-over), the delivery reports' backlog.
#
#	bash examples/smsload/decay.sh                      # 10 x 100,000 submissions, 32 clients
#	CHUNKS=3 N=20000 bash examples/smsload/decay.sh     # a quick look
set -euo pipefail
cd "$(dirname "$0")/../.."
C=${C:-32}
N=${N:-100000}
CHUNKS=${CHUNKS:-10}
STORE=postgres KANNEL=off
PORT=22094 NAME=decay
. examples/smsload/targets.sh
hz=$(getconf CLK_TCK)

# ticks: CPU ticks (user + system) of the server and of PostgreSQL: the
# postmaster with its exited children (cutime, cstime) and the live ones.
ticks() {
  local pm t p
  if [ "$PG" = own ]; then pm=$PGCLUSTER_PID; else pm=$(pgrep -u postgres -x postgres -o); fi
  t=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$pm/stat")
  for p in "$server" $(pgrep -P "$pm" || true); do
    t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo "$t"
}
# open: parts not yet final (the server keeps its tables in $schema).
open() { psql -qAt "$MSGKIT_PG" -c "SELECT count(*) FROM $schema.sms_parts WHERE open"; }

echo "C=$C clients, $CHUNKS chunks of $N submissions${pg_label:+; $pg_label}"
first_rate="" first_cpu="" rates=() cpus=()
for i in $(seq 1 "$CHUNKS"); do
  before=$(ticks)
  out=$("$bin/smsload" -api bulk -url "http://127.0.0.1:$PORT/bulk/sendsms" -user load -password loadpw -n "$N" -c "$C" -duration 1h -progress 0)
  after=$(ticks)
  rate=$(sed -n 's/.*accepted (\([0-9]*\)\/s).*/\1/p' <<<"$out")
  cpu=$(awk -v d=$((after - before)) -v n="$N" -v hz="$hz" 'BEGIN {printf "%.0f", d * 1e6 / hz / n}')
  echo "chunk $i (messages $(((i - 1) * N + 1))-$((i * N))): $rate/s, CPU per submission $cpu µs (server + PostgreSQL)"
  if [ -z "$first_rate" ]; then first_rate=$rate first_cpu=$cpu; fi
  rates+=("$rate") cpus+=("$cpu")
done
ended=$(date +%s.%N)
while n=$(open) && [ "$n" != 0 ]; do sleep 0.1; done
settled=$(date +%s.%N)
awk -v r1="$first_rate" -v r2="$rate" -v c1="$first_cpu" -v c2="$cpu" -v s="$(awk -v a="$ended" -v b="$settled" 'BEGIN {print b - a}')" 'BEGIN {
  printf "last / first chunk: rate %.2f, CPU per submission %.2f\n", r2 / r1, c2 / c1
  printf "every part final %.1f s after the load ended (the simulated network reports delivery 1.1 s after hand-over)\n", s
}'
# med3 A B C: the median of three numbers.
med3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
if [ "$CHUNKS" -ge 6 ]; then
  n=${#rates[@]}
  awk -v r1="$(med3 "${rates[@]:0:3}")" -v r2="$(med3 "${rates[@]:n-3:3}")" -v c1="$(med3 "${cpus[@]:0:3}")" -v c2="$(med3 "${cpus[@]:n-3:3}")" 'BEGIN {
    printf "median of the last three / of the first three chunks: rate %.2f, CPU per submission %.2f\n", r2 / r1, c2 / c1
  }'
fi

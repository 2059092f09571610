#!/usr/bin/env bash
# Measures the outbound queue's two shapes side by side (schema.sql): a
# part's life (accepted, handed over, delivered) with the queue in a table
# of its own (separate.sql, what pgstore does) and folded into the part's
# row (folded.sql), on a private cluster with the operator's settings
# (../start.sh). Each round runs pgbench on one shape, then the other,
# for T seconds with C clients, then vacuums the shape's tables, and
# prints the scripts per second (four two-part messages each), the CPU
# the machine spent per part less pgbench's own (so run it on an idle
# machine), and the WAL written per part, the vacuum's included. WAL is
# the steadiest of the three: on a shared machine the rate and the CPU
# swing by a tenth from one round to the next.
#
#	bash examples/pgcluster/queueshape/run.sh            # 5 rounds, 15 s each, 8 clients
#	ROUNDS=3 T=30 C=4 bash examples/pgcluster/queueshape/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${ROUNDS:-5}
T=${T:-15}
C=${C:-8}
# shellcheck source=SCRIPTDIR/../start.sh
. "$here/../start.sh"
out=$(mktemp -d)
trap 'pgcluster_stop; rm -rf "$out"' EXIT
PGCLUSTER_FSYNC_SECS=${PGCLUSTER_FSYNC_SECS:-0} pgcluster_start
psql=("$PGCLUSTER_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGCLUSTER_PORT" -U postgres -d msgkit)
"${psql[@]}" -c "SET client_min_messages = warning" -f "$here/schema.sql"
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8}' /proc/stat; } # user, nice, system, irq, softirq
hz=$(getconf CLK_TCK)

for round in $(seq 1 "$ROUNDS"); do
  for shape in separate folded; do
    lsn0=$("${psql[@]}" -c "SELECT pg_current_wal_lsn()")
    busy0=$(busy)
    res=$(/usr/bin/env time -f "%U %S" -o "$out/time" "$PGCLUSTER_BIN/pgbench" -n -h 127.0.0.1 -p "$PGCLUSTER_PORT" -U postgres \
      -c "$C" -j 2 -T "$T" -f "$here/$shape.sql" msgkit 2>&1)
    if [ "$shape" = separate ]; then
      "${psql[@]}" -c "VACUUM separate_parts" -c "VACUUM separate_queue"
    else
      "${psql[@]}" -c "VACUUM folded_parts"
    fi
    busy1=$(busy)
    lsn1=$("${psql[@]}" -c "SELECT pg_current_wal_lsn()")
    wal=$("${psql[@]}" -c "SELECT pg_wal_lsn_diff('$lsn1', '$lsn0')")
    n=$(sed -n 's/number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$res")
    tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$res")
    read -r user sys <"$out/time"
    awk -v r="$round" -v s="$shape" -v tps="$tps" -v n="$n" -v b="$((busy1 - busy0))" -v hz="$hz" -v u="$user" -v y="$sys" -v wal="$wal" 'BEGIN {
      parts = n * 8
      printf "round %s %-8s %6.0f scripts/s  CPU %5.1f µs/part  WAL %5.0f B/part\n", r, s, tps, (b / hz - u - y) * 1e6 / parts, wal / parts
    }' | tee -a "$out/results"
  done
done

echo
echo "medians of $ROUNDS rounds:"
for shape in separate folded; do
  awk -v s="$shape" '$3 == s {print $4, $7, $10}' "$out/results" | sort -n -k1 | awk -v s="$shape" '
    {r[NR] = $1; c[NR] = $2; w[NR] = $3} END {
      m = int((NR + 1) / 2); asort(c); asort(w)
      printf "  %-8s %6.0f scripts/s  CPU %5.1f µs/part  WAL %5.0f B/part\n", s, r[m], c[m], w[m]
    }'
done
"${psql[@]}" -c "SELECT relname || ': ' || pg_size_pretty(pg_total_relation_size(relid)) FROM pg_stat_user_tables WHERE relname IN ('separate_parts', 'separate_queue', 'folded_parts') ORDER BY relname"

#!/usr/bin/env bash
# Does topping an account up slow its submissions? The platform on
# PostgreSQL takes one account's load at full speed (smsload, 32 clients)
# in rounds of two turns, one while the operator tops the account up
# every 10 ms through the administration API (POST
# /admin/v1/sms-accounts/load/ledger, smsload -topup-url) and one without,
# their order alternating; it prints every turn, the median rate of each
# and their ratio (with top-ups / without).
#
#	bash examples/smsload/topups.sh                 # a private cluster (examples/pgcluster), 5 rounds
#	PG=env MSGKIT_PG=postgres://... bash examples/smsload/topups.sh
#	ROUNDS=3 N=20000 C=32 EVERY=10ms bash examples/smsload/topups.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-5}
N=${N:-20000}
C=${C:-32}
EVERY=${EVERY:-10ms}
if [ -n "${MSGKIT_PG:-}" ]; then PG=${PG:-env}; else PG=${PG:-own}; fi
bin=$(mktemp -d)
schema=topups_$$
server=0
. examples/pgcluster/start.sh
cleanup() {
  if [ "$server" != 0 ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  if [ "$PG" = env ]; then psql -q "$MSGKIT_PG" -c "DROP SCHEMA IF EXISTS $schema CASCADE" 2>/dev/null || true; fi
  pgcluster_stop || true
  rm -rf "$bin"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
case $PG in
own) pgcluster_start; label="own cluster (examples/pgcluster/postgresql.conf), fsync ${PGCLUSTER_FSYNC_US:-?} µs" ;;
env) : "${MSGKIT_PG:?PG=env needs MSGKIT_PG}"; label="${MSGKIT_PG%%\?*}, schema $schema" ;;
*) echo "topups: PG must be own or env" >&2; exit 2 ;;
esac

for cmd in server smsload; do go build -o "$bin/$cmd" "./examples/$cmd"; done
cat >"$bin/bootstrap.json" <<'JSON'
{
  "clients": [{"id": "ops", "secret": "ops-secret-0123456789", "networks": ["127.0.0.1"], "privileges": ["admin.credit"]}],
  "smsAccounts": [{"username": "load", "password": "loadpw", "networks": ["127.0.0.0/8"], "balance": "100000000",
    "currency": "EUR", "validity": "1h", "maxParts": 10, "prices": {"386": "0.01"}}]
}
JSON
"$bin/server" -bootstrap "$bin/bootstrap.json" -demo false -log-level warn -addr 127.0.0.1:18290 -sms-http 127.0.0.1:22290 -sms-https "" \
  -store postgres -pg "$MSGKIT_PG" -pg-schema "$schema" >"$bin/server.log" 2>&1 &
server=$!
for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/22290) 2>/dev/null && break; sleep 0.1; done
token=$(curl -s http://127.0.0.1:18290/oauth2/access-token -d grant_type=client_credentials -d client_id=ops -d client_secret=ops-secret-0123456789 |
  sed 's/.*"access_token":"\([^"]*\)".*/\1/')
load=("$bin/smsload" -url http://127.0.0.1:22290/bulk/sendsms -user load -password loadpw -c "$C" -duration 120s -progress 0)
"${load[@]}" -n 5000 >/dev/null # warm-up
results=$bin/results
turn() { # turn NAME [smsload flags...]
  local name=$1 out rate
  shift
  out=$("${load[@]}" -n "$N" "$@")
  echo "round $round $name: $out"
  rate=$(sed -n 's/.*accepted (\([0-9]*\)\/s).*/\1/p' <<<"$out")
  echo "$name $rate" >>"$results"
}
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then
    turn without
    turn with -topup-url http://127.0.0.1:18290/admin/v1/sms-accounts/load/ledger -topup-token "$token" -topup-every "$EVERY"
  else
    turn with -topup-url http://127.0.0.1:18290/admin/v1/sms-accounts/load/ledger -topup-token "$token" -topup-every "$EVERY"
    turn without
  fi
done
median() { awk -v n="$1" '$1==n {print $2}' "$results" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
with=$(median with) without=$(median without)
echo
echo "medians of $ROUNDS rounds ($N submissions, $C clients; PostgreSQL: $label):"
echo "  without top-ups: $without/s"
echo "  with a top-up every $EVERY: $with/s"
awk -v a="$with" -v b="$without" 'BEGIN {printf "  ratio with/without: %.3f\n", a/b}'
curl -s "http://127.0.0.1:18290/admin/v1/reconciliation" -H "Authorization: Bearer $token" | sed 's/^/  reconciliation: /'
echo

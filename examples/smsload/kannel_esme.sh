#!/usr/bin/env bash
# Measures how fast Kannel (Debian's kannel and kannel-extras) pushes the
# messages it has queued to an SMSC through its smsc group, side by side:
#   msgkit  an smsc group of type smpp bound as a transceiver to msgkit's
#           SMPP server (examples/server -smpp-server, on the simulated
#           network; on PostgreSQL with MSGKIT_PG, else in memory);
#   fake    an smsc group of type fake, Kannel's own fake SMSC (fakesmsc),
#           which takes every message and answers nothing: Kannel's own
#           ceiling on this machine.
# For each, N messages go into smsbox's sendsms while the SMSC is away
# (bearerbox queues them: "3: Queued for later delivery"), then the SMSC
# comes, and the rate is the messages (SMS parts) bearerbox counts sent,
# over the time from the first to the last, read from its status page.
#
#	bash examples/smsload/kannel_esme.sh
#	N=20000 WINDOW=100 MSGKIT_PG=postgres://... bash examples/smsload/kannel_esme.sh
#
# WINDOW is the smpp group's max-pending-submits (Kannel's default, 10);
# TEXT the message (default: one GSM part; smsload's own is two).
set -euo pipefail
cd "$(dirname "$0")/../.."
for bin in /usr/sbin/bearerbox /usr/sbin/smsbox /usr/lib/kannel/test/fakesmsc; do
  [ -x "$bin" ] || { echo "kannel_esme.sh: $bin missing: apt-get install kannel kannel-extras" >&2; exit 1; }
done
N=${N:-5000}
WINDOW=${WINDOW:-10}
TEXT=${TEXT:-"A message from Kannel through its SMSC"}
dir=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT INT TERM
go build -o "$dir/server" ./examples/server
go build -o "$dir/smsload" ./examples/smsload
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
up() { for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; echo "kannel_esme.sh: port $1 not up" >&2; exit 1; }

# kannel NAME SMSC-GROUP: starts bearerbox and smsbox, sets admin and sendsms.
kannel() {
  local name=$1 smsc=$2 box
  admin=$(free_port) box=$(free_port) sendsms=$(free_port)
  cat >"$dir/$name.conf" <<CONF
group = core
admin-port = $admin
admin-password = bench
admin-allow-ip = 127.0.0.1
smsbox-port = $box
box-allow-ip = 127.0.0.1
log-level = 2
log-file = $dir/$name-bearerbox.log
sms-resend-freq = 1

$smsc

group = smsbox
bearerbox-host = 127.0.0.1
sendsms-port = $sendsms
log-level = 2
log-file = $dir/$name-smsbox.log

group = sendsms-user
username = load
password = loadpw
max-messages = 10
concatenation = true
CONF
  /usr/sbin/bearerbox -v 2 "$dir/$name.conf" >"$dir/$name-bearerbox.out" 2>&1 & pids+=($!)
  up "$box"
  /usr/sbin/smsbox -v 2 "$dir/$name.conf" >"$dir/$name-smsbox.out" 2>&1 & pids+=($!)
  up "$sendsms"
  # smsbox serves sendsms before it is connected to bearerbox (and panics
  # on a request then): wait for bearerbox to list it.
  for _ in $(seq 1 100); do
    status | grep -q 'smsbox:.*on-line' && return
    sleep 0.1
  done
  echo "kannel_esme.sh: smsbox did not connect" >&2; exit 1
}
status() { curl -s "http://127.0.0.1:$admin/status.txt?password=bench"; }
# sent is what the smsc line of the status page counts sent.
sent() { status | sed -n 's/.*sent: sms \([0-9]*\) .*/\1/p' | head -n 1; }

# queue puts N messages into Kannel's sendsms.
queue() {
  "$dir/smsload" -api kannel -url "http://127.0.0.1:$sendsms/cgi-bin/sendsms" -user load -password loadpw -text "$TEXT" -n "$N" -c 16 -duration 120s -progress 0 >/dev/null
}

# measure waits for the first message sent, then for N parts, and prints
# the rate.
measure() {
  local name=$1 want=$2 first last n
  for _ in $(seq 1 600); do n=$(sent); [ "${n:-0}" -gt 0 ] && break; sleep 0.05; done
  first=$(date +%s.%N)
  for _ in $(seq 1 12000); do n=$(sent); [ "${n:-0}" -ge "$want" ] && break; sleep 0.05; done
  last=$(date +%s.%N)
  printf '%-7s %6d parts in %6.2f s: %8.0f parts/s\n' "$name" "$n" "$(echo "$last - $first" | bc)" "$(echo "$n / ($last - $first)" | bc -l)"
}

# The parts of one message, as Kannel splits it: with TEXT of one part, 1.
parts=1
if [ ${#TEXT} -gt 160 ]; then parts=$(( (${#TEXT} + 152) / 153 )); fi

# msgkit.
smpp=$(free_port)
kannel msgkit "group = smsc
smsc = smpp
smsc-id = msgkit
host = 127.0.0.1
port = $smpp
transceiver-mode = true
smsc-username = load
smsc-password = loadpw
system-type = \"\"
reconnect-delay = 1
max-pending-submits = $WINDOW"
queue
store=(-store memory)
if [ -n "${MSGKIT_PG:-}" ]; then
  store=(-store postgres -pg "$MSGKIT_PG" -pg-schema "kannel_esme_$$")
fi
"$dir/server" "${store[@]}" -bootstrap examples/smsload/bootstrap.json -demo false -addr 127.0.0.1:0 -sms-http 127.0.0.1:0 -metrics "" \
  -smpp-server "127.0.0.1:$smpp" -log-level warn >"$dir/server.out" 2>&1 & pids+=($!)
measure msgkit $((N * parts))
if [ -n "${MSGKIT_PG:-}" ]; then
  psql "$MSGKIT_PG" -qc "DROP SCHEMA IF EXISTS kannel_esme_$$ CASCADE" >/dev/null 2>&1 || true
fi

# Kannel's fake SMSC.
fake=$(free_port)
kannel fake "group = smsc
smsc = fake
smsc-id = fake
port = $fake
connect-allow-ip = 127.0.0.1"
queue
/usr/lib/kannel/test/fakesmsc -v 4 -H 127.0.0.1 -r "$fake" -m 0 "1 2 text nop" >/dev/null 2>&1 & pids+=($!)
measure fake $((N * parts))

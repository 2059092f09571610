#!/usr/bin/env bash
# Starts Kannel (Debian's kannel and kannel-extras packages: bearerbox,
# smsbox and the fake SMSC) as the peer smsload compares the platform
# with, until interrupted. Submissions go to
#   http://127.0.0.1:13013/cgi-bin/sendsms  (user load, password loadpw)
# and are split, concatenated and handed to the fake SMSC, which counts
# them quietly.
#
# KANNEL_STORE chooses what Kannel keeps on disk:
#   none  (default) nothing: its 202 is not durable, a crash of bearerbox
#         loses what it had queued.
#   spool bearerbox's store-type = spool: one file per message in a
#         directory (store-location), written before bearerbox acknowledges
#         the message to smsbox, which answers the HTTP request only then
#         (immediate-sendsms-reply is off), and removed once the SMSC took
#         it. Kannel 1.4.5 calls no fsync: the file survives a crash of
#         Kannel, not a power loss; the platform's commit survives both.
#   file  store-type = file: one file that every message is appended to and
#         that is rewritten every store-dump-freq seconds (Kannel's older
#         store); the same caveat.
# KANNEL_OFFSET (0) moves every port (13000, 13001, 10000, 13013) by that
# much, so two Kannels run side by side (compare.sh runs the store one at
# offset 100: sendsms on 13113).
#
#	bash examples/smsload/kannel.sh &
#	KANNEL_STORE=spool KANNEL_OFFSET=100 bash examples/smsload/kannel.sh &
#	go run ./examples/smsload -api kannel -url http://127.0.0.1:13013/cgi-bin/sendsms -user load -password loadpw -c 32
set -euo pipefail
for bin in /usr/sbin/bearerbox /usr/sbin/smsbox /usr/lib/kannel/test/fakesmsc; do
  [ -x "$bin" ] || { echo "kannel.sh: $bin missing: apt-get install kannel kannel-extras" >&2; exit 1; }
done
off=${KANNEL_OFFSET:-0}
admin=$((13000 + off)) box=$((13001 + off)) smsc=$((10000 + off)) sendsms=$((13013 + off))
dir=$(mktemp -d)
store=""
case ${KANNEL_STORE:-none} in
none) ;;
spool) mkdir "$dir/spool"; store="store-type = spool
store-location = $dir/spool" ;;
file) store="store-type = file
store-location = $dir/kannel.store" ;;
*) echo "kannel.sh: KANNEL_STORE must be none, spool or file" >&2; exit 2 ;;
esac
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait; rm -rf "$dir"' EXIT INT TERM
cat >"$dir/kannel.conf" <<CONF
group = core
admin-port = $admin
admin-password = bench
admin-allow-ip = 127.0.0.1
smsbox-port = $box
box-allow-ip = 127.0.0.1
log-level = 4
log-file = $dir/bearerbox.log
$store

group = smsc
smsc = fake
smsc-id = fake
port = $smsc
connect-allow-ip = 127.0.0.1

group = smsbox
bearerbox-host = 127.0.0.1
sendsms-port = $sendsms
# the default, set outright: answer only once bearerbox has the message (and, with a store, has written it)
immediate-sendsms-reply = false
log-level = 4
log-file = $dir/smsbox.log

group = sendsms-user
username = load
password = loadpw
max-messages = 10
concatenation = true
CONF
up() { for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; echo "kannel.sh: port $1 not up" >&2; exit 1; }
/usr/sbin/bearerbox -v 4 "$dir/kannel.conf" >"$dir/bearerbox.out" 2>&1 & pids+=($!)
up "$smsc"
/usr/lib/kannel/test/fakesmsc -v 4 -H 127.0.0.1 -r "$smsc" -m 0 "1 2 text nop" >/dev/null 2>&1 & pids+=($!)
/usr/sbin/smsbox -v 4 "$dir/kannel.conf" >"$dir/smsbox.out" 2>&1 & pids+=($!)
up "$sendsms"
echo "kannel: sendsms on 127.0.0.1:$sendsms, store ${KANNEL_STORE:-none} (pids ${pids[*]})" >&2
wait

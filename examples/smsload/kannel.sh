#!/usr/bin/env bash
# Starts Kannel (Debian's kannel and kannel-extras packages: bearerbox,
# smsbox and the fake SMSC) as the peer smsload compares the platform
# with, until interrupted. Kannel keeps nothing on disk (no store-file):
# its 202 is not durable. Submissions go to
#   http://127.0.0.1:13013/cgi-bin/sendsms  (user load, password loadpw)
# and are split, concatenated and handed to the fake SMSC, which counts
# them quietly.
#
#	bash examples/smsload/kannel.sh &
#	go run ./examples/smsload -api kannel -url http://127.0.0.1:13013/cgi-bin/sendsms -user load -password loadpw -c 32
set -euo pipefail
for bin in /usr/sbin/bearerbox /usr/sbin/smsbox /usr/lib/kannel/test/fakesmsc; do
  [ -x "$bin" ] || { echo "kannel.sh: $bin missing: apt-get install kannel kannel-extras" >&2; exit 1; }
done
dir=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait; rm -rf "$dir"' EXIT INT TERM
cat >"$dir/kannel.conf" <<CONF
group = core
admin-port = 13000
admin-password = bench
admin-allow-ip = 127.0.0.1
smsbox-port = 13001
box-allow-ip = 127.0.0.1
log-level = 4
log-file = $dir/bearerbox.log

group = smsc
smsc = fake
smsc-id = fake
port = 10000
connect-allow-ip = 127.0.0.1

group = smsbox
bearerbox-host = 127.0.0.1
sendsms-port = 13013
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
up 10000
/usr/lib/kannel/test/fakesmsc -v 4 -H 127.0.0.1 -r 10000 -m 0 "1 2 text nop" >/dev/null 2>&1 & pids+=($!)
/usr/sbin/smsbox -v 4 "$dir/kannel.conf" >"$dir/smsbox.out" 2>&1 & pids+=($!)
up 13013
echo "kannel: sendsms on 127.0.0.1:13013 (pids ${pids[*]})" >&2
wait

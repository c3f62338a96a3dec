#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tasshape attach (docs/datapath.md, "attach: an existing namespace") on a
# topology the test builds: the server namespace S (the test namespace,
# where tasshape attach and the iperf3 server run) and a station namespace
# T, joined by a veth (S: ap0 198.18.250.1/30, T: sta0 198.18.250.2/30;
# 198.18.0.0/15 is the benchmarking range, no one's LAN).
#  1. `attach --netns T --trace const:20mbit --delay 20ms` in S, in the
#     background, until its rules exist ("tas:PID" in T's iptables; the
#     uplink's network stages hold at S's PREROUTING, the downlink's at
#     T's). Then from T:
#     - ping -U: average RTT 40-42 ms (20 ms each way). -U measures in user
#       space: attach holds packets at the receiver's PREROUTING, after the
#       kernel took their receive timestamp, which plain ping would use;
#     - an iperf3 upload, 1 + 6 s (-O 1: slow start not counted): goodput
#       19.0 .. 19.5 Mbit/s: 20 Mbit/s of 1500-byte IP packets carry
#       20 * 1448/1500 = 19.31 Mbit/s of payload (52 bytes of IP, TCP and
#       timestamp headers each), and a shaper counting payload bytes would
#       reach 20;
#     then SIGINT: attach exits 0, prints the summary on stderr, writes
#     the --summary-json file, and leaves no tas rule in T or S.
#  2. attach to a namespace that does not exist: non-zero, a message naming
#     it, nothing created.
#  3. attach --duration 2s ends by itself (2.0-3.5 s), exit 0, no rule left.
#  4. Drain at the end: 300 UDP datagrams of 1000 bytes sent at once from
#     T to a UDP sink in S (a listener, so no ICMP port unreachable comes
#     back: it would make the next write of the sender's connected socket
#     fail with "Connection refused" and the burst lose datagrams whenever
#     writing it takes longer than the link's round trip, as under load)
#     into a 2 Mbit/s link with 50 ms of delay take 1.3 s to cross
#     (300 x 1028 B at 2 Mbit/s, plus the delay); SIGINT right after the
#     burst: attach keeps shaping until they are through and exits then
#     (1.0-3.0 s after the signal), all 300 delivered, shutdown 0. With
#     --linger 0s it exits at once and what it held is dropped (shutdown
#     > 100), each counted.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init attach "${1:-}" iperf3 ping ps perl ss

S=$TS_NS
T=tastest-attachT-$$
ts_netns_add "$T"
ip -n "$S" link add ap0 type veth peer name sta0 netns "$T" || ts_die "cannot create the veth"
if ! { ip -n "$S" addr add 198.18.250.1/30 dev ap0 &&
	ip -n "$T" addr add 198.18.250.2/30 dev sta0 &&
	ip -n "$S" link set ap0 up && ip -n "$T" link set sta0 up; }; then
	ts_die "cannot configure the veth"
fi
ip netns exec "$T" ping -c 1 -W 2 198.18.250.1 >/dev/null || ts_die "T cannot reach S without tasshape"

# rules_of PID NS: prints NS's iptables rules of tasshape run PID.
rules_of() {
	local f
	for f in iptables-save ip6tables-save; do
		ip netns exec "$2" "$f" 2>/dev/null | grep -E "tas:$1([^0-9]|\$)" | sed "s/^/$f: /"
	done
}

# no_tas_rule WHAT: asserts that neither T nor S has any tas rule.
no_tas_rule() {
	local ns f left=
	for ns in "$T" "$S"; do
		for f in iptables-save ip6tables-save; do
			left+=$(ip netns exec "$ns" "$f" 2>/dev/null | grep "tas:" | sed "s/^/$ns $f: /")
		done
	done
	[ -z "$left" ] || printf '%s\n' "$left" | sed 's/^/    /'
	ts_true "$1: no tas rule in T or S" test -z "$left"
}

# --- 1. attach, ping, iperf3, SIGINT
ts_iperf_server 5201
ts_shape_bg attach --netns "$T" --trace const:20mbit --delay 20ms \
	--summary-json "$TS_TMP/sum.json" 2>"$TS_TMP/attach.err"
pid=$TS_RUN_PID
for _ in $(seq 50); do
	[ -n "$(rules_of "$pid" "$T")" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$(rules_of "$pid" "$T")" ]; then
	ts_show "$TS_TMP/attach.err"
	ts_die "attach (pid $pid) installed no rule in $T within 5 s"
fi
ts_log "attach pid $pid is shaping; rules:"
{
	rules_of "$pid" "$T" | sed "s/^/    T: /"
	rules_of "$pid" "$S" | sed "s/^/    S: /"
}
ts_true "a rule of attach in S (uplink network stages)" test -n "$(rules_of "$pid" "$S")"

ip netns exec "$T" ping -U -c 10 -i 0.05 -W 2 198.18.250.1 >"$TS_TMP/ping" 2>&1
if st=$(ts_ping_stats "$TS_TMP/ping"); then
	read -r tx rx mn av mx <<<"$st"
	ts_log "ping -U: $tx sent, $rx received, RTT min/avg/max $mn/$av/$mx ms"
	ts_check "ping -U replies" "$rx" == "$tx"
	ts_range "ping -U average RTT" "$av" 40 42 "ms "
else
	ts_show "$TS_TMP/ping"
	ts_fail "no ping summary"
fi

ip netns exec "$T" iperf3 -c 198.18.250.1 -p 5201 -t 6 -O 1 -J -C cubic \
	>"$TS_TMP/iperf.json" 2>"$TS_TMP/iperf.err"
rc=$?
if [ "$rc" -eq 0 ]; then
	bps=$(jq -r '.end.sum_received.bits_per_second' "$TS_TMP/iperf.json")
	ts_log "iperf3 upload: retransmits $(jq -r '.end.sum_sent.retransmits' "$TS_TMP/iperf.json")"
	ts_range "iperf3 upload goodput (s 1-7; at most 19.31)" "$(ts_mbit "$bps")" 19.0 19.5 "Mbit/s "
else
	ts_show "$TS_TMP/iperf.err"
	jq -r '.error // empty' "$TS_TMP/iperf.json" 2>/dev/null
	ts_fail "iperf3 exited $rc"
fi

kill -INT "$pid"
for _ in $(seq 100); do
	kill -0 "$pid" 2>/dev/null || break
	[ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ] && break
	sleep 0.1
done
kill -KILL "$pid" 2>/dev/null # still running after 10 s: the status check fails
wait "$pid"
rc=$?
ts_show "$TS_TMP/attach.err"
ts_check "attach after SIGINT: exit status" "$rc" == 0
ts_true "attach printed the summary on stderr" grep -q "^uplink:" "$TS_TMP/attach.err"
ts_true "attach wrote the --summary-json file" \
	jq -e '.directions[0].capacity_bytes > 0 and .directions[0].bytes_out > 0' "$TS_TMP/sum.json" \
	>/dev/null
no_tas_rule "after SIGINT"

# --- 2. a namespace that does not exist
bad=tastest-no-such-netns-$$
ts_shape attach --netns "$bad" --trace const:20mbit 2>"$TS_TMP/bad.err"
rc=$?
ts_show "$TS_TMP/bad.err"
ts_check "attach --netns $bad: exit status" "$rc" "!=" 0
ts_true "the message names $bad" grep -q -- "$bad" "$TS_TMP/bad.err"
no_tas_rule "attach to a missing namespace"

# --- 3. --duration
t0=$(date +%s.%N)
TS_RUN_LIMIT=10 ts_shape attach --netns "$T" --trace const:20mbit --duration 2s --quiet \
	2>"$TS_TMP/dur.err"
rc=$?
t=$(ts_elapsed "$t0")
ts_show "$TS_TMP/dur.err"
ts_range "attach --duration 2s: time to exit" "$t" 2.0 3.5 "s "
ts_check "attach --duration 2s: exit status" "$rc" == 0
no_tas_rule "after --duration"

# --- 4. drain at the end: a burst in the queue when SIGINT comes
# The sink: reads datagrams on 198.18.250.1:9 until the test ends, and keeps the count of the
# 1000-byte ones (the bursts') in a file.
echo 0 >"$TS_TMP/sink.count"
ts_bg perl -MSocket -e 'socket(my $s, PF_INET, SOCK_DGRAM, 0) or die "socket: $!";
	bind($s, pack_sockaddr_in(9, inet_aton("198.18.250.1"))) or die "bind: $!";
	my ($b, $n) = ("", 0);
	while (defined recv($s, $b, 65536, 0)) {
		next unless length($b) == 1000;
		$n++;
		open(my $f, ">", "$ARGV[0].new") or die "$ARGV[0]: $!";
		print $f "$n\n";
		close $f;
		rename("$ARGV[0].new", $ARGV[0]) or die "rename: $!";
	}' "$TS_TMP/sink.count" 2>"$TS_TMP/sink.err"
for _ in $(seq 50); do
	[ -n "$(ts_ns ss -Hlun "sport = :9")" ] && break
	sleep 0.1
done
[ -n "$(ts_ns ss -Hlun "sport = :9")" ] || ts_die "the UDP sink did not start: $(cat "$TS_TMP/sink.err")"
burst() { # LINGER TAG: attach, 300 datagrams, SIGINT; sets $took (s from the signal to exit)
	local sum=$TS_TMP/$2.sum.json t0 sent
	ts_shape_bg attach --netns "$T" --trace const:2mbit --delay 50ms \
		--queue droptail:packets=1000 --linger "$1" --quiet --summary-json "$sum" \
		2>"$TS_TMP/$2.err"
	pid=$TS_RUN_PID
	for _ in $(seq 50); do
		[ -n "$(rules_of "$pid" "$T")" ] && break
		sleep 0.1
	done
	ip netns exec "$T" bash -c 'exec 3>/dev/udp/198.18.250.1/9
		for _ in $(seq 300); do printf "%1000s" x >&3 || exit 1; done'
	sent=$?
	t0=$(date +%s.%N)
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	took=$(ts_elapsed "$t0")
	ts_check "$2: the sender wrote all 300 datagrams (its exit status)" "$sent" == 0
	ts_check "$2: exit status" "$rc" == 0
	ts_log "$2: exited $took s after SIGINT; uplink $(jq -c '.directions[0] | {pkts_in, pkts_out, drops}' "$sum")"
	# The namespace may send a packet of its own meanwhile (IPv6 neighbour discovery, a late
	# segment of the iperf3 test above): the 300 datagrams and at most two others.
	seen=$(jq -r '.directions[0].pkts_in' "$sum")
	ts_range "$2: packets seen (the 300 datagrams, at most 2 others)" "$seen" 300 302
	ts_check "$2: unexplained drops" "$(jq -r '[.directions[].unexplained_drops] | add' "$sum")" == 0
	ts_check "$2: every packet delivered or counted as a shutdown drop" \
		"$(jq -r '.directions[0] | .pkts_out + .drops.shutdown' "$sum")" == "$seen"
}
before=$(cat "$TS_TMP/sink.count")
burst 5s drain
ts_range "drain: seconds from SIGINT to exit (the burst takes 1.3 s)" "$took" 1.0 3.0 "s "
# The receiver's own count: the drain delivered every datagram of the burst, none lost.
for _ in $(seq 20); do
	[ "$(($(cat "$TS_TMP/sink.count") - before))" -ge 300 ] && break
	sleep 0.1
done
ts_check "drain: datagrams of the burst the sink received" \
	"$(($(cat "$TS_TMP/sink.count") - before))" == 300
# Every datagram of the burst is delivered. A packet of the namespace's own that comes after
# the drain found the queues empty and quiet is read before the rules go and dropped as
# "shutdown" (seen once in CI: 301 in, 300 out, 1 shutdown): so at most the others are.
seen=$(jq -r '.directions[0].pkts_in' "$TS_TMP/drain.sum.json")
ts_check "drain: the burst's 300 datagrams delivered" \
	"$(jq -r '.directions[0].pkts_out' "$TS_TMP/drain.sum.json")" ">=" 300
ts_check "drain: shutdown drops (at most the $((seen - 300)) packets beside the burst)" \
	"$(jq -r '.directions[0].drops.shutdown' "$TS_TMP/drain.sum.json")" "<=" $((seen - 300))
burst 0s nodrain
ts_check "--linger 0s: seconds from SIGINT to exit" "$took" "<" 1.0
ts_check "--linger 0s: held packets dropped (shutdown)" \
	"$(jq -r '.directions[0].drops.shutdown' "$TS_TMP/nodrain.sum.json")" ">" 100
no_tas_rule "after the drains"
exit 0

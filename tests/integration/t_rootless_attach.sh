#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tasshape attach without root (docs/rootless.md, "tasshape attach"): a
# user made for the test (no root, no sudo, no subordinate ids) builds a
# test bed of their own, as `unshare -Urn` lets any user: an access point
# namespace AP (a user namespace of theirs, `unshare --user
# --map-root-user --net`), a station namespace STA made in it, a veth
# between them (AP: ap0 198.18.251.1/30, STA: sta0 198.18.251.2/30; the
# benchmarking range, no one's LAN). Nothing is pinned under /run/netns:
# tasshape names each namespace by a process in it (pid:PID). Then, as that
# user, from the test namespace (whose network namespace is root's):
#  1. attach --netns pid:STA --peer-netns pid:AP --trace const:20mbit, in
#     the background, with RLIMIT_RTPRIO 5 (prlimit, before the drop, as
#     t_rootless.sh does) until it says it is shaping; an iperf3 upload
#     from STA to a server in AP, 1 + 3 s (-O 1: slow start not counted):
#     goodput within 1% of 20 x 1448/1500 = 19.31 Mbit/s (accepted
#     19.11 .. 19.50; 2% without any real-time scheduling, as in
#     t_rootless.sh); SIGTERM: exit 0; the summary is the user's, counts
#     the upload and says SCHED_FIFO 5 (10 asked: the most the limit
#     allows). Where root cannot raise the limit, attach starts with
#     SCHED_FIFO 10 given by root (chrt, as t_rootless.sh does) and keeps it:
#     within 1% too; where neither works, normal scheduling, 2%, and why,
#     in the JSON and the printed summary. No tas rule is left in AP or STA.
#  2. the same attach killed by SIGKILL: its guard removes its rules from
#     AP and STA (within 3 s).
#  3. refused, exit 1, nothing set up: without --peer-netns (the other end
#     would be the test namespace, root's); onto a namespace of a second
#     user, named by a process of theirs (the kernel does not let the first
#     open it) and pinned by root under /run/netns (tasshape names the
#     owner's uid).
# The users' processes are ended by pid (lib.sh removes the users).
. "$(dirname "$0")/lib.sh" || exit 2
ts_init rootless_attach "${1:-}" iperf3 useradd userdel setpriv nsenter unshare prlimit

EXPECTED=$(awk 'BEGIN { printf "%.4f", 20 * 1448 / 1500 }')
LO=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.2f", e * 0.99 }')
LO2=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.2f", e * 0.98 }')
HI=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.2f", e * 1.01 }')

U=tasra$$
U2=tasrb$$
ts_user_add "$U"
ts_user_add "$U2"
UID1=$(id -u "$U")
UID2=$(id -u "$U2")
D=$(mktemp -d "/tmp/tastest-rootless-attach.XXXXXX") || ts_die "mktemp failed"
TS_EXTRA_DIRS+=("$D")
if ! cp "$TS_BIN" "$D/tasshape" || ! chmod 755 "$D" "$D/tasshape" || ! chown "$U:$U" "$D"; then
	ts_die "cannot copy tasshape to $D"
fi

# A real-time budget below the shaper's default priority (10), where root may
# grant one (raising a limit needs CAP_SYS_RESOURCE, which a container's
# root may lack): the shaper must take SCHED_FIFO 5, within it, not ask for
# 10 and run with normal scheduling.
ts_user_rt 5
rt=("${TS_RT[@]}")
RT_HOW=$TS_RT_HOW

# "${AS[@]}" CMD...: CMD as $U in the test namespace; AS2: as $U2. Arrays, not functions: in
# `"${AS[@]}" CMD &`, $! is the pid that becomes CMD (ip, setpriv each exec the next).
AS=(ip netns exec "$TS_NS" setpriv --reuid="$U" --regid="$U" --init-groups --)
AS2=(ip netns exec "$TS_NS" setpriv --reuid="$U2" --regid="$U2" --init-groups --)
# "${AS[@]}" nsenter --preserve-credentials -U -n -t PID CMD...: as $U, root of PID's user namespace, in its network one.
inns() {
	local p=$1
	shift
	"${AS[@]}" nsenter --preserve-credentials -U -n -t "$p" "$@"
}

# wait_unshared PID: until PID has become `sleep`, the last exec of its chain (ip netns exec,
# setpriv, [nsenter,] unshare): only then are its namespaces made and its uid_map written. A
# namespace comparison is not enough: `ip netns exec` moves PID out of the caller's network
# namespace before unshare runs, and nsenter -U into a user namespace PID has not made yet
# fails with EINVAL.
wait_unshared() {
	local _ c
	for _ in $(seq 50); do
		c=$(cat "/proc/$1/comm" 2>/dev/null) || break
		[ "$c" = sleep ] && return 0
		sleep 0.1
	done
	ts_die "process $1 did not reach sleep in namespaces of its own"
}

# The user's test bed: AP (a user and network namespace), STA inside it, a veth.
"${AS[@]}" unshare --user --map-root-user --net sleep 120 &
AP=$!
TS_BG_PIDS+=("$AP")
wait_unshared "$AP"
"${AS[@]}" nsenter --preserve-credentials -U -n -t "$AP" unshare --net sleep 120 &
STA=$!
TS_BG_PIDS+=("$STA")
wait_unshared "$STA"
if ! { inns "$AP" ip link add ap0 type veth peer name sta0 netns "$STA" &&
	inns "$AP" ip addr add 198.18.251.1/30 dev ap0 && inns "$AP" ip link set ap0 up &&
	inns "$AP" ip link set lo up && inns "$STA" ip addr add 198.18.251.2/30 dev sta0 &&
	inns "$STA" ip link set sta0 up && inns "$STA" ip link set lo up; }; then
	ts_die "$U cannot build the test bed"
fi
inns "$STA" ping -c 1 -W 2 198.18.251.1 >/dev/null || ts_die "STA cannot reach AP without tasshape"
ts_log "$U ($UID1): AP pid $AP, STA pid $STA"

# tas_rules: prints the tas rules of AP's and STA's namespaces (seen by root).
tas_rules() {
	local p f
	for p in "$AP" "$STA"; do
		for f in iptables-save ip6tables-save; do
			nsenter -n -t "$p" "$f" 2>/dev/null | grep "tas:" | sed "s/^/$p $f: /"
		done
	done
}

# attach_bg ERR: starts attach as $U (pid ATT) and waits until it says it is shaping.
attach_bg() {
	"${rt[@]}" "${AS[@]}" "$D/tasshape" attach --netns "pid:$STA" --peer-netns "pid:$AP" \
		--trace const:20mbit --summary-json "$D/sum.json" 2>"$1" &
	ATT=$!
	TS_TAS_PIDS+=("$ATT")
	for _ in $(seq 100); do
		grep -q "shaping" "$1" && return 0
		kill -0 "$ATT" 2>/dev/null || break
		sleep 0.1
	done
	ts_show "$1"
	ts_die "attach as $U did not start shaping"
}

# --- 1. an upload through attach, as the user
"${AS[@]}" nsenter --preserve-credentials -U -n -t "$AP" iperf3 -s -1 -p 5201 >"$TS_TMP/server.log" 2>&1 &
TS_BG_PIDS+=("$!")
for _ in $(seq 50); do
	[ -n "$(inns "$AP" ss -Hltn 'sport = :5201' 2>/dev/null)" ] && break
	sleep 0.1
done
attach_bg "$TS_TMP/att.err"
inns "$STA" iperf3 -c 198.18.251.1 -p 5201 -t 3 -O 1 -J >"$TS_TMP/client.json" 2>&1 ||
	ts_fail "iperf3 through attach: exit $?"
ts_true "attach as $U: rules in AP and STA while shaping" test -n "$(tas_rules)"
kill -TERM "$ATT"
wait "$ATT"
ts_check "attach as $U: exit status after SIGTERM" "$?" == 0
ts_show "$TS_TMP/att.err"
bps=$(jq -r '.end.sum_received.bits_per_second' "$TS_TMP/client.json" 2>/dev/null)
if [ "$RT_HOW" = policy ]; then
	ts_range "attach as $U: receiver goodput (s 1-3)" "$(ts_mbit "${bps:-0}")" "$LO" "$HI" \
		"Mbit/s "
	ts_true "attach as $U: summary: kept the SCHED_FIFO 10 it was started with" \
		[ "$(jq -r '.scheduling | "\(.policy) \(.priority)"' "$D/sum.json" 2>/dev/null)" \
			= "SCHED_FIFO 10" ]
elif [ "$RT_HOW" = limit ]; then
	ts_range "attach as $U: receiver goodput (s 1-3)" "$(ts_mbit "${bps:-0}")" "$LO" "$HI" \
		"Mbit/s "
	ts_true "attach as $U: summary: asked SCHED_FIFO 10, ran SCHED_FIFO 5 (RLIMIT_RTPRIO 5)" \
		[ "$(jq -r '.scheduling | "\(.requested) \(.policy) \(.priority)"' "$D/sum.json" \
			2>/dev/null)" = "10 SCHED_FIFO 5" ]
else
	ts_range "attach as $U: receiver goodput (s 1-3), no real-time budget: 2%" \
		"$(ts_mbit "${bps:-0}")" "$LO2" "$HI" "Mbit/s "
	ts_true "attach as $U: summary: normal scheduling, SCHED_FIFO refused by RLIMIT_RTPRIO 0" \
		[ "$(jq -r '.scheduling | "\(.policy) \(.note | test("refused.*RLIMIT_RTPRIO is 0"))"' \
			"$D/sum.json" 2>/dev/null)" = "SCHED_OTHER true" ]
	ts_true "attach as $U: the printed summary says so" \
		grep -q "WARNING: real-time scheduling.*RLIMIT_RTPRIO is 0.*normal scheduling" \
		"$TS_TMP/att.err"
fi
ts_check "attach as $U: owner of the summary" "$(stat -c %u "$D/sum.json" 2>/dev/null)" == "$UID1"
ts_check "attach as $U: summary: uplink packets delivered" \
	"$(jq -r '.directions[0].pkts_out // 0' "$D/sum.json" 2>/dev/null)" ">" 1000
left=$(tas_rules)
[ -z "$left" ] || printf '%s\n' "$left" | sed 's/^/    /'
ts_true "attach as $U: no tas rule left in AP or STA" test -z "$left"

# --- 2. SIGKILL: the guard removes the rules from the user's namespaces
attach_bg "$TS_TMP/att-kill.err"
kill -KILL "$ATT"
wait "$ATT" 2>/dev/null
for _ in $(seq 30); do
	[ -z "$(tas_rules)" ] && break
	sleep 0.1
done
left=$(tas_rules)
[ -z "$left" ] || printf '%s\n' "$left" | sed 's/^/    /'
ts_true "attach as $U killed (SIGKILL): its guard removed its rules from AP and STA" \
	test -z "$left"

# --- 3. refusals
"${AS[@]}" "$D/tasshape" attach --netns "pid:$STA" --trace const:20mbit 2>"$TS_TMP/r1.err"
ts_check "attach as $U without --peer-netns: exit status" "$?" == 1
ts_show "$TS_TMP/r1.err"
ts_true "attach as $U without --peer-netns: says both ends must be in one user namespace" \
	grep -q "both ends of the veth must be in one user namespace" "$TS_TMP/r1.err"
"${AS2[@]}" unshare --user --map-root-user --net sleep 120 &
OTHER=$!
TS_BG_PIDS+=("$OTHER")
wait_unshared "$OTHER"
"${AS[@]}" "$D/tasshape" attach --netns "pid:$OTHER" --peer-netns "pid:$OTHER" \
	--trace const:20mbit 2>"$TS_TMP/r2.err"
ts_check "attach as $U onto $U2's namespace by pid: exit status" "$?" == 1
ts_show "$TS_TMP/r2.err"
ts_true "attach as $U onto $U2's namespace by pid: the kernel refused the open" \
	grep -q "cannot open /proc/$OTHER/ns/net" "$TS_TMP/r2.err"
PIN=tastest-rla-other-$$
ip netns attach "$PIN" "$OTHER" && TS_EXTRA_NS+=("$PIN")
"${AS[@]}" "$D/tasshape" attach --netns "$PIN" --peer-netns "$PIN" --trace const:20mbit \
	2>"$TS_TMP/r3.err"
ts_check "attach as $U onto $U2's namespace pinned by root: exit status" "$?" == 1
ts_show "$TS_TMP/r3.err"
ts_true "attach as $U onto $U2's namespace: names its owner's uid ($UID2)" \
	grep -q "belongs to a user namespace of uid $UID2, not one you made" "$TS_TMP/r3.err"
ts_check "processes of $U2 in its namespace: only its sleep" "$(pgrep -c -u "$U2")" == 1
exit 0

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Rootless wrapper (docs/rootless.md): users made for the test (no root,
# no sudo) run `tasshape --trace const:20mbit -- CMD`; tasshape makes its
# own user namespace, whose private outer namespace holds the iperf3
# server, started there by the same user with nsenter as docs/rootless.md
# shows. CMD uploads for 3 s (the first one omitted: slow start). Two
# users: a system user without /etc/subuid ranges (the single-id map the
# process writes itself) and a regular one to which useradd grants ranges
# (mapped by newuidmap/newgidmap; skipped as a part when uidmap is not
# installed).
#
# Asserted for each: the run's uid map (one line, or the user and the
# range); the receiver's goodput is within 1% of the bound, 20 Mbit/s of
# IP bytes carrying 1448 of every 1500 as payload (t_rate.sh says why):
# 19.31 Mbit/s, accepted 19.11 .. 19.50; CMD runs as the user's own uid,
# not root; a file it writes and the summary tasshape writes belong to the
# user outside; the shaper ran SCHED_FIFO within the RLIMIT_RTPRIO the
# test gives the user (and, without one, the summary says it was
# refused); nothing is left: no process of the user, no process in the
# run's user or outer network namespace (so the kernel has freed them),
# and (lib.sh, on exit) no namespace, link or rule named after the run.
# --as-root: CMD is root of the run's namespace, and what it writes is
# still the user's.
#
# For the first user also: ping works as the user (ICMP echo sockets),
# with the RTT of the link; a run nested in a rootless one (--as-root) is
# rootless too and the delays add up; `exp run` works as the user (one
# upload, no failed run, throughput above 15 Mbit/s, results the user's); with --outside pasta, CMD reaches a server on
# the test namespace's loopback at its gateway's address, within 1% of the
# bound (pasta answers CMD's handshake without timestamps: 1460 bytes a
# segment, 19.47 Mbit/s), a name resolves through pasta's DNS forwarder
# when the host's resolver is on its loopback, and pasta leaves with the
# run; a SIGKILL of a rootless
# run (no guard) takes CMD, a process CMD left in the background (the run
# is the init of its PID namespace) and pasta with it; `tasshape doctor`
# reports its rootless check ok, and, in a user namespace whose
# user.max_user_namespaces is 0, fails it naming that sysctl; attach is
# refused naming the namespace's owner (root's, outside a rootless run's),
# or, onto the user's own, that the other end is not theirs; `tasshape
# plot` of a rootless run's --out works as the user. Everything happens inside the test's own namespace $TS_NS (and,
# for pasta, a gateway namespace next to it; for attach, one the user made).
. "$(dirname "$0")/lib.sh" || exit 2
ts_init rootless "${1:-}" iperf3 useradd userdel setpriv nsenter pgrep prlimit

# The users and namespaces this test makes are removed by lib.sh's exit
# trap, which a SIGTERM runs (a TERM sent by PID: the test logs
# "interrupted" and cleans up). ctest before CMake 3.27 ends a test at its
# TIMEOUT (300 s here) with SIGKILL, which no trap survives; so the test
# sends itself SIGTERM first, after TS_ROOTLESS_DEADLINE seconds (default
# 240; the test takes about a minute), leaving the trap a minute.
# shellcheck disable=SC2317 # the trap's commands
(
	trap 'kill "$s" 2>/dev/null; exit 0' TERM
	sleep "${TS_ROOTLESS_DEADLINE:-240}" &
	s=$!
	wait "$s" && echo "[rootless] still running after ${TS_ROOTLESS_DEADLINE:-240} s:" \
		"SIGTERM" >&2 && kill -TERM $$
) &
TS_BG_PIDS+=("$!")

EXPECTED=$(awk 'BEGIN { printf "%.4f", 20 * 1448 / 1500 }')
LO=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.2f", e * 0.99 }')
HI=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.2f", e * 1.01 }')
LO2=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.2f", e * 0.98 }')
ts_log "goodput expected $EXPECTED Mbit/s (20 * 1448/1500); accepted $LO .. $HI (1%)"
PEXP=$(awk 'BEGIN { printf "%.4f", 20 * 1460 / 1500 }')
PLO=$(awk -v e="$PEXP" 'BEGIN { printf "%.2f", e * 0.99 }')
PLO2=$(awk -v e="$PEXP" 'BEGIN { printf "%.2f", e * 0.98 }') # no real-time budget: see below
PHI=$(awk -v e="$PEXP" 'BEGIN { printf "%.2f", e * 1.01 }')

# user_dir USER: UDIR, a new directory USER owns, holding a copy of
# tasshape (the build directory may be closed to other users); removed on
# exit.
user_dir() {
	UDIR=$(mktemp -d "/tmp/tastest-rootless-$1.XXXXXX") || ts_die "mktemp failed"
	TS_EXTRA_DIRS+=("$UDIR")
	if ! cp "$TS_BIN" "$UDIR/tasshape" || ! chmod 755 "$UDIR" "$UDIR/tasshape" ||
		! chown "$1:$1" "$UDIR"; then
		ts_die "cannot copy tasshape to $UDIR"
	fi
}

# wait_userns PID: sets RUN_USERNS and RUN_NETNS once run PID has left our user namespace
# and its uid map is written (between the two its map is empty: a loaded host showed it).
wait_userns() {
	local me _
	me=$(readlink /proc/self/ns/user)
	RUN_USERNS=''
	RUN_NETNS=''
	for _ in $(seq 50); do
		RUN_USERNS=$(readlink "/proc/$1/ns/user" 2>/dev/null)
		if [ -n "$RUN_USERNS" ] && [ "$RUN_USERNS" != "$me" ] &&
			[ -n "$(cat "/proc/$1/uid_map" 2>/dev/null)" ]; then
			RUN_NETNS=$(readlink "/proc/$1/ns/net")
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# held NS...: how many processes are in any of the namespaces NS (readlink form).
held() {
	local f l n=0 ns
	for f in /proc/[0-9]*/ns/user /proc/[0-9]*/ns/net; do
		l=$(readlink "$f" 2>/dev/null) || continue
		for ns in "$@"; do
			[ "$l" = "$ns" ] && n=$((n + 1))
		done
	done
	echo "$n"
}

# flow USER MAPLINES: one rootless upload run of USER, whose run's uid map must have MAPLINES lines.
flow() {
	local u=$1 lines=$2 d uid gid pid wd server rc bps as_user map
	user_dir "$u"
	d=$UDIR
	uid=$(id -u "$u")
	gid=$(id -g "$u")
	# A simple command, not a function: `"${as_user[@]}" CMD &` sets $! to
	# the pid that becomes CMD (ip, setpriv and env each exec the next).
	as_user=(ip netns exec "$TS_NS" setpriv --reuid="$u" --regid="$u" --init-groups --
		env HOME=/nonexistent USER="$u")
	# CMD waits until the server outside listens ($d/ready), then uploads.
	# shellcheck disable=SC2016 # expanded by the shell inside the namespace
	"${rt[@]}" "${as_user[@]}" "$d/tasshape" --trace const:20mbit --quiet --summary-json "$d/sum.json" \
		-- sh -c 'id -u >"$1/cmd.uid"; echo x >"$1/cmd.file"; chrt -p $$ >"$1/cmd.sched"
			while [ ! -e "$1/ready" ]; do sleep 0.05; done
			exec iperf3 -c "$TASSHAPE_BASE" -p 5201 -t 3 -O 1 -J' sh "$d" \
		>"$TS_TMP/$u.json" 2>"$TS_TMP/$u.err" &
	pid=$!
	TS_TAS_PIDS+=("$pid")
	ts__watchdog "$pid" 30 &
	wd=$!
	wait_userns "$pid" || ts_die "$u: tasshape made no user namespace: $(cat "$TS_TMP/$u.err")"
	map=$(cat "/proc/$pid/uid_map")
	ts_log "$u: run $pid in $RUN_USERNS, outer $RUN_NETNS, uid map: ${map//$'\n'/; }"
	ts_check "$u: lines of the run's uid map" "$(printf '%s\n' "$map" | wc -l)" == "$lines"
	# The server, in the run's outer namespace, by the same user: no privilege.
	"${as_user[@]}" nsenter --preserve-credentials -U -n -t "$pid" \
		iperf3 -s -1 -p 5201 >"$TS_TMP/$u.server.log" 2>&1 &
	server=$!
	TS_BG_PIDS+=("$server")
	listening=
	for _ in $(seq 150); do
		listening=$("${as_user[@]}" nsenter --preserve-credentials -U -n -t "$pid" \
			ss -Hltn 'sport = :5201' 2>/dev/null)
		[ -n "$listening" ] && break
		sleep 0.1
	done
	[ -n "$listening" ] || ts_fail "$u: the iperf3 server did not listen within 15 s"
	touch "$d/ready"
	wait "$pid"
	rc=$?
	# A server no client reached would wait for ever (-1): end it (ours, by PID).
	[ "$rc" -eq 0 ] || kill "$server" 2>/dev/null
	wait "$wd" "$server"
	if [ "$rc" -ne 0 ]; then
		ts_fail "$u: tasshape/iperf3 exited $rc"
		ts_show "$TS_TMP/$u.err" "$TS_TMP/$u.server.log"
		jq -r '.error // empty' "$TS_TMP/$u.json" 2>/dev/null
	fi
	bps=$(jq -r '.end.sum_received.bits_per_second' "$TS_TMP/$u.json" 2>/dev/null)
	# With a real-time budget, within 1% as root's runs. Without one (a machine whose root
	# cannot grant RLIMIT_RTPRIO) the loop shares its CPU at normal priority: 1 run in 6
	# here came 1.1% short, unflagged; accepted to 2%, and logged. docs/rootless.md.
	if [ "${#rt[@]}" -gt 0 ]; then
		ts_range "$u: receiver goodput (s 1-3)" "$(ts_mbit "${bps:-0}")" "$LO" "$HI" "Mbit/s "
	else
		ts_range "$u: receiver goodput (s 1-3), no real-time budget: 2%" \
			"$(ts_mbit "${bps:-0}")" "$LO2" "$HI" "Mbit/s "
	fi
	ts_check "$u: CMD's uid (the user's, $uid)" "$(cat "$d/cmd.uid" 2>/dev/null)" == "$uid"
	ts_check "$u: owner of CMD's file" "$(stat -c %u "$d/cmd.file" 2>/dev/null)" == "$uid"
	ts_check "$u: group of CMD's file" "$(stat -c %g "$d/cmd.file" 2>/dev/null)" == "$gid"
	ts_check "$u: owner of the summary" "$(stat -c %u "$d/sum.json" 2>/dev/null)" == "$uid"
	ts_check "$u: summary: uplink packets delivered" \
		"$(jq -r '.directions[0].pkts_out // 0' "$d/sum.json" 2>/dev/null)" ">" 1000
	if [ "$RT_HOW" = limit ]; then
		ts_true "$u: summary: the shaper ran SCHED_FIFO 10 within RLIMIT_RTPRIO, memory locked" \
			[ "$(jq -r '.scheduling | "\(.policy) \(.priority) \(.memory_locked)"' \
				"$d/sum.json" 2>/dev/null)" = "SCHED_FIFO 10 true" ]
	elif [ "$RT_HOW" = policy ]; then
		ts_true "$u: summary: the shaper kept the SCHED_FIFO 10 it was started with" \
			[ "$(jq -r '.scheduling | "\(.policy) \(.priority)"' "$d/sum.json" 2>/dev/null)" \
				= "SCHED_FIFO 10" ]
	else
		ts_true "$u: summary: SCHED_FIFO refused, and why (RLIMIT_RTPRIO)" \
			[ "$(jq -r '.scheduling | "\(.policy) \(.note | test("refused.*RLIMIT_RTPRIO"))"' \
				"$d/sum.json" 2>/dev/null)" = "SCHED_OTHER true" ]
	fi
	# With a real-time policy the fell-behind rule holds, as for root's runs (src/run/fidelity.h).
	if [ "$RT_HOW" != none ]; then
		ts_true "$u: summary: neither direction fell behind" \
			[ "$(jq -c '[.directions[].fell_behind]' "$d/sum.json" 2>/dev/null)" = '[null,null]' ]
	fi
	# CMD starts with normal scheduling, whatever the shaper's (run/child.c).
	ts_true "$u: CMD's scheduling policy is SCHED_OTHER" grep -q 'policy: SCHED_OTHER$' \
		"$d/cmd.sched"
	# Nothing left: the user runs nothing, and no process holds the run's namespaces.
	ts_check "$u: processes of the user after the run" "$(pgrep -c -u "$u")" == 0
	ts_check "$u: processes in the run's user or outer namespace" \
		"$(held "$RUN_USERNS" "$RUN_NETNS")" == 0

	# --as-root: root of the run's namespace, still the user outside. No
	# real-time budget (RLIMIT_RTPRIO 0): the summary says it ran without.
	# shellcheck disable=SC2016 # expanded by the shell inside the namespace
	prlimit --rtprio=0 -- "${as_user[@]}" "$d/tasshape" --trace const:20mbit --quiet --as-root \
		--summary-json "$d/root.sum.json" -- \
		sh -c 'id -u >"$1/root.uid"; echo x >"$1/root.file"' sh "$d" 2>"$TS_TMP/$u.root.err" &
	pid=$!
	TS_TAS_PIDS+=("$pid")
	wait "$pid" || ts_fail "$u: --as-root run exited $?: $(cat "$TS_TMP/$u.root.err")"
	ts_check "$u: --as-root: CMD's uid inside" "$(cat "$d/root.uid" 2>/dev/null)" == 0
	ts_check "$u: --as-root: owner of CMD's file" "$(stat -c %u "$d/root.file" 2>/dev/null)" \
		== "$uid"
	ts_true "$u: RLIMIT_RTPRIO 0: the summary says SCHED_FIFO was refused, and why" \
		[ "$(jq -r '.scheduling | "\(.policy) \(.note | test("refused.*RLIMIT_RTPRIO is 0"))"' \
			"$d/root.sum.json" 2>/dev/null)" = "SCHED_OTHER true" ]
}

# The users' real-time scheduling (lib.sh's ts_user_rt): RLIMIT_RTPRIO 10,
# or SCHED_FIFO 10 given by root at the start, or none. With a given policy
# nested runs' inner shapers are the outer's CMD, so without one.
ts_user_rt 10
rt=("${TS_RT[@]}")
RT_HOW=$TS_RT_HOW

# user_idle USER LABEL: asserts that USER runs nothing within 3 s (pasta's
# keeper stops pasta once the run has ended).
user_idle() {
	for _ in $(seq 30); do
		[ "$(pgrep -c -u "$1")" -eq 0 ] && break
		sleep 0.1
	done
	ts_check "$1: $2" "$(pgrep -c -u "$1")" == 0
}

# pasta_flow USER: --outside pasta. The test namespace gets a route out (a
# veth to a gateway namespace, 192.0.2.10 -> 192.0.2.1) for pasta to copy,
# and an iperf3 server on its own loopback; CMD uploads to the gateway's
# address, which pasta maps to that loopback. /dev/net/tun is 0666 on
# Debian (udev); where it is not, a 0666 node is bind-mounted over it in a
# mount namespace of this run only.
pasta_flow() {
	local u=$1 d gw=tastest-rootless-gw-$$ rc bps
	user_dir "$u"
	d=$UDIR
	ts_netns_add "$gw"
	if ! ip -n "$TS_NS" link add "trlg$$" type veth peer name "trlh$$" netns "$gw" ||
		! ip -n "$TS_NS" addr add 192.0.2.10/24 dev "trlg$$" ||
		! ip -n "$TS_NS" link set "trlg$$" up ||
		! ip -n "$gw" addr add 192.0.2.1/24 dev "trlh$$" ||
		! ip -n "$gw" link set "trlh$$" up ||
		! ip -n "$TS_NS" route add default via 192.0.2.1; then
		ts_die "cannot give $TS_NS a route out"
	fi
	mknod -m 666 "$d/tun" c 10 200 || ts_die "cannot make a tun node in $d"
	printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:2\n' >"$d/resolv.conf"
	# $WITH_TUN CMD...: CMD in the test namespace, with that tun node and a
	# resolv.conf naming a resolver on the loopback.
	# shellcheck disable=SC2016 # expanded by the shell inside the namespace
	WITH_TUN=(ip netns exec "$TS_NS" unshare -m sh -c
		'mount --bind "$1" /dev/net/tun && mount --bind "$2" /etc/resolv.conf &&
		shift 2 && exec "$@"' sh "$d/tun" "$d/resolv.conf")
	# Without a real-time budget the loop shares its CPU at normal priority, and 1 run in
	# 5-10 here came 3-8% short (before this check was retried and after). With it, pasta
	# still copies at normal priority: CI once carried 18.10 Mbit/s (7% short) on its first
	# try. So a short first try gets one more, logged, as t_exp.sh gives a run that fell
	# behind; a regression is short on both.
	local lo try
	lo=$([ "${#rt[@]}" -gt 0 ] && echo "$PLO" || echo "$PLO2")
	for try in 1 2; do
		ts_iperf_server 5202 # one test each (-1)
		"${rt[@]}" "${WITH_TUN[@]}" \
			setpriv --reuid="$u" --regid="$u" --init-groups -- env HOME=/nonexistent \
			USER="$u" "$d/tasshape" --trace const:20mbit --quiet --outside pasta -- \
			iperf3 -c 192.0.2.1 -p 5202 -t 3 -O 1 -J >"$TS_TMP/$u.pasta.json" \
			2>"$TS_TMP/$u.pasta.err" &
		TS_TAS_PIDS+=("$!")
		wait "$!"
		rc=$?
		if [ "$rc" -ne 0 ]; then
			ts_fail "$u: --outside pasta: tasshape/iperf3 exited $rc"
			ts_show "$TS_TMP/$u.pasta.err"
			jq -r '.error // empty' "$TS_TMP/$u.pasta.json" 2>/dev/null
		fi
		bps=$(jq -r '.end.sum_received.bits_per_second' "$TS_TMP/$u.pasta.json" 2>/dev/null)
		if [ "$try" -eq 2 ] || [ "$rc" -ne 0 ] ||
			{ ts__num "$(ts_mbit "${bps:-0}")" &&
				ts__cmp "$(ts_mbit "${bps:-0}")" ">=" "$lo"; }; then
			break
		fi
		ts_log "$u: --outside pasta: try 1 carried $(ts_mbit "${bps:-0}") Mbit/s (want >= $lo): again"
	done
	# CMD's TCP peer is pasta, which answers the handshake itself and offers
	# no timestamps: a full segment carries 1460 bytes, so the bound is
	# 20 * 1460 / 1500 = 19.47 Mbit/s (measured 19.41-19.47).
	ts_check "$u: --outside pasta: iperf3's MSS (no TCP timestamps with pasta)" \
		"$(jq -r '.start.tcp_mss_default // 0' "$TS_TMP/$u.pasta.json" 2>/dev/null)" == 1460
	ts_range "$u: --outside pasta: goodput to the host's loopback (s 1-3)" \
		"$(ts_mbit "${bps:-0}")" "$lo" "$PHI" "Mbit/s "
	user_idle "$u" "--outside pasta: processes of the user 3 s after the run (pasta too)"
	# DNS: the host's resolver on its loopback (as systemd-resolved's
	# 127.0.0.53), here a responder on the test namespace's loopback that
	# answers every A query with 192.0.2.77; CMD's resolv.conf then names
	# pasta's forwarder instead.
	if command -v python3 >/dev/null 2>&1; then
		printf '%s\n' 'import socket, sys' \
			's = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)' \
			's.bind(("127.0.0.1", 53)); s.settimeout(20)' \
			'open(sys.argv[1], "w").close()' \
			'while True:' \
			'    try: q, a = s.recvfrom(512)' \
			'    except socket.timeout: break' \
			'    e = 12' \
			'    while q[e]: e += q[e] + 1' \
			'    e += 5' \
			'    an = b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04" + bytes([192, 0, 2, 77])' \
			'    a4 = q[e - 4:e - 2] == b"\x00\x01"' \
			'    s.sendto(q[:2] + b"\x81\x80" + q[4:6] + bytes([0, int(a4)]) + bytes(4) + q[12:e] + (an if a4 else b""), a)' \
			>"$TS_TMP/dns.py"
		ts_bg python3 "$TS_TMP/dns.py" "$TS_TMP/dns.ready"
		for _ in $(seq 50); do
			[ -e "$TS_TMP/dns.ready" ] && break
			sleep 0.1
		done
		"${WITH_TUN[@]}" setpriv --reuid="$u" --regid="$u" --init-groups -- \
			"$d/tasshape" --trace const:20mbit --quiet --outside pasta -- \
			sh -c 'getent ahostsv4 probe.tasshape.test | head -n 1; cat /etc/resolv.conf' \
			>"$TS_TMP/$u.dns.out" 2>&1 &
		TS_TAS_PIDS+=("$!")
		wait "$!" || ts_fail "$u: --outside pasta DNS run exited $?"
		ts_show "$TS_TMP/$u.dns.out"
		ts_true "$u: --outside pasta: a name resolved through pasta's forwarder" \
			grep -q '^192\.0\.2\.77 ' "$TS_TMP/$u.dns.out"
		user_idle "$u" "--outside pasta: processes of the user 3 s after the DNS run"
	else
		ts_skip_part "python3 is not installed: the DNS forwarder is not tested"
	fi
}

U1=tasrl$$s
ts_user_add "$U1"
flow "$U1" 1
# ping as the user (its file capability means nothing in a user namespace):
# through ICMP echo sockets; 10 ms each way, so an RTT of 20 ms.
user_dir "$U1"
# shellcheck disable=SC2016 # expanded by the shell inside the namespace
ip netns exec "$TS_NS" setpriv --reuid="$U1" --regid="$U1" --init-groups -- "$UDIR/tasshape" \
	--quiet --delay 10ms -- sh -c 'ping -c 3 -i 0.2 "$TASSHAPE_BASE"' >"$TS_TMP/ping.out" \
	2>&1 &
TS_TAS_PIDS+=("$!")
wait "$!" || ts_fail "ping as $U1: exit $?: $(tail -n 3 "$TS_TMP/ping.out")"
read -r _ rx mn _ < <(ts_ping_stats "$TS_TMP/ping.out" || echo "0 0 - -")
ts_check "ping as $U1: replies of 3" "$rx" == 3
ts_range "ping as $U1: minimum RTT (2 x 10 ms)" "$mn" 20 21.5 "ms "

# A run nested in a rootless run (--as-root, README's example): rootless
# too, in the outer run's namespace; the delays add up, 2 x (10 + 15) ms.
# Without a real-time budget both loops share the CPU at normal priority: 1 run in 5-10
# here had its minimum RTT 0.1-1.4 ms high. One more try, logged, as for pasta's flow,
# unless both have SCHED_FIFO by RLIMIT_RTPRIO (a policy given by root reaches only the
# outer one: the inner is the outer's CMD, which runs with normal scheduling).
for try in 1 2; do
	# shellcheck disable=SC2016 # expanded by the shell inside the namespace
	"${rt[@]}" ip netns exec "$TS_NS" setpriv --reuid="$U1" --regid="$U1" --init-groups -- \
		"$UDIR/tasshape" --quiet --as-root --delay 10ms -- "$UDIR/tasshape" --quiet \
		--delay 15ms -- sh -c 'ping -c 3 -i 0.2 "$TASSHAPE_BASE"' >"$TS_TMP/nested.out" 2>&1 &
	TS_TAS_PIDS+=("$!")
	wait "$!" || ts_fail "nested run as $U1: exit $?: $(tail -n 3 "$TS_TMP/nested.out")"
	read -r _ rx mn _ < <(ts_ping_stats "$TS_TMP/nested.out" || echo "0 0 - -")
	if [ "$RT_HOW" = limit ] || [ "$try" -eq 2 ] || { ts__num "$mn" && ts__cmp "$mn" "<=" 51.5; }; then
		break
	fi
	ts_log "nested run as $U1: try 1 had a minimum RTT of $mn ms, no real-time budget: again"
done
ts_check "nested run as $U1: replies of 3" "$rx" == 3
ts_range "nested run as $U1: minimum RTT (2 x (10 + 15) ms)" "$mn" 50 51.5 "ms "

# exp run as the user: one 2 s upload, its far side and agents in the
# campaign's user namespace. Not asserted tightly: the campaign's own
# fidelity flags say whether the host kept the timing. A failed run's
# error and the tail of its log are printed. Without a real-time budget
# one run in CI failed (its error was not kept then): one more try, logged,
# as for pasta's flow and the nested run. With SCHED_FIFO given by root the
# campaign passes it on to each run's shaper, not to its agents and tools.
user_dir "$U1"
printf '%s\n' '[experiment]' 'name = tiny' 'length = 2s' 'delay = 1s' 'seed = 1' '' \
	'[matrix]' 'cca = cubic' 'link = c20' 'test = tcp_upload' '' \
	'[link c20]' 'trace = const:20mbit' 'delay = 20ms' >"$UDIR/tiny.ini"
chown "$U1:$U1" "$UDIR/tiny.ini"
for try in 1 2; do
	rm -rf "$UDIR/res"
	"${rt[@]}" ip netns exec "$TS_NS" setpriv --reuid="$U1" --regid="$U1" --init-groups -- \
		"$UDIR/tasshape" exp run "$UDIR/tiny.ini" --out "$UDIR/res" --no-progress >"$TS_TMP/exp.out" 2>&1 &
	TS_TAS_PIDS+=("$!")
	wait "$!"
	rc=$?
	failed=$(jq -r '.failed // -1' "$UDIR/res/summary.json" 2>/dev/null || echo -1)
	if [ "$rc" -ne 0 ] || [ "$failed" != 0 ]; then
		for r in "$UDIR"/res/*/rep-*; do
			ts_log "exp run as $U1, try $try: ${r#"$UDIR"/res/}: error: $(jq -r '.error // "-"' \
				"$r/result.json" 2>/dev/null)"
			tail -n 8 "$r/tasshape.log" 2>/dev/null | sed 's/^/    | /'
		done
	fi
	if [ "$RT_HOW" != none ] || [ "$try" -eq 2 ] || { [ "$rc" -eq 0 ] && [ "$failed" = 0 ]; }; then
		break
	fi
	ts_log "exp run as $U1: try 1 exited $rc with $failed failed run(s), no real-time budget: again"
done
[ "$rc" -eq 0 ] || ts_fail "exp run as $U1: exit $rc: $(tail -n 5 "$TS_TMP/exp.out")"
ts_check "exp run as $U1: failed runs" "$failed" == 0
ts_range "exp run as $U1: upload throughput (bound 19.31)" \
	"$(jq -r '.configs[0].metrics.throughput_up_mbps.mean // 0' "$UDIR/res/summary.json")" \
	15 "$HI" "Mbit/s "
ts_check "exp run as $U1: owner of the results" "$(stat -c %u "$UDIR/res/summary.json")" == \
	"$(id -u "$U1")"
ts_check "exp run as $U1: processes of the user after it" "$(pgrep -c -u "$U1")" == 0

WITH_TUN=()
if command -v pasta >/dev/null 2>&1; then
	pasta_flow "$U1"
else
	ts_skip_part "pasta is not installed (Debian: passt): --outside pasta is not tested"
fi
# SIGKILL of a rootless run (which has no guard): CMD goes with it, so
# does what CMD left running in the background (the run is the init of
# its own PID namespace, whose processes the kernel kills when it dies),
# and so does pasta (stopped by its keeper) when the run has --outside
# pasta. The background process is found before the kill by its command
# line (the user runs nothing else) and must be gone after it.
user_dir "$U1"
# tasshape (outside), tasshape (the namespace's init), both sleeps; pasta and its keeper.
if [ "${#WITH_TUN[@]}" -gt 0 ]; then
	KILLED=("${WITH_TUN[@]}") OUTSIDE=(--outside pasta) NPROC=6
else
	KILLED=(ip netns exec "$TS_NS") OUTSIDE=() NPROC=4
fi
"${KILLED[@]}" setpriv --reuid="$U1" --regid="$U1" --init-groups -- "$UDIR/tasshape" \
	--trace const:20mbit --quiet "${OUTSIDE[@]}" -- sh -c 'sleep 2999 & exec sleep 30' \
	2>"$TS_TMP/killed.err" &
KPID=$!
TS_TAS_PIDS+=("$KPID")
for _ in $(seq 50); do
	[ "$(pgrep -c -u "$U1")" -ge "$NPROC" ] && break
	sleep 0.1
done
ts_check "killed run: processes of the user before SIGKILL" "$(pgrep -c -u "$U1")" == "$NPROC"
BG=$(pgrep -u "$U1" -f '^sleep 2999$')
# shellcheck disable=SC2317 # called through ts_true
bg_in_pidns() {
	[ -n "$BG" ] && [ "$(readlink "/proc/$BG/ns/pid")" != "$(readlink /proc/self/ns/pid)" ]
}
# shellcheck disable=SC2317 # called through ts_true
bg_gone() { [ -n "$BG" ] && [ ! -e "/proc/$BG" ]; }
ts_true "killed run: CMD's background process ($BG) is in the run's PID namespace" bg_in_pidns
kill -KILL "$KPID"
wait "$KPID" 2>/dev/null
# The namespace's init, orphaned by the kill, is reaped by the host's init: allow it 5 s.
for _ in $(seq 50); do
	[ "$(pgrep -c -u "$U1")" -eq 0 ] && break
	sleep 0.1
done
ts_true "killed run: CMD's background process $BG is gone after SIGKILL" bg_gone
ts_check "killed run: processes of the user 5 s after SIGKILL" "$(pgrep -c -u "$U1")" == 0

# doctor, as that user, tries a rootless run and says it works.
user_dir "$U1"
DR=$(ip netns exec "$TS_NS" setpriv --reuid="$U1" --regid="$U1" --init-groups -- \
	"$UDIR/tasshape" doctor --json | jq -r '.checks[] | select(.check == "rootless") | .status')
ts_true "$U1: tasshape doctor's rootless check: $DR (want ok)" [ "$DR" = ok ]

# doctor where user namespaces are forbidden: the user, in a user namespace
# (made here, mapping root and the user to themselves) whose
# user.max_user_namespaces is 0, as a host with that sysctl at 0 is. The
# maps are written from outside, then the shell execs again to be root of
# the namespace with its capabilities (an exec as an unmapped uid lost them).
UID1=$(id -u "$U1")
GID1=$(id -g "$U1")
mkfifo "$TS_TMP/go" && chmod 644 "$TS_TMP/go"
# shellcheck disable=SC2016 # expanded by the shell in the namespace
ip netns exec "$TS_NS" unshare --user -- sh -c 'read _ <"$1" && exec sh -c '\''
	echo 0 >/proc/sys/user/max_user_namespaces &&
	exec setpriv --reuid="$1" --regid="$2" --clear-groups -- "$3" doctor --json'\'' sh \
	"$2" "$3" "$4"' sh "$TS_TMP/go" "$UID1" "$GID1" "$UDIR/tasshape" >"$TS_TMP/doc0.json" \
	2>"$TS_TMP/doc0.err" &
DPID=$!
TS_BG_PIDS+=("$DPID")
# Until it unshared: a map written before would be its parent namespace's (refused).
for _ in $(seq 50); do
	[ "$(readlink "/proc/$DPID/ns/user")" != "$(readlink /proc/self/ns/user)" ] && break
	sleep 0.1
done
printf '0 0 1\n%s %s 1\n' "$UID1" "$UID1" | dd of="/proc/$DPID/uid_map" bs=4096 status=none
printf '0 0 1\n%s %s 1\n' "$GID1" "$GID1" | dd of="/proc/$DPID/gid_map" bs=4096 status=none
echo go >"$TS_TMP/go"
wait "$DPID"
ts_show "$TS_TMP/doc0.err"
D0=$(jq -c '.checks[] | select(.check == "rootless")' "$TS_TMP/doc0.json" 2>/dev/null)
ts_log "doctor with user.max_user_namespaces 0: $D0"
ts_true "doctor, user namespaces forbidden: rootless fails" \
	[ "$(jq -r .status <<<"$D0" 2>/dev/null)" = fail ]
ts_true "doctor, user namespaces forbidden: says the user namespace was refused" \
	grep -q 'user namespace.*cannot create a user namespace' <<<"$D0"
ts_true "doctor, user namespaces forbidden: the fix raises user.max_user_namespaces" \
	[ "$(jq -r .fix <<<"$D0" 2>/dev/null)" = "sudo sysctl -w user.max_user_namespaces=15000" ]

# attach as the user is refused before any set-up, naming the namespace's
# owner: the test namespace is root's (ip netns add); one the user made
# (unshare, pinned by root as ip netns attach) is the user's own, which
# attach enters, but the veth's other end would then be the test namespace,
# root's (t_rootless_attach.sh shapes the user's own pair); and root of a
# rootless run's namespace may not shape the host's.
as_u1() { ip netns exec "$TS_NS" setpriv --reuid="$U1" --regid="$U1" --init-groups -- "$@"; }
as_u1 "$UDIR/tasshape" attach --netns "$TS_NS" --trace const:10mbit 2>"$TS_TMP/att1.err"
ts_check "attach as $U1 to root's namespace: exit status" "$?" == 1
ts_show "$TS_TMP/att1.err"
ts_true "attach as $U1 to root's namespace: names root as the owner and sudo" \
	grep -q "user namespace of uid 0 (root's.*sudo tasshape attach" "$TS_TMP/att1.err"
# Not as_u1: $! must be the pid that becomes unshare (ip, setpriv and unshare exec).
ip netns exec "$TS_NS" setpriv --reuid="$U1" --regid="$U1" --init-groups -- \
	unshare --user --map-root-user --net sleep 60 &
OWNPID=$!
TS_BG_PIDS+=("$OWNPID")
OWN=tastest-rootless-own-$$
for _ in $(seq 50); do
	[ "$(readlink "/proc/$OWNPID/ns/user")" != "$(readlink /proc/self/ns/user)" ] && break
	sleep 0.1
done
ip netns attach "$OWN" "$OWNPID" && TS_EXTRA_NS+=("$OWN")
as_u1 "$UDIR/tasshape" attach --netns "$OWN" --trace const:10mbit 2>"$TS_TMP/att2.err"
ts_check "attach as $U1 to a namespace of theirs: exit status" "$?" == 1
ts_show "$TS_TMP/att2.err"
ts_true "attach as $U1 to a namespace of theirs, the other end root's: says both must be theirs" \
	grep -q "both ends of the veth must be in one user namespace of yours" "$TS_TMP/att2.err"
as_u1 "$UDIR/tasshape" --quiet --as-root -- "$UDIR/tasshape" attach --netns "$TS_NS" \
	--trace const:10mbit 2>"$TS_TMP/att3.err"
ts_check "attach from a rootless run (--as-root) to root's namespace: exit status" "$?" == 1
ts_show "$TS_TMP/att3.err"
ts_true "attach from a rootless run to root's namespace: says it is outside the run's" \
	grep -q "other than this rootless run's" "$TS_TMP/att3.err"

# plot as the user, of a rootless run's --out (ping through --delay 10ms):
# gnuplot runs as the user; the pictures are the user's.
if command -v gnuplot >/dev/null 2>&1; then
	# shellcheck disable=SC2016 # expanded by the shell inside the namespace
	as_u1 "$UDIR/tasshape" --quiet --delay 10ms --out "$UDIR/prun" -- \
		sh -c 'ping -c 5 -i 0.2 "$TASSHAPE_BASE" >/dev/null' 2>"$TS_TMP/prun.err" ||
		ts_fail "run for plot as $U1: exit $?: $(cat "$TS_TMP/prun.err")"
	as_u1 "$UDIR/tasshape" plot "$UDIR/prun" --format png >"$TS_TMP/plot.out" 2>&1 ||
		ts_fail "plot as $U1: exit $?"
	ts_show "$TS_TMP/plot.out"
	for f in throughput delay delay-cdf; do
		ts_true "plot as $U1: $f.png is a PNG" grep -q PNG <(head -c 8 "$UDIR/prun/$f.png")
		ts_check "plot as $U1: owner of $f.png" "$(stat -c %u "$UDIR/prun/$f.png")" == "$UID1"
	done
else
	ts_skip_part "gnuplot is not installed: plot as a user is not tested"
fi
if command -v newuidmap >/dev/null 2>&1 && command -v newgidmap >/dev/null 2>&1; then
	U2=tasrl$$r
	ts_user_add "$U2" subids
	if grep -q "^$U2:" /etc/subuid && grep -q "^$U2:" /etc/subgid; then
		flow "$U2" 2
	else
		ts_skip_part "useradd granted $U2 no /etc/subuid and /etc/subgid range" \
			"(login.defs SUB_UID_COUNT): the subordinate-range map is not tested"
	fi
else
	ts_skip_part "newuidmap/newgidmap are not installed (Debian: uidmap): the" \
		"subordinate-range map is not tested"
fi
exit 0

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# What is left when a run dies together with its guard (run/guard.h: the
# process that otherwise cleans up after a SIGKILL; here as after a power
# cut of the session, which kills them all):
# 1. Two runs A and B, both started before either is killed, are killed
#    with SIGKILL with their guards (A also with its CMD, B's CMD is left
#    running in B's namespace): both leave their namespace(s), veth and
#    iptables rules behind. `tasshape cleanup --pid A`, run in the
#    namespace the runs were started in, removes all of run A's: no
#    /run/netns/tas-A-*, no tasA-* link (`ip -o link` there and on the
#    host), no rule with comment tas:A (iptables-save and ip6tables-save),
#    and none of run B's; then `cleanup --pid B` kills B's CMD (it reports
#    at least 1 process killed, and the sleep is gone) and removes B's.
#    The test never runs cleanup without --pid: other runs (other tests,
#    other users) may be going on this machine.
# 2. The next start: a run C killed with its guard leaves its objects; the
#    next tasshape run (D, `-- true`) removes them before it starts, and
#    leaves nothing of its own.
# 3. A run sent SIGTERM ends within 10 s, ends its CMD (passes the signal
#    on: exit status 143, CMD's), and leaves nothing (no cleanup run).
#
# The runs are started with nsenter --net, not `ip netns exec`: the latter
# also gives tasshape a mount namespace of its own, whose bind mounts of
# /run/netns/tas-* do not reach the host's, so a killed run's namespaces
# (and with them its veth) would vanish with its last process, leaving
# only empty files. With nsenter they are real mounts, as when a user runs
# tasshape from a shell, and really outlive a SIGKILL.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init cleanup "${1:-}" ps nsenter

# run_bg ARGS...: starts tasshape ARGS in the test's network namespace (the
# host's mount namespace) in the background; sets TS_RUN_PID.
run_bg() {
	nsenter --net="/run/netns/$TS_NS" "$TS_BIN" "$@" &
	TS_RUN_PID=$!
	ts_own_pid "$TS_RUN_PID"
}

# started PID: waits (10 s) until tasshape PID runs its CMD (a sleep), so
# its namespace, links and rules are all in place. Prints the CMD's pid.
started() {
	local i c
	for i in $(seq 100); do
		for c in $(ts_descendants "$1"); do
			if [ "$(cat "/proc/$c/comm" 2>/dev/null)" = sleep ]; then
				echo "$c"
				return 0
			fi
		done
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# has KIND LINES: asserts that LINES contain a leftover of KIND.
# shellcheck disable=SC2317 # called through ts_true
has() { grep -q "^$1 " <<<"$2"; }

# start TAG: starts a run (CMD: sleep 60) and waits until its CMD runs;
# sets PID to the run's pid and CMD to the sleep's.
start() {
	run_bg --trace const:10mbit --quiet -- sleep 60 2>"$TS_TMP/err-$1"
	PID=$TS_RUN_PID
	CMD=$(started "$PID") || {
		ts_show "$TS_TMP/err-$1"
		ts_die "run $1: tasshape pid $PID did not start its CMD within 10 s"
	}
}

# kill_run TAG PID CMD with-cmd|keep-cmd: SIGKILL tasshape PID and its guard
# (and CMD, unless keep-cmd), all at once.
kill_run() {
	local kids
	kids=$(ts_descendants "$2" | tr '\n' ' ')
	[ "$4" = keep-cmd ] && kids=$(tr ' ' '\n' <<<"$kids" | grep -vx "$3" | tr '\n' ' ')
	ts_log "run $1: killing tasshape pid $2 and $kids with SIGKILL ($4, CMD sleep pid $3)"
	# shellcheck disable=SC2086 # a list of pids
	kill -KILL "$2" $kids
	wait "$2" 2>/dev/null # reap it: a zombie would still count as running
}

# cleanup_pid PID: runs `tasshape cleanup --pid PID -v` in the test namespace.
cleanup_pid() {
	local rc
	ts_ns "$TS_BIN" cleanup --pid "$1" -v >"$TS_TMP/cleanup-$1.out" 2>&1
	rc=$?
	ts_show "$TS_TMP/cleanup-$1.out"
	ts_check "tasshape cleanup --pid $1: exit status" "$rc" == 0
}

# --- 1. SIGKILL, then tasshape cleanup --pid
start A
a=$PID
cmda=$CMD
start B
b=$PID
cmdb=$CMD
kill_run A "$a" "$cmda" with-cmd
kill_run B "$b" "$cmdb" keep-cmd
for pid in "$a" "$b"; do
	left=$(ts_leftovers "$pid")
	ts_log "pid $pid left behind:"
	printf '%s\n' "$left" | sed 's/^/    /'
	ts_true "pid $pid: a namespace was left" has namespace "$left"
	ts_true "pid $pid: a link was left" has link "$left"
	ts_true "pid $pid: an iptables rule was left" has rule "$left"
done
ts_true "run B's CMD still runs in its namespace" kill -0 "$cmdb"
leftb=$(ts_leftovers "$b")
cleanup_pid "$a"
left=$(ts_leftovers "$a")
if [ -n "$left" ]; then
	printf '%s\n' "$left" | sed 's/^/    /'
	ts_fail "tasshape cleanup --pid $a left the above"
else
	ts_log "after tasshape cleanup --pid $a nothing of pid $a remains ok"
fi
if [ "$(ts_leftovers "$b")" = "$leftb" ]; then
	ts_log "cleanup --pid $a kept everything of pid $b ok"
else
	ts_fail "cleanup --pid $a touched pid $b's objects: before:"
	printf '%s\n' "$leftb" | sed 's/^/    /'
	ts_log "after:"
	ts_leftovers "$b" | sed 's/^/    /'
fi
cleanup_pid "$b"
killedn=$(sed -n 's/^tasshape cleanup: killed \([0-9]*\) processes.*/\1/p' "$TS_TMP/cleanup-$b.out")
ts_check "cleanup --pid $b: processes killed in its namespace" "${killedn:-0}" ">=" 1
for i in $(seq 20); do
	[ "$(ps -o stat= -p "$cmdb" 2>/dev/null | cut -c1)" = Z ] && break
	kill -0 "$cmdb" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$cmdb" 2>/dev/null && [ "$(ps -o stat= -p "$cmdb" | cut -c1)" != Z ]; then
	ts_fail "run B's CMD (sleep pid $cmdb) survived tasshape cleanup --pid $b"
	kill -KILL "$cmdb"
else
	ts_log "run B's CMD is gone ok"
fi
left=$(ts_leftovers "$b")
if [ -n "$left" ]; then
	printf '%s\n' "$left" | sed 's/^/    /'
	ts_fail "tasshape cleanup --pid $b left the above"
else
	ts_log "after tasshape cleanup --pid $b nothing of pid $b remains ok"
fi

# --- 2. the next start removes what a dead run left
start C
c=$PID
kill_run C "$c" "$CMD" with-cmd
ts_true "pid $c: a namespace was left" has namespace "$(ts_leftovers "$c")"
run_bg --trace const:10mbit --quiet -- true 2>"$TS_TMP/err-D"
d=$TS_RUN_PID
wait "$d"
ts_check "run D: exit status" "$?" == 0
left=$(ts_leftovers "$c")
[ -z "$left" ] || printf '%s\n' "$left" | sed 's/^/    /'
ts_true "run D's start removed what run C left" test -z "$left"
ts_true "run D left nothing" test -z "$(ts_leftovers "$d")"

# --- 3. SIGTERM
run_bg --trace const:10mbit --quiet -- sleep 60 2>"$TS_TMP/err2"
pid=$TS_RUN_PID
cmd=$(started "$pid") || {
	ts_show "$TS_TMP/err2"
	ts_die "tasshape pid $pid did not start its CMD within 10 s"
}
t0=$(date +%s.%N)
kill -TERM "$pid"
for i in $(seq 100); do
	kill -0 "$pid" 2>/dev/null || break
	# still running, or a zombie: ps shows Z for the latter
	[ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ] && break
	sleep 0.1
done
t=$(ts_elapsed "$t0")
# Still running after 10 s: SIGKILL, so that wait cannot hang (the time
# check below fails then).
kill -KILL "$pid" 2>/dev/null
wait "$pid"
rc=$?
ts_show "$TS_TMP/err2"
ts_log "SIGTERM: tasshape pid $pid exited with status $rc after $t s"
ts_check "SIGTERM: time to exit" "$t" "<" 10 "s "
# The signal is passed on to CMD (docs/datapath.md, "Ending a run"), which
# dies of it, and tasshape exits with CMD's status: 128 + 15.
ts_check "SIGTERM: exit status (CMD's, killed by SIGTERM)" "$rc" == 143
if kill -0 "$cmd" 2>/dev/null; then
	ts_fail "SIGTERM: its CMD (sleep pid $cmd) is still running"
	kill -KILL "$cmd"
else
	ts_log "SIGTERM: its CMD ended ok"
fi
left=$(ts_leftovers "$pid")
if [ -n "$left" ]; then
	printf '%s\n' "$left" | sed 's/^/    /'
	ts_fail "SIGTERM: the run left the above"
else
	ts_log "SIGTERM: nothing of pid $pid remains ok"
fi
exit 0

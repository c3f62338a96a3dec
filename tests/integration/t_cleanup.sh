#!/bin/bash
# SPDX-License-Identifier: MIT
#
# 1. A run killed with SIGKILL (with its CMD) leaves its namespace(s), veth
#    and iptables rules behind; `tasshape cleanup`, run in the namespace
#    the run was started in, removes all of them: no /run/netns/tas-PID-*,
#    no tasPID-* link (`ip -o link` there and on the host), no rule with
#    comment tas:PID (iptables-save and ip6tables-save).
# 2. A run sent SIGTERM ends within 10 s, ends its CMD, and leaves nothing
#    (no cleanup run).
. "$(dirname "$0")/lib.sh" || exit 2
ts_init cleanup "${1:-}"

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

# --- 1. SIGKILL, then tasshape cleanup
ts_shape_bg --trace const:10mbit --quiet -- sleep 60 2>"$TS_TMP/err1"
pid=$TS_RUN_PID
cmd=$(started "$pid") || {
	ts_show "$TS_TMP/err1"
	ts_die "tasshape pid $pid did not start its CMD within 10 s"
}
kids=$(ts_descendants "$pid" | tr '\n' ' ')
ts_log "killing tasshape pid $pid and its CMD (sleep pid $cmd; descendants: $kids) with SIGKILL"
# shellcheck disable=SC2086 # a list of pids
kill -KILL "$pid" $kids
wait "$pid" 2>/dev/null # reap it: a zombie would still count as running
left=$(ts_leftovers "$pid")
ts_log "left behind:"
printf '%s\n' "$left" | sed 's/^/    /'
ts_true "a namespace was left" has namespace "$left"
ts_true "a link was left" has link "$left"
ts_true "an iptables rule was left" has rule "$left"
ts_ns "$TS_BIN" cleanup -v >"$TS_TMP/cleanup.out" 2>&1
rc=$?
ts_show "$TS_TMP/cleanup.out"
ts_check "tasshape cleanup exit status" "$rc" == 0
left=$(ts_leftovers "$pid")
if [ -n "$left" ]; then
	printf '%s\n' "$left" | sed 's/^/    /'
	ts_fail "tasshape cleanup left the above"
else
	ts_log "after tasshape cleanup nothing of pid $pid remains ok"
fi

# --- 2. SIGTERM
ts_shape_bg --trace const:10mbit --quiet -- sleep 60 2>"$TS_TMP/err2"
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
wait "$pid"
rc=$?
t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
ts_show "$TS_TMP/err2"
ts_log "SIGTERM: tasshape pid $pid exited with status $rc after $t s"
ts_check "SIGTERM: time to exit" "$t" "<" 10 "s "
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

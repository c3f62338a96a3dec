#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Nothing survives tasshape (docs/reliability.md, "Cleanup"): a run whose
# CMD started a background sleep and an iperf3 server is killed with
# SIGKILL, tasshape alone (not its children). Within 2 s, without any
# cleanup command:
#  - no process of the run is left running: CMD, what it started, and the
#    guard that did the cleanup (their pids are taken before the kill; a
#    zombie waiting for init to reap it counts as gone);
#  - no namespace /run/netns/tas-PID-*, no link tasPID-* (in the test's
#    namespace and the host's), no iptables or ip6tables rule "tas:PID";
#  - the test namespace's net.ipv4.ip_forward (set to 0 first: a new
#    namespace may inherit the host's 1), 1 during the run, is back to 0.
# Then a run that leads its own process group (setsid) is killed with the
# whole group (kill -KILL -PGID): its guard is in a group of its own, so
# again no process, namespace, link or rule of the run is left (within 2 s).
# Only objects carrying this run's pid are compared: other runs may be
# live on this machine. Started with nsenter --net (the host's mount
# namespace), as t_cleanup.sh explains: the namespaces' bind mounts are
# real there and would outlive the run if nothing removed them.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init kill "${1:-}" ps nsenter iperf3

ip netns exec "$TS_NS" sysctl -qw net.ipv4.ip_forward=0 || ts_die "cannot set ip_forward"
nsenter --net="/run/netns/$TS_NS" "$TS_BIN" --quiet --trace const:10mbit -- \
	sh -c 'sleep 60 & iperf3 -s -p 5999 >/dev/null 2>&1 & exec sleep 61' 2>"$TS_TMP/err" &
PID=$!
ts_own_pid "$PID"
procs=
for _ in $(seq 100); do
	procs=$(ts_descendants "$PID" | tr '\n' ' ')
	# the guard, sh's exec'd sleep 61, sleep 60 and iperf3
	[ "$(wc -w <<<"$procs")" -ge 4 ] && break
	sleep 0.1
done
ts_check "processes of the run before the kill (guard, CMD, sleep, iperf3)" "$(wc -w <<<"$procs")" ">=" 4
before=$(ts_leftovers "$PID")
printf '%s\n' "$before" | sed 's/^/    before: /'
ts_true "the run has its namespaces" grep -q "^namespace " <<<"$before"
ts_true "the run has its rules" grep -q "^rule " <<<"$before"
ts_true "the run has its outer link" grep -q "^link " <<<"$before"
fwd() { ip netns exec "$TS_NS" cat /proc/sys/net/ipv4/ip_forward; }
ts_check "ip_forward during the run" "$(fwd)" == 1

# running PID: true while PID exists and is not a zombie (a killed process whose parent
# died waits for init to reap it; it holds nothing any more, namespaces included).
running() {
	local st
	st=$(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# wait_gone TRIES: polls every 20 ms, at most TRIES times, until no process
# of $procs runs and no namespace of run $PID is left; $alive holds those
# still running.
wait_gone() {
	local _ p
	for _ in $(seq "$1"); do
		alive=
		for p in $procs; do
			running "$p" && alive="$alive $p"
		done
		[ -z "$alive" ] && ! compgen -G "/run/netns/tas-$PID-*" >/dev/null && return 0
		sleep 0.02
	done
}


t0=$(date +%s.%N)
kill -KILL "$PID"
wait "$PID" 2>/dev/null
# Poll cheaply (a tool run per poll would be the slowest thing here): the
# processes, and the namespaces, which the cleanup removes last (after the
# rules and the outer link); then check everything once.
alive=$procs
wait_gone 200
took=$(ts_elapsed "$t0")
left=$(ts_leftovers "$PID")
[ -z "$left" ] || printf '%s\n' "$left" | sed 's/^/    left: /'
ts_true "no process of the run left (were: $procs)" test -z "$alive"
ts_true "no namespace, link or rule of the run left" test -z "$left"
ts_check "seconds until the processes and namespaces were gone" "$took" "<=" 2
# The guard puts ip_forward back last, after the namespaces.
for _ in $(seq 100); do
	[ "$(fwd)" = 0 ] && break
	sleep 0.02
done
ts_check "ip_forward after the kill (as the run found it)" "$(fwd)" == 0

# The whole process group killed at once (a supervisor, or a shell's job
# control, kills the group): the run leads a group of its own (setsid), CMD
# and the guard were started in it; the guard has left it, survives the
# kill and cleans up as above.
setsid nsenter --net="/run/netns/$TS_NS" "$TS_BIN" --quiet --trace const:10mbit -- \
	sh -c 'sleep 60 & exec sleep 61' 2>"$TS_TMP/err2" &
PID=$!
ts_own_pid "$PID"
for _ in $(seq 100); do
	compgen -G "/run/netns/tas-$PID-*-link" >/dev/null &&
		[ "$(ts_descendants "$PID" | wc -l)" -ge 3 ] && break
	sleep 0.1
done
procs=$(ts_descendants "$PID" | tr '\n' ' ')
ts_true "group kill: the run has its namespaces" test -n "$(compgen -G "/run/netns/tas-$PID-*")"
ts_check "group kill: processes in the run's group before the kill" \
	"$(ps -o pid= -g "$PID" | wc -l)" ">=" 3
kill -KILL -- "-$PID"
wait "$PID" 2>/dev/null
wait_gone 100
left=$(ts_leftovers "$PID")
[ -z "$left" ] || printf '%s\n' "$left" | sed 's/^/    left: /'
ts_true "group kill: no process of the run left (were: $procs)" test -z "$alive"
ts_true "group kill: no namespace, link or rule of the run left" test -z "$left"
exit 0

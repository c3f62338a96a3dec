#!/bin/bash
# SPDX-License-Identifier: MIT
#
# timed.sh [--no-rerun] HOST_WATCH SCRIPT TASSHAPE: runs one integration test
# with host_watch (tests/integration/host_watch.c) beside it, as ctest does for
# every t_*.sh, and prints what the host took from the machine meanwhile.
#
# Most tests judge real-time behaviour: a rate within 1%, an RTT within 2 ms,
# the shaper's release p99 within 200 us. A virtual CPU whose hypervisor
# deschedules it for 100 ms fails them whatever tasshape does (seen in CI: one
# ping 100 ms late, a BBR flow 8% short). So when a test fails and the host
# demonstrably took the CPU during it (a SCHED_FIFO watcher woke 10 ms late or
# more while the host's steal time grew, or the steal time reached 2% of the
# CPUs' time), the test runs again, up to three tries in all, and the last
# try's result is the test's. A failure while the host gave the CPU ends it at
# once: a regression fails every try, and fails for good at the first try the
# host leaves alone. --no-rerun (the tests labelled vtime: their guests are all
# in virtual time, and no host stall moves what they assert) only reports.
# docs/reliability.md, "Host stalls in CI". With TS_HOST_LOG set, each try's
# line is also appended there (tools/test.sh prints them, since ctest shows a
# passing test's output nowhere). The files a failed try kept (lib.sh names
# them in TS_KEPT_LOG) are removed when a later one passes: its output, above,
# has said what went wrong, and CI would leave one directory per rerun.
set -u
rerun=1
if [ "${1:-}" = --no-rerun ]; then
	rerun=0
	shift
fi
if [ $# -lt 3 ]; then
	echo "usage: timed.sh [--no-rerun] HOST_WATCH SCRIPT TASSHAPE" >&2
	exit 2
fi
watch=$1 script=$2
shift 2
name=$(basename "$script" .sh)
out=$(mktemp /tmp/tastest-hostwatch.XXXXXX) || exit 2
kept=$(mktemp /tmp/tastest-kept.XXXXXX) || exit 2
trap 'rm -f "$out" "$kept"' EXIT
export TS_KEPT_LOG=$kept

# try N: runs the test once; sets rc, and stole=1 if the host took the CPU.
try() {
	local w j line
	"$watch" >"$out" &
	w=$!
	bash "$script" "$@"
	rc=$?
	kill -TERM "$w" 2>/dev/null
	wait "$w"
	j=$(cat "$out")
	stole=0
	if [ -z "$j" ]; then
		echo "[host] $name: host_watch printed nothing: no host figures for this try"
		return
	fi
	line=$(jq -r '"\(.seconds) s on \(.cpus) CPUs (watchers \(if .fifo
		then "SCHED_FIFO 1" else "SCHED_OTHER" end)): latest wake-up \(.max_late_us) us late
		at \(.worst_at_s) s, \(.stalls) stall(s) of 10 ms or more (\(.stalled_ms) ms), steal
		\(.steal_ms) ms"' <<<"$j" | tr -s '\t\n' '  ')
	echo "[host] $name: ${line% }"
	[ -z "${TS_HOST_LOG:-}" ] || echo "$name: ${line% }" >>"$TS_HOST_LOG"
	# A stall counts when the hypervisor says it took time too: a real-time task of this
	# machine that held a CPU for 10 ms would stall a watcher without any steal.
	stole=$(jq -r 'if (.stalls > 0 and .steal_ms >= 10) or
		.steal_ms >= 0.02 * 1000 * .seconds * .cpus then 1 else 0 end' <<<"$j")
}

# A try that failed while the host took the CPU proves nothing either way, so the test runs
# again, at most TRIES times in all; a try that failed while the host gave the CPU ends it.
TRIES=3
n=1
try "$@"
while [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ "$stole" = 1 ]; do
	if [ "$rerun" = 0 ]; then
		echo "[host] $name: failed while the host took the CPU (not rerun: virtual time)"
		break
	fi
	if [ "$n" -ge "$TRIES" ]; then
		echo "[host] $name: failed in all $TRIES tries, the host taking the CPU in each"
		break
	fi
	n=$((n + 1))
	echo "[host] $name: failed while the host took the CPU: running it again (try $n of $TRIES)"
	[ -z "${TS_HOST_LOG:-}" ] ||
		echo "$name: failed while the host took the CPU: run again (try $n)" >>"$TS_HOST_LOG"
	try "$@"
done
if [ "$rc" = 0 ] && [ "$n" -gt 1 ]; then
	while IFS= read -r d; do
		case $d in /tmp/tastest-?*.*)
			echo "[host] $name: passed on try $n: removing an earlier try's $d"
			rm -rf -- "$d" ;;
		esac
	done <"$kept"
fi
exit "$rc"

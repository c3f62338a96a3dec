#!/bin/bash
# SPDX-License-Identifier: MIT
#
# How the wrapper ends a run on its own (docs/datapath.md, "Ending a run"):
#  1. --duration 2s -- sleep 30: the run ends 2 s after the link is up
#     (accepted: 2.0-3.5 s from start to exit, set-up and teardown take
#     ~0.2 s); CMD is asked to end (SIGTERM, as timeout(1) does), so it
#     is gone and its status is 143 (128 + 15) in the manifest; tasshape
#     exits 124, as timeout(1) does; the manifest's stop is "duration".
#  2. --once with a 2 s trace (a CSV written here: 10 Mbit/s both ways,
#     rows at 0 and 1 s, "# duration=2s"), on an idle link: the end of the
#     trace ends the run although no packet comes (2.0-3.5 s), exit 124,
#     CMD gone, stop "trace ended". --once with const:RATE (no end) is
#     refused.
#  3. --duration 1s with a CMD that ignores SIGTERM and has a background
#     job: after the 2 s grace CMD gets SIGKILL (status 137 in the
#     manifest), and the background job, still in the emulated host's
#     namespace, is killed too: nothing outlives the link. 3.0-4.5 s.
#  4. --gso with const:200mbit: a 4 s iperf3 upload. The link charges
#     every segment of a GSO super-packet its own 52 bytes of IP, TCP and
#     timestamp headers, so the goodput is at most 200 * 1448/1500 =
#     193.1 Mbit/s; accepted 185-195 (slow start is short at ~0 RTT). The
#     shaper's uplink bytes_out over the payload received must be >= 1.03
#     (1500/1448 = 1.036 with full-size segments; 1.002 if the headers of
#     a 64 KB super-packet were charged once), and its mean released unit
#     > 3000 bytes (super-packets reached the shaper whole).
#  5. net.ipv4.ip_forward of the namespace tasshape starts in (set to 0
#     here: a new namespace may inherit the host's 1): 1 while a run lasts,
#     still 1 after an overlapping shorter run ends (the longer one still
#     needs it), 0 again after the last.
# --as-root and the sudo user switch are not tested: that needs a sudo
# configuration on the test machine.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init runend "${1:-}" ps iperf3

# gone PID: true when PID has ended (or is a zombie), waiting up to 2 s
# (an orphan killed by the run is reaped by init a moment later).
# shellcheck disable=SC2317 # called through ts_true
gone() {
	for _ in $(seq 20); do
		kill -0 "$1" 2>/dev/null || return 0
		[ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = Z ] && return 0
		sleep 0.1
	done
	return 1
}

# ends TAG LO HI STATUS STOP CMD_STATUS [TASSHAPE ARGS...]: runs tasshape
# ARGS with --out and a CMD (sh) that writes its pid to TAG.pid and then
# runs $BODY; checks the time to exit (LO..HI s), the exit status, the
# manifest's stop and exit_code, and that CMD and the pids its body wrote
# to TAG.bg are gone.
ends() {
	local tag=$1 lo=$2 hi=$3 want=$4 stop=$5 cmdst=$6 t0 rc t p
	shift 6
	t0=$(date +%s.%N)
	# shellcheck disable=SC2016 # expanded by the shell inside the namespace
	TS_RUN_LIMIT=20 ts_shape "$@" --quiet --out "$TS_TMP/$tag" -- \
		sh -c 'echo $$ >"$0.pid"; eval "$1"' "$TS_TMP/$tag" "$BODY" 2>"$TS_TMP/$tag.err"
	rc=$?
	t=$(ts_elapsed "$t0")
	ts_show "$TS_TMP/$tag.err"
	ts_log "$tag: exit status $rc after $t s"
	ts_range "$tag: time to exit" "$t" "$lo" "$hi" "s "
	ts_check "$tag: exit status" "$rc" == "$want"
	ts_true "$tag: manifest stop is '$stop'" \
		test "$(jq -r .stop "$TS_TMP/$tag/manifest.json" 2>/dev/null)" = "$stop"
	ts_check "$tag: manifest exit_code (CMD's status)" \
		"$(jq -r .exit_code "$TS_TMP/$tag/manifest.json" 2>/dev/null)" == "$cmdst"
	for p in $(cat "$TS_TMP/$tag.pid" "$TS_TMP/$tag.bg" 2>/dev/null || true); do
		TS_BG_PIDS+=("$p") # killed on exit if still there
		ts_true "$tag: process $p of CMD has ended" gone "$p"
	done
}

# --- 1. --duration
BODY='exec sleep 30'
ends duration 2.0 3.5 124 duration 143 --trace const:10mbit --duration 2s

# --- 2. --once, idle link
TRACE=$TS_TMP/2s.csv
printf '%s\n' '# duration=2s' 'time_s,down_mbps,up_mbps' '0,10,10' '1,10,10' >"$TRACE"
ends once 2.0 3.5 124 "trace ended" 143 --trace "$TRACE" --once
ts_shape --trace const:10mbit --once --quiet -- true 2>"$TS_TMP/once-const.err"
rc=$?
ts_show "$TS_TMP/once-const.err"
ts_check "--once with const:10mbit: exit status" "$rc" "!=" 0
ts_true "--once with const:10mbit: the message says a constant rate has no end" \
	grep -q "no end" "$TS_TMP/once-const.err"

# --- 3. CMD ignores SIGTERM, with a background job
# shellcheck disable=SC2016 # expanded by CMD's shell
BODY='trap "" TERM; sleep 30 & echo $! >"$0.bg"; sleep 30'
ends ignore-term 3.0 4.5 124 duration 137 --trace const:10mbit --duration 1s

# --- 4. --gso
ts_iperf_server 5201
# shellcheck disable=SC2016 # expanded by the shell inside the namespace
ts_shape --trace const:200mbit --gso --quiet --summary-json "$TS_TMP/gso.sum.json" -- \
	sh -c 'exec iperf3 -c "$TASSHAPE_BASE" -p 5201 -t 4 -J -C cubic' \
	>"$TS_TMP/gso.json" 2>"$TS_TMP/gso.err"
rc=$?
if [ "$rc" -ne 0 ]; then
	ts_show "$TS_TMP/gso.err"
	jq -r '.error // empty' "$TS_TMP/gso.json" 2>/dev/null
	ts_die "--gso: tasshape/iperf3 exited $rc"
fi
bps=$(jq -r '.end.sum_received.bits_per_second' "$TS_TMP/gso.json")
payload=$(jq -r '.end.sum_received.bytes' "$TS_TMP/gso.json")
read -r out pkts <<<"$(jq -r '.directions[0] | "\(.bytes_out) \(.pkts_out)"' "$TS_TMP/gso.sum.json")"
ratio=$(awk -v o="$out" -v p="$payload" 'BEGIN { printf "%.4f", o / p }')
unit=$(awk -v o="$out" -v n="$pkts" 'BEGIN { printf "%.0f", o / n }')
ts_log "--gso: goodput $(ts_mbit "$bps") Mbit/s, payload $payload bytes; uplink $out bytes in" \
	"$pkts units, utilisation $(jq -r '.directions[0].utilisation' "$TS_TMP/gso.sum.json")"
ts_range "--gso: goodput (at most 193.1)" "$(ts_mbit "$bps")" 185 195 "Mbit/s "
ts_check "--gso: uplink bytes charged / payload received (1500/1448 = 1.036)" "$ratio" ">=" 1.03
ts_check "--gso: mean bytes per released unit (super-packets)" "$unit" ">" 3000 "bytes "
# 5. ip_forward: raised for the runs, put back after the last one.
fwd() { ip netns exec "$TS_NS" cat /proc/sys/net/ipv4/ip_forward; }
ip netns exec "$TS_NS" sysctl -qw net.ipv4.ip_forward=0 || ts_die "cannot set ip_forward"
ts_shape_bg --trace const:10mbit --quiet -- sleep 3
long=$TS_RUN_PID
for _ in $(seq 50); do
	[ "$(fwd)" = 1 ] && break
	sleep 0.1
done
ts_check "ip_forward while a run lasts" "$(fwd)" == 1
TS_RUN_LIMIT=20 ts_shape --trace const:10mbit --quiet -- true ||
	ts_fail "the overlapping run exited $?"
ts_check "ip_forward after an overlapping run ended, the first still running" "$(fwd)" == 1
wait "$long" || ts_fail "the longer run exited $?"
ts_check "ip_forward after the last run (as found)" "$(fwd)" == 0
exit 0

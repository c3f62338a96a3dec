#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# RRUL latency at a 200-packet buffer: tasshape's queue against the kernel's, on the same
# link (run by hand, as root; not a test). docs/validation/rrul-latency.md reads its output.
#
#   rrul_ref.sh [-b TASSHAPE] [-o DIR] MODE LIMIT TEST
#     MODE   tas: tasshape --trace const:20mbit --delay 20ms --queue droptail:LIMIT
#            tc:  tasshape --delay 20ms only (a delay line, no rate); the bottleneck is the
#                 kernel's htb (rate 20mbit) with a pfifo of 200 packets (LIMIT packets) or a
#                 bfifo of 300000 bytes (LIMIT bytes) on both egress veths of the wrapper's
#                 router namespace, set up by CMD before its flows start
#     LIMIT  packets (200 packets) or bytes (300000 bytes: 200 full-size packets)
#     TEST   up: one CUBIC upload; rrul: 4 CUBIC uploads and 4 downloads; both with a ping
#            every 0.2 s from 2 s after the flows started, for 9 s
#
# The iperf3 servers run in a namespace this script creates (tfref-PID) and which it
# deletes on exit, with the servers it started (by PID). Prints the ping's RTT p50/p95/max
# (nearest rank) and each flow's goodput; keeps everything in DIR (tasshape's summary.json,
# the ping, the qdiscs' counters).
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${TASSHAPE:-$here/build/tasshape}
out=
while getopts "b:o:" o; do
	case $o in
	b) bin=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 3 ] || { sed -n '7,16p' "$0"; exit 2; }
mode=$1 lim=$2 test=$3
case "$mode/$lim/$test" in
tas/packets/up | tas/packets/rrul | tas/bytes/up | tas/bytes/rrul) ;;
tc/packets/up | tc/packets/rrul | tc/bytes/up | tc/bytes/rrul) ;;
*) echo "rrul_ref.sh: MODE tas|tc, LIMIT packets|bytes, TEST up|rrul" >&2; exit 2 ;;
esac
out=${out:-/tmp/rrul-ref-$mode-$lim-$test-$$}
mkdir -p "$out"
ns=tfref-$$
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$ns"
ip -n "$ns" link set lo up
for p in 5201 5202 5203 5204 5205 5206 5207 5208; do
	ip netns exec "$ns" iperf3 -s -p $p >/dev/null 2>&1 &
	pids+=($!)
done
sleep 0.5

# CMD, in the wrapper's inner namespace. Its parent is the wrapper, whose router namespace
# is tas-<wrapper pid>-<n>-link (visible in the wrapper's mount namespace only).
cat >"$out/cmd.sh" <<'IN'
set -u
b=$TASSHAPE_BASE
if [ "$MODE" = tc ]; then
	l=$(ls /run/netns | grep "^tas-$PPID-[0-9]*-link$" | head -1)
	for dev in $(ip -n "$l" -o link show | awk -F': ' '$2 !~ /^lo/ { sub(/@.*/, "", $2); print $2 }'); do
		ip netns exec "$l" tc qdisc replace dev "$dev" root handle 1: htb default 1
		ip netns exec "$l" tc class add dev "$dev" parent 1: classid 1:1 htb rate 20mbit
		if [ "$LIM" = packets ]; then
			ip netns exec "$l" tc qdisc add dev "$dev" parent 1:1 handle 10: pfifo limit 200
		else
			ip netns exec "$l" tc qdisc add dev "$dev" parent 1:1 handle 10: bfifo limit 300000
		fi
		echo "$dev" >>"$OUTD/devs.txt"
	done
fi
for p in 5201 5202 5203 5204; do
	[ "$TEST" = up ] && [ $p != 5201 ] && continue
	iperf3 -c "$b" -p $p -t 12 -C cubic -J >"$OUTD/up-$p.json" 2>&1 &
done
if [ "$TEST" = rrul ]; then
	for p in 5205 5206 5207 5208; do
		iperf3 -c "$b" -p $p -t 12 -C cubic -R -J >"$OUTD/down-$p.json" 2>&1 &
	done
fi
sleep 2
ping -n -i 0.2 -c 45 "$b" >"$OUTD/ping.txt"
if [ "$MODE" = tc ]; then
	for dev in $(cat "$OUTD/devs.txt"); do
		echo "== $dev"
		ip netns exec "$l" tc -s qdisc show dev "$dev"
	done >"$OUTD/tc.txt"
fi
wait
IN
if [ "$mode" = tas ]; then
	q=droptail:packets=200
	[ "$lim" = bytes ] && q=droptail:bytes=300000
	link=(--trace const:20mbit --delay 20ms --queue "$q")
else
	link=(--delay 20ms)
fi
ip netns exec "$ns" env OUTD="$out" MODE="$mode" LIM="$lim" TEST="$test" "$bin" "${link[@]}" \
	--as-root --no-progress --summary-json "$out/summary.json" -- bash "$out/cmd.sh" \
	>"$out/wrap.log" 2>&1 || echo "tasshape exited with $? (see $out/wrap.log)" >&2
grep -o 'time=[0-9.]*' "$out/ping.txt" | cut -d= -f2 | sort -n |
	awk '{ a[NR] = $1 } END { printf "icmp_rtt_ms n=%d p50=%.1f p95=%.1f max=%.1f\n", NR,
	       a[int(NR * 0.5 + 0.5)], a[int(NR * 0.95 + 0.5)], a[NR] }'
for f in "$out"/up-*.json "$out"/down-*.json; do
	[ -f "$f" ] || continue
	jq -r --arg f "$(basename "$f" .json)" \
		'"\($f) \(.end.sum_received.bits_per_second / 1e6 * 100 | round / 100) Mbit/s, retransmits \(.end.sum_sent.retransmits)"' \
		"$f" 2>/dev/null || echo "$(basename "$f"): no result"
done
echo "kept in $out"

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Where the uplink queue is held decides whether TCP Small Queues sees it
# (docs/datapath.md, "Topology of the wrapper"). A huge uplink queue
# (droptail:packets=4000, 6 MB) and an 8 s CUBIC upload:
# - --uplink-at sender: the rate stage sits at the sender's egress, its
#   packets are still charged to the socket, TSQ throttles the socket:
#   the stage's peak_bytes (stages[] entry with place "sender") <= 600 KB.
#   Why: TSQ (tcp_small_queue_check) lets a socket have about
#   max(2 * skb truesize, pacing_rate >> 10) bytes in the layers below it
#   (and at most net.ipv4.tcp_limit_output_bytes, 1 MB, for a socket that
#   does not pace, as CUBIC without fq). The sender's skbs
#   are 64 KB GSO super-packets (the kernel segments them only when
#   NFQUEUE takes them), each with a truesize of ~65-75 KB, so the limit is
#   ~130-150 KB; pacing_rate >> 10, about 1 ms of the pacing rate (15 KB
#   at 60 Mbit/s, CUBIC pacing at up to 2x the link rate), is smaller.
#   600 KB is 4x that 150 KB, room for the skb TSQ lets through when it
#   checks and for truesize varying with the kernel (measured: 153 KB at
#   20, 50 and 60 Mbit/s); a queue TSQ did not see grows to megabytes;
# - --uplink-at network (the default): after the veth the packets belong
#   to no socket and CUBIC keeps growing the queue: peak_bytes > 2 MB.
# The link runs at 60 Mbit/s, not 20: without loss CUBIC leaves slow
# start early (HyStart) and then, with no earlier loss to aim at, grows
# cwnd by 5% per RTT; with the RTT made of the queue itself that is 5% of
# the link rate per second whatever the queue, 0.05 * 7.5 MB/s * 8 s =
# 3 MB at 60 Mbit/s (measured 3.03 MB) but only 1 MB at 20 Mbit/s
# (measured 1.09 MB), which would not tell "fills the queue" from a 2 MB
# threshold.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init placement "${1:-}" iperf3

RATE=60mbit T=8
# peak AT PORT: runs the upload with the uplink held at AT; sets PEAK to
# its rate stage's peak_bytes (or "none"). Not in $(...): the subshell
# would lose the pids and failures recorded.
peak() {
	local at=$1 port=$2 rc
	ts_iperf_server "$port"
	# shellcheck disable=SC2016 # expanded by the shell inside the namespace
	ts_shape --trace "const:$RATE" --uplink-queue droptail:packets=4000 --uplink-at "$at" \
		--quiet --summary-json "$TS_TMP/$at.sum.json" -- \
		sh -c 'exec iperf3 -c "$TASSHAPE_BASE" "$@"' sh \
		-p "$port" -t "$T" -J -C cubic >"$TS_TMP/$at.json" 2>"$TS_TMP/$at.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		ts_show "$TS_TMP/$at.err"
		jq -r '.error // empty' "$TS_TMP/$at.json" 2>/dev/null
		ts_fail "--uplink-at $at: tasshape/iperf3 exited $rc"
		PEAK=none
		return
	fi
	ts_log "--uplink-at $at: goodput $(ts_mbit "$(jq -r '.end.sum_received.bits_per_second' \
		"$TS_TMP/$at.json")") Mbit/s; uplink stages:" \
		"$(jq -c '[.directions[0].stages[] | {stage, place, peak_bytes, peak_pkts}]' \
			"$TS_TMP/$at.sum.json")"
	PEAK=$(jq -r --arg at "$at" '[.directions[0].stages[] | select(.stage == "rate" and .place == $at) |
		.peak_bytes] | if length == 1 then .[0] else "none" end' "$TS_TMP/$at.sum.json")
}

peak sender 5201
s=$PEAK
peak network 5202
n=$PEAK
ts_log "rate stage peak: sender $s bytes, network $n bytes"
ts_check "--uplink-at sender: rate stage (place sender) peak_bytes" "$s" "<=" 600000 "bytes "
ts_check "--uplink-at network: rate stage (place network) peak_bytes" "$n" ">" 2000000 "bytes "
exit 0

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The Wi-Fi 6 hop (--mac wifi6, docs/wifi6-model.md) with real TCP uploads.
# The station's queue is held at the sender's egress, so TCP Small Queues
# limits how many frames one channel access can aggregate:
#  1. one iperf3 upload through a 1201 Mbit/s PHY with a fast (2 Gbit/s)
#     wired hop behind the AP: the summary JSON reports its mean aggregate
#     size N;
#  2. eight parallel flows (-P 8) keep more frames queued (TSQ limits each
#     socket, not the station), so they aggregate more (larger mean N) and
#     get more throughput than one flow; 1 and 2 run with the kernel's own
#     budget (pacing_shift=kernel, shift 10), where one flow is far from
#     filling the driver queue (t_wifi6_tsq.sh checks the station's budget);
#  3. with a 25 Mbit/s wired hop behind it the wired hop binds: goodput
#     23.5-24.37 Mbit/s (25 Mbit/s of IP bytes carry at most 25 * 1448 /
#     1500 = 24.13 Mbit/s of TCP payload with timestamps: 52 bytes of IP,
#     TCP and timestamp headers per 1500-byte packet; the upper bound is
#     24.13 * 1.01 = 24.37, so a shaper that counted TCP payload instead of
#     IP bytes, 25 Mbit/s of goodput, fails).
. "$(dirname "$0")/lib.sh" || exit 2
ts_init wifi6 "${1:-}" iperf3

# upload TAG PORT STREAMS WIRED: a 1+5 s iperf3 upload; sets BPS and MEAN_N.
upload() {
	local tag=$1 port=$2 streams=$3 wired=$4 rc
	BPS=
	MEAN_N=
	ts_iperf_server "$port"
	# shellcheck disable=SC2016 # expanded by the shell inside the namespace
	ts_shape --mac "wifi6:phy=1201mbit${TSQ:+,pacing_shift=$TSQ}" --uplink-trace "$wired" --quiet \
		--summary-json "$TS_TMP/$tag.sum.json" -- \
		sh -c 'exec iperf3 -c "$TASSHAPE_BASE" "$@"' sh \
		-p "$port" -t 5 -O 1 -P "$streams" -J >"$TS_TMP/$tag.json" 2>"$TS_TMP/$tag.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		ts_fail "$tag: tasshape/iperf3 exited $rc"
		ts_show "$TS_TMP/$tag.err"
		jq -r '.error // empty' "$TS_TMP/$tag.json" 2>/dev/null
		return 1
	fi
	BPS=$(jq -r '.end.sum_received.bits_per_second' "$TS_TMP/$tag.json")
	MEAN_N=$(jq -r '.directions[0].wifi6.mean_n // "missing"' "$TS_TMP/$tag.sum.json")
	ts_log "$tag: $streams flow(s), goodput $(ts_mbit "$BPS") Mbit/s; uplink wifi6: $(jq -c \
		'.directions[0].wifi6 | {txops, mean_n, median_n, max_n, airtime_utilisation,
		 medium_busy_utilisation, collisions, retries, mac_drops}' "$TS_TMP/$tag.sum.json")"
	ts_log "$tag: downlink (ACKs) wifi6: $(jq -c '.directions[1].wifi6 | {txops, mean_n}' \
		"$TS_TMP/$tag.sum.json"), retransmits $(jq -r '.end.sum_sent.retransmits // "?"' \
		"$TS_TMP/$tag.json")"
	ts_check "$tag: uplink wifi6 place is sender" \
		"$(jq -r '.directions[0].wifi6.place == "sender" | if . then 1 else 0 end' \
			"$TS_TMP/$tag.sum.json")" == 1
	ts_check "$tag: unexplained drops" \
		"$(jq -r '[.directions[].unexplained_drops] | add' "$TS_TMP/$tag.sum.json")" == 0
	return 0
}

one_n=""
one_bps=""
TSQ=kernel
if upload one-flow 5301 1 const:2gbit; then
	one_n=$MEAN_N
	one_bps=$BPS
	ts_range "one flow: mean aggregate size N in the summary" "$one_n" 1 256
fi
if upload eight-flows 5302 8 const:2gbit && [ -n "$one_n" ]; then
	ts_check "eight flows: mean N larger than one flow's ($one_n)" "$MEAN_N" ">" "$one_n"
	ts_check "eight flows: goodput larger than one flow's ($(ts_mbit "$one_bps") Mbit/s)" \
		"$(ts_mbit "$BPS")" ">" "$(ts_mbit "$one_bps")" "Mbit/s "
fi
TSQ=
if upload wired-25 5303 1 const:25mbit; then
	ts_range "25 Mbit/s wired hop binds: goodput" "$(ts_mbit "$BPS")" 23.5 \
		"$(awk 'BEGIN { printf "%.2f", 25 * 1448 / 1500 * 1.01 }')" "Mbit/s "
fi
exit 0

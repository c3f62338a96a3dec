#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Constant 20 Mbit/s link (--trace const:20mbit): one TCP flow's goodput,
# measured at the receiver by iperf3 without the first 2 s (-O 2: slow
# start), must be 19.0-20.2 Mbit/s. The capacity counts IP bytes, so a
# full-size segment carries 1448 payload bytes per 1500 (20 + 32 bytes of
# IP and TCP-with-timestamps headers): 20 * 1448 / 1500 = 19.31 Mbit/s
# expected. Upload with CUBIC and BBR (when the kernel has it), download
# with CUBIC.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init rate "${1:-}" iperf3

LO=19.0 HI=20.2

# flow TAG PORT CCA [IPERF3 ARGS...]: one 2+8 s iperf3 run through the link.
flow() {
	local tag=$1 port=$2 cca=$3 rc bps cc
	shift 3
	ts_iperf_server "$port"
	# shellcheck disable=SC2016 # expanded by the shell inside the namespace
	ts_shape --trace const:20mbit --quiet --summary-json "$TS_TMP/$tag.sum.json" -- \
		sh -c 'exec iperf3 -c "$TASSHAPE_BASE" "$@"' sh \
		-p "$port" -t 8 -O 2 -J -C "$cca" "$@" >"$TS_TMP/$tag.json" 2>"$TS_TMP/$tag.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		ts_fail "$tag: tasshape/iperf3 exited $rc"
		ts_show "$TS_TMP/$tag.err"
		jq -r '.error // empty' "$TS_TMP/$tag.json" 2>/dev/null
		return
	fi
	bps=$(jq -r '.end.sum_received.bits_per_second' "$TS_TMP/$tag.json")
	cc=$(jq -r '.end.sender_tcp_congestion // "?"' "$TS_TMP/$tag.json")
	ts_log "$tag: sender CCA $cc, retransmits $(jq -r '.end.sum_sent.retransmits // "?"' \
		"$TS_TMP/$tag.json"), link utilisation up $(jq -r '.directions[0].utilisation' \
		"$TS_TMP/$tag.sum.json") down $(jq -r '.directions[1].utilisation' "$TS_TMP/$tag.sum.json")"
	[ "$cc" = "$cca" ] || ts_fail "$tag: iperf3 reports congestion control $cc, not $cca"
	ts_range "$tag: receiver goodput (s 2-10)" "$(ts_mbit "$bps")" $LO $HI "Mbit/s "
}

flow upload-cubic 5201 cubic
if grep -qw bbr /proc/sys/net/ipv4/tcp_available_congestion_control; then
	flow upload-bbr 5202 bbr
else
	ts_log "BBR is not in tcp_available_congestion_control ($(cat \
		/proc/sys/net/ipv4/tcp_available_congestion_control)): BBR upload skipped"
fi
flow download-cubic 5203 cubic -R
exit 0

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Constant 20 Mbit/s link (--trace const:20mbit): one TCP flow's goodput,
# measured at the receiver by iperf3 without the first 2 s (-O 2: slow
# start). The capacity counts IP bytes: a full-size segment is a
# 1500-byte IP packet of 20 bytes of IP header, 20 of TCP header and 12 of
# TCP timestamps option (10, padded to 12), so it carries 1448 bytes of
# payload, and the goodput cannot exceed 20 * 1448 / 1500 = 19.31 Mbit/s.
# Accepted: 19.0 .. 19.31 * 1.01 = 19.50 Mbit/s (1% for the receiver's
# interval boundaries). A shaper that counted TCP payload instead of IP
# bytes would deliver 20 Mbit/s of goodput and fail. Upload with CUBIC
# and BBR (loaded with modprobe when missing; skipped only if it still is
# not available), download with CUBIC.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init rate "${1:-}" iperf3

EXPECTED=$(awk 'BEGIN { printf "%.4f", 20 * 1448 / 1500 }')
LO=19.0
HI=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.2f", e * 1.01 }')
ts_log "goodput expected $EXPECTED Mbit/s (20 * 1448/1500); accepted $LO .. $HI (expected * 1.01)"

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
	ts_range "$tag: receiver goodput (s 2-10)" "$(ts_mbit "$bps")" "$LO" "$HI" "Mbit/s "
}

flow upload-cubic 5201 cubic
CCA_FILE=/proc/sys/net/ipv4/tcp_available_congestion_control
if ! grep -qw bbr "$CCA_FILE" && command -v modprobe >/dev/null 2>&1; then
	modprobe tcp_bbr 2>/dev/null || true
fi
if grep -qw bbr "$CCA_FILE"; then
	flow upload-bbr 5202 bbr
else
	ts_skip_part "BBR is not available (tcp_available_congestion_control: $(cat "$CCA_FILE");" \
		"modprobe tcp_bbr $(command -v modprobe >/dev/null 2>&1 && echo failed ||
			echo "not possible: no modprobe")): BBR upload not tested"
fi
flow download-cubic 5203 cubic -R
exit 0

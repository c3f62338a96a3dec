#!/bin/bash
# SPDX-License-Identifier: MIT
#
# 10 Mbit/s with --queue droptail:packets=100 and an 8 s CUBIC upload:
# the queue holds at most 100 full-size packets, 100 * 1500 B * 8 / 10
# Mbit/s = 120 ms, plus the one being sent (1.2 ms), so the uplink's
# queueing_delay_ns.max must be <= 125 ms and drops.overlimit > 0 (CUBIC
# fills the queue). That the queue really filled, and held no more than
# its limit: the rate stage's peak_pkts counts the queued packets plus the
# one on the link, 101 when full, so 100 .. 101; and a packet that got
# the last place waited for the 99 ahead of it (plus what was left of the
# one on the link) before its service started: 99 * 1.2 ms = 118.8 ms if
# all were full-size. But the pings below share the queue: one every
# 100 ms in a queue of ~120 ms, so up to 2 of the 99 are 84-byte pings
# (0.07 ms each), and the bound is 97 * 1.2 ms = 116.4 ms (measured:
# 118.85 ms with one ping ahead, 119.86 ms with none). Pings every 100 ms
# in parallel see that queue once (the downlink carries only ACKs): max
# RTT <= 130 ms.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init queue "${1:-}" iperf3 ping

ts_iperf_server 5201
# shellcheck disable=SC2016 # expanded by the shell inside the namespace
ts_shape --trace const:10mbit --queue droptail:packets=100 --quiet \
	--summary-json "$TS_TMP/sum.json" -- sh -c '
	ping -i 0.1 -c 75 -W 2 "$TASSHAPE_BASE" >"$0/ping" 2>&1 &
	iperf3 -c "$TASSHAPE_BASE" -p 5201 -t 8 -J -C cubic >"$0/iperf.json"
	rc=$?
	wait
	exit $rc' "$TS_TMP" 2>"$TS_TMP/err"
rc=$?
if [ "$rc" -ne 0 ]; then
	ts_show "$TS_TMP/err"
	jq -r '.error // empty' "$TS_TMP/iperf.json" 2>/dev/null
	ts_die "tasshape/iperf3 exited $rc"
fi

up() { jq -r ".directions[0].$1" "$TS_TMP/sum.json"; }
qmax=$(awk -v n="$(up queueing_delay_ns.max)" 'BEGIN { printf "%.3f", n / 1e6 }')
ts_log "iperf3: receiver goodput $(ts_mbit "$(jq -r '.end.sum_received.bits_per_second' \
	"$TS_TMP/iperf.json")") Mbit/s, retransmits $(jq -r '.end.sum_sent.retransmits' "$TS_TMP/iperf.json")"
ts_log "uplink: queueing delay p50 $(up 'queueing_delay_ns.p50 / 1e6') ms," \
	"p99 $(up 'queueing_delay_ns.p99 / 1e6') ms, max $qmax ms;" \
	"peak $(up 'stages[] | select(.stage == "rate") | .peak_pkts') packets"
peak=$(up 'stages | map(select(.stage == "rate") | .peak_pkts) | if length == 1 then .[0] else "none" end')
ts_range "uplink queueing_delay_ns.max" "$qmax" "$(awk 'BEGIN { print 97 * 1.2 }')" 125 "ms "
ts_range "uplink rate stage peak_pkts (100 queued + 1 on the link when full)" "$peak" 100 101
ts_check "uplink drops.overlimit" "$(up drops.overlimit)" ">" 0

if st=$(ts_ping_stats "$TS_TMP/ping"); then
	read -r tx rx mn av mx <<<"$st"
	ts_log "ping: $tx sent, $rx received, RTT min/avg/max $mn/$av/$mx ms"
	ts_check "ping replies" "$rx" ">=" $((tx / 2))
	ts_check "ping max RTT" "$mx" "<=" 130 "ms "
else
	ts_show "$TS_TMP/ping"
	ts_fail "no ping summary"
fi
exit 0

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Real Wi-Fi stations (--mac wifi6:...,real=2, docs/wifi6-model.md "Real
# stations"): CMD runs once in each station's namespace, told which by
# TASSHAPE_STATION, and both share one medium with the access point. A
# 20 MHz, MCS 4, 1 stream PHY (51.6 Mbit/s: slow enough that the host is
# not what limits), mac80211's airtime fairness on (airtime_flags=3), four
# CUBIC streams per station so that the driver queues stay full, and
# driver queues of 200 packets (at 1000, 600 ms of queue at 20 Mbit/s, only
# one station's downloads had retransmissions and the AP's airtime to the
# two was 2-5% apart: TCP's dynamics, which no scheduler can make fair):
#  1. uploads, one iperf3 per station: each station's CMD ran in its own
#     namespace with its own address; the two uploads together carry the
#     medium's capacity, from 5% below to 2% above. The capacity comes from
#     the run's own channel counters, as t_vtime.sh derives its bound: at
#     this PHY the PPDU limit (5484 us) lets an A-MPDU carry 22 MPDUs of
#     1500 bytes (400 symbols of 702 bits; 22 x 1544-byte subframes), each
#     with 1448 bytes of TCP payload; every A-MPDU of the senders not lost
#     in a collision carries 22 x 1448 x 8 bits of goodput, over the time
#     the medium was busy plus AIFS and a mean backoff before each access.
#     Uploads measured 96.5-98% of it (2026-12-03), and 97.5% and 98.3% once
#     every station's TSQ budget was emulated (two runs on a loaded host):
#     some A-MPDUs go out short of 22 (mean N 21.3-21.5; 34 of 1765 carried
#     one MPDU), and the bound counts every successful A-MPDU as a full one
#     over the whole run, its start and end included; downloads, whose queue
#     is the access point's, reach it within 1%. And the medium was busy at
#     least 90% of the run (a host that cannot keep the queues full leaves
#     it idle). The summary lists both real
#     stations first in stations_delivered_bps. Their airtime is logged and
#     only checked within 30%: each station's uplink airtime is its own
#     EDCA's doing, which mac80211's airtime fairness (the access point's
#     scheduler) does not touch, and DCF's short-term unfairness is large
#     (tasshape sim, 30 seeds of 9 s: mean deviation 5%, largest 22%);
#  2. downloads, one iperf3 -R per station: now the access point's
#     scheduler decides, and its airtime to the two stations is equal
#     within 5%; the two downloads carry the medium's capacity within 2%
#     (the same bound from the access point's counters);
#  3. the drain counts every station's connections: station 1's CMD
#     leaves a connection open (a background job holds it) and exits, as
#     station 0's does; the drain waits for that connection until
#     --linger 0.5s and says so, and the job, in station 1's namespace, does
#     not outlive the run.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init wifi6_stations "${1:-}" iperf3

# run TAG [IPERF3 ARGS...]: one iperf3 per station (ports 5401 + station), 8 s after 1 s of
# warm-up; leaves $TS_TMP/TAG-0.json, TAG-1.json and TAG.sum.json.
run() {
	local tag=$1 rc
	shift
	ts_iperf_server 5401
	ts_iperf_server 5402
	# shellcheck disable=SC2016 # expanded by the shell inside each station's namespace
	ts_shape --mac wifi6:bw=20,mcs=4,ss=1,real=2,airtime_flags=3 --mac-queue droptail:packets=200 --quiet \
		--summary-json "$TS_TMP/$tag.sum.json" -- \
		sh -c 'exec iperf3 -c "$TASSHAPE_BASE" -p "$((5401 + TASSHAPE_STATION))" "$@" \
			>"$0-$TASSHAPE_STATION.json"' "$TS_TMP/$tag" -t 8 -O 1 -C cubic -J "$@" \
		2>"$TS_TMP/$tag.err"
	rc=$?
	if [ "$rc" -ne 0 ] || [ ! -s "$TS_TMP/$tag-0.json" ] || [ ! -s "$TS_TMP/$tag-1.json" ]; then
		ts_fail "$tag: tasshape/iperf3 exited $rc"
		ts_show "$TS_TMP/$tag.err"
		return 1
	fi
	return 0
}

# capacity TAG DIR: Mbit/s of goodput the medium carries when every successful A-MPDU of
# direction DIR is full and the medium is idle only as EDCA requires: 22 x 1448 x 8 bits per
# successful A-MPDU, over the time the medium was busy plus AIFS (43 us) and a mean backoff
# (7.5 slots, 67.5 us) before each access of anyone (stations, AP, beacons).
capacity() {
	jq --argjson i "$2" '.duration_ns as $d | .directions as [$u, $w] |
		($u.wifi6.medium_busy_utilisation * $d +
		 ($u.wifi6.accesses + $w.wifi6.accesses + $u.wifi6.beacons) * 110500) as $t |
		.directions[$i].wifi6 | (.txops - .collisions - .failures) * 22 * 1448 * 8 / $t * 1e3 |
		. * 1000 | round / 1000' "$TS_TMP/$1.sum.json"
}

# goodput TAG: the two stations' iperf3 goodput together, Mbit/s.
goodput() {
	awk -v a="$(jq '.end.sum_received.bits_per_second' "$TS_TMP/$1-0.json")" \
		-v b="$(jq '.end.sum_received.bits_per_second' "$TS_TMP/$1-1.json")" \
		'BEGIN { printf "%.3f", (a + b) / 1e6 }'
}

# within TAG LABEL VALUE CAPACITY: VALUE within 2% of CAPACITY.
within() {
	ts_range "$1: $2 ($4 Mbit/s)" "$3" "$(awk -v c="$4" 'BEGIN { print c * 0.98 }')" \
		"$(awk -v c="$4" 'BEGIN { print c * 1.02 }')" "Mbit/s "
}

# 1. Uploads.
if run up -P 4; then
	S=$TS_TMP/up.sum.json
	a0=$(jq -r '.start.connected[0].local_host' "$TS_TMP/up-0.json")
	a1=$(jq -r '.start.connected[0].local_host' "$TS_TMP/up-1.json")
	ts_log "station 0 sent from $a0, station 1 from $a1"
	ts_true "the stations have addresses of their own" test -n "$a0" -a -n "$a1" -a "$a0" != "$a1"
	ts_log "uplink wifi6: $(jq -c '.directions[0].wifi6 | {txops, collisions, mean_n,
		medium_busy_utilisation, bars, stations_airtime_ns}' "$S"); the AP: $(jq -c \
		'.directions[1].wifi6 | {txops, mean_n}' "$S")"
	cap=$(capacity up 0)
	ts_range "up: the two uploads carry the medium's capacity ($cap Mbit/s) within -5%/+2%" \
		"$(goodput up)" "$(awk -v c="$cap" 'BEGIN { print c * 0.95 }')" \
		"$(awk -v c="$cap" 'BEGIN { print c * 1.02 }')" "Mbit/s "
	ts_check "up: the medium was busy" "$(jq '.directions[0].wifi6.medium_busy_utilisation' "$S")" \
		">=" 0.9
	ts_range "up: station 1's airtime against station 0's (EDCA, not the AP's scheduler)" \
		"$(jq '.directions[0].wifi6.stations_airtime_ns | .[1] / .[0]' "$S")" 0.7 1.43
	ts_check "up: stations_delivered_bps lists the two real stations" \
		"$(jq '.directions[0].wifi6 | [(.stations_delivered_bps | length),
			(.real_stations | length)] | min' "$S")" == 2
	ts_check "up: unexplained drops" "$(jq -r '[.directions[].unexplained_drops] | add' "$S")" == 0
fi

# 2. Downloads: the access point's airtime fairness.
if run down -P 4 -R; then
	S=$TS_TMP/down.sum.json
	ts_log "downlink wifi6: $(jq -c '.directions[1].wifi6 | {txops, collisions, mean_n}' "$S");
		per station: $(jq -c '[.directions[0].wifi6.real_stations[] |
		{ap_airtime_ns, down_delivered_bps}]' "$S")"
	within down "the two downloads carry the medium's capacity" "$(goodput down)" \
		"$(capacity down 1)"
	ts_range "down: the AP's airtime to station 1 against station 0" \
		"$(jq '.directions[0].wifi6.real_stations | .[1].ap_airtime_ns / .[0].ap_airtime_ns' \
			"$S")" 0.95 1.05
	ts_check "down: unexplained drops" "$(jq -r '[.directions[].unexplained_drops] | add' "$S")" \
		== 0
fi

# 3. A connection left open behind station 1 holds the drain until --linger.
ts_iperf_server 5403
# shellcheck disable=SC2016 # expanded by bash inside each station's namespace
ts_shape --mac wifi6:bw=20,mcs=4,ss=1,real=2 --linger 0.5s -- bash -c '
	if [ "$TASSHAPE_STATION" = 1 ]; then
		exec 3<>"/dev/tcp/$TASSHAPE_BASE/5403" && (exec sleep 9.37 <&3 &)
	fi
	sleep 0.3' 2>"$TS_TMP/open.err"
rc=$?
ts_show "$TS_TMP/open.err"
ts_check "open connection: exit status" "$rc" == 0
ts_true "open connection: the drain waited for station 1's connection until --linger" \
	grep -q "linger 0.500 s reached: .*1 connections had not closed" "$TS_TMP/open.err"
ts_true "open connection: the job holding it did not outlive the run" \
	test -z "$(pgrep -x -f 'sleep 9.37')"
exit 0

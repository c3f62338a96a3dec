#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The Wi-Fi station's TCP Small Queues budget (docs/wifi6-model.md, "TCP Small
# Queues and the pacing shift"; src/run/tsq_station*.c). One BBR upload over
# --mac wifi6:phy=1201mbit with a 10 Gbit/s wired hop, 1+3 s:
#  1. pacing_shift=kernel (the kernel's own shift 10) against the default
#     (shift 7, as mac80211): the default's peak station queue is at least
#     4 times the kernel's (the budget is 8 times larger once rate >> 7 beats
#     the 2-skb floor), and its mean A-MPDU size N and goodput are higher;
#  2. the default's summary reports shift 7, "emulated", a budget within 25%
#     of the flow's mean pacing rate >> 7, and a peak station queue no larger
#     than the largest budget plus the one 64 KB skb (45 x 1500 B on the wire)
#     the kernel lets go while under the limit (BBR's cwnd may keep it below);
#     its --sockstats rows carry the station's view (shift 7, emulated); its
#     release timing by hook (by_place) has the station's sender hook's verdict
#     calls and every packet out released once at the network hook;
#  3. pacing_shift=tas:7/10: the shift log of the flow shows 7 while BBR is
#     in STARTUP (its first entry) and 10 once it is in PROBE_BW ("steady"),
#     and the flow's shift at the end is 10;
#  4. a wired link with its queue at the sender (--uplink-at sender, no
#     --mac, 1 Gbit/s) keeps the kernel's budget: no station record, the
#     pacing ratios of the namespace untouched, and the sender queue's peak
#     below half of what shift 7 would allow at 1 Gbit/s (125e6 >> 7 =
#     976562 B; the kernel's limit is max(2 x 69120, rate >> 10) plus one
#     64 KB skb, under 430 KB even at BBR's STARTUP gain of 2.89);
#  5. two real stations (real=2), one BBR upload each: the budget is
#     emulated for both (the summary's tsq record: emulated, 2 stations),
#     each station's data flow is listed with its station, shift 7,
#     "emulated", packets released early from its own station's hook, a
#     budget within 25% of its pacing rate >> 7 and a peak station queue
#     within its largest budget plus one 64 KB skb.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init wifi6_tsq "${1:-}" iperf3

# upload TAG PORT MAC [ARGS...]: a 1+3 s BBR upload; sets BPS, MEAN_N, SUM.
upload() {
	local tag=$1 port=$2 rc
	shift 2
	BPS=
	MEAN_N=
	SUM="$TS_TMP/$tag.sum.json"
	ts_iperf_server "$port"
	# shellcheck disable=SC2016 # expanded by the shell inside the namespace
	ts_shape "$@" --quiet --summary-json "$SUM" -- \
		sh -c 'cat /proc/sys/net/ipv4/tcp_pacing_ca_ratio >"$0"; exec iperf3 -c "$TASSHAPE_BASE" "$@"' \
		"$TS_TMP/$tag.ratio" -p "$port" -t 3 -O 1 -C bbr -J >"$TS_TMP/$tag.json" 2>"$TS_TMP/$tag.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		ts_fail "$tag: tasshape/iperf3 exited $rc"
		ts_show "$TS_TMP/$tag.err"
		return 1
	fi
	BPS=$(jq -r '.end.sum_received.bits_per_second' "$TS_TMP/$tag.json")
	MEAN_N=$(jq -r '.directions[0].wifi6.mean_n // "missing"' "$SUM")
	ts_log "$tag: goodput $(ts_mbit "$BPS") Mbit/s, mean N $MEAN_N, retransmits $(jq -r \
		'.end.sum_sent.retransmits // "?"' "$TS_TMP/$tag.json")"
	ts_check "$tag: unexplained drops" \
		"$(jq -r '[.directions[].unexplained_drops] | add' "$SUM")" == 0
	return 0
}

# The data flow: the station flow to the iperf3 port that sent the most.
flow() { jq -c "[.directions[0].wifi6.flows[] | select(.dport == $1)] | max_by(.station_peak_bytes)" "$SUM"; }

k_peak="" k_n="" k_bps=""
if upload kernel 5311 --mac wifi6:phy=1201mbit,pacing_shift=kernel --uplink-trace const:10gbit; then
	f=$(flow 5311)
	ts_log "kernel: station flow $f"
	k_peak=$(jq -r '.station_peak_bytes' <<<"$f")
	k_n=$MEAN_N k_bps=$BPS
	ts_check "kernel: shift in force" "$(jq -r '.pacing_shift' <<<"$f")" == 10
	ts_check "kernel: not emulated" "$(jq -r 'if .emulated then 1 else 0 end' <<<"$f")" == 0
	ts_check "kernel: no packet released early" "$(jq -r '.early_released_pkts' <<<"$f")" == 0
fi

if upload default 5312 --mac wifi6:phy=1201mbit --uplink-trace const:10gbit \
	--sockstats "$TS_TMP/default.sock.csv" && [ -n "$k_peak" ]; then
	f=$(flow 5312)
	ts_log "default: station flow $f"
	peak=$(jq -r '.station_peak_bytes' <<<"$f")
	ts_check "default: peak station queue ($peak B) over 4 x the kernel's ($k_peak B)" \
		"$peak" ">=" "$((4 * k_peak))"
	ts_check "default: mean N over the kernel's ($k_n)" "$MEAN_N" ">" "$k_n"
	ts_check "default: goodput over the kernel's ($(ts_mbit "$k_bps") Mbit/s)" \
		"$(ts_mbit "$BPS")" ">" "$(ts_mbit "$k_bps")" "Mbit/s "
	ts_check "default: shift in force" "$(jq -r '.pacing_shift' <<<"$f")" == 7
	ts_check "default: emulated" "$(jq -r 'if .emulated then 1 else 0 end' <<<"$f")" == 1
	ts_check "default: wifi6 record says emulated" \
		"$(jq -r 'if .directions[0].wifi6.tsq.emulated then 1 else 0 end' "$SUM")" == 1
	# The sockets are read by a thread off the loop (run/tsq_station_poll.c): reads were
	# made, and a poll rarely came due while the thread still read the last one.
	polls=$(jq -r '.directions[0].wifi6.tsq.socket_polls' "$SUM")
	ts_check "default: socket reads handed to the thread" "$polls" ">" 100
	ts_check "default: socket reads skipped, of $polls (at most a tenth)" \
		"$(jq -r '.directions[0].wifi6.tsq.socket_polls_skipped' "$SUM")" "<=" "$((polls / 10))"
	# Release timing by hook: the station's sender hook gives verdicts (BBR's packets mostly
	# early, uncharged; the charged ones at their BlockAck), and every packet out is released
	# once more at the wired hop's network hook.
	ts_log "default: by_place $(jq -c '.directions[0].by_place' "$SUM")"
	ts_check "default: by_place: every packet out released once at the network hook" \
		"$(jq -r '.directions[0].by_place.network.releases' "$SUM")" == \
		"$(jq -r '.directions[0].pkts_out' "$SUM")"
	ts_check "default: by_place: verdict calls at the sender hook" \
		"$(jq -r '.directions[0].by_place.sender.verdict_calls' "$SUM")" ">" 100
	rate_7=$(jq -r '.pacing_rate_bps / 8 / 128' <<<"$f")
	ts_range "default: budget against pacing rate >> 7 ($rate_7 B)" \
		"$(jq -r '.tsq_budget_bytes' <<<"$f")" "$(awk -v r="$rate_7" 'BEGIN { print 0.75 * r }')" \
		"$(awk -v r="$rate_7" 'BEGIN { print 1.25 * r }')" "B "
	ts_check "default: peak station queue within the largest budget plus one 64 KB skb (B)" \
		"$(jq -r '.station_peak_bytes' <<<"$f")" "<=" \
		"$(jq -r '.tsq_budget_max_bytes + 67500' <<<"$f")"
	# --sockstats rows of the upload carry the station's view: its shift 7, not the kernel's 10.
	sock=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["dport"] == 5312 && $c["station_tsq"] != "" {
			n++
			if ($c["station_pacing_shift"] != 7 || $c["station_tsq"] != "emulated") bad++
		}
		END { print n + 0, bad + 0 }' "$TS_TMP/default.sock.csv")
	ts_check "default: --sockstats rows with the station's view" "${sock% *}" ">" 0
	ts_check "default: --sockstats rows of another shift or not emulated" "${sock#* }" == 0
fi

if upload tas 5313 --mac wifi6:phy=1201mbit,pacing_shift=tas:7/10 --uplink-trace const:10gbit; then
	f=$(flow 5313)
	ts_log "tas: shifts $(jq -c '.shifts' <<<"$f")"
	ts_check "tas: first shift (BBR STARTUP)" "$(jq -r '.shifts[0].shift' <<<"$f")" == 7
	ts_check "tas: first state" \
		"$(jq -r 'if .shifts[0].state == "startup" then 1 else 0 end' <<<"$f")" == 1
	ts_check "tas: every entry in a BBR state (startup, drain, steady)" \
		"$(jq -r '[.shifts[] | select(.state != "startup" and .state != "drain" and .state != "steady")] | length' <<<"$f")" == 0
	ts_check "tas: shift 10 once steady" \
		"$(jq -r '[.shifts[] | select(.state == "steady") | .shift] | if length > 0 and all(. == 10) then 1 else 0 end' <<<"$f")" == 1
	ts_check "tas: shift 7 in every STARTUP/DRAIN entry" \
		"$(jq -r '[.shifts[] | select(.state == "startup" or .state == "drain") | .shift] | if all(. == 7) then 1 else 0 end' <<<"$f")" == 1
	ts_check "tas: shift at the end" "$(jq -r '.pacing_shift' <<<"$f")" == 10
fi

found_ca=$(cat /proc/sys/net/ipv4/tcp_pacing_ca_ratio)
if upload wired 5314 --uplink-trace const:1gbit --uplink-at sender; then
	ts_check "wired: no station record" \
		"$(jq -r '[.directions[0].wifi6] | map(select(. != null)) | length' "$SUM")" == 0
	ts_check "wired: the namespace's tcp_pacing_ca_ratio untouched" \
		"$(cat "$TS_TMP/wired.ratio")" == "$found_ca"
	ts_check "wired: sender queue peak below half the shift-7 budget (B)" \
		"$(jq -r '[.directions[0].stages[] | select(.place == "sender") | .peak_bytes] | max' "$SUM")" \
		"<" 488281
fi
# 5. Two real stations, a BBR upload from each (ports 5315 + station).
ts_iperf_server 5315
ts_iperf_server 5316
# shellcheck disable=SC2016 # expanded by the shell inside each station's namespace
ts_shape --mac wifi6:phy=1201mbit,real=2 --uplink-trace const:10gbit --quiet \
	--summary-json "$TS_TMP/sta.sum.json" -- \
	sh -c 'exec iperf3 -c "$TASSHAPE_BASE" -p "$((5315 + TASSHAPE_STATION))" "$@" \
		>"$0-$TASSHAPE_STATION.json"' "$TS_TMP/sta" -t 3 -O 1 -C bbr -J 2>"$TS_TMP/sta.err"
rc=$?
if [ "$rc" -ne 0 ]; then
	ts_fail "stations: tasshape/iperf3 exited $rc"
	ts_show "$TS_TMP/sta.err"
else
	SUM=$TS_TMP/sta.sum.json
	ts_log "stations: $(jq -c '.directions[0].wifi6.tsq | {emulated, stations}' "$SUM")"
	ts_check "stations: the tsq record says emulated, for 2 stations" \
		"$(jq -r '.directions[0].wifi6.tsq | if .emulated and .stations == 2 then 1 else 0 end' \
			"$SUM")" == 1
	for k in 0 1; do
		f=$(flow $((5315 + k)))
		ts_log "stations: station $k's flow $f"
		ts_check "station $k: the flow's station" "$(jq -r '.station' <<<"$f")" == "$k"
		ts_check "station $k: shift in force" "$(jq -r '.pacing_shift' <<<"$f")" == 7
		ts_check "station $k: emulated" "$(jq -r 'if .emulated then 1 else 0 end' <<<"$f")" == 1
		ts_check "station $k: packets released early" \
			"$(jq -r '.early_released_pkts' <<<"$f")" ">" 0
		rate_7=$(jq -r '.pacing_rate_bps / 8 / 128' <<<"$f")
		ts_range "station $k: budget against pacing rate >> 7 ($rate_7 B)" \
			"$(jq -r '.tsq_budget_bytes' <<<"$f")" \
			"$(awk -v r="$rate_7" 'BEGIN { print 0.75 * r }')" \
			"$(awk -v r="$rate_7" 'BEGIN { print 1.25 * r }')" "B "
		ts_check "station $k: peak station queue within the largest budget plus one 64 KB skb (B)" \
			"$(jq -r '.station_peak_bytes' <<<"$f")" "<=" \
			"$(jq -r '.tsq_budget_max_bytes + 67500' <<<"$f")"
	done
	ts_check "stations: unexplained drops" \
		"$(jq -r '[.directions[].unexplained_drops] | add' "$SUM")" == 0
fi
exit 0

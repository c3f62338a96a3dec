#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Trace traces/step-10-40mbit.csv: 10 Mbit/s for 10 s, then 40 Mbit/s
# (the trace loops with a 20 s period). A 16 s CUBIC upload; goodput as
# the receiver (the iperf3 server, --get-server-output) counts it, per
# second. The capacity counts IP bytes: a full-size segment is a 1500-byte
# IP packet with 52 bytes of IP, TCP and TCP timestamps headers (20 + 20 +
# 12), so 1448 bytes of payload, and the goodput cannot exceed
# 10 * 1448/1500 = 9.65 and 40 * 1448/1500 = 38.61 Mbit/s. The upper
# bounds are those * 1.01 (9.75 and 39.00), so a shaper that counted TCP
# payload instead of IP bytes (10 and 40 Mbit/s of goodput) fails.
#
# - seconds 2-9: the mean of the intervals starting at 2..8 must be
#   9.5-9.75 Mbit/s (second 0-2: slow start; 9-11: the step, which comes
#   a little before iperf3's 10 s because the trace clock starts before
#   iperf3 connects).
# - seconds 11-15: 38-39.0 Mbit/s, measured as everything received from
#   second 11 to the end of the transfer (the queue drains for a moment
#   after the client's 16 s) over that time. Per-second values there are
#   not judged one by one: when CUBIC fills the 1000-packet queue and
#   loses segments, the receiver holds later data out of order until the
#   retransmission arrives one queueing delay (~300 ms) later, so one
#   second reads low and the next high (e.g. 27 then 50 Mbit/s) while the
#   link delivers a steady 38.6.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init step "${1:-}" iperf3

TRACE=$(cd "$(dirname "$0")/../../traces" && pwd)/step-10-40mbit.csv
[ -r "$TRACE" ] || ts_die "trace $TRACE not found"

ts_iperf_server 5201 -J
# shellcheck disable=SC2016 # expanded by the shell inside the namespace
ts_shape --trace "$TRACE" --quiet --summary-json "$TS_TMP/sum.json" -- \
	sh -c 'exec iperf3 -c "$TASSHAPE_BASE" "$@"' sh \
	-p 5201 -t 16 -i 1 -J --get-server-output -C cubic >"$TS_TMP/iperf.json" 2>"$TS_TMP/err"
rc=$?
if [ "$rc" -ne 0 ]; then
	ts_show "$TS_TMP/err"
	jq -r '.error // empty' "$TS_TMP/iperf.json" 2>/dev/null
	ts_die "tasshape/iperf3 exited $rc"
fi

# The receiver's intervals: "START END BYTES Mbit/s" per line.
jq -r '.server_output_json.intervals[].sum |
	"\(.start) \(.end) \(.bytes) \(.bits_per_second / 1e6)"' "$TS_TMP/iperf.json" \
	>"$TS_TMP/intervals"
[ -s "$TS_TMP/intervals" ] || ts_die "no server intervals in the iperf3 output"
ts_log "receiver goodput per second (start end Mbit/s; sender retransmits):"
jq -r '[.intervals[].sum.retransmits] | .[]' "$TS_TMP/iperf.json" >"$TS_TMP/retr"
awk 'NR == FNR { r[FNR] = $1; next }
	{ printf "    %6.2f %6.2f %7.3f  %s\n", $1, $2, $4, r[FNR] }' "$TS_TMP/retr" "$TS_TMP/intervals"
ts_log "uplink: drops overlimit $(jq -r '.directions[0].drops.overlimit' "$TS_TMP/sum.json")," \
	"queueing delay max $(jq -r '.directions[0].queueing_delay_ns.max / 1e6' "$TS_TMP/sum.json") ms"

# rate FROM TO: Mbit/s received in the intervals that start in [FROM, TO).
rate() {
	awk -v a="$1" -v b="$2" '$1 + 0.001 >= a && $1 + 0.001 < b { B += $3; T += $2 - $1 }
		END { if (T > 0) printf "%.3f", B * 8 / T / 1e6; else print "none" }' "$TS_TMP/intervals"
}
# hi MBIT: the most goodput MBIT of IP bytes can carry, plus 1%.
hi() { awk -v r="$1" 'BEGIN { printf "%.2f", r * 1448 / 1500 * 1.01 }'; }
ts_range "seconds 2-9 (10 Mbit/s step)" "$(rate 2 9)" 9.5 "$(hi 10)" "Mbit/s "
ts_log "seconds 11-15, mean of the intervals (not judged): $(rate 11 16) Mbit/s"
ts_range "seconds 11-end (40 Mbit/s step)" "$(rate 11 1000)" 38 "$(hi 40)" "Mbit/s "
exit 0

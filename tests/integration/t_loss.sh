#!/bin/bash
# SPDX-License-Identifier: MIT
#
# --uplink-loss 1% --seed 7 (no delay): of 10,000 flood pings 0.7-1.3%
# must be lost (binomial: mean 100, sd ~10, so +-3 sd), and the summary's
# uplink drops.loss must equal the number of pings lost: the downlink has
# no loss, so every lost ping is one uplink loss drop, and every uplink
# loss drop is a lost ping unless it hit another uplink packet. Other
# packets (IPv6 neighbour discovery, router solicitations) are counted as
# the uplink packets beyond the pings sent; with none the equality must
# be exact, otherwise drops.loss may exceed the lost pings by at most
# their number.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init loss "${1:-}" ping

N=10000
# shellcheck disable=SC2016 # expanded by the shell inside the namespace
ts_shape --uplink-loss 1% --seed 7 --quiet --summary-json "$TS_TMP/sum.json" -- sh -c '
	exec ping -q -f -c "$1" -W 1 "$TASSHAPE_BASE"' sh "$N" >"$TS_TMP/ping" 2>&1
rc=$?
# ping exits 1 when some replies were missing: expected here.
[ "$rc" -le 1 ] || {
	ts_show "$TS_TMP/ping"
	ts_die "tasshape/ping exited $rc"
}
st=$(ts_ping_stats "$TS_TMP/ping") || {
	ts_show "$TS_TMP/ping"
	ts_die "no ping summary"
}
read -r tx rx _ av _ <<<"$st"
lost=$((tx - rx))
pct=$(awk -v l="$lost" -v t="$tx" 'BEGIN { printf "%.3f", 100 * l / t }')
dloss=$(jq -r '.directions[0].drops.loss' "$TS_TMP/sum.json")
upin=$(jq -r '.directions[0].pkts_in' "$TS_TMP/sum.json")
downloss=$(jq -r '.directions[1].drops.loss' "$TS_TMP/sum.json")
extra=$((upin - tx))
ts_log "pings sent $tx, received $rx, lost $lost ($pct%), RTT avg $av ms"
ts_log "summary: uplink pkts_in $upin ($extra besides the pings), drops.loss $dloss;" \
	"downlink drops.loss $downloss"
ts_check "pings sent" "$tx" == "$N"
ts_range "ping loss" "$pct" 0.7 1.3 "% "
ts_check "downlink drops.loss" "$downloss" == 0
if [ "$extra" -le 0 ]; then
	ts_check "uplink drops.loss == lost pings" "$dloss" == "$lost"
else
	ts_range "uplink drops.loss (lost pings .. + $extra other packets)" "$dloss" \
		"$lost" $((lost + extra))
fi
exit 0

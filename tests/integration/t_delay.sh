#!/bin/bash
# SPDX-License-Identifier: MIT
#
# --delay 25ms adds 25 ms one way in each direction: ping's RTT must be
# 50-52 ms (the shaper's release error and the kernel's path add well
# under 2 ms), over IPv4 to $TASSHAPE_BASE and over IPv6 to
# $TASSHAPE_BASE6. One warm-up ping per family comes first and is not
# judged: over IPv6 the first echo waits for neighbour discovery, whose
# packets cross the emulated link too (75 ms).
. "$(dirname "$0")/lib.sh" || exit 2
ts_init delay "${1:-}" ping

# shellcheck disable=SC2016 # expanded by the shell inside the namespace
ts_shape --delay 25ms --quiet --summary-json "$TS_TMP/sum.json" -- sh -c '
	ping -c 1 -W 2 "$TASSHAPE_BASE" >/dev/null
	ping -c 20 -i 0.05 -W 2 "$TASSHAPE_BASE" >"$0/ping4" 2>&1
	if [ -n "${TASSHAPE_BASE6:-}" ]; then
		ping -6 -c 1 -W 2 "$TASSHAPE_BASE6" >/dev/null
		ping -6 -c 20 -i 0.05 -W 2 "$TASSHAPE_BASE6" >"$0/ping6" 2>&1
	fi
	exit 0' "$TS_TMP" 2>"$TS_TMP/err"
rc=$?
[ "$rc" -eq 0 ] || {
	ts_show "$TS_TMP/err"
	ts_die "tasshape exited $rc"
}

# judge FAMILY FILE
judge() {
	local st tx rx mn av mx
	if ! st=$(ts_ping_stats "$2"); then
		ts_show "$2"
		ts_fail "$1: no ping summary"
		return
	fi
	read -r tx rx mn av mx <<<"$st"
	ts_log "$1: $tx sent, $rx received, RTT min/avg/max $mn/$av/$mx ms"
	ts_check "$1: replies" "$rx" == "$tx"
	ts_range "$1: average RTT" "$av" 50 52 "ms "
}
judge IPv4 "$TS_TMP/ping4"
if [ -e "$TS_TMP/ping6" ]; then
	judge IPv6 "$TS_TMP/ping6"
else
	ts_log "IPv6: TASSHAPE_BASE6 is empty (the kernel has IPv6 disabled): not tested"
fi
exit 0

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tasshape inside tasshape: `tasshape --delay 10ms -- tasshape --delay 15ms
# -- ping $TASSHAPE_BASE`. The inner run keeps the outermost
# TASSHAPE_BASE, so the pings cross both links and both delays add:
# 2 * (10 + 15) = 50 ms RTT; accepted 50-53 ms. The inner tasshape's pid
# is written by a wrapper shell (which then execs it) so that its
# leftovers are checked too; the wrapper also notes the outer run's
# TASSHAPE_BASE, which the inner CMD must see unchanged.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init nest "${1:-}" ping

# shellcheck disable=SC2016 # expanded by the shells inside the namespaces
ts_shape --delay 10ms --quiet -- sh -c '
	echo $$ >"$0/inner.pid"
	echo "$TASSHAPE_BASE" >"$0/base.outer"
	exec "$@"' "$TS_TMP" \
	"$TS_BIN" --delay 15ms --quiet -- sh -c '
	echo "$TASSHAPE_BASE" >"$0/base.inner"
	ping -c 1 -W 2 "$TASSHAPE_BASE" >/dev/null
	exec ping -c 10 -i 0.05 -W 2 "$TASSHAPE_BASE"' "$TS_TMP" >"$TS_TMP/ping" 2>"$TS_TMP/err"
rc=$?
[ -s "$TS_TMP/inner.pid" ] && ts_own_pid "$(cat "$TS_TMP/inner.pid")"
if [ "$rc" -ne 0 ]; then
	ts_show "$TS_TMP/err" "$TS_TMP/ping"
	ts_die "tasshape (nested) exited $rc"
fi

ts_log "TASSHAPE_BASE: outer run's CMD $(cat "$TS_TMP/base.outer" 2>/dev/null)," \
	"inner run's CMD $(cat "$TS_TMP/base.inner" 2>/dev/null)"
ts_true "the inner run keeps the outermost TASSHAPE_BASE" \
	cmp -s "$TS_TMP/base.inner" "$TS_TMP/base.outer"
st=$(ts_ping_stats "$TS_TMP/ping") || {
	ts_show "$TS_TMP/ping"
	ts_die "no ping summary"
}
read -r tx rx mn av mx <<<"$st"
ts_log "ping: $tx sent, $rx received, RTT min/avg/max $mn/$av/$mx ms"
ts_check "ping replies" "$rx" == "$tx"
ts_range "average RTT" "$av" 50 53 "ms "
exit 0

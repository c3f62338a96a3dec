#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tasshape sim: the model alone, no kernel and no root (run as root it
# also runs as uid 65534 once, to show it needs no privilege).
#  1. sim --trace const:12mbit --duration 10s: the capacity offered is
#     12e6 / 8 * 10 = 15,000,000 bytes per direction, exactly. The default
#     offered load is 120% of the capacity, so the link is always busy:
#     utilisation >= 0.99. Exactly: 1500-byte packets take 1 ms each at
#     12 Mbit/s; the first arrives at 0 and the link never idles, so packet
#     k is delivered at k ms and those at 1..9999 ms are within the 10 s
#     (the one done at 10 s is not): 9999 * 1500 = 14,998,500 bytes.
#  2. sim --trace traces/const-12mbit.mahi --duration 1s: that mahimahi
#     trace is one line, "1": one 1500-byte opportunity at 1 ms, repeating
#     every 1 ms (the period is the last timestamp). The opportunities
#     before 1 s are those at 1, 2, ..., 999 ms (the one at 1000 ms is at
#     the end, not before it; none at 0), so the capacity is 999 * 1500 =
#     1,498,500 bytes per direction.
#  3. A bad option, a bad option value (a negative duration, one without a
#     unit) or a stray argument exits 64 (argp's usage error).
. "$(dirname "$0")/lib.sh" || exit 2
ts_init_user sim "${1:-}"

SRC=$(cd "$(dirname "$0")/../.." && pwd)

# sim TAG ARGS...: runs tasshape sim ARGS --summary-json TAG.json; false on a failure.
sim() {
	local tag=$1 rc
	shift
	"$TS_BIN" sim "$@" --summary-json "$TS_TMP/$tag.json" >"$TS_TMP/$tag.out" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		ts_show "$TS_TMP/$tag.out"
		ts_fail "$tag: tasshape sim $* exited $rc"
		return 1
	fi
	return 0
}

# each TAG FIELD OP VALUE: checks FIELD of both directions of TAG.json.
each() {
	local d v
	for d in 0 1; do
		v=$(jq -r ".directions[$d] | \"\(.name) \(.$2)\"" "$TS_TMP/$1.json")
		ts_check "$1: ${v% *} $2" "${v#* }" "$3" "$4"
	done
}

# --- 1. const:12mbit, 10 s
if sim const --trace const:12mbit --duration 10s; then
	each const capacity_bytes == 15000000
	each const utilisation ">=" 0.99
	each const bytes_out == 14998500
fi

# --- 2. the mahimahi trace, 1 s
if sim mahi --trace "$SRC/traces/const-12mbit.mahi" --duration 1s; then
	each mahi capacity_bytes == 1498500
fi

# --- 3. usage errors
for args in "--no-such-option" "--trace const:12mbit --duration -1s" \
	"--trace const:12mbit --duration 10" "--trace const:12mbit extra"; do
	# shellcheck disable=SC2086 # word splitting wanted
	"$TS_BIN" sim $args >"$TS_TMP/usage.out" 2>&1
	rc=$?
	ts_check "sim $args: exit status" "$rc" == 64 ||
		ts_show "$TS_TMP/usage.out"
done

# A queue or loss spec is checked as its option is read: a bad one is a
# usage error (64) naming the option, the value and where --help is.
"$TS_BIN" sim --trace const:12mbit --queue droptail:packets=oops >"$TS_TMP/queue.out" 2>&1
rc=$?
ts_check "sim --queue droptail:packets=oops: exit status" "$rc" == 64
ts_true "sim --queue droptail:packets=oops: the message names --queue and 'oops'" \
	grep -q -- "--queue: .*'oops'" "$TS_TMP/queue.out"
ts_true "sim --queue droptail:packets=oops: it points to sim's --help" \
	grep -q "tasshape sim --help" "$TS_TMP/queue.out"
"$TS_BIN" sim --trace const:12mbit --uplink-loss ge:p=1%,q=2% >"$TS_TMP/loss.out" 2>&1
rc=$?
ts_check "sim --uplink-loss ge:p=1%,q=2%: exit status" "$rc" == 64
ts_true "sim --uplink-loss ge:p=1%,q=2%: the message names the option and the key" \
	grep -q -- "--uplink-loss: ge: unknown key 'q'" "$TS_TMP/loss.out"
"$TS_BIN" sim --trace const:12mbit --mac wifi6:mcs=12 >"$TS_TMP/mac.out" 2>&1
rc=$?
ts_check "sim --mac wifi6:mcs=12: exit status" "$rc" == 64
ts_true "sim --mac wifi6:mcs=12: the message names --mac and mcs" \
	grep -q -- "--mac: wifi6: mcs: 12" "$TS_TMP/mac.out"

# --- no root needed
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	if setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$TS_BIN"; then
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$TS_BIN" sim --trace const:12mbit --duration 1s 2>&1)
		rc=$?
		ts_check "sim as uid 65534: exit status" "$rc" == 0 || printf '%s\n' "$out"
	else
		ts_log "uid 65534 cannot execute $TS_BIN (directory permissions): not run unprivileged"
	fi
fi
exit 0

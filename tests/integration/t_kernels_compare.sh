#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The kernel comparison's spec and its kernel's build script, without a network or a build:
# docs/examples/kernels-compare.ini lists its 4 controls x 4 tests x 2 links x 3 repetitions, all
# under the [kernel bbr3] section; tools/kernel/bbr3-tas.sh refuses bad arguments (no --dir, a
# --dir inside the repository, a missing file, a bad --jobs) before it downloads or creates
# anything. Needs no root: nothing runs.
#
#   bash t_kernels_compare.sh PATH_TO_TASSHAPE
set -u
BIN=${1:?usage: t_kernels_compare.sh PATH_TO_TASSHAPE}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/tasshape-kernels-compare.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
FAILED=0

pass() { printf '[kernels_compare] ok   %s\n' "$*"; }
fail() { FAILED=$((FAILED + 1)); printf '[kernels_compare] FAIL %s\n' "$*"; }
# count GOT WANT WHAT
count() { if [ "$1" -eq "$2" ]; then pass "$3: $1"; else fail "$3: $1, expected $2"; fi; }
# holds WHAT CMD...: CMD succeeds
holds() {
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "not: $what"; fi
}

EX=$SRC/docs/examples/kernels-compare.ini
if ! "$BIN" exp list "$EX" >"$TMP/list" 2>"$TMP/err"; then
	fail "exp list $EX: $(head -c 300 "$TMP/err")"
else
	grep -v '^#' "$TMP/list" >"$TMP/runs"
	n=$(wc -l <"$TMP/runs")
	count "$n" 96 "runs"
	# Each control (tas with each shift pair) x test x link has 3 runs.
	for c in 'cca=cubic,' 'cca=bbr3,' 'cca=tas,tas_shift=7-8,' 'cca=tas,tas_shift=9-10,'; do
		k=$(grep -c " $c" "$TMP/runs")
		count "$k" 24 "runs of $c"
	done
	for t in tcp_upload tcp_8up rrul rtt_fair; do
		k=$(grep -c ",test=$t," "$TMP/runs")
		count "$k" 24 "runs of test=$t"
	done
	k=$(grep -c ',kernel=bbr3 ' "$TMP/runs")
	count "$k" 96 "runs under kernel=bbr3"
	k=$(grep -c 'link=wifi,.*--mac wifi6:.* --trace const:25mbit' "$TMP/runs")
	count "$k" 48 "runs over Wi-Fi 6 then 25 Mbit/s"
	k=$(grep -c 'link=wired,kernel=bbr3 --trace const:25mbit --delay 10ms' "$TMP/runs")
	count "$k" 48 "runs over the 25 Mbit/s wired link"
	for r in 1 2 3; do
		k=$(awk -v r="$r" '$2 == r' "$TMP/runs" | wc -l)
		count "$k" 32 "runs of repetition $r"
	done
fi
# The kernel section: virtual time, the module loaded.
if grep -qx 'clock = virtual' "$EX" && grep -qx 'modprobe = tcp_bbr_tas' "$EX"; then
	pass "[kernel bbr3]: clock = virtual, modprobe = tcp_bbr_tas"
else
	fail "[kernel bbr3] lacks clock = virtual or modprobe = tcp_bbr_tas"
fi

# expect PATTERN ARGS...: bbr3-tas.sh ARGS exits 1 with PATTERN on stderr.
SCRIPT=$SRC/tools/kernel/bbr3-tas.sh
expect() {
	local pat=$1 got
	shift
	bash "$SCRIPT" "$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" -eq 1 ] && grep -qE -- "$pat" "$TMP/err"; then
		pass "bbr3-tas.sh $* -> exit 1, '$pat'"
	else
		fail "bbr3-tas.sh $* -> exit $got, stderr: $(head -c 300 "$TMP/err")"
	fi
}
expect '--dir DIR is required' --configure-only
expect "inside the repository $SRC" --dir "$SRC/kbuild-test-$$" --configure-only
holds "nothing created inside the repository" test ! -e "$SRC/kbuild-test-$$"
expect "$TMP/none.patch: no such file" --dir "$TMP/k" --bbr3-patch "$TMP/none.patch"
expect "--jobs: expected a positive number, got '0'" --dir "$TMP/k" --jobs 0
holds "refused before creating --dir" test ! -e "$TMP/k"
bash "$SCRIPT" --help >"$TMP/help" 2>&1
holds "--help lists --configure-only" grep -q -- '--configure-only' "$TMP/help"

[ "$FAILED" -eq 0 ] || exit 1

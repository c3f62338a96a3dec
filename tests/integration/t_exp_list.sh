#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tasshape exp list and spec errors from the command line: the same spec and
# seed list the same runs, order = shuffle with another seed lists another
# order of the same runs, and specs with an unknown key, an unknown axis value
# or an unknown section are refused naming the file and line (exit 64, the usage error). Needs no root:
# nothing runs.
#
#   bash t_exp_list.sh PATH_TO_TASSHAPE
set -u
BIN=${1:?usage: t_exp_list.sh PATH_TO_TASSHAPE}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/tasshape-exp-list.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
FAILED=0

pass() { printf '[exp_list] ok   %s\n' "$*"; }
fail() { FAILED=$((FAILED + 1)); printf '[exp_list] FAIL %s\n' "$*"; }

# expect STATUS PATTERN CMD...: CMD exits with STATUS and its stderr matches PATTERN (grep -E)
expect() {
	local want=$1 pat=$2 got
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" -eq "$want" ] && { [ -z "$pat" ] || grep -qE -- "$pat" "$TMP/err"; }; then
		pass "$* -> exit $got, '$pat'"
	else
		fail "$* -> exit $got (want $want), stderr: $(head -c 300 "$TMP/err")"
	fi
}

EX=$SRC/docs/examples/cca-vs-links.ini
"$BIN" exp list "$EX" >"$TMP/a" && "$BIN" exp list "$EX" >"$TMP/b"
# 2 ccas x 2 links x 2 tests + tas x 2 links x 2 tests x 2 shifts = 16 configurations, x 3 reps
n=$(grep -vc '^#' "$TMP/a")
if [ "$n" -eq 48 ] && cmp -s "$TMP/a" "$TMP/b"; then pass "same spec, same 48 runs"; else fail "exp list: $n runs or differing output"; fi

# The BBR-TAS paper's testbed: cca 11 configurations (cubic, bbr3, tas x 9 shift pairs) x
# (2 station links x 3 tests + 2 access links x rtt_fair) = 88, x 10 repetitions = 880 runs;
# rtt_fair runs on the access links only, the other tests on the stations only.
PAPER=$SRC/docs/examples/bbr-tas-paper.ini
"$BIN" exp list "$PAPER" >"$TMP/paper"
n=$(grep -vc '^#' "$TMP/paper")
wrong=$(grep -v '^#' "$TMP/paper" | grep -Ec 'test=rtt_fair,link=station|test=(tcp_upload|tcp_8up|rrul),link=access' || true)
if [ "$n" -eq 880 ] && [ "$wrong" -eq 0 ] && grep -q '^# bbr-tas-paper: 88 configurations x 10 repetitions' "$TMP/paper"; then
	pass "bbr-tas-paper.ini plans 88 configurations, 880 runs, each test on its links"
else
	fail "bbr-tas-paper.ini: $n runs, $wrong on the wrong link: $(head -1 "$TMP/paper")"
fi
n=$("$BIN" exp list "$PAPER" --repetitions 3 --length 20s | grep -vc '^#')
if [ "$n" -eq 264 ]; then pass "the reduced paper run: 264 runs"; else fail "reduced paper run: $n runs, expected 264"; fi

# order = shuffle: same seed same order; another seed another order of the same runs
sed 's/^seed = 1/seed = 1\norder = shuffle/' "$EX" >"$TMP/s1.ini"
sed 's/^seed = 1/seed = 2\norder = shuffle/' "$EX" >"$TMP/s2.ini"
"$BIN" exp list "$TMP/s1.ini" >"$TMP/s1a" && "$BIN" exp list "$TMP/s1.ini" >"$TMP/s1b" &&
	"$BIN" exp list "$TMP/s2.ini" >"$TMP/s2"
if cmp -s "$TMP/s1a" "$TMP/s1b"; then pass "shuffle, same seed: same order"; else fail "shuffle not reproducible"; fi
if ! cmp -s <(grep -v '^#' "$TMP/s1a" | cut -d' ' -f4) <(grep -v '^#' "$TMP/s2" | cut -d' ' -f4); then
	pass "shuffle, another seed: another order"
else
	fail "shuffle with seeds 1 and 2 gave one order"
fi
if cmp -s <(grep -v '^#' "$TMP/s1a" | cut -d' ' -f2,4 | sort) <(grep -v '^#' "$TMP/a" | cut -d' ' -f2,4 | sort); then
	pass "shuffle: the same runs"
else
	fail "shuffle changed the set of runs"
fi

base='[matrix]
cca = cubic, bbr
link = l
test = tcp_upload
[link l]
trace = const:20mbit'
printf '%s\ndelya = 20ms\n' "$base" >"$TMP/key.ini"
expect 64 "key.ini:7: \[link l\]: unknown key 'delya' \(expected tests, flow_stations or a link option" "$BIN" exp list "$TMP/key.ini"
printf '%s\n' "$base" | sed 's/cubic, bbr/cubic, bbr, nope!/' >"$TMP/val.ini"
expect 64 "val.ini:2: cca: 'nope!': expected a congestion control" "$BIN" exp list "$TMP/val.ini"
printf '%s\n' "$base" | sed 's/tcp_upload/tcp_uplaod/' >"$TMP/test.ini"
expect 64 "test.ini:4: test: unknown test 'tcp_uplaod'" "$BIN" exp list "$TMP/test.ini"
printf '%s\nqueue = droptail:pakets=200\n' "$base" >"$TMP/queue.ini"
expect 64 "queue.ini:7: --queue: droptail: needs a limit" "$BIN" exp list "$TMP/queue.ini"
printf '[experimnet]\nseed = 1\n%s\n' "$base" >"$TMP/sec.ini"
expect 64 "sec.ini:1: unknown section \[experimnet\]" "$BIN" exp list "$TMP/sec.ini"
printf '%s\n' "$base" >"$TMP/ok.ini"
expect 64 "'reno' is not a value of axis cca" "$BIN" exp list "$TMP/ok.ini" --only cca=reno
expect 0 "" "$BIN" exp list "$TMP/ok.ini" --only cca=bbr
if [ "$(grep -vc '^#' "$TMP/out")" -eq 1 ] && grep -q 'cca=bbr,link=l,test=tcp_upload --trace const:20mbit' "$TMP/out"; then
	pass "--only keeps one configuration"
else
	fail "--only cca=bbr: $(cat "$TMP/out")"
fi
[ "$FAILED" -eq 0 ]

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The trace tools from the command line: tasshape trace gen, check, stats,
# convert, import and plot, on the bundled traces and the import fixtures
# (tests/data/import). Needs no root and no network namespace: it only
# runs the binary. Exit 0 when every check passed, 1 otherwise.
#
#   bash t_trace_cli.sh PATH_TO_TASSHAPE
set -u
BIN=${1:?usage: t_trace_cli.sh PATH_TO_TASSHAPE}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
DATA=$SRC/tests/data/import
TMP=$(mktemp -d /tmp/tasshape-trace-cli.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
FAILED=0
CHECKS=0

pass() { CHECKS=$((CHECKS + 1)); printf '[trace_cli] ok   %s\n' "$*"; }
fail() { CHECKS=$((CHECKS + 1)); FAILED=$((FAILED + 1)); printf '[trace_cli] FAIL %s\n' "$*"; }

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

# same FILE_A FILE_B WHAT
same() { if cmp -s "$1" "$2"; then pass "$3"; else fail "$3 ($1 and $2 differ)"; fi; }

# --- gen: byte-reproducible ----------------------------------------------------------------
"$BIN" trace gen starlink --seed 3 --duration 60s -o "$TMP/a.csv"
"$BIN" trace gen starlink --seed 3 --duration 60s >"$TMP/b.csv"
"$BIN" trace gen starlink --seed 4 --duration 60s -o "$TMP/c.csv"
same "$TMP/a.csv" "$TMP/b.csv" "gen: the same seed gives the same bytes"
if cmp -s <(tail -n +2 "$TMP/a.csv") <(tail -n +2 "$TMP/c.csv"); then
	fail "gen: seeds 3 and 4 give the same trace"
else
	pass "gen: another seed gives another trace"
fi
"$BIN" trace gen lte-driving --seed 1 --duration 300s -o "$TMP/lte.csv"
same "$TMP/lte.csv" "$SRC/traces/lte-driving.csv" "gen: traces/lte-driving.csv is regenerated exactly"
expect 1 "unknown model 'lte'" "$BIN" trace gen lte
expect 1 "unknown parameter 'speed=2'" "$BIN" trace gen geo speed=2
expect 0 "" "$BIN" trace gen --list

# --- check: bundled traces, malformed files ---------------------------------------------------
expect 0 "" "$BIN" trace check "$SRC"/traces/*.csv "$SRC"/traces/*.mahi
printf 'time,bandwidth\n0,1\n' >"$TMP/header.csv"
printf 'time_s,speed\n0,1\n' >"$TMP/column.csv"
printf 'time_s,down_mbps\n0,1\n2,1\n1,1\n' >"$TMP/order.csv"
printf 'time_s,down_mbps\n0,-3\n' >"$TMP/negative.csv"
printf 'time_s,down_mbps\n0,NaN\n' >"$TMP/nan.csv"
printf 'time_s,down_mbps\n0,5e13\n' >"$TMP/huge.csv"
: >"$TMP/empty.csv"
printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR' >"$TMP/junk.png"
expect 1 "header.csv:1: missing time column" "$BIN" trace check "$TMP/header.csv"
expect 1 "column.csv:1: no capacity column" "$BIN" trace check "$TMP/column.csv"
expect 1 "order.csv:4: time_s 1 is not after 2" "$BIN" trace check "$TMP/order.csv"
expect 1 "negative.csv:2: down_mbps is negative" "$BIN" trace check "$TMP/negative.csv"
expect 1 "nan.csv:2: down_mbps: expected a finite" "$BIN" trace check "$TMP/nan.csv"
expect 1 "huge.csv:2: down_mbps '5e13' is above the limit" "$BIN" trace check "$TMP/huge.csv"
expect 1 "empty.csv: empty trace" "$BIN" trace check "$TMP/empty.csv"
expect 1 "junk.png:1: control character 0x89: binary data" "$BIN" trace check "$TMP/junk.png"
expect 1 "missing.csv: cannot open" "$BIN" trace check "$TMP/missing.csv"
expect 64 "unknown command 'frobnicate'" "$BIN" trace frobnicate

# --- stats ---------------------------------------------------------------------------------
"$BIN" trace stats "$SRC/traces/step-10-40mbit.csv" >"$TMP/stats.txt"
if grep -q "down  mean 25.000 Mbit/s, p5 10.000, p50 10.000, p95 40.000" "$TMP/stats.txt"; then
	pass "stats: step trace mean 25, p50 10, p95 40"
else
	fail "stats: $(cat "$TMP/stats.txt")"
fi
"$BIN" trace stats --json --series "$SRC/traces/starlink.csv" >"$TMP/stats.json"
if command -v jq >/dev/null; then
	if jq -e '.directions.down.mean_mbps > 90 and .delay_ms.min >= 11.5 and (.series.rows | length) == 300' \
		"$TMP/stats.json" >/dev/null; then
		pass "stats --json --series: valid JSON, 300 bins"
	else
		fail "stats --json: $(head -c 400 "$TMP/stats.json")"
	fi
fi

# --- convert: CSV -> mahimahi -> CSV keeps the mean within 0.1% -----------------------------
mean() { "$BIN" trace stats "$1" | awk '/^down/ { print $3 }'; }
"$BIN" trace convert "$SRC/traces/lte-driving.csv" -o "$TMP/lte.mahi"
"$BIN" trace convert "$TMP/lte.mahi" -o "$TMP/lte2.csv"
m0=$(mean "$SRC/traces/lte-driving.csv")
m1=$(mean "$TMP/lte.mahi")
m2=$(mean "$TMP/lte2.csv")
if awk -v a="$m0" -v b="$m1" -v c="$m2" 'BEGIN { d1 = a - b; d2 = a - c; if (d1 < 0) d1 = -d1;
	if (d2 < 0) d2 = -d2; exit !(d1 <= a / 1000 && d2 <= a / 1000) }'; then
	pass "convert: means $m0, $m1 (mahimahi), $m2 (back to CSV) Mbit/s"
else
	fail "convert: means $m0, $m1, $m2 differ by more than 0.1%"
fi
expect 0 "mahimahi traces carry no delay or loss" "$BIN" trace convert "$SRC/traces/geo.csv" -o "$TMP/geo.mahi"

# --- import: each fixture -------------------------------------------------------------------
"$BIN" trace import pensieve "$DATA/pensieve.txt" -o "$TMP/p.csv"
if [ "$(grep -v '^#' "$TMP/p.csv" | tr '\n' ' ')" = "time_s,down_mbps 0,1.5 1,2.25 2.5,0 3,4 " ]; then
	pass "import pensieve"
else
	fail "import pensieve: $(cat "$TMP/p.csv")"
fi
for args in "gnettrack gnettrack.csv" "lumos5g lumos5g.csv" "5gophers 5gophers.csv --operator Sprint" \
	"leoreplayer leo_bw.txt leo_delay.txt" "mahimahi mm_up.mahi mm_down.mahi"; do
	set -- $args
	fmt=$1
	shift
	files=()
	opts=()
	for a in "$@"; do
		case "$a" in --* | Sprint) opts+=("$a") ;; *) files+=("$DATA/$a") ;; esac
	done
	if "$BIN" trace import "$fmt" "${files[@]}" "${opts[@]}" -o "$TMP/$fmt.csv" &&
		"$BIN" trace check "$TMP/$fmt.csv" >/dev/null; then
		pass "import $fmt: a valid trace"
	else
		fail "import $fmt"
	fi
done
expect 1 "lumos5g.csv:1: not a G-NetTrack CSV" "$BIN" trace import gnettrack "$DATA/lumos5g.csv"
expect 1 "3 operators \(Sprint, TMobile, Verizon\): choose one with --operator" \
	"$BIN" trace import 5gophers "$DATA/5gophers.csv"
"$BIN" trace import pcap "$DATA/download.pcap" -o "$TMP/dl.mahi" 2>"$TMP/err"
if [ "$(tr '\n' ' ' <"$TMP/dl.mahi")" = "1 1 2 2 3 3 4 11 11 11 21 " ] &&
	grep -q "download 10.0.0.1 -> 10.0.0.2" "$TMP/err"; then
	pass "import pcap: one opportunity per 1500 bytes at the millisecond"
else
	fail "import pcap: $(tr '\n' ' ' <"$TMP/dl.mahi") / $(cat "$TMP/err")"
fi
expect 1 "no delivery opportunity" "$BIN" trace import pcap "$DATA/download.pcap" --filter "dst host 10.0.0.1"
expect 1 "cannot read the capture" "$BIN" trace import pcap "$DATA/pensieve.txt"

# --- plot -------------------------------------------------------------------------------------
if command -v gnuplot >/dev/null; then
	"$BIN" trace plot "$SRC/traces/starlink.csv" -o "$TMP/s.png" &&
		[ "$(head -c 4 "$TMP/s.png" | od -An -c | tr -d ' ')" = "211PNG" ] &&
		pass "plot: a PNG" || fail "plot: no PNG"
fi
expect 1 "gnuplot not found in PATH; install it \(Debian: apt-get install gnuplot-nox\)" \
	env PATH=/nonexistent "$BIN" trace plot "$SRC/traces/starlink.csv" -o "$TMP/x.png"

echo "$((CHECKS - FAILED)) passed, $FAILED failed"
[ "$FAILED" -eq 0 ]

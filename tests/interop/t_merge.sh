#!/usr/bin/env bash
# exp merge on made-up results: a matrix written whole, and the same runs written as two shards
# (--shard 1/2 and 2/2, as exp run --shard slices the order), merge into directories with
# byte-identical summary.json, summary.csv and summary.md; a missing shard and an overlapping one
# are refused with every run listed and nothing written. No root needed. Usage: t_merge.sh TASSHAPE
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mk() { /usr/bin/python3 "$here/make_results.py" "$@" tcp_upload rrul; }
mk "$tmp/whole"
mk --shard 1/2 "$tmp/s1"
mk --shard 2/2 "$tmp/s2"
fail=0

"$bin" exp merge "$tmp/m-whole" "$tmp/whole" >/dev/null
"$bin" exp merge "$tmp/m-shards" "$tmp/s1" "$tmp/s2" >/dev/null
for f in summary.json summary.csv summary.md; do
	if cmp -s "$tmp/m-whole/$f" "$tmp/m-shards/$f"; then
		echo "ok   $f of the merged shards is the whole matrix's"
	else
		echo "FAIL $f differs:" >&2; diff "$tmp/m-whole/$f" "$tmp/m-shards/$f" >&2 || true; fail=1
	fi
done
n=$(jq '[.configs[] | .n] | add' "$tmp/m-shards/summary.json")
[ "$n" = 8 ] && echo "ok   8 runs summarised" || { echo "FAIL summary counts $n runs, expected 8" >&2; fail=1; }

# Shard 2 missing: its four runs (2, 4, 6, 8) are listed and nothing is written.
if "$bin" exp merge "$tmp/m-bad" "$tmp/s1" 2>"$tmp/err"; then
	echo "FAIL a merge with a shard missing succeeded" >&2; fail=1
fi
for i in 2 4 6 8; do
	grep -q "^missing: run $i " "$tmp/err" || { echo "FAIL run $i not listed as missing" >&2; fail=1; }
done
grep -q "0 run(s) overlap and 4 are missing" "$tmp/err" || { cat "$tmp/err" >&2; fail=1; }
[ ! -e "$tmp/m-bad" ] || { echo "FAIL a refused merge wrote $tmp/m-bad" >&2; fail=1; }
# A shard given twice: its runs overlap.
if "$bin" exp merge "$tmp/m-bad" "$tmp/s1" "$tmp/s2" "$tmp/s1" 2>"$tmp/err"; then
	echo "FAIL a merge with a shard given twice succeeded" >&2; fail=1
fi
[ "$(grep -c '^overlap: run ' "$tmp/err")" = 4 ] && echo "ok   overlapping and missing runs refused, each listed" ||
	{ echo "FAIL overlaps not listed:" >&2; cat "$tmp/err" >&2; fail=1; }

# A control skipped on the host of one shard (bbr here, whose runs are all in shard 2): its runs
# are skipped, not missing, as exp run skips them; the merge lists them, records the control as
# skipped and gives the summary of the whole matrix run on that host.
mk --skip bbr "$tmp/whole-nobbr"
mk --shard 2/2 --skip bbr "$tmp/s2-nobbr"
"$bin" exp merge "$tmp/m-whole-nobbr" "$tmp/whole-nobbr" >/dev/null 2>&1
if "$bin" exp merge "$tmp/m-nobbr" "$tmp/s1" "$tmp/s2-nobbr" >/dev/null 2>"$tmp/err"; then
	[ "$(grep -c '^skipped: run [2468] .*(cca=bbr was skipped)' "$tmp/err")" = 4 ] ||
		{ echo "FAIL the skipped runs are not listed:" >&2; cat "$tmp/err" >&2; fail=1; }
	[ "$(jq -r '[.skipped[].cca] | join(",")' "$tmp/m-nobbr/experiment.json")" = bbr ] ||
		{ echo "FAIL merged experiment.json does not record bbr as skipped" >&2; fail=1; }
	[ "$(jq -r '[.configs[] | select(.skipped) | .n] | length' "$tmp/m-nobbr/summary.json")" = 2 ] ||
		{ echo "FAIL the bbr configurations are not flagged skipped" >&2; fail=1; }
	if cmp -s "$tmp/m-whole-nobbr/summary.json" "$tmp/m-nobbr/summary.json"; then
		echo "ok   a control skipped in one shard: its runs skipped, the whole matrix's summary"
	else
		echo "FAIL summary.json differs:" >&2
		diff "$tmp/m-whole-nobbr/summary.json" "$tmp/m-nobbr/summary.json" >&2 || true
		fail=1
	fi
else
	echo "FAIL a merge with a control skipped in one shard was refused:" >&2; cat "$tmp/err" >&2
	fail=1
fi
exit $fail

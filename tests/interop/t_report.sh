#!/usr/bin/env bash
# exp report on made-up results of tcp_upload and rrul: every figure is written as PNG and SVG;
# each figure's data file holds the summary's numbers (the box of a configuration's per-run
# throughput has the summary's mean, the latency box its p50, p95 and p99, the CDF its sample
# count); the figures without data (tcp_upload has no download flows and, here, no UDP probes)
# say so in the picture and in report.md. No root needed. Usage: t_report.sh TASSHAPE
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$here/make_results.py" "$tmp/raw" tcp_upload rrul
"$bin" exp merge "$tmp/x" "$tmp/raw" >/dev/null # the summary.json exp run would write
"$bin" exp report "$tmp/x" 2>&1 | grep -v "difficulty making room" | tee "$tmp/log"
grep -q "^exp report: 18 figures (2 saying their data is missing)" "$tmp/log"
rep=$tmp/x/report
fail=0
bad() { echo "FAIL $*" >&2; fail=1; }
for t in tcp_upload rrul; do
	for fig in throughput-up throughput-down latency-icmp latency-udp latency-cdf scatter qq run-link run-tcp; do
		for ext in png svg dat; do
			[ -s "$rep/$t-$fig.$ext" ] || bad "$t-$fig.$ext missing or empty"
		done
		grep -q "($t-$fig.png)" "$rep/report.md" || bad "report.md does not show $t-$fig.png"
	done
done
head -c 8 "$rep/rrul-scatter.png" | od -An -tx1 | tr -d ' \n' | grep -q '^89504e470d0a1a0a$' || bad "not a PNG"
grep -q "<svg" "$rep/rrul-scatter.svg" || bad "not an SVG"

# Numbers: data file (columns of `i "id" n mean ...`) against summary.json, to 1e-6 relative.
near() { awk -v a="$1" -v b="$2" 'BEGIN {d = a - b; if (d < 0) d = -d; exit !(d <= 1e-6 * (b < 0 ? -b : b) + 1e-9)}'; }
col() { awk -v id="\"$2\"" -v c="$3" '$2 == id {print $c}' "$1"; }
for id in $(jq -r '.configs[].id' "$tmp/x/summary.json"); do
	t=${id##*test=}
	m=$(jq -r --arg id "$id" '.configs[] | select(.id == $id) | .metrics' "$tmp/x/summary.json")
	want=$(jq -r '.throughput_up_mbps.mean' <<<"$m")
	got=$(col "$rep/$t-throughput-up.dat" "$id" 4)
	near "$got" "$want" && echo "ok   $id: upload box mean $got = summary $want" || bad "$id upload mean $got, summary $want"
	[ "$(col "$rep/$t-throughput-up.dat" "$id" 3)" = "$(jq -r '.n' <<<"$(jq --arg id "$id" '.configs[] | select(.id == $id)' "$tmp/x/summary.json")")" ] || bad "$id: n differs"
	for p in p50:7 p95:9 p99:10; do
		want=$(jq -r ".ping_icmp_ms.${p%%:*}" <<<"$m")
		got=$(col "$rep/$t-latency-icmp.dat" "$id" "${p##*:}")
		near "$got" "$want" && echo "ok   $id: ICMP ${p%%:*} $got = summary $want" || bad "$id ICMP ${p%%:*} $got, summary $want"
	done
	if [ "$t" = rrul ]; then
		want=$(jq -r '.throughput_down_mbps.mean' <<<"$m")
		got=$(col "$rep/$t-throughput-down.dat" "$id" 4)
		near "$got" "$want" || bad "$id download mean $got, summary $want"
		want=$(jq -r '.ping_udp_ms.p95' <<<"$m")
		got=$(col "$rep/$t-latency-udp.dat" "$id" 9)
		near "$got" "$want" || bad "$id UDP p95 $got, summary $want"
	fi
	# The CDF block of the configuration holds every pooled sample: its header states n.
	n=$(grep -F "# $id: ICMP" "$rep/$t-latency-cdf.dat" | sed 's/.*n = \([0-9]*\)).*/\1/')
	[ "$n" -gt 0 ] && [ "$(col "$rep/$t-latency-icmp.dat" "$id" 3)" = "$n" ] || bad "$id: CDF n $n"
done
# The Q-Q plot: by default against the test's first configuration (cubic); with --qq-ref
# against bbr, 99 percentile pairs, non-decreasing in both columns; a reference no
# configuration has gives a picture saying so.
grep -q "^# cca=bbr,link=const20,test=rrul against cca=cubic,link=const20,test=rrul" "$rep/rrul-qq.dat" ||
	bad "rrul-qq.dat: not bbr against the first configuration"
"$bin" exp report "$tmp/x" --out "$tmp/qq" --qq-ref cca=bbr >/dev/null 2>&1 || bad "exp report --qq-ref cca=bbr failed"
grep -q "^# cca=cubic,link=const20,test=rrul against cca=bbr,link=const20,test=rrul" "$tmp/qq/rrul-qq.dat" ||
	bad "--qq-ref cca=bbr: not cubic against bbr"
awk '/^[0-9]/ { n++; if (n > 1 && ($1 < x || $2 < y)) bad = 1; x = $1; y = $2 } END { exit !(n == 99 && !bad) }' "$tmp/qq/rrul-qq.dat" ||
	bad "rrul-qq.dat: not 99 non-decreasing percentile pairs"
"$bin" exp report "$tmp/x" --out "$tmp/qq2" --qq-ref cca=nosuch >/dev/null 2>&1
grep -q "no configuration matches --qq-ref" "$tmp/qq2/report.md" || bad "--qq-ref cca=nosuch: no picture saying why"

# The link panel draws each stats.csv window at its centre, on the socket samples' time axis:
# the fixture's first window ends at 0.100 s and lasts 0.100 s, so it is drawn at 0.050 s.
first=$(awk '/^# uplink:/ { getline; print $1; exit }' "$rep/rrul-run-link.dat")
[ "$first" = 0.050 ] || bad "the first link window is drawn at $first s, not at its centre 0.050 s"
grep -q "no data\*\*: no download flows" "$rep/report.md" || bad "report.md does not say tcp_upload has no download"
grep -q "no download flows in these runs" "$rep/tcp_upload-throughput-down.svg" || bad "the empty figure does not say so"
exit $fail

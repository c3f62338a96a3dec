#!/usr/bin/env bash
# Flent reads what tasshape writes: for made-up results of tcp_upload, tcp_nup, rrul, rrul_be and
# rtt_fair runs (the last two with the executor's series names, which the export maps to Flent's),
# `tasshape exp flent` writes <test>.flent.gz; the real Flent (Debian's flent) must load each
# one, its summary's mean throughput per direction must agree with our own metric (the sum of
# the direction's flow throughputs in result.json, as summary.json defines it) within 1%, and
# its plots (all_scaled for rrul, totals for tcp_nup and tcp_upload, tcp_cwnd from the socket
# statistics) must be written. No root needed. Usage: t_flent.sh TASSHAPE
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v flent >/dev/null || ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
	echo "t_flent: needs flent and python3-matplotlib (tools/setup-debian.sh installs them)" >&2
	[ "${TS_REQUIRE:-0}" = 1 ] && exit 1
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$here/make_results.py" "$tmp/out" tcp_upload tcp_nup rrul rrul_be rtt_fair
"$bin" exp flent "$tmp/out" | tee "$tmp/log"
grep -q "^exp flent: 20 written, 0 without .*, 0 errors" "$tmp/log"
# The runs were done before; they still are, their done records now listing the Flent files.
"$bin" exp merge "$tmp/merged" "$tmp/out" >/dev/null

fail=0
# Flent's summary line "NAME : avg median 99th unit N" -> avg.
flent_avg() { awk -v s="$2" -F' : ' '{gsub(/^ +| +$/, "", $1)} $1 == s {split($2, f, " "); print f[1]}' "$1"; }
ours() { jq "[.flows[] | select(.dir == \"$2\") | .throughput_mbps] | add" "$1"; }
check() { # file series dir
	local got want
	got=$(flent_avg "$1.summary" "$2")
	want=$(ours "$(dirname "$1")/result.json" "$3")
	if [ -z "$got" ] || ! awk -v g="$got" -v w="$want" 'BEGIN {exit !(g > 0 && (g - w) / w < 0.01 && (w - g) / w < 0.01)}'; then
		echo "FAIL $1: Flent's '$2' mean is '$got', ours $want" >&2
		fail=1
	else
		echo "ok   $(basename "$1"): Flent '$2' $got Mbit/s, ours $want"
	fi
}
for test in tcp_upload tcp_nup rrul rrul_be rtt_fair; do
	for f in "$tmp"/out/*test=$test/rep-*/$test.flent.gz; do
		flent -i "$f" -f summary -o "$f.summary" >/dev/null 2>"$f.err" || {
			echo "FAIL flent could not read $f:" >&2; cat "$f.err" >&2; fail=1; continue; }
		case $test in
		tcp_upload) check "$f" "TCP upload" up ;;
		tcp_nup) check "$f" "TCP upload sum" up ;;
		rrul | rrul_be) check "$f" "TCP upload sum" up; check "$f" "TCP download sum" down ;;
		rtt_fair) check "$f" "TCP upload sum" up ;;
		esac
	done
done
f=$(ls "$tmp"/out/cca=cubic*test=rrul/rep-1/rrul.flent.gz)
g=$(ls "$tmp"/out/cca=bbr*test=tcp_nup/rep-2/tcp_nup.flent.gz)
h=$(ls "$tmp"/out/cca=bbr*test=tcp_upload/rep-1/tcp_upload.flent.gz)
for plot in "$f all_scaled" "$g totals" "$g tcp_cwnd" "$h totals"; do
	set -- $plot
	flent -i "$1" -p "$2" -o "$tmp/$2.png" >/dev/null 2>&1 || true
	if [ -s "$tmp/$2.png" ] && [ "$(head -c 8 "$tmp/$2.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]; then
		echo "ok   flent -p $2 wrote a PNG ($(stat -c %s "$tmp/$2.png") bytes)"
	else
		echo "FAIL flent -p $2 wrote no picture for $1" >&2
		fail=1
	fi
	rm -f "$tmp/$2.png"
done
exit $fail

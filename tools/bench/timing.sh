#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Release-timing benchmark of tasshape (run by hand, as root; a benchmark, not a test).
#
# One invocation runs, through `tasshape exp run`, the matrix
#   cca  cubic, bbr
#   test tcp_upload, tcp_8up, rrul
#   link const:20mbit and const:100mbit, 20 ms each way, droptail:packets=200,
#        each with the shaper real-time (the default) and with --rt-priority off
# once on a quiet host and once with two busy loops at nice 0 on it (started and
# killed by pid here), and writes per row the release timing error p50/p99/max
# (the worse direction of each run, the worst run of the row), the runs the one
# fell-behind rule flagged (src/run/fidelity.h), and the p99 as a ratio of the
# SCHED_OTHER row of the same host load, rate, cca and test. Real-time and normal
# links are one matrix, so exp's interleaved order runs them side by side under the
# same conditions. Targets (issue 20): real-time rows 0 flagged, p99 <= 200 us at
# 20 Mbit/s and <= 300 us at 100 Mbit/s, quiet or loaded.
#
# Everything runs in a namespace this script creates (exp makes its own inside it),
# so no traffic touches the host's network. Output: a markdown table (-o), and with
# -w the section between the "timing.sh" markers of docs/benchmarks.md replaced by it.
# With the defaults: 2 loads x 24 runs of 10 s + 2 x 2 s, about 15 minutes.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
tasshape=${TASSHAPE:-$here/build/tasshape}
out=/tmp/tasshape-timing.md
doc=
length=10s
delay=2s
reps=1
ccas="cubic bbr"
tests="tcp_upload tcp_8up rrul"
rates="20 100"
loads="quiet loaded"

usage() {
	cat <<EOF
Usage: $0 [-b TASSHAPE] [-o FILE] [-w] [-t LENGTH] [-d DELAY] [-n REPS]
          [-c "CCA ..."] [-T "TEST ..."] [-r "MBIT ..."] [-l "quiet loaded"]
  -b PATH     tasshape binary (default \$TASSHAPE or $here/build/tasshape)
  -o FILE     markdown table (default $out)
  -w          also replace the timing section of $here/docs/benchmarks.md
  -t LENGTH   measured part of each run (default $length)
  -d DELAY    exp's delay before and after the flows (default $delay)
  -n REPS     repetitions of each configuration (default $reps)
  -c, -T, -r, -l  a slice of the matrix: ccas ("$ccas"), tests ("$tests"),
              rates in Mbit/s ("$rates"), host loads ("$loads")
Needs root, iperf3, irtt, ping, jq. Takes about loads x ccas x tests x rates x 2 x
REPS x (LENGTH + 2 x DELAY + 3 s).
EOF
}

while getopts "b:o:wt:d:n:c:T:r:l:h" opt; do
	case $opt in
	b) tasshape=$OPTARG ;;
	o) out=$OPTARG ;;
	w) doc=$here/docs/benchmarks.md ;;
	t) length=$OPTARG ;;
	d) delay=$OPTARG ;;
	n) reps=$OPTARG ;;
	c) ccas=$OPTARG ;;
	T) tests=$OPTARG ;;
	r) rates=$OPTARG ;;
	l) loads=$OPTARG ;;
	h)
		usage
		exit 0
		;;
	*)
		usage >&2
		exit 64
		;;
	esac
done
[ "$(id -u)" = 0 ] || {
	echo "$0: needs root (namespaces, NFQUEUE)" >&2
	exit 1
}
for t in jq iperf3 irtt ping; do
	command -v "$t" >/dev/null || {
		echo "$0: $t not found" >&2
		exit 1
	}
done
[ -x "$tasshape" ] || {
	echo "$0: $tasshape: not an executable (build first, or -b)" >&2
	exit 1
}
[[ $reps =~ ^[1-9][0-9]?$ ]] || {
	echo "$0: -n: '$reps' (expected 1 to 99)" >&2
	exit 64
}
for r in $rates; do
	[[ $r =~ ^[1-9][0-9]{0,4}$ ]] || {
		echo "$0: -r: '$r' (expected Mbit/s, 1 to 99999)" >&2
		exit 64
	}
done
for l in $loads; do
	[ "$l" = quiet ] || [ "$l" = loaded ] || {
		echo "$0: -l: '$l' (expected quiet or loaded)" >&2
		exit 64
	}
done

ns=tasbench-timing-$$
tmp=$(mktemp -d /tmp/tasshape-timing.XXXXXX)
busy=()

# Ends only what this script started: its busy loops by pid, its namespace by name.
stop_busy() {
	local p
	for p in "${busy[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	busy=()
}
cleanup() {
	stop_busy
	ip netns del "$ns" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

ip netns add "$ns"
ip -n "$ns" link set lo up

# The spec: one link section per rate and scheduling.
spec=$tmp/timing.ini
{
	printf '[experiment]\nname = timing\nlength = %s\ndelay = %s\nrepetitions = %s\nseed = 1\n' \
		"$length" "$delay" "$reps"
	printf '[matrix]\ncca = %s\ntest = %s\nlink = ' "${ccas// /, }" "${tests// /, }"
	links=
	for r in $rates; do
		links+="${links:+, }c$r-rt, c$r-other"
	done
	printf '%s\n' "$links"
	for r in $rates; do
		for s in rt other; do
			printf '[link c%s-%s]\ntrace = const:%smbit\ndelay = 20ms\n' "$r" "$s" "$r"
			printf 'queue = droptail:packets=200\n'
			if [ "$s" = other ]; then
				printf 'rt-priority = off\n'
			fi
		done
	done
} >"$spec"

# rows LOAD DIR: one TSV line per run: load rate sched cca test p50 p99 max flagged,
# release errors in us, the worse direction of the run.
rows() {
	local f
	for f in "$2"/*/rep-*/result.json; do
		[ -e "$f" ] || continue
		jq -r --arg load "$1" '
			def worst(k): [.fidelity.up[k], .fidelity.down[k]] | map(select(. != null)) |
				if length == 0 then null else max end;
			(.axes.link | capture("^c(?<rate>[0-9]+)-(?<s>rt|other)$")) as $l |
			[$load, $l.rate, (if $l.s == "rt" then "SCHED_FIFO" else "SCHED_OTHER" end),
			 .axes.cca, .test, worst("release_err_p50_us"), worst("release_err_p99_us"),
			 worst("release_err_max_us"),
			 ([.flags[]? | select(startswith("fell_behind"))] | length > 0 | if . then 1
			  else 0 end)] | @tsv' "$f"
	done
}

runs=$tmp/runs.tsv
: >"$runs"
for load in $loads; do
	if [ "$load" = loaded ]; then
		for _ in 1 2; do
			nice -n 0 bash -c 'while :; do :; done' &
			busy+=($!)
		done
	fi
	echo "== $load host: tasshape exp run ($(date -u +%H:%M:%S) UTC)" >&2
	rc=0
	ip netns exec "$ns" "$tasshape" exp run "$spec" --out "$tmp/$load" --no-progress \
		>"$tmp/$load.log" 2>&1 || rc=$?
	stop_busy
	# exp exits 1 when a run fell behind or failed: the table says which; 64 is a bad spec.
	if [ "$rc" -gt 1 ]; then
		cat "$tmp/$load.log" >&2
		echo "$0: exp run exited $rc" >&2
		exit 1
	fi
	rows "$load" "$tmp/$load" >>"$runs"
done

# The table: rows grouped by load, rate, cca, test, scheduling; the worst run of each.
table=$tmp/table.md
{
	echo "<!-- timing.sh begin: $(date -u +%Y-%m-%d), $(nproc) CPUs, $(uname -r), length $length, delay $delay, $reps repetition(s) -->"
	echo
	echo "| host | rate | cca | test | shaper | runs | flagged | release p50 (us) | p99 (us) | max (us) | p99 / SCHED_OTHER |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	sort -t$'\t' -k1,1r -k2,2n -k4,4 -k5,5 -k3,3 "$runs" | awk -F'\t' '
		function fmt(v) { return v == "" ? "-" : sprintf("%.0f", v) }
		{
			k = $1 FS $2 FS $4 FS $5 FS $3
			if (!(k in n)) order[++nk] = k
			n[k]++; flagged[k] += $9
			if ($6 != "" && (p50[k] == "" || $6 > p50[k])) p50[k] = $6
			if ($7 != "" && (p99[k] == "" || $7 > p99[k])) p99[k] = $7
			if ($8 != "" && (mx[k] == "" || $8 > mx[k])) mx[k] = $8
		}
		END {
			for (i = 1; i <= nk; i++) {
				k = order[i]; split(k, f, FS)
				o = f[1] FS f[2] FS f[3] FS f[4] FS "SCHED_OTHER"
				ratio = (p99[k] != "" && p99[o] > 0) ? sprintf("%.2f", p99[k] / p99[o]) : "-"
				printf "| %s | %s Mbit/s | %s | %s | %s | %d | %d | %s | %s | %s | %s |\n",
				       f[1], f[2], f[3], f[4], f[5], n[k], flagged[k], fmt(p50[k]),
				       fmt(p99[k]), fmt(mx[k]), ratio
			}
		}'
	echo
	awk -F'\t' '$3 == "SCHED_FIFO" { n++; fl += $9
			if ($2 <= 20 && $7 > w20) w20 = $7; if ($2 > 20 && $7 > w100) w100 = $7
			if ($2 <= 20) n20++; else n100++ }
		END { printf "Real-time rows: %d of %d runs flagged; worst p99 %s at 20 Mbit/s or less " \
			     "(target 200 us), %s above (target 300 us at 100 Mbit/s).\n", fl, n,
			     n20 ? sprintf("%.0f us", w20) : "not run", n100 ? sprintf("%.0f us", w100) : "not run" }' \
		"$runs"
	echo
	echo "<!-- timing.sh end -->"
} >"$table"
cp "$table" "$out"
cat "$table"
if [ -n "$doc" ]; then
	grep -q '^<!-- timing.sh begin' "$doc" || {
		echo "$0: $doc has no timing.sh section" >&2
		exit 1
	}
	awk -v t="$table" '
		/^<!-- timing.sh begin/ { while ((getline l < t) > 0) print l; skip = 1; next }
		/^<!-- timing.sh end -->/ { skip = 0; next }
		!skip' "$doc" >"$tmp/doc.md"
	cat "$tmp/doc.md" >"$doc"
	echo "updated $doc" >&2
fi
echo "results kept in $tmp" >&2

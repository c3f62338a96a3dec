#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build the libFuzzer harnesses (tests/fuzz/fuzz_*.c, one per parser; clang with
# -fsanitize=fuzzer,address,undefined) into build-fuzz and run each one on its corpus:
#
#   tools/fuzz.sh [SECONDS] [HARNESS...]     each harness for SECONDS (default 60)
#   FUZZ_RUNS=10000000 tools/fuzz.sh         each harness for that many executions instead
#
# The corpus of a harness lives in build-fuzz/corpus/NAME (kept between runs, so coverage
# accumulates) and is seeded from the test fixtures (tests/data, the bundled traces/) and the
# strings in tests/fuzz/seeds/NAME.txt (one input a line, printf %b escapes). Dictionaries:
# tests/fuzz/*.dict. A crash, sanitizer report, leak, timeout or out-of-memory stops that
# harness, leaves the input in build-fuzz/artifacts/ and makes the script exit 1, printing the
# command that reproduces it. Run long sessions under `nice -n 19` on a shared machine.
# FUZZ_JOBS=N runs N harnesses at a time (default 1); FUZZ_WORKERS=N runs each harness as N
# processes sharing its corpus (FUZZ_RUNS is then split between them and the summary adds their
# executions up: a slow harness on several CPUs); FUZZ_BUILD=DIR builds in DIR instead of
# build-fuzz (a DIR already configured with TS_FUZZ=ON is built as it is, whatever its build
# type: CI's clang build carries the fuzzers beside its sanitized unit tests); FUZZ_MAX_LEN=N limits inputs of the file parsers to N bytes (default 4096). One line a harness is printed at the end (executions, executions per second, corpus
# size, peak RSS) and kept in DIR/fuzz.log.
set -euo pipefail
cd "$(dirname "$0")/.."

SECS=${1:-60}
shift || true
B=${FUZZ_BUILD:-build-fuzz}
JOBS=${FUZZ_JOBS:-1}
WORKERS=${FUZZ_WORKERS:-1}
if ! [[ $WORKERS =~ ^[1-9][0-9]*$ ]]; then
	echo "fuzz: FUZZ_WORKERS must be a positive number, not '$WORKERS'" >&2
	exit 2
fi
if ! [[ $SECS =~ ^[0-9]+$ ]] || [ "$SECS" -lt 1 ]; then
	echo "usage: $0 [SECONDS] [HARNESS...]" >&2
	exit 2
fi
command -v clang >/dev/null || {
	echo "fuzz: clang is needed (tools/setup-debian.sh installs it)" >&2
	exit 1
}

if ! grep -qx 'TS_FUZZ:BOOL=ON' "$B/CMakeCache.txt" 2>/dev/null; then
	CC=clang cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTS_FUZZ=ON >/dev/null
fi
cmake --build "$B" -j"$(nproc)" --target fuzzers >/dev/null

if [ $# -gt 0 ]; then
	harnesses=("$@")
else
	# One per tests/fuzz/fuzz_*.c; fuzz_import.c is one per importer (as CMakeLists.txt builds it).
	harnesses=()
	for f in tests/fuzz/fuzz_*.c; do
		f=$(basename "$f" .c)
		if [ "$f" = fuzz_import ]; then
			for fmt in mahimahi gnettrack lumos5g 5gophers pensieve leoreplayer; do
				harnesses+=("fuzz_import_$fmt")
			done
		else
			harnesses+=("$f")
		fi
	done
fi
[ ${#harnesses[@]} -gt 0 ] || {
	echo "fuzz: no harness built in $B" >&2
	exit 1
}

# seed NAME: fill build-fuzz/corpus/NAME from the fixtures and seeds/NAME.txt.
seed() {
	local name=$1 dir=$B/corpus/$1 f i=0 line imp=tests/data/import
	mkdir -p "$dir"
	case $name in
	fuzz_trace) cp tests/data/trace-small.* traces/*.csv traces/*.mahi "$imp"/*.mahi "$dir"/ ;;
	fuzz_trace_csv) cp tests/data/trace-small.csv traces/*.csv "$dir"/ ;;
	fuzz_trace_mahimahi) cp tests/data/trace-small.mahi traces/*.mahi "$imp"/*.mahi \
		"$imp"/leo_bw.txt "$dir"/ ;;
	fuzz_phy_trace) cp traces/wifi6-*.csv "$dir"/ ;;
	fuzz_exp_spec) cp docs/examples/*.ini "$dir"/ ;;
	fuzz_exp) # first byte even: a spec; odd: a --check expression
		for f in docs/examples/*.ini; do
			{ printf '\0'; cat "$f"; } >"$dir/$(basename "$f")"
		done
		printf '\1%s' 'rrul[cca=bbr].ping_icmp_ms.p95 < rrul[cca=cubic].ping_icmp_ms.p95' \
			>"$dir/check"
		;;
	fuzz_exec_parse) # first byte: 0 iperf3, 1 ping, 2 irtt, 3 summary, 4 sockstats
		local x=tests/data/exp
		{ printf '\0'; cat "$x/iperf3-up.json"; } >"$dir/iperf3-up"
		{ printf '\0'; cat "$x/iperf3-error.json"; } >"$dir/iperf3-error"
		{ printf '\1'; cat "$x/ping.txt"; } >"$dir/ping"
		{ printf '\2'; cat "$x/irtt.json"; } >"$dir/irtt"
		{ printf '\3'; cat "$x/summary.json"; } >"$dir/summary"
		{ printf '\4'; cat "$x/sockstats.csv"; } >"$dir/sockstats"
		;;
	fuzz_results) # first byte: 0 stats.csv, 1 sockstats.csv, 2 result.json, 3 experiment.json,
		# 4 a run's result.json in an experiment directory, 5 a string for ts_gnuplot_quote,
		# 6 a done record, 7 a string for ts_md_escape
		local x=tests/data/exp tmp r
		tmp=$(mktemp -d)
		python3 tests/interop/make_results.py "$tmp" tcp_upload >/dev/null
		r=$(find "$tmp" -name result.json | sort | head -1)
		{ printf '\0'; cat "$(dirname "$r")/stats.csv"; } >"$dir/stats"
		{ printf '\1'; cat "$x/sockstats.csv"; } >"$dir/sockstats"
		{ printf '\2'; cat "$r"; } >"$dir/result"
		{ printf '\3'; cat "$tmp/experiment.json"; } >"$dir/experiment"
		{ printf '\4'; cat "$r"; } >"$dir/run"
		{ printf '\6'; cat "$(dirname "$r")/done"; } >"$dir/done"
		rm -rf "$tmp"
		;;
	fuzz_import_mahimahi)
		{ printf '\0'; cat "$imp"/mm_up.mahi; printf '\f'; cat "$imp"/mm_down.mahi; } >"$dir/pair"
		{ printf '\2'; cat "$imp"/mm_up.mahi; } >"$dir/one-up"
		;;
	fuzz_import_leoreplayer)
		{ printf '\0'; cat "$imp"/leo_bw.txt; printf '\f'; cat "$imp"/leo_delay.txt; } >"$dir/pair"
		;;
	fuzz_import_gnettrack | fuzz_import_lumos5g | fuzz_import_5gophers | fuzz_import_pensieve)
		local fmt=${name#fuzz_import_} src
		src=$(ls "$imp/$fmt".* | head -1)
		{ printf '\0'; cat "$src"; } >"$dir/fixture"
		{ printf '\1'; cat "$src"; } >"$dir/fixture-opt"
		;;
	esac
	if [ -f "tests/fuzz/seeds/$name.txt" ]; then
		while IFS= read -r line; do
			i=$((i + 1))
			printf '%b' "$line" >"$dir/seed-$i"
		done <"tests/fuzz/seeds/$name.txt"
	fi
	return 0
}

dict_of() {
	case $1 in
	fuzz_trace | fuzz_trace_csv | fuzz_trace_mahimahi | fuzz_phy_trace) echo tests/fuzz/trace.dict ;;
	fuzz_units | fuzz_trace_const) echo tests/fuzz/units.dict ;;
	fuzz_link | fuzz_wifi6) echo tests/fuzz/link.dict ;;
	fuzz_exp | fuzz_exp_spec | fuzz_exp_check) echo tests/fuzz/exp.dict ;;
	fuzz_import_*) echo tests/fuzz/import.dict ;;
	fuzz_results) echo tests/fuzz/results.dict ;;
	esac
}

# logs NAME: the log of each of its workers.
logs() {
	if [ "$WORKERS" -eq 1 ]; then
		echo "$B/logs/$1.log"
	else
		seq -f "$B/logs/$1.%g.log" "$WORKERS"
	fi
}

# run NAME: one harness (FUZZ_WORKERS processes); its output in build-fuzz/logs/NAME[.W].log.
run() {
	local name=$1 dict args=() rc=0 r log pids=()
	dict=$(dict_of "$name")
	[ -n "$dict" ] && args+=("-dict=$dict")
	if [ -n "${FUZZ_RUNS:-}" ]; then
		args+=("-runs=$(((FUZZ_RUNS + WORKERS - 1) / WORKERS))")
	else
		args+=("-max_total_time=$SECS")
	fi
	# Inputs of FUZZ_MAX_LEN bytes, 4 KiB by default (a spec: 600 bytes, above the 512 a spec may
	# have): longer ones cost time without reaching new code in line-based parsers.
	case $name in
	fuzz_units | fuzz_trace_const | fuzz_wifi6 | fuzz_exp_check) args+=(-max_len=600) ;;
	fuzz_exp) args+=(-max_len=8192) ;; # it takes at most 8192 bytes itself
	fuzz_results) args+=(-max_len=16384) ;; # a result.json of a short run
	*) args+=("-max_len=${FUZZ_MAX_LEN:-4096}") ;;
	esac
	for log in $(logs "$name"); do
		"$B/$name" "${args[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix="$B/artifacts/$name-" "$B/corpus/$name" >"$log" 2>&1 &
		pids+=($!)
	done
	for r in "${pids[@]}"; do
		wait "$r" || rc=$?
	done
	echo "$rc" >"$B/logs/$name.rc"
}

mkdir -p "$B/artifacts" "$B/logs"
for h in "${harnesses[@]}"; do
	seed "$h"
done
running=0
for h in "${harnesses[@]}"; do
	run "$h" &
	running=$((running + 1))
	if [ "$running" -ge "$JOBS" ]; then
		wait -n || true
		running=$((running - 1))
	fi
done
wait

failed=0
{
	printf '%-26s %12s %9s %7s %7s  %s\n' harness executions exec/s corpus rss_mb result
	for h in "${harnesses[@]}"; do
		mapfile -t hl < <(logs "$h")
		rc=$(cat "$B/logs/$h.rc")
		# Summed over the workers (the largest RSS); empty if a worker printed no statistics.
		read -r execs speed rss < <(awk '/stat::number_of_executed_units:/ { e += $2; ne++ }
			/stat::average_exec_per_sec:/ { s += $2 } /stat::peak_rss_mb:/ { if ($2 > r) r = $2 }
			END { if (ne == n) print e, s, r; else print "? ? ?" }' n="${#hl[@]}" "${hl[@]}")
		corpus=$(find "$B/corpus/$h" -type f | wc -l)
		if [ "$rc" -eq 0 ]; then
			res=ok
		else
			res="FAILED (exit $rc): $(grep -h -m1 -E 'ERROR|SUMMARY' "${hl[@]}" | head -1 ||
				echo see "${hl[*]}")"
			failed=1
		fi
		printf '%-26s %12s %9s %7s %7s  %s\n' "$h" "${execs:-?}" "${speed:-?}" "$corpus" \
			"${rss:-?}" "$res"
	done
} >"$B/fuzz.log" # not a pipeline: failed must be set in this shell
cat "$B/fuzz.log"
if [ "$failed" -ne 0 ]; then
	echo "fuzz: reproduce with: $B/HARNESS $B/artifacts/HARNESS-<crash|leak|timeout|oom>-*" >&2
	ls "$B"/artifacts/ >&2
	exit 1
fi

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tasshape exp run and exp check around the executor, on one short run
# (cubic, tcp_upload, 3 s, over a constant 20 Mbit/s uplink, 20 ms each way; the
# downlink, which carries only ACKs, is the bundled mahimahi trace const-12mbit.mahi):
#  - what is wrong is refused before any run, with nothing written: a
#    malformed check and a check naming no configuration (exit 64, the usage error), an
#    unavailable congestion control under --strict, a non-empty --out
#    (exit 1);
#  - an unavailable congestion control (nosuchcc) is reported once with
#    the reason and skipped: exit 0, listed in the summary's flags, its
#    configuration with n = 0, no directory of its own;
#  - the results layout: experiment.json, <config-id>/rep-1/result.json,
#    summary.json, .csv, .md; one progress line per finished run;
#  - summary.json's mean upload throughput is the result's sum of upload
#    flows, and lies in 5 .. 20 Mbit/s (the link's rate bounds it);
#  - the run's manifest names the one trace file the link read (the bundled
#    name resolved) with its SHA-256, and no entry for the const: uplink;
#  - a true --check exits 0 printing both sides; exp check on the
#    directory with a false one (more than the link's 20 Mbit/s) exits 1
#    printing both numbers, with a true one exits 0.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init exp_runner "${1:-}" iperf3 irtt ping

ID='cca=cubic,link=c20,test=tcp_upload'
cat >"$TS_TMP/spec.ini" <<'INI'
[experiment]
name = runner
length = 3s
delay = 1s
[matrix]
cca = cubic, nosuchcc
link = c20
test = tcp_upload
[link c20]
uplink-trace = const:20mbit
downlink-trace = const-12mbit.mahi
delay = 20ms
queue = droptail:packets=200
INI


# exp ARGS...: tasshape exp in the test namespace; stdout, stderr in $TS_TMP/out, err; sets RC.
exp() {
	local pid
	ts_ns "$TS_BIN" exp "$@" >"$TS_TMP/out" 2>"$TS_TMP/err" &
	pid=$!
	ts_own_pid "$pid"
	wait "$pid"
	RC=$?
}

# refused LABEL STATUS PATTERN ARGS...: exp run exits STATUS, stderr matches PATTERN, no --out made.
refused() {
	local label=$1 want=$2 pat=$3
	shift 3
	exp run "$TS_TMP/spec.ini" --out "$TS_TMP/never" "$@"
	ts_check "$label: exit status" "$RC" == "$want"
	ts_true "$label: says '$pat'" grep -q -- "$pat" "$TS_TMP/err" || ts_show "$TS_TMP/err"
	if [ -e "$TS_TMP/never/$ID" ]; then
		ts_fail "$label: a run was started"
	fi
	rm -rf "$TS_TMP/never"
}

refused "malformed check" 64 "unknown metric 'throughput'" \
	--check 'tcp_upload[cca=cubic].throughput.mean > 1'
refused "check naming no configuration" 64 "matches no configuration" \
	--check 'rrul[cca=cubic].ping_icmp_ms.p95 > 1'
refused "--strict, nosuchcc" 1 "cca=nosuchcc cannot run" --strict
mkdir -p "$TS_TMP/full" && touch "$TS_TMP/full/x"
exp run "$TS_TMP/spec.ini" --out "$TS_TMP/full"
ts_check "non-empty --out: exit status" "$RC" == 1
ts_true "non-empty --out: says so" grep -q "not empty" "$TS_TMP/err"

OUT=$TS_TMP/res
exp run "$TS_TMP/spec.ini" --out "$OUT" --no-progress \
	--check "tcp_upload[cca=cubic].throughput_up_mbps.mean > 5" --check "tcp_upload[cca=cubic].n == 1"
cp "$TS_TMP/out" "$TS_TMP/run.out"
cp "$TS_TMP/err" "$TS_TMP/run.err"
ts_check "exp run: exit status" "$RC" == 0 || ts_show "$TS_TMP/run.out" "$TS_TMP/run.err"
ts_true "nosuchcc reported with the reason" grep -q "skipping cca=nosuchcc: " "$TS_TMP/run.err"
ts_check "nosuchcc reported once" "$(grep -c 'nosuchcc' "$TS_TMP/run.err")" == 1
ts_true "one line for the finished run" grep -q "^exp 1/1 $ID rep 1: ok in " "$TS_TMP/run.err"
for f in spec.ini experiment.json summary.json summary.csv summary.md "$ID/rep-1/result.json"; do
	ts_true "file $f" test -s "$OUT/$f"
done
ts_true "spec.ini is the spec" cmp -s "$TS_TMP/spec.ini" "$OUT/spec.ini"
ts_true "experiment.json: the plan, with the length that ran" \
	jqt '.length_s == 3 and .delay_s == 1 and (.runs | length) == 2 and .runs[0].seed == 2' \
	"$OUT/experiment.json"
ts_true "no directory for the skipped configuration" \
	test ! -e "$OUT/cca=nosuchcc,link=c20,test=tcp_upload"
S=$OUT/summary.json
ts_true "summary flags list the skip" jqt '.flags | index("cca_skipped:nosuchcc")' "$S"
ts_true "skipped configuration: n = 0, skipped" \
	jqt '.configs[] | select(.cca == "nosuchcc") | .n == 0 and .skipped' "$S"
MEAN=$(jq -r --arg id "$ID" '.configs[] | select(.id == $id) | .metrics.throughput_up_mbps.mean' "$S")
SUM=$(jq -r '[.flows[] | select(.dir == "up") | .throughput_mbps] | add' "$OUT/$ID/rep-1/result.json")
if ts__num "$MEAN" && ts__num "$SUM"; then
	ts_range "summary mean upload - the result's upload flows" \
		"$(awk -v a="$MEAN" -v b="$SUM" 'BEGIN { d = a - b; print (d < 0 ? -d : d) }')" 0 1e-6
else
	ts_fail "summary mean '$MEAN' or the result's sum '$SUM' is not a number"
fi
ts_range "upload throughput" "$MEAN" 5 20 Mbit/s
MAHI=$(cd "$(dirname "$0")/../../traces" && pwd)/const-12mbit.mahi
M=$OUT/$ID/rep-1/manifest.json
ts_check "manifest: one trace file" "$(jq '.link.traces | length' "$M")" == 1
# The source tree's copy from a build directory, the installed one from an installed binary.
ts_true "manifest: the bundled trace, resolved to a path" \
	jqt '.link.traces[0].path | test("^/.*/const-12mbit[.]mahi$")' "$M"
ts_true "manifest: its SHA-256" \
	test "$(jq -r '.link.traces[0].sha256' "$M")" = "$(sha256sum "$MAHI" | cut -d' ' -f1)"
ts_check "checks printed PASS" "$(grep -c '^check PASS: ' "$TS_TMP/run.out")" == 2
ts_true "check prints the measured side" \
	grep -q "^  tcp_upload\[cca=cubic\].throughput_up_mbps.mean = [0-9]" "$TS_TMP/run.out"

exp check "$OUT" "tcp_upload[cca=cubic].throughput_up_mbps.mean > 25"
ts_check "exp check, false: exit status" "$RC" == 1
ts_true "exp check, false: FAIL with both numbers" \
	grep -Pzq "check FAIL: .*\n  tcp_upload\[cca=cubic\].throughput_up_mbps.mean = [0-9.]+\n  25 = 25\n" \
	"$TS_TMP/out"
exp check "$OUT" "tcp_upload[cca=cubic].throughput_up_mbps.max < 20.01" "tcp_upload[cca=cubic].n >= 1"
ts_check "exp check, true: exit status" "$RC" == 0 || ts_show "$TS_TMP/out" "$TS_TMP/err"

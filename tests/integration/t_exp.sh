#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tasshape exp run end to end (issue 9's CI matrix): cubic and bbr x a
# constant 20 Mbit/s link with 20 ms one-way delay and a 1000-packet
# droptail queue (the wrapper's default: 600 ms at 20 Mbit/s, a bloated
# buffer as in the BBR-TAS paper's RRUL setting) x tcp_upload and rrul, 8 s
# each (delay 2 s), plus bbr3,
# which this kernel's BBR v1 cannot be:
#  - the unavailable control is reported with its reason and skipped, and
#    the rest of the matrix runs (exit 0);
#  - tcp_upload's goodput for both controls is within 5% below the
#    link's 20 * 1448/1500 = 19.31 Mbit/s (1500-byte IP packets carry
#    1448 bytes of payload; 1% above for the receiver's interval edges);
#  - under rrul, CUBIC's p95 ICMP latency is above BBR's (it fills the
#    queue, BBR keeps it short: the BBR-TAS paper's RRUL result), as a
#    --check of the run. Not with a 200-packet queue: there BBR v1's eight
#    flows overflow the shallow buffer (measured: 817 retransmits, ICMP p95
#    157 ms against CUBIC's 128 ms), which is BBR v1's known shallow-buffer
#    behaviour, not the paper's bufferbloat result (docs/experiments-runs.md);
#  - exp check: a true check exits 0, a false one 1, both print the
#    numbers of both sides;
#  - a BPF congestion control (the shipped ts_reno.bpf.o) runs a flow
#    through exp run, verified from the socket, and is gone after exit.
# A matrix whose emulator fell behind (this machine is shared) is run
# again once before its numbers are judged (the less disturbed of the two).
. "$(dirname "$0")/lib.sh" || exit 2
ts_init exp "${1:-}" iperf3 irtt ping

BPF=$(dirname "$TS_BIN")/bpf/ts_reno.bpf.o
cat >"$TS_TMP/ci.ini" <<'INI'
[experiment]
name = ci
length = 8s
delay = 2s
seed = 1
[matrix]
cca = cubic, bbr, bbr3
link = c20
test = tcp_upload, rrul
[link c20]
trace = const:20mbit
delay = 20ms
queue = droptail:packets=1000
INI
CHECK='rrul[cca=bbr].ping_icmp_ms.p95 < rrul[cca=cubic].ping_icmp_ms.p95'

# Two tries at most; judged: the first whose emulator kept up, else the one with fewer runs
# that fell behind.
BEST= BEST_N=
for try in 1 2; do
	OUT=$TS_TMP/out-$try
	ts_ns "$TS_BIN" exp run "$TS_TMP/ci.ini" --out "$OUT" --no-progress --check "$CHECK" \
		>"$TS_TMP/run-$try.log" 2>&1
	echo $? >"$TS_TMP/rc-$try"
	[ -s "$OUT/summary.json" ] || { ts_show "$TS_TMP/run-$try.log"; ts_die "no summary.json"; }
	n=$(jq '.fell_behind' "$OUT/summary.json")
	if [ -z "$BEST" ] || [ "$n" -lt "$BEST_N" ]; then
		BEST=$try BEST_N=$n
	fi
	[ "$n" = 0 ] && break
	ts_log "try $try: $n runs fell behind: again"
done
try=$BEST
OUT=$TS_TMP/out-$try
RC=$(cat "$TS_TMP/rc-$try")
S=$OUT/summary.json
ts_log "judging try $try ($BEST_N runs fell behind)"
ts_show "$TS_TMP/run-$try.log"
ts_check "exp run exit status (bbr3 skipped, check passed)" "$RC" "==" 0
ts_true "bbr3 reported with its reason" grep -q "bbr3: this kernel's bbr is version" \
	"$TS_TMP/run-$try.log"
ts_check "runs carried out" "$(jq '.runs' "$S")" "==" 4
ts_check "runs failed" "$(jq '.failed' "$S")" "==" 0
# Socket sampling stays cheap: each run's namespaces have their own 8192-bucket TCP hash, so a
# sock_diag dump does not walk the host's (docs/benchmarks.md, "Why exp run fell behind").
if [ -r /proc/sys/net/ipv4/tcp_child_ehash_entries ] && [ -r /proc/sys/net/ipv4/tcp_ehash_entries ]; then
	for m in "$OUT"/*/rep-1/manifest.json; do
		ts_check "$(basename "$(dirname "$(dirname "$m")")"): client's TCP hash buckets" \
			"$(jq -r '.sysctl.client["net.ipv4.tcp_ehash_entries"]' "$m")" "==" 8192
		ts_check "$(basename "$(dirname "$(dirname "$m")")"): far side's TCP hash buckets" \
			"$(jq -r '.sysctl.server["net.ipv4.tcp_ehash_entries"]' "$m")" "==" 8192
	done
else
	ts_skip_part "no per-namespace TCP hash in this kernel (Linux 6.1 reports it)"
fi

EXPECTED=$(awk 'BEGIN { printf "%.4f", 20 * 1448 / 1500 }')
LO=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.3f", e * 0.95 }')
HI=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.3f", e * 1.01 }')
for cca in cubic bbr; do
	id="cca=$cca,link=c20,test=tcp_upload"
	ts_range "$cca tcp_upload goodput" \
		"$(jq --arg id "$id" '.configs[] | select(.id == $id) | .metrics.throughput_up_mbps.mean' "$S")" \
		"$LO" "$HI" "Mbit/s "
done
P95() { jq --arg id "cca=$1,link=c20,test=rrul" '.configs[] | select(.id == $id) | .metrics.ping_icmp_ms.p95' "$S"; }
ts_log "rrul p95 ICMP: cubic $(P95 cubic) ms, bbr $(P95 bbr) ms"
ts_true "the run's --check passed and printed both sides" \
	grep -qE "check PASS: .*ping_icmp_ms.p95" "$TS_TMP/run-$try.log"

# exp check on the finished results: a true check exits 0, a false one 1, and both print the
# numbers of both sides. Which order is true is read from the summary, so this part judges the
# check machinery, not the measurement (judged above).
if awk -v a="$(P95 cubic)" -v b="$(P95 bbr)" 'BEGIN { exit !(a > b) }'; then
	TRUE='rrul[cca=cubic].ping_icmp_ms.p95 > rrul[cca=bbr].ping_icmp_ms.p95'
	FALSE='rrul[cca=cubic].ping_icmp_ms.p95 < rrul[cca=bbr].ping_icmp_ms.p95'
else
	TRUE='rrul[cca=cubic].ping_icmp_ms.p95 <= rrul[cca=bbr].ping_icmp_ms.p95'
	FALSE='rrul[cca=cubic].ping_icmp_ms.p95 > rrul[cca=bbr].ping_icmp_ms.p95'
fi
ts_ns "$TS_BIN" exp check "$OUT" "$TRUE" >"$TS_TMP/true.log" 2>&1
ts_check "exp check '$TRUE': exit status" "$?" "==" 0
ts_ns "$TS_BIN" exp check "$OUT" "$FALSE" >"$TS_TMP/false.log" 2>&1
ts_check "exp check '$FALSE': exit status" "$?" "==" 1
for f in true false; do
	ts_true "exp check ($f) prints cubic's number" grep -qF "$(P95 cubic)" "$TS_TMP/$f.log"
	ts_true "exp check ($f) prints bbr's number" grep -qF "$(P95 bbr)" "$TS_TMP/$f.log"
done
ts_show "$TS_TMP/false.log"

# A BPF congestion control through exp run.
if [ ! -f "$BPF" ]; then
	ts_skip_part "no $BPF (bpftool or clang missing at build time)"
else
	cat >"$TS_TMP/bpf.ini" <<INI
[experiment]
length = 3s
delay = 1s
[matrix]
cca = bpf:$BPF
link = c20
test = tcp_upload
[link c20]
trace = const:20mbit
delay = 20ms
INI
	ts_ns "$TS_BIN" exp run "$TS_TMP/bpf.ini" --out "$TS_TMP/bpf" --no-progress >"$TS_TMP/bpf.log" 2>&1
	ts_check "exp run with bpf:ts_reno.bpf.o: exit status" "$?" "==" 0
	R=$(ls "$TS_TMP"/bpf/*/rep-1/result.json 2>/dev/null | head -1)
	ts_true "bpf: its flow's sending socket ran ts_reno" \
		jq -e '.ok and .cca.name == "ts_reno" and .flows[0].cca_socket == "ts_reno"' "$R" >/dev/null
	if grep -qw ts_reno /proc/sys/net/ipv4/tcp_available_congestion_control; then
		ts_fail "ts_reno still registered after tasshape exited"
	else
		ts_log "ts_reno gone after tasshape exited ok"
	fi
fi
ts_log "done in $((SECONDS - TS_START)) s"

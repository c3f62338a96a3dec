#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The experiment executor (src/exec/), one run at a time through
# exec_check (no planner), on a constant 20 Mbit/s link with 20 ms each
# way and a 200-packet droptail queue:
#  - the example BPF congestion control (ts_reno.bpf.o) loads, carries a
#    download and an upload (iperf3's sender and receiver and the sending
#    socket's samples all say ts_reno) and is gone from the kernel's list
#    once the executor has exited;
#  - an upload's goodput is within 5% below the link's 20 * 1448/1500 =
#    19.31 Mbit/s (the payload of 1500-byte IP packets; the upper bound
#    1% above for the receiver's interval edges), with CUBIC;
#  - rtt_fair: four far-side hosts at 0, 5, 10 and 20 ms extra one-way
#    delay measure 2 x that by ping within 1 ms, each carries its flow;
#  - congestion controls this kernel lacks (bbr3 on a BBR v1 kernel, tas
#    without its module) are refused with the reason, before anything runs;
#  - nothing is left behind: no namespace of the executor, no process
#    of the run.
# A run whose emulator fell behind (this machine is shared) is run again,
# up to three tries, before its throughput is judged.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init expexec "${1:-}" iperf3 irtt ping ps

EXEC=$(dirname "$TS_BIN")/exec_check
[ -x "$EXEC" ] || ts_die "no exec_check next to $TS_BIN"
BPF=$(dirname "$TS_BIN")/bpf/ts_reno.bpf.o
LINK=(--trace const:20mbit --delay 20ms --queue droptail:packets=200)

# run DIR CCA TEST LENGTH DELAY [K=V...]: one run; its result.json path in $RES.
run() {
	local dir=$TS_TMP/$1 pid rc
	shift
	ts_ns "$EXEC" "$TS_BIN" "$dir" "$@" -- "${LINK[@]}" >"$dir.out" 2>&1 &
	pid=$!
	ts_own_pid "$pid"
	wait "$pid"
	rc=$?
	RES=$dir/result.json
	if [ $rc -ne 0 ] || [ ! -s "$RES" ]; then
		ts_show "$dir.out" "$dir/tasshape.log"
		return 1
	fi
	jq -e '.ok' "$RES" >/dev/null || ts_log "run $dir: $(jq -r '.error' "$RES")"
	return 0
}

fell_behind() { jq -e '.flags | map(startswith("fell_behind")) | any' "$RES" >/dev/null; }

# 1. BPF congestion control: a download (server-side sender) and an upload.
if [ ! -f "$BPF" ]; then
	ts_skip_part "no $BPF (bpftool or clang missing at build time)"
else
	for t in tcp_download tcp_upload; do
		run "bpf-$t" "bpf:$BPF" "$t" 3s 1s || ts_die "bpf $t: the run was not carried out"
		ts_true "bpf $t: run ok" jq -e '.ok' "$RES" >/dev/null
		ts_true "bpf $t: name ts_reno recorded with its SHA-256" \
			jq -e --arg h "$(sha256sum "$BPF" | cut -d' ' -f1)" \
			'.cca.name == "ts_reno" and .cca.bpf_sha256 == $h' "$RES" >/dev/null
		ts_true "bpf $t: iperf3 sender and receiver used ts_reno" \
			jq -e '.flows[0].cca_used == "ts_reno" and .flows[0].cca_receiver == "ts_reno"' \
			"$RES" >/dev/null
		ts_true "bpf $t: the sending socket's samples say ts_reno" \
			jq -e '.flows[0].cca_socket == "ts_reno"' "$RES" >/dev/null
		ts_log "bpf $t: $(jq -c '[.flows[0].throughput_mbps, .flows[0].cca_socket]' "$RES")"
	done
	if grep -qw ts_reno /proc/sys/net/ipv4/tcp_available_congestion_control; then
		ts_fail "ts_reno still registered after the executor exited"
	else
		ts_log "ts_reno gone from tcp_available_congestion_control after exit ok"
	fi
fi

# 2. Upload goodput with CUBIC.
EXPECTED=$(awk 'BEGIN { printf "%.4f", 20 * 1448 / 1500 }')
LO=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.3f", e * 0.95 }')
HI=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.3f", e * 1.01 }')
# Up to three tries; judged: the first that did not fall behind, else the least disturbed
# (smallest release timing error p99 of the two directions).
BEST= BEST_P99=
for try in 1 2 3; do
	run "cubic-up-$try" cubic tcp_upload 6s 1s || ts_die "cubic tcp_upload: not carried out"
	p99=$(jq '[.fidelity.up.release_err_p99_us, .fidelity.down.release_err_p99_us] | max' "$RES")
	if [ -z "$BEST" ] || awk -v a="$p99" -v b="$BEST_P99" 'BEGIN { exit !(a < b) }'; then
		BEST=$RES BEST_P99=$p99
	fi
	fell_behind || { BEST=$RES; break; }
	ts_log "try $try: the emulator fell behind (release p99 $p99 us): running it again"
done
RES=$BEST
ts_log "judging $(dirname "$RES") (release p99 $(jq '[.fidelity.up.release_err_p99_us, .fidelity.down.release_err_p99_us] | max' "$RES") us)"
ts_true "cubic tcp_upload: run ok" jq -e '.ok' "$RES" >/dev/null
ts_range "cubic tcp_upload goodput" "$(jq '.flows[0].throughput_mbps' "$RES")" "$LO" "$HI" "Mbit/s "
ts_true "cubic: flow, its socket and iperf3 all cubic" \
	jq -e '.flows[0] | .cca_used == "cubic" and .cca_socket == "cubic"' "$RES" >/dev/null
ts_check "cubic: ICMP samples" "$(jq '.latency[0].samples.t | length' "$RES")" ">=" 35
ts_check "cubic: upload's socket samples" "$(jq '.sockstats[0].t | length' "$RES")" ">=" 50
ts_true "manifest: seed, kernel, git revision" \
	jq -e '.seed == 1 and (.kernel.release | length > 0) and (.tasshape.git_rev | length > 0)' \
	"$(dirname "$RES")/manifest.json" >/dev/null

# 3. rtt_fair: four far-side hosts at different base RTTs.
run rttfair cubic rtt_fair 3s 1s servers=0ms,5ms,10ms,20ms || ts_die "rtt_fair: not carried out"
ts_true "rtt_fair: run ok" jq -e '.ok' "$RES" >/dev/null
for i in 0 1 2 3; do
	want=$(jq ".servers[$i].delay_ms * 2" "$RES")
	ts_range "rtt_fair host $((i + 1)) base RTT" "$(jq ".servers[$i].base_rtt_ms" "$RES")" \
		"$want" "$(awk -v w="$want" 'BEGIN { print w + 1 }')" "ms "
	ts_check "rtt_fair flow $((i + 1)) goodput" "$(jq ".flows[$i].throughput_mbps" "$RES")" ">" 0.2 \
		"Mbit/s "
	# The far-side wrappers run beside the client's and are not pinned (src/run/cpupin.h).
	ts_true "rtt_fair host $((i + 1)): its wrapper's loop real-time, not pinned" \
		jq -e '.scheduling | .policy == "SCHED_FIFO" and .cpu == null' \
		"$(dirname "$RES")/server-$((i + 1))-summary.json"
done
if [ "$(nproc)" -ge 2 ]; then
	ts_true "rtt_fair: the client's wrapper pinned to a CPU" \
		jq -e '.scheduling.cpu | type == "number"' "$(dirname "$RES")/summary.json"
fi

# 4. Unavailable congestion controls are refused, with the reason.
if [ "$(cat /sys/module/tcp_bbr/version 2>/dev/null)" != 3 ]; then
	mkdir -p "$TS_TMP/bbr3"
	ts_ns "$EXEC" "$TS_BIN" "$TS_TMP/bbr3" bbr3 tcp_upload 1s 0s -- "${LINK[@]}" >"$TS_TMP/bbr3.out"
	ts_check "bbr3 on a BBR v1 kernel: exit status" "$?" "==" 3
	ts_true "bbr3: says why" grep -q "bbr3: this kernel's bbr is version" "$TS_TMP/bbr3.out"
	ts_true "bbr3: nothing ran" test ! -e "$TS_TMP/bbr3/result.json"
fi
if [ ! -d /sys/module/tcp_bbr_tas ]; then
	ts_ns "$EXEC" "$TS_BIN" "$TS_TMP/tas" tas tcp_upload 1s 0s -- "${LINK[@]}" >"$TS_TMP/tas.out"
	ts_check "tas without tcp_bbr_tas: exit status" "$?" "==" 3
	ts_true "tas: says why" grep -q "tas: module tcp_bbr_tas not loaded" "$TS_TMP/tas.out"
fi

# 5. Nothing of the runs is left: no process still refers to their directories.
left=$(ps -eo pid=,args= | grep -F "$TS_TMP/" | grep -v grep || true)
ts_true "no process of the runs left" test -z "$left"
[ -z "$left" ] || ts_log "left: $left"
ts_log "done in $((SECONDS - TS_START)) s"

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The drain at the end of a run (docs/datapath.md, "Ending a run"): one
# persistent iperf3 server (not -1) in the test's namespace, and five
# back-to-back runs of four parallel 3 s uploads through const:25mbit,
# 10 ms, a 500-packet droptail queue (full: four CUBIC flows fill it). When
# CMD exits, the link keeps shaping until the queues are empty and the
# flows' connections have closed, so every run:
#  - succeeds (exit 0: the server finished the previous test and is not
#    "busy"), with a client report and no "error" in it;
#  - has dropped shutdown 0 in both directions of its summary JSON;
#  - delivers 19-24.2 Mbit/s of goodput (the link's 25 Mbit/s less 52 of
#    every 1500 bytes for headers is 24.13; slow start takes part of 3 s);
#  - ends within 3 + 2 s of its start (the drain of a 0.24 s queue and the
#    closing handshakes take far less than the 2 s default --linger).
# Then a run whose CMD leaves a connection open (a background job holding
# it) ends at --linger 0.5s, not later, and says so.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init drain "${1:-}" iperf3 jq
port=5301

ts_bg iperf3 -s -p "$port" >"$TS_TMP/server.log" 2>&1
for i in $(seq 50); do
	[ -n "$(ts_ns ss -Hltn "sport = :$port" 2>/dev/null)" ] && break
	sleep 0.1
done

for run in 1 2 3 4 5; do
	t0=$(date +%s.%N)
	ts_shape --quiet --trace const:25mbit --delay 10ms --queue droptail:packets=500 \
		--summary-json "$TS_TMP/sum$run.json" -- \
		sh -c "iperf3 -c \$TASSHAPE_BASE -p $port -P 4 -t 3 -J >$TS_TMP/client$run.json" \
		2>"$TS_TMP/err$run"
	rc=$?
	took=$(ts_elapsed "$t0")
	ts_show "$TS_TMP/err$run"
	ts_check "run $run: exit status" "$rc" == 0
	ts_true "run $run: no error in the client report" \
		jq -e '(.error // "") == "" and .end.sum_received.bits_per_second > 0' \
		"$TS_TMP/client$run.json" >/dev/null
	gp=$(jq -r '.end.sum_received.bits_per_second // 0' "$TS_TMP/client$run.json" 2>/dev/null)
	ts_range "run $run: goodput" "$(ts_mbit "${gp:-0}")" 19 24.2 "Mbit/s "
	for d in 0 1; do
		v=$(jq -r ".directions[$d].drops.shutdown" "$TS_TMP/sum$run.json" 2>/dev/null)
		ts_check "run $run: $(jq -r ".directions[$d].name" "$TS_TMP/sum$run.json") dropped shutdown" "${v:-missing}" == 0
	done
	ts_check "run $run: seconds from start to exit" "$took" "<=" 5
done

# A connection that never closes (the last use of the server: a background
# job of CMD holds a control connection open): the drain waits for it until
# --linger, no longer.
t0=$(date +%s.%N)
ts_shape --trace const:25mbit --delay 10ms --linger 0.5s -- \
	bash -c "exec 3<>/dev/tcp/\$TASSHAPE_BASE/$port && (sleep 10 <&3 &) && sleep 0.3" \
	2>"$TS_TMP/err-open"
rc=$?
took=$(ts_elapsed "$t0")
ts_show "$TS_TMP/err-open"
ts_check "open connection: exit status" "$rc" == 0
ts_range "open connection: seconds from start to exit (0.3 s CMD + 0.5 s linger)" "$took" 0.8 2.5
ts_true "open connection: the linger limit is reported with the open connection" \
	grep -q "linger 0.500 s reached: .*1 connections had not closed" "$TS_TMP/err-open"
exit 0

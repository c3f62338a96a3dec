#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Faults during a run (docs/reliability.md, "Faults"), seconds each. For
# every case: the documented behaviour (exit status, time to exit), every
# packet accounted in the summary JSON (per direction, pkts_in = pkts_out
# + dropped by cause + held, held 0 at the end, no unexplained drop; the
# run is in conservation check mode, so a count that fails to add up
# during the run fails it too), and the host as before: the test
# namespace's links and iptables rules compared with a snapshot taken
# before the case, no /run/netns/tas-PID-*, no process of the run left.
#  1. SIGINT, SIGTERM, SIGHUP sent to tasshape while CMD (a sleep) runs:
#     passed on to CMD, which dies of it: exit 130, 143, 129, within 3 s.
#  2. CMD exits (status 3) and CMD killed (SIGKILL from inside: 137).
#  3. tasshape SIGKILL during an iperf3 upload: nothing of the run left
#     within 2 s (t_kill.sh has the details).
#  4. Kernel queue overflow: a UDP flood of 200 Mbit/s of 1200-byte
#     datagrams into const:5mbit with --kernel-queue 16: the kernel drops
#     what does not fit (kernel_dropped > 0), and the iperf3 client's
#     datagram count is accounted: pkts_in + kernel_dropped +
#     socket_overrun of the uplink minus the client's datagrams is the
#     control connection's packets, 0 to 60.
#  5. Netlink overrun (ENOBUFS): the receive buffer tasshape sizes from
#     --kernel-queue makes the queue length the limit, so the overrun is
#     provoked with a 256 KB buffer (TASSHAPE_NFQ_RCVBUF) and tasshape
#     stopped (SIGSTOP) for 1 s during a 300 Mbit/s flood: the kernel drops
#     and counts what it cannot deliver (socket_overrun > 0 in the
#     summary); after SIGCONT the run goes on, and the same accounting
#     holds.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init fault "${1:-}" ps iperf3 jq

# snapshot: the test namespace's links and rules (only this test uses it).
snapshot() {
	{
		ts_ns ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print "link", $2 }'
		ts_ns iptables-save | grep '^-A' | sed 's/^/rule4 /'
		ts_ns ip6tables-save | grep '^-A' | sed 's/^/rule6 /'
	} | sort
}

# running PID: exists and is not a zombie.
running() {
	local st
	st=$(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# accounted TAG SUMMARY: every packet of each direction has an outcome.
accounted() {
	local d n
	for d in 0 1; do
		n=$(jq -r ".directions[$d] | .pkts_in - .pkts_out - ([.drops[]] | add) - .pkts_held" "$2")
		ts_check "$1: $(jq -r ".directions[$d].name" "$2"): in - out - dropped - held" "${n:-missing}" == 0
		n=$(jq -r ".directions[$d] | .pkts_held + .unexplained_drops" "$2")
		ts_check "$1: $(jq -r ".directions[$d].name" "$2"): held at the end + unexplained" "${n:-missing}" == 0
	done
}

# host_as_before TAG PID BEFORE PROCS: nothing of run PID is left.
host_as_before() {
	local after alive= p
	after=$(snapshot)
	if [ "$after" != "$3" ]; then
		diff <(printf '%s\n' "$3") <(printf '%s\n' "$after") | sed 's/^/    /'
		ts_fail "$1: the test namespace's links and rules changed"
	else
		ts_log "$1: links and rules as before ok"
	fi
	ts_true "$1: no namespace of the run" test -z "$(compgen -G "/run/netns/tas-$2-*")"
	for p in $4; do
		running "$p" && alive="$alive $p"
	done
	ts_true "$1: no process of the run left (were: $4)" test -z "$alive"
}

# start_run TAG ARGS...: tasshape ARGS in the background, waits until its CMD runs
# (a descendant besides the guard); sets PID and PROCS (the run's processes).
start_run() {
	local tag=$1 i
	shift
	# A script's background job starts with SIGINT ignored, and a signal
	# ignored when tasshape starts stays ignored by CMD (as with nohup):
	# env restores the default, as a terminal's job has it.
	ip netns exec "$TS_NS" env --default-signal=INT "$TS_BIN" "$@" 2>"$TS_TMP/err-$tag" &
	PID=$!
	ts_own_pid "$PID"
	PROCS=
	for i in $(seq 100); do
		PROCS=$(ts_descendants "$PID" | tr '\n' ' ')
		[ "$(wc -w <<<"$PROCS")" -ge "${WANT_PROCS:-3}" ] && return 0
		sleep 0.05
	done
	ts_show "$TS_TMP/err-$tag"
	ts_die "$tag: the run did not start its CMD"
}

# finish TAG: waits for run PID (at most 10 s); sets RC and TOOK (from T0).
finish() {
	local i
	for i in $(seq 200); do
		running "$PID" || break
		sleep 0.05
	done
	TOOK=$(ts_elapsed "$T0")
	kill -KILL "$PID" 2>/dev/null
	wait "$PID"
	RC=$?
	ts_show "$TS_TMP/err-$1"
}

before=$(snapshot)

# --- 1. signals: passed on to CMD
for sig in INT:130 TERM:143 HUP:129; do
	name=${sig%%:*}
	want=${sig##*:}
	# CMD: sh waiting on a sleep, so that there is a process tree to kill.
	WANT_PROCS=3 start_run "$name" --trace const:10mbit --delay 5ms \
		--summary-json "$TS_TMP/sum-$name.json" -- sh -c 'sleep 30 & wait'
	T0=$(date +%s.%N)
	kill -"$name" "$PID"
	finish "$name"
	ts_check "SIG$name: exit status (CMD's)" "$RC" == "$want"
	ts_check "SIG$name: seconds to exit" "$TOOK" "<=" 3
	accounted "SIG$name" "$TS_TMP/sum-$name.json"
	host_as_before "SIG$name" "$PID" "$before" "$PROCS"
done

# --- 2. CMD exits, CMD killed
ts_shape --quiet --trace const:10mbit --summary-json "$TS_TMP/sum-exit.json" -- sh -c 'exit 3' \
	2>"$TS_TMP/err-exit"
ts_check "CMD exits 3: exit status" "$?" == 3
accounted "CMD exits" "$TS_TMP/sum-exit.json"
host_as_before "CMD exits" "$TS_RUN_PID" "$before" ""
ts_shape --quiet --trace const:10mbit --summary-json "$TS_TMP/sum-killed.json" -- \
	sh -c 'sleep 20 & kill -KILL $$' 2>"$TS_TMP/err-killed"
ts_check "CMD killed: exit status (128 + 9)" "$?" == 137
accounted "CMD killed" "$TS_TMP/sum-killed.json"
host_as_before "CMD killed" "$TS_RUN_PID" "$before" ""

# --- 3. tasshape SIGKILL during an upload
ts_iperf_server 5201
WANT_PROCS=3 start_run kill --quiet --trace const:20mbit --delay 10ms -- \
	sh -c 'iperf3 -c $TASSHAPE_BASE -p 5201 -t 20 >/dev/null'
sleep 1
T0=$(date +%s.%N)
kill -KILL "$PID"
wait "$PID" 2>/dev/null
for i in $(seq 100); do
	alive=
	for p in $PROCS; do running "$p" && alive=1; done
	[ -z "$alive" ] && [ -z "$(compgen -G "/run/netns/tas-$PID-*")" ] && break
	sleep 0.02
done
ts_check "tasshape SIGKILL: seconds until its processes and namespaces were gone" \
	"$(ts_elapsed "$T0")" "<=" 2
host_as_before "tasshape SIGKILL" "$PID" "$before" "$PROCS"
# The server saw its client vanish; a new one-shot server for the floods.
kill -KILL "${TS_BG_PIDS[-1]}" 2>/dev/null
wait "${TS_BG_PIDS[-1]}" 2>/dev/null

# flood TAG PORT RATE ARGS...: an iperf3 UDP upload of 1200-byte datagrams for 3 s.
flood_cmd() {
	echo "iperf3 -c \$TASSHAPE_BASE -p $1 -u -b $2 -l 1200 -t 3 -J >$TS_TMP/client-$3.json"
}

# offered TAG: the client's datagrams against what reached the uplink's hook.
offered() {
	local sent seen
	sent=$(jq -r '.end.sum.packets // empty' "$TS_TMP/client-$1.json" 2>/dev/null)
	seen=$(jq -r '.directions[0] | .pkts_in + .kernel_dropped + .socket_overrun' \
		"$TS_TMP/sum-$1.json" 2>/dev/null)
	ts_log "$1: client datagrams ${sent:-?}, reached the uplink hook ${seen:-?}"
	ts_range "$1: uplink packets beyond the client's datagrams (control connection)" \
		"$(awk -v a="${seen:-0}" -v b="${sent:--1000}" 'BEGIN { print a - b }')" 0 60
}

# --- 4. kernel queue overflow
ts_iperf_server 5202
ts_shape --quiet --trace const:5mbit --queue droptail:packets=50 --kernel-queue 16 \
	--summary-json "$TS_TMP/sum-kq.json" -- sh -c "$(flood_cmd 5202 200M kq)" 2>"$TS_TMP/err-kq"
ts_check "kernel queue overflow: exit status" "$?" == 0
ts_check "kernel queue overflow: kernel_dropped (uplink)" \
	"$(jq -r '.directions[0].kernel_dropped' "$TS_TMP/sum-kq.json")" ">" 1000
accounted "kernel queue overflow" "$TS_TMP/sum-kq.json"
offered kq
host_as_before "kernel queue overflow" "$TS_RUN_PID" "$before" ""

# --- 5. netlink overrun (ENOBUFS)
ts_iperf_server 5203
TASSHAPE_NFQ_RCVBUF=256KB WANT_PROCS=3 start_run enobufs --quiet --trace const:5mbit \
	--queue droptail:packets=50 --summary-json "$TS_TMP/sum-enobufs.json" -- \
	sh -c "$(flood_cmd 5203 300M enobufs)"
sleep 0.5
kill -STOP "$PID"
sleep 1
kill -CONT "$PID"
T0=$(date +%s.%N)
finish enobufs
ts_check "netlink overrun: exit status" "$RC" == 0
ts_check "netlink overrun: socket_overrun (uplink)" \
	"$(jq -r '.directions[0].socket_overrun' "$TS_TMP/sum-enobufs.json")" ">" 0
accounted "netlink overrun" "$TS_TMP/sum-enobufs.json"
offered enobufs
host_as_before "netlink overrun" "$PID" "$before" "$PROCS"
exit 0

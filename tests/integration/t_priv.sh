#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Privileges and host safety (docs/reliability.md, "Privileges and host
# safety"):
# 1. Through sudo, CMD runs as the invoking user: with SUDO_UID/SUDO_GID
#    65534 in the environment (what sudo sets; no sudo configuration is
#    needed to test it), CMD's `id -u` and `id -g` print 65534 and the
#    summary file belongs to 65534; with --as-root, `id -u` prints 0.
# 2. State files are not world- or group-writable, whatever the umask:
#    under umask 000, nothing in an --out directory (manifest, summary,
#    stats, logs, captures) has a group- or world-write bit; CMD still gets
#    the caller's umask (it prints 0000).
# 3. attach refuses the host's own namespace (the kernel's initial one,
#    where this script runs; given a name with `ip netns attach NAME $$`)
#    without --force: a non-zero exit, a message naming the namespace and
#    --force, and nothing created.
# 4. A second instance never touches the first's objects: while run A
#    runs (a sleep), run B starts and ends in the same namespace; A's
#    namespaces, links and rules are exactly as before, its CMD still
#    runs, and it still ends cleanly on SIGTERM (exit 143).
# 5. Started with SCHED_FIFO 10 (chrt, as a systemd unit's
#    CPUSchedulingPolicy=fifo starts it), CMD still runs with normal
#    scheduling (`chrt -p` in CMD prints SCHED_OTHER) while the summary
#    says the shaper ran SCHED_FIFO 10.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init priv "${1:-}" ps

# --- 1. the sudo user
out=$TS_TMP/id.out
SUDO_UID=65534 SUDO_GID=65534 ts_shape --quiet --trace const:10mbit \
	--summary-json "$TS_TMP/sum-sudo.json" -- sh -c 'id -u; id -g' >"$out" 2>"$TS_TMP/err-sudo"
ts_check "sudo: exit status" "$?" == 0
ts_show "$TS_TMP/err-sudo"
ts_check "sudo: CMD's uid" "$(sed -n 1p "$out")" == 65534
ts_check "sudo: CMD's gid" "$(sed -n 2p "$out")" == 65534
ts_check "sudo: owner of the summary" "$(stat -c %u "$TS_TMP/sum-sudo.json")" == 65534
SUDO_UID=65534 SUDO_GID=65534 ts_shape --quiet --as-root --trace const:10mbit -- id -u >"$out" \
	2>"$TS_TMP/err-root"
ts_check "sudo --as-root: CMD's uid" "$(cat "$out")" == 0

# --- 2. umask 000
(umask 000 && ts_shape --quiet --trace const:10mbit --out "$TS_TMP/rec" --out-pcap \
	--stats "$TS_TMP/rec-stats.csv" -- sh -c 'umask; ping -c 3 -i 0.2 $TASSHAPE_BASE >/dev/null') \
	>"$out" 2>"$TS_TMP/err-umask"
ts_check "umask 000: exit status" "$?" == 0
ts_show "$TS_TMP/err-umask"
ts_check "umask 000: files written" "$(find "$TS_TMP/rec" -type f | wc -l)" ">=" 4
loose=$(find "$TS_TMP/rec" "$TS_TMP/rec-stats.csv" -perm /022 | tr '\n' ' ')
ts_true "umask 000: no group- or world-writable file or directory ($loose)" test -z "$loose"
ts_check "umask 000: CMD's umask is the caller's" "$(cat "$out")" == 0000

# --- 3. attach and the host's namespace
host=tastest-priv-host-$$
me=$(stat -L -c %i /proc/self/ns/net)
init=$(stat -L -c %i /proc/1/ns/net 2>/dev/null || echo unknown)
if [ "$me" != 4026531833 ] && [ "$me" != "$init" ]; then
	# 4026531833 = 0xEFFFFFF9, the initial namespace's inode since Linux 6.18.
	ts_skip_part "this script does not run in the host's network namespace"
elif ip netns attach "$host" $$ 2>"$TS_TMP/attach.err"; then
	ts_ns "$TS_BIN" attach --netns "$host" --trace const:10mbit --duration 1s --quiet \
		2>"$TS_TMP/err-host" &
	pid=$!
	ts_own_pid "$pid"
	wait "$pid"
	rc=$?
	ip netns delete "$host"
	ts_show "$TS_TMP/err-host"
	ts_check "attach to the host's namespace: exit status" "$rc" "!=" 0
	ts_true "attach to the host's namespace: the message names it and --force" \
		grep -q "$host is the host's own network namespace.*--force" "$TS_TMP/err-host"
	ts_true "attach to the host's namespace: nothing created" test -z "$(ts_leftovers "$pid")"
else
	ts_skip_part "ip netns attach: $(cat "$TS_TMP/attach.err")"
fi

# --- 4. a second instance
ts_shape_bg --quiet --trace const:10mbit -- sleep 30 2>"$TS_TMP/err-a"
a=$TS_RUN_PID
for i in $(seq 100); do
	cmd=$(ps -o pid=,comm= --ppid "$a" | awk '$2 == "sleep" { print $1 }')
	[ -n "$cmd" ] && break
	sleep 0.05
done
ts_true "run A started its CMD" test -n "$cmd"
# A's own namespaces' rules too (the NFQUEUE rules live there).
state() {
	ts_leftovers "$a"
	for ns in tas-"$a"-0 tas-"$a"-0-link; do
		ip netns exec "$ns" iptables-save 2>/dev/null | grep '^-A' | sed "s/^/$ns: /"
		ip -n "$ns" -o link show 2>/dev/null | awk -F': ' -v ns="$ns" '{ print ns ": " $2 }'
	done
}
before=$(state)
ts_shape --quiet --trace const:10mbit -- true 2>"$TS_TMP/err-b"
ts_check "run B: exit status" "$?" == 0
after=$(state)
if [ "$before" = "$after" ]; then
	ts_log "run B left run A's objects as they were ok"
else
	diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | sed 's/^/    /'
	ts_fail "run B changed run A's objects"
fi
ts_true "run A's CMD still runs" kill -0 "$cmd"
kill -TERM "$a"
wait "$a"
ts_check "run A: exit status after SIGTERM (CMD's)" "$?" == 143
ts_true "run A left nothing" test -z "$(ts_leftovers "$a")"

# --- 5. an inherited real-time policy does not reach CMD
# shellcheck disable=SC2016 # expanded by CMD's shell
chrt -f 10 ip netns exec "$TS_NS" "$TS_BIN" --quiet --as-root --trace const:10mbit \
	--summary-json "$TS_TMP/sum-fifo.json" -- sh -c 'chrt -p $$' >"$out" 2>"$TS_TMP/err-fifo" &
TS_TAS_PIDS+=("$!")
wait "$!"
ts_check "started with SCHED_FIFO 10: exit status" "$?" == 0
ts_show "$TS_TMP/err-fifo"
ts_true "started with SCHED_FIFO 10: CMD runs SCHED_OTHER" grep -q 'policy: SCHED_OTHER$' "$out"
ts_true "started with SCHED_FIFO 10: the shaper ran SCHED_FIFO 10" \
	[ "$(jq -r '.scheduling | "\(.policy) \(.priority)"' "$TS_TMP/sum-fifo.json")" = "SCHED_FIFO 10" ]
exit 0

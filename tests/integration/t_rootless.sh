#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Rootless wrapper (docs/rootless.md): a user made for the test (no root,
# no sudo, no /etc/subuid range: the single-id map) runs
# `tasshape --trace const:20mbit -- CMD`; tasshape makes its own user
# namespace, whose private outer namespace holds the iperf3 server,
# started there by the same user with nsenter as docs/rootless.md shows.
# CMD uploads for 3 s (the first one omitted: slow start).
#
# Asserted: the receiver's goodput is within 1% of the bound, 20 Mbit/s of
# IP bytes carrying 1448 of every 1500 as payload (t_rate.sh says why):
# 19.31 Mbit/s, accepted 19.11 .. 19.50. CMD runs as the user's own uid,
# not root; a file it writes and the summary tasshape writes belong to the
# user outside. Nothing is left: no process of the user, no process in
# the run's user or network namespaces (so the kernel has freed them),
# and (lib.sh, on exit) no namespace, link or rule named after the run.
# The whole run happens inside the test's own namespace $TS_NS.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init rootless "${1:-}" iperf3 useradd userdel setpriv nsenter pgrep

EXPECTED=$(awk 'BEGIN { printf "%.4f", 20 * 1448 / 1500 }')
LO=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.2f", e * 0.99 }')
HI=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.2f", e * 1.01 }')
ts_log "goodput expected $EXPECTED Mbit/s (20 * 1448/1500); accepted $LO .. $HI (1%)"

U=tasrl$$
ts_user_add "$U"
UID_U=$(id -u "$U")
GID_U=$(id -g "$U")
# The build directory may be closed to other users: the binary goes to a
# directory the user owns (removed on exit).
D=$(mktemp -d /tmp/tastest-rootless-run.XXXXXX) || ts_die "mktemp failed"
TS_EXTRA_DIRS+=("$D")
cp "$TS_BIN" "$D/tasshape" && chmod 755 "$D" "$D/tasshape" && chown "$U:$U" "$D" ||
	ts_die "cannot copy tasshape to $D"

# $AS_USER CMD...: CMD as the test's user, in the test's namespace. A
# simple command, not a function: `$AS_USER CMD &` sets $! to the pid
# that becomes CMD (ip, setpriv and env each exec the next).
AS_USER=(ip netns exec "$TS_NS" setpriv --reuid="$U" --regid="$U" --init-groups --
	env HOME=/nonexistent USER="$U")

# CMD waits until the server outside listens ($D/ready), then uploads.
# shellcheck disable=SC2016 # expanded by the shell inside the namespace
"${AS_USER[@]}" "$D/tasshape" --trace const:20mbit --quiet --summary-json "$D/sum.json" -- \
	sh -c 'id -u >"$1/cmd.uid"; echo x >"$1/cmd.file"
		while [ ! -e "$1/ready" ]; do sleep 0.05; done
		exec iperf3 -c "$TASSHAPE_BASE" -p 5201 -t 3 -O 1 -J' sh "$D" \
	>"$TS_TMP/iperf3.json" 2>"$TS_TMP/tasshape.err" &
TS_RUN_PID=$!
TS_TAS_PIDS+=("$TS_RUN_PID")
ts__watchdog "$TS_RUN_PID" 30 &
WD=$!

# The run's namespaces exist once its user namespace differs from ours.
MY_USERNS=$(readlink /proc/self/ns/user)
RUN_USERNS= RUN_NETNS=
for _ in $(seq 50); do
	RUN_USERNS=$(readlink "/proc/$TS_RUN_PID/ns/user" 2>/dev/null)
	if [ -n "$RUN_USERNS" ] && [ "$RUN_USERNS" != "$MY_USERNS" ]; then
		RUN_NETNS=$(readlink "/proc/$TS_RUN_PID/ns/net")
		break
	fi
	sleep 0.1
done
[ -n "$RUN_NETNS" ] || ts_die "tasshape made no user namespace: $(cat "$TS_TMP/tasshape.err")"
ts_log "run $TS_RUN_PID: $RUN_USERNS, outer $RUN_NETNS"

# The server, in the run's outer namespace, by the same user: no privilege.
"${AS_USER[@]}" nsenter --preserve-credentials -U -n -t "$TS_RUN_PID" \
	iperf3 -s -1 -p 5201 >"$TS_TMP/server.log" 2>&1 &
SERVER=$!
TS_BG_PIDS+=("$SERVER")
for _ in $(seq 50); do
	[ -n "$("${AS_USER[@]}" nsenter --preserve-credentials -U -n -t "$TS_RUN_PID" \
		ss -Hltn 'sport = :5201' 2>/dev/null)" ] && break
	sleep 0.1
done
touch "$D/ready"

wait "$TS_RUN_PID"
RC=$?
wait "$WD"
wait "$SERVER"
if [ "$RC" -ne 0 ]; then
	ts_fail "tasshape/iperf3 exited $RC"
	ts_show "$TS_TMP/tasshape.err" "$TS_TMP/server.log"
	jq -r '.error // empty' "$TS_TMP/iperf3.json" 2>/dev/null
fi

BPS=$(jq -r '.end.sum_received.bits_per_second' "$TS_TMP/iperf3.json" 2>/dev/null)
ts_range "receiver goodput (s 1-3)" "$(ts_mbit "${BPS:-0}")" "$LO" "$HI" "Mbit/s "
ts_check "CMD's uid (the user's, $UID_U)" "$(cat "$D/cmd.uid" 2>/dev/null)" == "$UID_U"
ts_check "owner of CMD's file" "$(stat -c %u "$D/cmd.file" 2>/dev/null)" == "$UID_U"
ts_check "group of CMD's file" "$(stat -c %g "$D/cmd.file" 2>/dev/null)" == "$GID_U"
ts_check "owner of the summary" "$(stat -c %u "$D/sum.json" 2>/dev/null)" == "$UID_U"
ts_check "summary: uplink packets delivered" \
	"$(jq -r '.directions[0].pkts_out // 0' "$D/sum.json" 2>/dev/null)" ">" 1000

# Nothing left: the user runs nothing, and no process holds the run's namespaces.
ts_check "processes of user $U after the run" "$(pgrep -c -u "$U")" == 0
HOLD=0
for f in /proc/[0-9]*/ns/user /proc/[0-9]*/ns/net; do
	l=$(readlink "$f" 2>/dev/null) || continue
	[ "$l" = "$RUN_USERNS" ] || [ "$l" = "$RUN_NETNS" ] && HOLD=$((HOLD + 1))
done
ts_check "processes in the run's user or outer namespace" "$HOLD" == 0
exit 0

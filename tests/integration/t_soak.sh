#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The short soak of CI: tools/soak.sh for 60 s (iperf3 --bidir through
# traces/lte-driving.csv). It checks that the shaper's RSS grows by at most
# 1 MiB after the 10 s warm-up, that its file descriptors do not grow, that
# the summary has no unexplained drops and in = out + dropped + held in
# each direction, and that iperf3 moved data both ways. The long soak
# (30 min) and its figures: docs/reliability.md. Given SOAK_OUT, the script
# leaves no directory of its own in /tmp (it once left an empty one per run).
. "$(dirname "$0")/lib.sh" || exit 2
ts_init soak "${1:-}" iperf3

mine() { find /tmp -maxdepth 1 -name 'tassoak.*' | sort; }
mine >"$TS_TMP/tmp.before"
SOAK_NETNS=$TS_NS SOAK_PIDFILE=$TS_TMP/pid SOAK_OUT=$TS_TMP/soak SOAK_PORT=5401 \
	bash "$(dirname "$0")/../../tools/soak.sh" 60s "$TS_BIN"
rc=$?
[ -s "$TS_TMP/pid" ] && ts_own_pid "$(cat "$TS_TMP/pid")"
ts_check "tools/soak.sh 60s exit status" "$rc" == 0
left=$(mine | comm -13 "$TS_TMP/tmp.before" -)
ts_true "tools/soak.sh left no directory in /tmp (${left:-none})" [ -z "$left" ]
exit 0

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Exit status and error messages of the wrapper:
# - CMD's exit status passes through: `sh -c 'exit 7'` -> 7;
# - a CMD that does not exist -> 127, with a message naming it;
# - a trace with a bad row -> non-zero, a message with FILE:LINE, and no
#   namespace, link or rule created;
# - not root (setpriv to uid/gid 65534): the wrapper runs rootless
#   (docs/rootless.md, t_rootless.sh) and CMD's status still passes
#   through; attach, which needs root, exits non-zero with a message that
#   mentions root or sudo.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init exit "${1:-}" setpriv

# --- exit status of CMD
ts_shape --quiet -- sh -c 'exit 7' 2>"$TS_TMP/err"
rc=$?
ts_show "$TS_TMP/err"
ts_check "exit status of sh -c 'exit 7'" "$rc" == 7

# --- CMD not found
bad=tastest-no-such-command-$$
ts_shape --quiet -- "$bad" 2>"$TS_TMP/err"
rc=$?
ts_show "$TS_TMP/err"
ts_check "exit status of a command that does not exist" "$rc" == 127
ts_true "the message names the command" grep -q -- "$bad" "$TS_TMP/err"

# --- bad trace: line 5 has a rate that is not a number
trace=$TS_TMP/bad.csv
printf '%s\n' '# a trace with a bad row' 'time_s,down_mbps,up_mbps' '0,10,10' '5,20,20' \
	'10,fast,40' '15,10,10' >"$trace"
ts_shape --trace "$trace" --quiet -- true 2>"$TS_TMP/err"
rc=$?
ts_show "$TS_TMP/err"
ts_check "exit status with a bad trace" "$rc" "!=" 0
ts_true "the message names $trace:5" grep -qF -- "$trace:5" "$TS_TMP/err"
left=$(ts_leftovers "$TS_RUN_PID")
[ -z "$left" ] || printf '%s\n' "$left" | sed 's/^/    /'
ts_true "nothing created with a bad trace" test -z "$left"

# --- not root
if ts_ns setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$TS_BIN"; then
	ts_ns setpriv --reuid=65534 --regid=65534 --clear-groups "$TS_BIN" --quiet -- \
		sh -c 'exit 7' 2>"$TS_TMP/err" &
	pid=$!
	ts_own_pid "$pid"
	wait "$pid"
	rc=$?
	ts_show "$TS_TMP/err"
	ts_check "exit status of sh -c 'exit 7' as uid 65534 (rootless)" "$rc" == 7
	ts_ns setpriv --reuid=65534 --regid=65534 --clear-groups "$TS_BIN" attach --quiet \
		--netns "$TS_NS" --duration 1s 2>"$TS_TMP/err" &
	pid=$!
	ts_own_pid "$pid"
	wait "$pid"
	rc=$?
	ts_show "$TS_TMP/err"
	ts_check "exit status of attach as uid 65534" "$rc" "!=" 0
	ts_true "the message mentions root or sudo" grep -qiE 'root|sudo' "$TS_TMP/err"
else
	ts_log "uid 65534 cannot execute $TS_BIN (directory permissions): non-root case not tested"
fi
exit 0

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Results that outlive exp run, on a two-run matrix (cubic and bbr, tcp_upload, 2 s, over a
# constant 20 Mbit/s link, 20 ms each way):
#  - every run leaves its done record (each file with its SHA-256) and tcp_upload.flent.gz,
#    which the real Flent loads, its mean upload throughput within 1% of the result's;
#  - run as two shards (--shard 1/2, 2/2) and merged, it gives the summary (configurations,
#    axes, runs per configuration) of the unsharded run;
#  - killed with SIGKILL during its second run and resumed, it keeps the first run (its done
#    record untouched), redoes the partial one, and ends with both runs done;
#  - exp run into the killed directory refuses, naming exp resume; a changed spec is refused.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init exp_results "${1:-}" iperf3 irtt ping jq flent

cat >"$TS_TMP/spec.ini" <<'INI'
[experiment]
name = results
length = 2s
delay = 1s
[matrix]
cca = cubic, bbr
link = c20
test = tcp_upload
[link c20]
trace = const:20mbit
delay = 20ms
queue = droptail:packets=200
INI
C=cca=cubic,link=c20,test=tcp_upload
B=cca=bbr,link=c20,test=tcp_upload

# exp ARGS...: tasshape exp in the test namespace; stdout, stderr in $TS_TMP/out, err; sets RC.
exp() {
	local pid
	ts_ns "$TS_BIN" exp "$@" >"$TS_TMP/out" 2>"$TS_TMP/err" &
	pid=$!
	ts_own_pid "$pid"
	wait "$pid"
	RC=$?
}
# configs DIR: the summary without its measured values.
configs() { jq -c '[.configs[] | {id, axes, n}]' "$1/summary.json"; }

exp run "$TS_TMP/spec.ini" --out "$TS_TMP/whole" --no-progress
ts_check "exp run: exit status" "$RC" == 0 || ts_show "$TS_TMP/err"
for id in "$C" "$B"; do
	d=$TS_TMP/whole/$id/rep-1
	ts_true "$id: done record" test -s "$d/done"
	ts_true "$id: done lists result.json and the Flent file with SHA-256s" jq -e \
		'[.files[] | select(.sha256 | length == 64) | .path] | index("result.json") != null and index("tcp_upload.flent.gz") != null' \
		"$d/done" >/dev/null
	ts_true "$id: Flent loads tcp_upload.flent.gz" \
		flent -i "$d/tcp_upload.flent.gz" -f summary -o "$TS_TMP/flent.txt"
	got=$(awk -F' : ' '{gsub(/^ +| +$/, "", $1)} $1 == "TCP upload" {split($2, f, " "); print f[1]}' "$TS_TMP/flent.txt")
	want=$(jq '[.flows[] | select(.dir == "up") | .throughput_mbps] | add' "$d/result.json")
	ts_range "$id: Flent's mean upload / ours" "$(awk -v g="$got" -v w="$want" 'BEGIN { print g / w }')" 0.99 1.01
done

exp run "$TS_TMP/spec.ini" --out "$TS_TMP/s1" --shard 1/2 --no-progress
ts_check "--shard 1/2: exit status" "$RC" == 0 || ts_show "$TS_TMP/err"
ts_true "--shard 1/2 ran run 1 only" test -e "$TS_TMP/s1/$C/rep-1/done" -a ! -e "$TS_TMP/s1/$B"
exp run "$TS_TMP/spec.ini" --out "$TS_TMP/s2" --shard 2/2 --no-progress
ts_check "--shard 2/2: exit status" "$RC" == 0 || ts_show "$TS_TMP/err"
ts_true "--shard 2/2 ran run 2 only" test -e "$TS_TMP/s2/$B/rep-1/done" -a ! -e "$TS_TMP/s2/$C"
exp merge "$TS_TMP/merged" "$TS_TMP/s1" "$TS_TMP/s2"
ts_check "exp merge: exit status" "$RC" == 0 || ts_show "$TS_TMP/err"
ts_true "merged shards: the unsharded summary (ids, axes, n)" \
	test "$(configs "$TS_TMP/merged")" = "$(configs "$TS_TMP/whole")"
exp merge "$TS_TMP/never" "$TS_TMP/s1"
ts_check "merge of one shard: refused" "$RC" == 1
ts_true "merge of one shard: lists the missing run" grep -q "^missing: run 2 $B/rep-1" "$TS_TMP/err"

# Killed during the second run: the first is done, the second partial.
R=$TS_TMP/killed
ts_ns "$TS_BIN" exp run "$TS_TMP/spec.ini" --out "$R" --no-progress >"$TS_TMP/out" 2>"$TS_TMP/err" &
pid=$!
ts_own_pid "$pid"
for _ in $(seq 300); do
	[ -e "$R/$B/rep-1/job-client.json" ] || [ -e "$R/$B/rep-1/result.json" ] && break
	sleep 0.1
done
sleep 0.5
# ip netns exec may run tasshape as its child: SIGKILL goes to tasshape itself.
tpid=$(ps -o pid= --ppid "$pid" | head -1 | tr -d ' ')
[ -n "$tpid" ] && [ "$(ps -o comm= -p "$tpid")" = tasshape ] || tpid=$pid
ts_own_pid "$tpid"
kids=$(ts_descendants "$tpid")
kill -KILL "$tpid"
wait "$pid" 2>/dev/null
sleep 0.5
# What outlives it (the executor's helpers, when they do not die with it): named, then ended by pid.
for k in $kids; do
	if kill -0 "$k" 2>/dev/null; then
		ts_log "outlived the SIGKILL of exp run: $(ps -o pid=,cmd= -p "$k" | cut -c1-120)"
		kill -KILL "$k" 2>/dev/null
	fi
done
# What a SIGKILL leaves (the run's namespaces), removed as a user would: by the run's pid.
ts_ns "$TS_BIN" cleanup --pid "$tpid" >/dev/null 2>&1
"$TS_BIN" cleanup --pid "$tpid" >/dev/null 2>&1
ts_true "killed: run 1 done" test -e "$R/$C/rep-1/done"
ts_true "killed: run 2 not done" test ! -e "$R/$B/rep-1/done"
before=$(sha256sum "$R/$C/rep-1/done" "$R/$C/rep-1/result.json")

exp run "$TS_TMP/spec.ini" --out "$R"
ts_check "exp run into it: refused" "$RC" == 1
ts_true "exp run into it: names exp resume" grep -q "tasshape exp resume $R" "$TS_TMP/err"
sed 's/length = 2s/length = 3s/' "$TS_TMP/spec.ini" >"$TS_TMP/other.ini"
exp resume "$R" "$TS_TMP/other.ini"
ts_check "resume with another spec: refused" "$RC" == 1
ts_true "resume with another spec: says why" grep -q "the spec differs" "$TS_TMP/err"

exp resume "$R" --no-progress
ts_check "exp resume: exit status" "$RC" == 0 || ts_show "$TS_TMP/err"
ts_true "resume redid only the partial run" grep -q "exp 1/1 $B rep 1: ok" "$TS_TMP/err" ||
	ts_show "$TS_TMP/err"
ts_true "resume did not redo the done run" sh -c "! grep -q 'exp [0-9]*/[0-9]* $C' '$TS_TMP/err'"
ts_true "resume said why it redid it" grep -q "redoing $R/$B/rep-1: partial" "$TS_TMP/err"
ts_true "run 1 untouched (done record and result)" \
	test "$(sha256sum "$R/$C/rep-1/done" "$R/$C/rep-1/result.json")" = "$before"
ts_true "both runs done" test -e "$R/$C/rep-1/done" -a -e "$R/$B/rep-1/done"
ts_true "resumed: the unsharded summary (ids, axes, n)" \
	test "$(configs "$R")" = "$(configs "$TS_TMP/whole")"

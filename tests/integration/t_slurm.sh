#!/bin/bash
# SPDX-License-Identifier: MIT
#
# docs/scale-out.md's Slurm example on a real Slurm (Debian's slurm-wlm, with munge): the
# blocks the markdown marks "scale-out: shards.sbatch" and "scale-out: submit.sh", taken from
# it as they are, submit a 2-shard matrix (cubic and reno, tcp_upload, 3 s + 2 x 1 s, over a
# constant 20 Mbit/s link) as an array job and its merge job to a single-node cluster of the
# test's own:
#  - task 1 is requeued (scontrol requeue, as a preemption would) while its run is under way:
#    Slurm's SIGTERM reaches the run's tools too; tasshape ends well inside Slurm's KillWait,
#    records that run as not run, and the requeued task resumes its directory and carries the
#    run out again;
#  - Slurm counts that first attempt as ended only after its run (the script execs tasshape);
#  - both tasks and the merge job end COMPLETED with exit code 0:0, task 1 after one restart;
#    a spec tasshape refuses ends its task FAILED with exit code 64:0;
#  - the merged directory plans the runs an unsharded exp run of the same spec plans (ids,
#    repetitions, indexes, seeds), every run in it is done and ok, as in the unsharded one,
#    and exp report wrote report.md;
#  - nothing of the runs remains (namespaces, links, rules: lib.sh's check, for every tasshape
#    the jobs started), and the daemons the test started have ended.
# The cluster lives in the test's namespace: Slurm's ports are on that namespace's loopback, so
# they cannot clash with anything on the host, and the jobs' tasshape runs have that namespace
# as their outer side, as in the other tests. munged runs with a key, socket and log of its own;
# slurmctld and slurmd run in the foreground (their pids are the test's children) with state,
# spool and logs in the test's directory, and proctrack/linuxproc, task/none: no cgroup is used.
# They run under ip netns exec, whose fresh /sys has no cgroup file system, where slurmd's
# cgroup autodetection fails; cgroup.conf names cgroup/v1, which slurmd then only initialises,
# so the host's cgroups (v1, v2, systemd's or none) do not matter. The jobs run as root, as the
# test does; a stand-in `sudo` on their PATH records the pid of every tasshape they start
# (tasshape becomes that process), for the leftover check. Everything is stopped by pid and
# removed on any exit, even a failed one; the logs are printed first when the test failed.
# It also prints what each shard job cost beyond its runs (docs/scale-out.md, "How long").
. "$(dirname "$0")/lib.sh" || exit 2
ts_init slurm "${1:-}" iperf3 irtt ping timeout
for t in munged munge slurmctld slurmd sbatch squeue scontrol scancel; do
	command -v "$t" >/dev/null 2>&1 ||
		ts_skip "$t is not installed: Debian's slurm-wlm and munge (tools/setup-debian.sh installs them)"
done

DOC=$(cd "$(dirname "$0")/../.." && pwd)/docs/scale-out.md
CL=$TS_TMP/cluster # the cluster: configuration, state, spool, logs, munge
W=$TS_TMP/work     # the submission directory: the doc's scripts, the spec, logs/, results/
PIDS=$TS_TMP/tasshape.pids
MUNGED_PID='' CTLD_PID='' SLURMD_PID=''
export SLURM_CONF=$CL/etc/slurm.conf

# sl CMD...: a Slurm command in the test namespace, never longer than 20 s.
sl() { timeout 20 ip netns exec "$TS_NS" "$@"; }

# block NAME: the fenced block after the line "<!-- scale-out: NAME -->" of docs/scale-out.md.
block() {
	awk -v m="<!-- scale-out: $1 -->" '
		$0 == m { found = 1; next }
		found && !inside && /^```/ { inside = 1; next }
		inside && /^```/ { exit }
		inside { print }' "$DOC"
}

# ---- the cluster ---------------------------------------------------------------------------

# cluster_conf: slurm.conf and cgroup.conf for one node, "tastest", this machine.
cluster_conf() {
	cat >"$CL/etc/slurm.conf" <<EOF
ClusterName=tastest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$CL/run/munge.socket
StateSaveLocation=$CL/state
SlurmdSpoolDir=$CL/spool
SlurmctldPidFile=$CL/run/slurmctld.pid
SlurmdPidFile=$CL/run/slurmd.pid
SlurmctldLogFile=$CL/log/slurmctld.log
SlurmdLogFile=$CL/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
PlugStackConfig=$CL/etc/plugstack.conf
NodeName=tastest NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=tastest Nodes=tastest Default=YES MaxTime=INFINITE State=UP
EOF
	echo "CgroupPlugin=cgroup/v1" >"$CL/etc/cgroup.conf"
	: >"$CL/etc/plugstack.conf"
}

# cluster_up: munged, slurmctld and slurmd in the test namespace; the node idle.
cluster_up() {
	local _
	mkdir -p "$CL"/{etc,state,spool,log,munge,run} || ts_die "cannot create $CL"
	# munged serves every user: it wants each directory above its socket searchable by all.
	chmod 711 "$TS_TMP"
	chmod 755 "$CL" "$CL/run"
	chmod 700 "$CL/munge"
	if ! head -c 1024 /dev/urandom >"$CL/munge/key" || ! chmod 400 "$CL/munge/key"; then
		ts_die "cannot write the munge key"
	fi
	cluster_conf
	# Slurm resolves even 127.0.0.1 with getaddrinfo(AI_ADDRCONFIG), which finds nothing where
	# loopback has the only address: one more, from TEST-NET-1 (RFC 5737, never routed; not
	# tasshape's 100.64.0.0/10), on a veth pair of the namespace's own.
	if ! ip -n "$TS_NS" link add slurm0 type veth peer name slurm1 ||
		! ip -n "$TS_NS" addr add 192.0.2.1/32 dev slurm0 ||
		! ip -n "$TS_NS" link set slurm0 up || ! ip -n "$TS_NS" link set slurm1 up; then
		ts_die "cannot add the veth pair slurm0/slurm1 to $TS_NS"
	fi
	ip netns exec "$TS_NS" munged -F --socket="$CL/run/munge.socket" \
		--key-file="$CL/munge/key" --pid-file="$CL/run/munged.pid" \
		--log-file="$CL/log/munged.log" --seed-file="$CL/munge/seed" >"$CL/log/munged.out" 2>&1 &
	MUNGED_PID=$!
	for _ in $(seq 50); do
		munge -n -S "$CL/run/munge.socket" 2>/dev/null | unmunge -S "$CL/run/munge.socket" >/dev/null 2>&1 && break
		kill -0 "$MUNGED_PID" 2>/dev/null || break
		sleep 0.1
	done
	munge -n -S "$CL/run/munge.socket" | unmunge -S "$CL/run/munge.socket" >/dev/null ||
		ts_die "munged did not start: $(cat "$CL/log/munged.out" "$CL/log/munged.log" 2>/dev/null)"
	ip netns exec "$TS_NS" slurmctld -D >"$CL/log/slurmctld.out" 2>&1 &
	CTLD_PID=$!
	ip netns exec "$TS_NS" slurmd -D -N tastest >"$CL/log/slurmd.out" 2>&1 &
	SLURMD_PID=$!
	for _ in $(seq 30); do
		[ "$(sl sinfo -h -n tastest -o %t 2>/dev/null)" = idle ] && return 0
		if ! kill -0 "$CTLD_PID" 2>/dev/null || ! kill -0 "$SLURMD_PID" 2>/dev/null; then
			break
		fi
		sleep 0.5
	done
	ts_die "the node did not come up idle: $(sl sinfo -h -o '%t %E' 2>&1)"
}

# stop_pid PID NAME: SIGTERM, SIGKILL after 10 s; it is the test's child: reaped.
stop_pid() {
	[ -n "$1" ] && kill -0 "$1" 2>/dev/null || return 0
	kill -TERM "$1"
	if ! ts__wait_pid "$1" 10; then
		ts_log "$2 (pid $1) ignored SIGTERM: SIGKILL"
		kill -KILL "$1"
	fi
	wait "$1" 2>/dev/null
	return 0
}

# cluster_down: the jobs first (scancel: SIGTERM, so that tasshape removes what it made), then
# slurmd, slurmctld and munged, by pid; their pids' absence checked.
cluster_down() {
	local p _
	if [ -n "$CTLD_PID" ] && kill -0 "$CTLD_PID" 2>/dev/null && [ -n "$(sl squeue -h 2>/dev/null)" ]; then
		ts_log "cancelling the jobs still queued or running"
		sl scancel --partition=tastest
		for _ in $(seq 45); do
			[ -z "$(sl squeue -h 2>/dev/null)" ] && break
			sleep 1
		done
	fi
	stop_pid "$SLURMD_PID" slurmd
	stop_pid "$CTLD_PID" slurmctld
	stop_pid "$MUNGED_PID" munged
	for p in $MUNGED_PID $CTLD_PID $SLURMD_PID; do
		if kill -0 "$p" 2>/dev/null; then
			ts_fail "pid $p still runs"
		fi
	done
	# Every tasshape the jobs started: lib.sh's exit checks what each left.
	if [ -s "$PIDS" ]; then
		while read -r p; do ts_own_pid "$p"; done <"$PIDS"
	fi
}

sl__exit() {
	local rc=$? f
	set +e
	trap - EXIT
	[ -n "$TS_NS" ] && cluster_down
	if [ "$rc" -ne 0 ] || [ "$TS_FAILED" -ne 0 ]; then
		for f in "$CL"/log/* "$W"/logs/*; do
			[ -s "$f" ] || continue
			ts_log "--- $f (last 40 lines)"
			tail -n 40 "$f" | sed 's/^/    | /'
		done
	fi
	# Nothing is kept, not even on failure: the munge key and the cluster's state are in there.
	[ -n "$TS_TMP" ] && rm -rf "$TS_TMP"
	(exit "$rc")
	ts__exit
}
trap sl__exit EXIT

# ---- the matrix, unsharded -----------------------------------------------------------------

mkdir -p "$W/bin" || ts_die "cannot create $W"
cat >"$W/spec.ini" <<'INI'
[experiment]
name = slurm
length = 3s
delay = 1s
seed = 7
[matrix]
cca = cubic, reno
link = c20
test = tcp_upload
[link c20]
trace = const:20mbit
delay = 10ms
INI
block shards.sbatch >"$W/shards.sbatch"
block submit.sh >"$W/submit.sh"
ts_true "docs/scale-out.md: shards.sbatch found" grep -q '^#SBATCH --array=' "$W/shards.sbatch"
# shellcheck disable=SC2016 # the block's own text
ts_true "docs/scale-out.md: submit.sh found" grep -q '^array=$(sbatch ' "$W/submit.sh"
# The jobs' sudo: they already run as root; tasshape becomes this process, so its pid is known.
printf '#!/bin/sh\necho $$ >>"%s"\nexec "$@"\n' "$PIDS" >"$W/bin/sudo"
chmod 755 "$W/bin/sudo"
ln -s "$TS_BIN" "$W/bin/tasshape"

ts_shape exp run "$W/spec.ini" --out "$TS_TMP/whole" --no-progress >"$TS_TMP/whole.out" 2>&1
ts_check "unsharded exp run: exit status" $? == 0 || ts_show "$TS_TMP/whole.out"

# ---- the shards on Slurm -------------------------------------------------------------------

cluster_up
ts_log "cluster up: munged $MUNGED_PID, slurmctld $CTLD_PID, slurmd $SLURMD_PID"
t0=$SECONDS
# in_dir DIR CMD...: a Slurm command run from DIR with the stand-in sudo and tasshape first on
# PATH (sbatch hands its environment to the jobs).
in_dir() { (cd "$1" && shift && sl env PATH="$W/bin:$PATH" "$@"); }
in_dir "$W" bash submit.sh spec.ini 2 >"$TS_TMP/submit.out" 2>&1
ts_check "submit.sh: exit status" $? == 0 || ts_show "$TS_TMP/submit.out"
A=$(sl squeue -h -n tasshape-shards -o %F | head -n 1)
M=$(sl squeue -h -n tasshape-merge -o %i | head -n 1)
if [ -z "$A" ] || [ -z "$M" ]; then
	ts_die "no array job or merge job queued: $(sl squeue 2>&1)"
fi
ts_log "array job $A, merge job $M"

# until SECONDS COMMAND...: COMMAND succeeds before SECONDS have passed since t0 (1 s steps).
until_t() {
	local limit=$1
	shift
	until "$@"; do
		[ $((SECONDS - t0)) -lt "$limit" ] || return 1
		sleep 1
	done
}
# Task 1's run under way: its flow has started (its iperf3 client writes this file).
flowing() { compgen -G "$W/results/shard-1/*/rep-1/iperf3-up-1.json" >/dev/null; }
state() { sl squeue -h -j "$1" -o '%T %r' 2>/dev/null; }
held() { [ "$(state "${A}_1")" = "PENDING BeginTime" ]; }
drained() { [ -z "$(sl squeue -h 2>/dev/null)" ]; }

until_t 40 flowing || ts_die "task 1's run did not start within 40 s: $(state "${A}_1")"
sleep 1
sl scontrol requeue "${A}_1" || ts_die "scontrol requeue ${A}_1 failed"
tq=$SECONDS
until_t 80 held || ts_die "task 1 was not requeued: $(state "${A}_1")"
ts_check "requeued task 1: its first attempt ended after" $((SECONDS - tq)) "<" 30 s
# Slurm holds a requeued job back for two minutes; a preempted one would wait for its node.
sl scontrol update JobId="${A}_1" StartTime=now
until_t 150 drained || ts_die "the jobs did not end within 150 s: $(sl squeue 2>&1)"
ts_log "all jobs ended $((SECONDS - t0)) s after the submission"

# ---- what Slurm and the files say ----------------------------------------------------------

# job FIELD JOBID [TASK]: FIELD of scontrol's record of JOBID (of array task TASK).
job() {
	sl scontrol -o show job "$2" | awk -v f="$1" -v t="${3:-}" '
		t == "" || index($0, " ArrayTaskId=" t " ") {
			for (i = 1; i <= NF; i++) if (index($i, f "=") == 1) { print substr($i, length(f) + 2); exit } }'
}
for t in 1 2; do
	ts_true "task $t: COMPLETED" test "$(job JobState "$A" $t)" = COMPLETED
	ts_true "task $t: exit code 0:0" test "$(job ExitCode "$A" $t)" = 0:0
done
ts_check "task 1: restarts" "$(job Restarts "$A" 1)" == 1
ts_check "task 2: restarts" "$(job Restarts "$A" 2)" == 0
ts_true "merge job: COMPLETED" test "$(job JobState "$M")" = COMPLETED
ts_true "merge job: exit code 0:0" test "$(job ExitCode "$M")" = 0:0

L1=$W/logs/shard-1.out
ts_true "task 1's log: the requeue" grep -q "DUE TO JOB REQUEUE" "$L1"
ts_true "task 1's log: the run under way recorded as not run" \
	grep -q "rep 1: FAILED in .*: stopped by signal 15 while under way" "$L1"
ts_true "task 1's log: the shard stopped" grep -q "exp: stopped by signal 15 after 1 of 1 runs" "$L1"
ts_true "task 1's log: resumed, the run redone" grep -q "exp resume: redoing .*shard-1/" "$L1"
ts_true "task 1's log: the run then ok" grep -q "^exp 1/1 .* rep 1: ok in " "$L1"
ts_true "task 2's log: its run ok" grep -q "^exp 1/1 .* rep 1: ok in " "$W/logs/shard-2.out"

ALL=$W/results/all
runs() { jq -c '[.runs[] | {id, rep, index, seed}]' "$1/experiment.json"; }
ts_true "merged: the unsharded plan (ids, repetitions, indexes, seeds)" \
	test "$(runs "$ALL")" = "$(runs "$TS_TMP/whole")"
ts_check "merged: runs planned" "$(jq '.runs | length' "$ALL/experiment.json")" == 2
for d in "$TS_TMP/whole" "$ALL"; do
	n=0
	for id in $(jq -r '.runs[].id' "$d/experiment.json"); do
		jq -e '.ok == true' "$d/$id/rep-1/result.json" >/dev/null && test -s "$d/$id/rep-1/done" &&
			n=$((n + 1))
	done
	ts_check "$(basename "$d"): runs done and ok" "$n" == 2
	ts_check "$(basename "$d"): summary, runs" "$(jq .runs "$d/summary.json")" == 2
	ts_check "$(basename "$d"): summary, failed" "$(jq .failed "$d/summary.json")" == 0
done
ts_true "merged: seeds of the results those of the unsharded runs" test \
	"$(jq -s -c 'map({id, seed}) | sort_by(.id)' "$ALL"/*/rep-1/result.json)" = \
	"$(jq -s -c 'map({id, seed}) | sort_by(.id)' "$TS_TMP/whole"/*/rep-1/result.json)"
ts_true "exp report: report.md" test -s "$ALL/report/report.md"

# Slurm's view of tasshape's exit status: a spec tasshape refuses is exit 64 (EX_USAGE), FAILED.
mkdir -p "$TS_TMP/bad/logs" && cp "$W/shards.sbatch" "$TS_TMP/bad/"
printf '[experiment]\nname = bad\nno_such_key = 1\n' >"$TS_TMP/bad/bad.ini"
X=$(in_dir "$TS_TMP/bad" sbatch --parsable --array=1-1 shards.sbatch bad.ini)
until_t 180 drained || ts_die "the job of the refused spec did not end: $(sl squeue 2>&1)"
ts_true "refused spec: FAILED" test "$(job JobState "$X" 1)" = FAILED
ts_true "refused spec: exit code 64:0" test "$(job ExitCode "$X" 1)" = 64:0
ts_true "refused spec: tasshape said why" grep -q "unknown key 'no_such_key'" "$TS_TMP/bad/logs/shard-1.out"

# slurmd's account of each batch job, in the order they ended: "JOB SECONDS_RUN SECONDS_SINCE_THE_LAST"
# (-1: the first).
awk '
	function sec(f, a) { split(substr(f, 13, 12), a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] }
	$2 == "Launching" && $3 == "batch" { start[$5] = sec($1); gap[$5] = last ? sec($1) - last : -1 }
	$3 == "done" && $4 == "with" && $5 == "job" {
		j = $2; gsub(/[^0-9.]/, "", j); sub(/[.]$/, "", j); last = sec($1)
		printf "%s %.2f %.2f\n", j, last - start[j], gap[j] }' "$CL/log/slurmd.log" >"$TS_TMP/jobs"
# Slurm counted task 1's first attempt as ended only once its run had: the script's exec makes
# tasshape the job's process (a shell would die at the SIGTERM at once, and the job with it).
first=$(awk 'NR == 1 { print $2 }' "$TS_TMP/jobs")
stopped=$(grep -o "rep 1: FAILED in [0-9.]* s" "$L1" | awk 'NR == 1 { print $5 }')
ts_check "task 1's first attempt: its job's length minus its run's ($stopped s, printed to 0.1 s)" \
	"$(awk -v j="$first" -v r="$stopped" 'BEGIN { print j + 0.06 - r }')" ">=" 0 s

# What a shard job costs beyond its runs (docs/scale-out.md, "How long"): each job, launch to
# end, and from the previous job's end; each run's own time.
while read -r j took gap; do
	case $gap in
	-*) ts_log "slurmd: job $j ran $took s" ;;
	*) ts_log "slurmd: job $j ran $took s, launched $gap s after the previous one ended" ;;
	esac
done <"$TS_TMP/jobs"
grep -h -o "^exp 1/1 .* rep 1: [A-Za-z]* in [0-9.]* s" "$W"/logs/shard-*.out | while read -r line; do ts_log "$line"; done

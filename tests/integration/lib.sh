# shellcheck shell=bash
# SPDX-License-Identifier: MIT
#
# Shared helpers of the integration tests (tests/integration/t_*.sh).
#
# Each test script is run as `bash t_NAME.sh PATH_TO_TASSHAPE` (CMake does
# this for every t_*.sh, label "integration"), and starts with
#
#     . "$(dirname "$0")/lib.sh"
#     ts_init NAME "${1:-}" TOOL...
#
# ts_init skips (exit 77) when not root or a TOOL is missing, then creates
# the test's own network namespace $TS_NS ("tastest-NAME-PID", lo up).
# Everything the test runs lives in that namespace: the iperf3 servers and
# tasshape itself (`ip netns exec $TS_NS tasshape ...`), so the outer end
# of the emulated link is $TS_NS and no traffic touches the host's own
# network. More namespaces (ts_netns_add) are checked and deleted the same
# way. On exit (any exit, also on a failed assertion or a signal) the
# trap kills what the test started, checks that no namespace, link or
# iptables rule of a tasshape run of this test remains (a leftover fails
# the test; it is then removed with `tasshape cleanup --pid PID`, which
# touches only that run's objects), deletes the namespaces and exits 0
# (pass), 1 (an assertion failed), 77 (skipped) or 2 (usage).
#
# With TS_REQUIRE=1 in the environment (tools/test.sh sets it when it runs
# the suite as root, as CI does) a skip is a failure: exit 1 with the
# reason, so a missing tool or a refused namespace cannot pass unnoticed.
#
# ts_init_user is the same without root and without a namespace, for
# tests of the commands that need neither (tasshape sim).
#
# The tests run tasshape in conservation check mode (TASSHAPE_CHECK=1).
#
# Assertions print the measured value, the accepted range and ok/FAIL; a
# failed assertion does not stop the test (so every number is printed),
# but the test exits 1 at the end. ts_die stops at once.

set -u

# Every tasshape run of the tests checks conservation after each loop turn
# (docs/reliability.md): a count that does not add up fails the run loudly.
export TASSHAPE_CHECK=1

TS_NAME=
TS_BIN=
TS_NS=
TS_TMP=
TS_FAILED=0
TS_START=$SECONDS
TS_BG_PIDS=()  # background processes started with ts_bg
TS_TAS_PIDS=() # pids of tasshape runs (their objects carry the pid in the name)
TS_RUN_PID=    # pid of the last tasshape run started by ts_shape/ts_shape_bg
TS_EXTRA_NS=() # namespaces made by ts_netns_add: checked for leftovers, deleted on exit
TS_EXTRA_DIRS=() # directories a test made outside $TS_TMP: removed on exit, whatever the result
TS_EXTRA_USERS=() # users made by ts_user_add: their processes killed, then removed, on exit

ts_log() { printf '[%s] %s\n' "$TS_NAME" "$*"; }
ts_skip() {
	if [ "${TS_REQUIRE:-0}" = 1 ]; then
		ts_log "FAIL: would skip, but TS_REQUIRE=1: $*"
		TS_FAILED=$((TS_FAILED + 1))
		exit 1
	fi
	ts_log "SKIP: $*"
	exit 77
}
# ts_skip_part REASON: a part of the test cannot run here (an optional
# kernel feature or tool): logged, and a failure with TS_REQUIRE=1.
ts_skip_part() {
	if [ "${TS_REQUIRE:-0}" = 1 ]; then
		ts_fail "would skip a part, but TS_REQUIRE=1: $*"
	else
		ts_log "SKIP (part): $*"
	fi
}
ts_fail() {
	ts_log "FAIL: $*"
	TS_FAILED=$((TS_FAILED + 1))
}
ts_die() {
	ts_fail "$*"
	exit 1
}

# ts__begin NAME TASSHAPE ROOT [TOOL...]: arguments, root (ROOT=1), tools,
# the exit trap and the temporary directory.
ts__begin() {
	local t root=$3
	TS_NAME=$1
	TS_BIN=${2:-}
	shift 3
	if [ -z "$TS_BIN" ]; then
		echo "usage: bash $0 PATH_TO_TASSHAPE" >&2
		exit 2
	fi
	if [ ! -x "$TS_BIN" ]; then
		echo "$0: $TS_BIN is not an executable" >&2
		exit 2
	fi
	TS_BIN=$(cd "$(dirname "$TS_BIN")" && pwd)/$(basename "$TS_BIN")
	if [ "$root" = 1 ]; then
		[ "$(id -u)" -eq 0 ] || ts_skip "needs root (namespaces, veth, iptables)"
		set -- ip ss iptables-save ip6tables-save "$@"
	fi
	for t in jq awk "$@"; do
		command -v "$t" >/dev/null 2>&1 || ts_skip "$t is not installed"
	done
	trap ts__exit EXIT
	trap 'ts_log "interrupted"; exit 1' INT TERM HUP
	TS_TMP=$(mktemp -d "/tmp/tastest-$TS_NAME.XXXXXX") || ts_die "mktemp failed"
}

# ts_init NAME TASSHAPE [TOOL...]: checks and creates the test namespace.
# Tests that use ts_descendants or ps list ps among the TOOLs.
ts_init() {
	local name=$1 bin=${2:-}
	shift 2 || shift $#
	ts__begin "$name" "$bin" 1 "$@"
	TS_NS="tastest-$TS_NAME-$$"
	if ! ip netns add "$TS_NS" 2>"$TS_TMP/netns.err"; then
		TS_NS=
		ts_skip "cannot create a network namespace: $(cat "$TS_TMP/netns.err")"
	fi
	ip -n "$TS_NS" link set lo up || ts_die "cannot set lo up in $TS_NS"
	ts_log "namespace $TS_NS, tasshape $TS_BIN, temp $TS_TMP"
}

# ts_init_user NAME TASSHAPE [TOOL...]: for tests that need neither root
# nor a namespace: checks the tools, sets the exit trap and $TS_TMP.
ts_init_user() {
	local name=$1 bin=${2:-}
	shift 2 || shift $#
	ts__begin "$name" "$bin" 0 "$@"
	ts_log "tasshape $TS_BIN, temp $TS_TMP (no root needed)"
}

# ts_user_add NAME [subids]: creates a user and group NAME, without a home
# or a login shell, for a test that runs something unprivileged: a system
# user, or with "subids" a regular one, to which useradd grants ranges in
# /etc/subuid and /etc/subgid (login.defs SUB_UID_COUNT; userdel removes
# them). On exit every process of that uid is killed (by pid) and the
# user removed.
ts_user_add() {
	local kind=--system
	[ "${2:-}" = subids ] && kind=
	# shellcheck disable=SC2086 # $kind is one option or none
	useradd $kind --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
		--user-group "$1" 2>"$TS_TMP/useradd.err" ||
		ts_skip "cannot create user $1: $(cat "$TS_TMP/useradd.err")"
	TS_EXTRA_USERS+=("$1")
}

# ts_user_rt PRIO: how a user's runs get real-time scheduling here, in the
# array TS_RT (a command prefix) and TS_RT_HOW. "limit": RLIMIT_RTPRIO PRIO
# (limits.conf's rtprio, set by prlimit before the drop), which needs
# CAP_SYS_RESOURCE that a container's root may lack. Else "policy": root
# starts the run with SCHED_FIFO 10 (chrt, as a systemd unit's
# CPUSchedulingPolicy=fifo does), which the shaper keeps (asking for the
# policy it has at the priority it has needs no limit, sched(7)) and CMD
# does not inherit. Else "none": normal scheduling, which is the machine a
# user without a real-time budget has (not a skip). Each case is logged.
ts_user_rt() {
	TS_RT=(prlimit --rtprio="$1" --memlock=unlimited --)
	TS_RT_HOW=limit
	"${TS_RT[@]}" true 2>/dev/null && return 0
	if chrt -f 10 true 2>/dev/null; then
		TS_RT=(chrt -f 10)
		TS_RT_HOW=policy
		ts_log "prlimit cannot raise RLIMIT_RTPRIO here (no CAP_SYS_RESOURCE): the user's runs" \
			"start with SCHED_FIFO 10 given by root; SCHED_FIFO within RLIMIT_RTPRIO is not exercised"
	else
		TS_RT=()
		TS_RT_HOW=none
		ts_log "neither prlimit nor chrt can give a user real-time scheduling here: the runs" \
			"have normal scheduling; SCHED_FIFO without root is not exercised"
	fi
}

# ts_vm_user PREFIX CWD [DIR...]: for a test that runs a guest as an
# unprivileged user. Root fetches Debian's kernel into $CACHE (the test
# namespace has no network; the user reads it through TASSHAPE_CACHE),
# then makes user $U (PREFIX and the test's pid, uid $UID1) and its own
# directory $UDIR: a copy of tasshape (the build directory may be closed
# to others), TMPDIR ($UDIR/tmp) and each DIR, all the user's. Not under
# /tmp: a guest mounts its own /tmp, and tasshape vm refuses a tasshape
# it would not see. $AS_U is the command prefix that runs as the user in
# the test namespace, in $UDIR/CWD ("." for $UDIR itself).
ts_vm_user() {
	local d
	CACHE=${TASSHAPE_CACHE:-/var/cache/tasshape}
	TASSHAPE_CACHE=$CACHE "$TS_BIN" vm --kernel debian --fetch-only >/dev/null ||
		ts_die "--kernel debian: cannot fetch the kernel"
	U=$1$$
	ts_user_add "$U"
	# shellcheck disable=SC2034 # for the test that calls this
	UID1=$(id -u "$U")
	UDIR=$(mktemp -d "/var/tmp/tastest-${TS_NAME//_/-}-$U.XXXXXX") || ts_die "mktemp failed"
	TS_EXTRA_DIRS+=("$UDIR")
	for d in tmp "${@:3}"; do
		if ! mkdir "$UDIR/$d" || ! chown "$U:$U" "$UDIR/$d"; then
			ts_die "cannot make $UDIR/$d"
		fi
	done
	if ! cp "$TS_BIN" "$UDIR/tasshape" || ! chmod 755 "$UDIR" "$UDIR/tasshape" ||
		! chown "$U:$U" "$UDIR"; then
		ts_die "cannot prepare $UDIR"
	fi
	# shellcheck disable=SC2034 # for the test that calls this
	AS_U=(ip netns exec "$TS_NS" setpriv --reuid="$U" --regid="$U" --init-groups --
		env -C "$UDIR/$2" HOME=/nonexistent USER="$U" TASSHAPE_CACHE="$CACHE"
		TMPDIR="$UDIR/tmp")
}

# ts_vm_begin: for a test that boots guests: $VMTMP (their TMPDIR, under
# $TS_TMP) made, the host's mounts of the kinds a VM run could leave (9p,
# overlay, anything under $TS_TMP; other tests' namespaces come and go
# meanwhile, so these only) recorded for ts_vm_left, and Debian's kernel
# fetched here, where the network is (the test namespace has none).
ts_vm_begin() {
	VMTMP=$TS_TMP/vmtmp
	mkdir -p "$VMTMP" || ts_die "cannot make $VMTMP"
	ts__vm_mounts >"$TS_TMP/mounts.before"
	"$TS_BIN" vm --kernel debian --fetch-only >/dev/null ||
		ts_die "--kernel debian: cannot fetch the kernel"
}
ts__vm_mounts() {
	awk -v t="$TS_TMP" '$3 == "9p" || $3 == "overlay" || index($2, t) == 1' /proc/mounts | sort
}

# ts_vm_left: nothing of the test's guests is left on the host: no process
# naming $VMTMP, no file in it, no mount that ts_vm_begin did not see.
ts_vm_left() {
	local left new
	left=$(pgrep -f "$VMTMP" | tr '\n' ' ')
	[ -z "$left" ] || ts_fail "processes left: $left"
	[ -z "$(ls -A "$VMTMP")" ] || ts_fail "temporary files left: $(ls -A "$VMTMP")"
	ts__vm_mounts >"$TS_TMP/mounts.after"
	new=$(comm -13 "$TS_TMP/mounts.before" "$TS_TMP/mounts.after")
	[ -z "$new" ] || ts_fail "mounts left on the host: $new"
}

# ts_netns_add NAME: creates namespace NAME (lo up) for the test; on exit
# it is checked for leftovers of the test's runs and deleted.
ts_netns_add() {
	ip netns add "$1" 2>"$TS_TMP/netns.err" ||
		ts_skip "cannot create network namespace $1: $(cat "$TS_TMP/netns.err")"
	TS_EXTRA_NS+=("$1")
	ip -n "$1" link set lo up || ts_die "cannot set lo up in $1"
}

# ts_ns CMD...: runs CMD in the test namespace (foreground).
ts_ns() { ip netns exec "$TS_NS" "$@"; }

# ts_bg CMD...: starts CMD in the test namespace in the background; its
# pid is killed on exit.
ts_bg() {
	ip netns exec "$TS_NS" "$@" &
	TS_BG_PIDS+=($!)
}

# ts_own_pid PID: remember a tasshape pid started indirectly (for example
# a nested run) so the exit check looks for its leftovers too.
ts_own_pid() { TS_TAS_PIDS+=("$1"); }

# ts_shape_bg [TASSHAPE ARGS...]: starts tasshape in the test namespace in
# the background; sets TS_RUN_PID.
ts_shape_bg() {
	ip netns exec "$TS_NS" "$TS_BIN" "$@" &
	TS_RUN_PID=$!
	TS_TAS_PIDS+=("$TS_RUN_PID")
}

# ts_shape [TASSHAPE ARGS...]: runs tasshape in the test namespace and
# returns its exit status. A watchdog sends SIGTERM after TS_RUN_LIMIT
# seconds (default 50) and SIGKILL 5 s later, so a hung run cannot hang
# the test. Redirections of the call apply to tasshape and its CMD.
ts_shape() {
	local limit=${TS_RUN_LIMIT:-50} wd rc
	ts_shape_bg "$@"
	ts__watchdog "$TS_RUN_PID" "$limit" &
	wd=$!
	wait "$TS_RUN_PID"
	rc=$?
	wait "$wd"
	return $rc
}

# Waits for PID; TERM after LIMIT s, KILL 5 s later. Ends with PID.
# tail(1) checks PID every 0.1 s without starting a process: a `sleep`
# started ten times a second puts its fork, exec and exit on every CPU, and
# on a kernel without full preemption the shaper's real-time loop waits for
# such kernel work (t_rt.sh's loaded case: release p99 190-280 us with it,
# 60-100 us without).
# ts__wait_pid PID SECONDS: 0 once PID is gone, 1 when it outlived SECONDS.
ts__wait_pid() {
	local rc
	timeout "$2" tail --pid="$1" -s 0.1 -f /dev/null
	rc=$?
	[ "$rc" -eq 124 ] && return 1
	# tail failed otherwise (it should not): wait the old way rather than signal early.
	while [ "$rc" -ne 0 ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.1
	done
	return 0
}
ts__watchdog() {
	local pid=$1 limit=$2
	ts__wait_pid "$pid" "$limit" && return 0
	echo "[$TS_NAME] tasshape pid $pid still running after $limit s: SIGTERM" >&2
	kill -TERM "$pid" 2>/dev/null
	ts__wait_pid "$pid" 5 && return 0
	echo "[$TS_NAME] tasshape pid $pid ignores SIGTERM: SIGKILL" >&2
	kill -KILL "$pid" 2>/dev/null
	ts__wait_pid "$pid" 5
	return 0
}

# ts_iperf_server PORT [IPERF3 ARGS...]: starts a one-shot iperf3 server in
# the test namespace and waits (up to 5 s) until it listens.
ts_iperf_server() {
	local port=$1 _
	shift
	ts_bg iperf3 -s -1 -p "$port" "$@" >"$TS_TMP/iperf3-server-$port.log" 2>&1
	for _ in $(seq 50); do
		if [ -n "$(ts_ns ss -Hltn "sport = :$port" 2>/dev/null)" ]; then
			return 0
		fi
		sleep 0.1
	done
	ts_die "iperf3 server on port $port did not start: $(cat "$TS_TMP/iperf3-server-$port.log")"
}

# ts_wait_netns PID SECONDS: waits until tasshape PID's namespace exists.
ts_wait_netns() {
	local _
	for _ in $(seq $(($2 * 10))); do
		if compgen -G "/run/netns/tas-$1-*" >/dev/null; then
			return 0
		fi
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# ts_descendants PID: prints the pids of PID's descendants, one a line
# (uses ps: list it among ts_init's tools).
ts_descendants() {
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		echo "$c"
		ts_descendants "$c"
	done
}

# ts_leftovers PID...: prints, one a line, what the tasshape runs PID...
# left: their namespaces in /run/netns, their links in the test's namespaces
# and in the host's, and their iptables rules (comment "tas:PID") there. Each
# listing is read once for all the PIDs, and filtered by one awk: a test's exit
# checks every run it made, and t_badinput makes 80 (one grep and one sed per
# listing and PID took 40 of its 52 s).
ts_leftovers() {
	local alt f ns where p
	alt=$(IFS='|' && echo "$*")
	for p in "$@"; do
		for f in /run/netns/tas-"$p"-*; do
			[ -e "$f" ] && echo "namespace $f"
		done
	done
	for ns in "$TS_NS" "${TS_EXTRA_NS[@]}" ""; do
		if [ -n "$ns" ]; then
			[ -e "/run/netns/$ns" ] || continue
			where=$ns
		else
			where="(host)"
		fi
		ts__in "$ns" ip -o link show | awk -F': ' -v w="$where" -v re="^tas($alt)-" \
			'{ sub(/@.*/, "", $2) } $2 ~ re { print "link " w " " $2 }'
		for f in iptables-save ip6tables-save; do
			ts__in "$ns" "$f" | awk -v w="$where" -v f="$f" -v re="tas:($alt)([^0-9]|$)" \
				'$0 ~ re { print "rule " w " " f ": " $0 }'
		done
	done
	return 0
}

# ts__in NS CMD...: runs CMD in namespace NS, or where we are when NS is "".
ts__in() {
	local ns=$1
	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@" 2>/dev/null
	else
		"$@" 2>/dev/null
	fi
}

# Numeric assertions (decimal numbers, compared with awk). Each prints
# "LABEL: VALUE UNIT (want ...) ok|FAIL" and returns 0 on success.
ts__cmp() { awk -v a="$1" -v b="$3" "BEGIN { exit !((a + 0) $2 (b + 0)) }"; }
ts__num() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; }

# ts_range LABEL VALUE LO HI [UNIT]
ts_range() {
	local what="$1: $2 ${5:-}(want $3 .. $4)"
	if ts__num "$2" && ts__cmp "$2" ">=" "$3" && ts__cmp "$2" "<=" "$4"; then
		ts_log "$what ok"
		return 0
	fi
	ts_fail "$what"
	return 1
}

# ts_check LABEL VALUE OP LIMIT [UNIT]; OP is an awk comparison (<= > == ...)
ts_check() {
	local what="$1: $2 ${5:-}(want $3 $4)"
	if ts__num "$2" && ts__cmp "$2" "$3" "$4"; then
		ts_log "$what ok"
		return 0
	fi
	ts_fail "$what"
	return 1
}

# ts_true LABEL COMMAND...: asserts that COMMAND succeeds.
ts_true() {
	local what=$1
	shift
	if "$@"; then
		ts_log "$what ok"
		return 0
	fi
	ts_fail "$what"
	return 1
}

# jqt FILTER FILE...: jq -e, quietly, for ts_true (whose own line is then what is printed).
jqt() { jq -e "$@" >/dev/null; }

# ts_elapsed T0: seconds since T0 (a `date +%s.%N` value), 2 decimals.
ts_elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

# ts_mbit BITS_PER_SECOND: prints it in Mbit/s with 3 decimals.
ts_mbit() { awk -v b="$1" 'BEGIN { printf "%.3f", b / 1e6 }'; }

# ts_ping_stats FILE: prints "TRANSMITTED RECEIVED MIN AVG MAX" (ms) from
# ping's summary in FILE ("-" for the RTTs when nothing came back).
ts_ping_stats() {
	awk '
		/packets transmitted/ { tx = $1; rx = $4 }
		/^(rtt|round-trip)/ { split($4, r, "/"); mn = r[1]; av = r[2]; mx = r[3] }
		END { if (tx == "") exit 1
		      printf "%s %s %s %s %s\n", tx, rx, (mn == "" ? "-" : mn),
			     (av == "" ? "-" : av), (mx == "" ? "-" : mx) }' "$1"
}

# ts_show FILE...: prints files (a command's output) indented, for the log.
ts_show() {
	local f
	for f in "$@"; do
		[ -s "$f" ] && sed 's/^/    | /' "$f"
	done
	return 0
}

ts__exit() {
	local rc=$? p left pid ns ok=1
	set +e
	trap - EXIT INT TERM HUP
	[ -n "$TS_NAME" ] || exit "$rc"
	# What the test started: background helpers, then any tasshape run
	# still going (SIGTERM first: it cleans up after itself).
	for p in "${TS_BG_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${TS_BG_PIDS[@]}"; do
		for pid in $(seq 20); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null
	done
	for pid in "${TS_TAS_PIDS[@]}"; do
		if kill -0 "$pid" 2>/dev/null; then
			ts_log "tasshape pid $pid still running at exit: SIGTERM"
			kill -TERM "$pid" 2>/dev/null
			for p in $(seq 50); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			kill -KILL "$pid" 2>/dev/null
		fi
	done
	wait 2>/dev/null
	# Only this test's processes live in its namespaces.
	for ns in "$TS_NS" "${TS_EXTRA_NS[@]}"; do
		if [ -n "$ns" ] && [ -e "/run/netns/$ns" ]; then
			for p in $(ip netns pids "$ns" 2>/dev/null); do
				kill -KILL "$p" 2>/dev/null
			done
		fi
	done
	if [ "$rc" -ne 77 ] && [ "${#TS_TAS_PIDS[@]}" -gt 0 ]; then
		left=$(ts_leftovers "${TS_TAS_PIDS[@]}")
		if [ -n "$left" ]; then
			ts_fail "leftovers of this test's tasshape runs:"
			printf '%s\n' "$left" | sed 's/^/    /'
			# Only this test's runs, by pid: other tests' runs may be going.
			for pid in "${TS_TAS_PIDS[@]}"; do
				[ -n "$(ts_leftovers "$pid")" ] || continue
				ts_log "removing them with tasshape cleanup --pid $pid"
				for ns in "$TS_NS" "${TS_EXTRA_NS[@]}"; do
					[ -n "$ns" ] && [ -e "/run/netns/$ns" ] &&
						ip netns exec "$ns" "$TS_BIN" cleanup --pid "$pid" -v
				done
				"$TS_BIN" cleanup --pid "$pid" -v
			done
		else
			ts_log "no namespace, link or rule of this test's tasshape runs remains ok"
		fi
	fi
	for ns in "$TS_NS" "${TS_EXTRA_NS[@]}"; do
		[ -n "$ns" ] && ip netns del "$ns" 2>/dev/null
	done
	for p in "${TS_EXTRA_DIRS[@]}"; do
		rm -rf "$p"
	done
	for ns in "${TS_EXTRA_USERS[@]}"; do
		for p in $(pgrep -u "$ns"); do
			kill -KILL "$p" 2>/dev/null
		done
		userdel "$ns" 2>/dev/null || ts_fail "cannot remove user $ns"
	done
	# The namespaces are global: check again once the test namespace is gone.
	if [ "$rc" -ne 77 ]; then
		for pid in "${TS_TAS_PIDS[@]}"; do
			if compgen -G "/run/netns/tas-$pid-*" >/dev/null; then
				ts_fail "namespace /run/netns/tas-$pid-* still exists"
			fi
		done
	fi
	[ "$TS_FAILED" -eq 0 ] || ok=0
	if [ "$rc" -eq 77 ]; then
		:
	elif [ "$ok" -eq 1 ] && [ "$rc" -eq 0 ]; then
		ts_log "PASS ($((SECONDS - TS_START)) s)"
	else
		[ "$rc" -ne 0 ] || rc=1
		# A test may remove its files itself, even on failure (t_slurm.sh: a key is among them).
		p=
		[ -n "$TS_TMP" ] && [ -d "$TS_TMP" ] && p="; files kept in $TS_TMP"
		# timed.sh removes them when the run it starts again passes.
		[ -z "$p" ] || [ -z "${TS_KEPT_LOG:-}" ] || echo "$TS_TMP" >>"$TS_KEPT_LOG"
		ts_log "FAILED: $TS_FAILED assertion(s), exit $rc ($((SECONDS - TS_START)) s)$p"
	fi
	if [ -n "$TS_TMP" ] && { [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]; }; then
		rm -rf "$TS_TMP"
	fi
	exit "$rc"
}

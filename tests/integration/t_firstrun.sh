#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# First-run experience: tasshape doctor (passes here, and reports a forced
# failure: unprivileged through setpriv, and a PATH without iperf3; leaves
# no namespace, link or rule behind), --trace NAME resolving to the bundled
# trace of an installed copy (cmake --install into a temporary prefix), the
# man pages (mandoc -Tlint, and every option of the help documented), the
# bash completion (sourced, its function called as bash would), and
# --version naming the git revision.
. "$(dirname "$0")/lib.sh"
ts_init firstrun "${1:-}" mandoc setpriv cmake
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(dirname "$TS_BIN")

# --- 1. doctor passes on this machine, and leaves nothing behind
ip netns exec "$TS_NS" "$TS_BIN" doctor --json >"$TS_TMP/doctor.json" 2>"$TS_TMP/doctor.err" &
pid=$!
ts_own_pid "$pid"
wait "$pid"
rc=$?
ts_check "doctor: exit status" "$rc" == 0 || ts_show "$TS_TMP/doctor.json" "$TS_TMP/doctor.err"
ts_true "doctor: ok is true" jqt '.ok == true' "$TS_TMP/doctor.json"
for c in privileges iptables namespaces nfqueue; do
	st=$(jq -r --arg c "$c" '.checks[] | select(.check == $c) | .status' "$TS_TMP/doctor.json")
	ts_true "doctor: core check $c is ok (got '$st')" [ "$st" = ok ]
done
n=$(jq '[.checks[] | select(.status != "ok" and (.fix // "") == "")] | length' "$TS_TMP/doctor.json")
ts_check "doctor: checks that are not ok but name no fix (cpus may)" "$n" "<=" 1
# The kernel's preemption model (src/run/preempt.h): ok exactly for the fully preemptible ones.
pre=$(jq -r '.checks[] | select(.check == "preemption") | "\(.status) \(.detail | split(" ")[0])"' \
	"$TS_TMP/doctor.json")
ts_true "doctor: preemption named, ok only when full ('$pre')" \
	grep -qxE 'ok (full|lazy|rt)|info (none|voluntary|unknown)' <<<"$pre"
# Where the kernel's own configuration decides (a dynamic kernel's default, no preempt= and
# no readable debugfs), doctor reports that default.
if uname -v | grep -qw PREEMPT_DYNAMIC && [ -r /proc/config.gz ] &&
	! grep -qw 'preempt=[a-z]*' <(sed 's/ -- .*//' /proc/cmdline) &&
	! cat /sys/kernel/debug/sched/preempt >/dev/null 2>&1; then
	want=$(zcat /proc/config.gz | sed -n -e 's/^CONFIG_PREEMPT_NONE=y$/none/p' \
		-e 's/^CONFIG_PREEMPT_VOLUNTARY=y$/voluntary/p' -e 's/^CONFIG_PREEMPT=y$/full/p' \
		-e 's/^CONFIG_PREEMPT_LAZY=y$/lazy/p' | head -1) # a Kconfig choice: one of them
	if [ -n "$want" ]; then
		ts_true "doctor: preemption is the configuration's default ($want: '$pre')" \
			grep -qE " $want\$" <<<"$pre"
	fi
fi
left=$(ts_leftovers "$pid")
ts_true "doctor: no namespace, link or rule of pid $pid left" [ -z "$left" ] || echo "$left"
ts_true "doctor: no KVM probe directory left in /tmp" \
	bash -c "! compgen -G '/tmp/tasshape-doctor-*' >/dev/null"
"$TS_BIN" doctor >"$TS_TMP/doctor.txt" 2>&1
ts_true "doctor (text): one line per check, OK first" grep -q '^OK    privileges' "$TS_TMP/doctor.txt"

# --- 2. a forced failure: unprivileged, through setpriv
if setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$TS_BIN"; then
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$TS_BIN" doctor --json >"$TS_TMP/unpriv.json" 2>&1
	rc=$?
	ts_check "doctor as uid 65534: exit status" "$rc" == 1
	ts_true "doctor as uid 65534: ok is false" jqt '.ok == false' "$TS_TMP/unpriv.json"
	ts_true "doctor as uid 65534: privileges fail, with 'sudo tasshape doctor' as the fix" \
		jqt '.checks[] | select(.check == "privileges") |
			.status == "fail" and .fix == "sudo tasshape doctor"' "$TS_TMP/unpriv.json"
	ts_true "doctor as uid 65534: nfqueue not tried, failed" \
		jqt '.checks[] | select(.check == "nfqueue") | .status == "fail"' "$TS_TMP/unpriv.json"
else
	ts_skip_part "uid 65534 cannot execute $TS_BIN (directory permissions)"
fi

# --- 3. a PATH without iperf3: a warning with the install command, still exit 0
mkdir -p "$TS_TMP/bin"
for t in iptables ip6tables; do ln -sf "$(command -v "$t")" "$TS_TMP/bin/$t"; done
ip netns exec "$TS_NS" env PATH="$TS_TMP/bin" "$TS_BIN" doctor --json >"$TS_TMP/nopath.json" 2>&1
rc=$?
ts_check "doctor with PATH lacking iperf3: exit status (core checks still pass)" "$rc" == 0
ts_true "doctor with PATH lacking iperf3: iperf3 warns, fix 'sudo apt-get install iperf3'" \
	jqt '.checks[] | select(.check == "iperf3") |
		.status == "warn" and .fix == "sudo apt-get install iperf3"' "$TS_TMP/nopath.json"

# --- 4. --trace starlink resolves to the installed bundled trace
inst=$TS_TMP/inst
cmake --install "$BUILD" --prefix "$inst" >"$TS_TMP/install.log" 2>&1 ||
	ts_die "cmake --install failed: $(tail -3 "$TS_TMP/install.log")"
for f in bin/tasshape share/tasshape/traces/starlink.csv share/man/man1/tasshape.1.gz \
	share/man/man5/tasshape-traces.5.gz share/bash-completion/completions/tasshape \
	share/doc/tasshape/README.md; do
	ts_true "installed: $f" [ -e "$inst/$f" ]
done
mkdir -p "$TS_TMP/cwd"
(cd "$TS_TMP/cwd" && ip netns exec "$TS_NS" "$inst/bin/tasshape" --trace starlink --duration 1s \
	--quiet --out run -- true) &
pid=$!
ts_own_pid "$pid"
wait "$pid"
rc=$?
ts_check "installed tasshape --trace starlink: exit status (true's)" "$rc" == 0
trace=$(jq -r '.link.downlink.trace' "$TS_TMP/cwd/run/manifest.json" 2>/dev/null)
ts_true "--trace starlink is $inst/share/tasshape/traces/starlink.csv (got '$trace')" \
	[ "$trace" = "$inst/share/tasshape/traces/starlink.csv" ]
# A file of that name in the current directory wins.
echo 1 >"$TS_TMP/cwd/starlink"
(cd "$TS_TMP/cwd" && "$inst/bin/tasshape" trace check starlink) >"$TS_TMP/check.out" 2>&1
ts_true "a ./starlink file is read instead (mahimahi)" grep -q "starlink: ok: mahimahi" \
	"$TS_TMP/check.out" || ts_show "$TS_TMP/check.out"
(cd "$TS_TMP/cwd" && "$inst/bin/tasshape" trace list) >"$TS_TMP/list.out" 2>&1
ts_true "trace list (installed): starlink with its mean rates and description" \
	grep -qE '^starlink +105\.0 +13\.2  Starlink LEO' "$TS_TMP/list.out"

# --- 5. man pages: lint clean, every option of the help documented
for m in "$SRC"/man/*.[15]; do
	ts_true "mandoc -Tlint -Wwarning $(basename "$m")" mandoc -Tlint -Wwarning "$m"
done
# The long options of a help's option column (not the ones its examples use).
opts() { "$TS_BIN" "$@" --help | sed '/^Mandatory or optional/q' |
	sed -nE 's/^(  -., |      )(--[a-z][a-z0-9-]*).*/\2/p' |
	sort -u | grep -vxE -- '--(help|usage|version)'; }
page() { mandoc -Tascii "$SRC/man/$1" | col -b; }
missing=$(comm -23 <(opts) <(page tasshape.1 | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u))
ts_true "tasshape(1) documents every option of tasshape --help (missing: ${missing:-none})" \
	[ -z "$missing" ]
for sub in list check stats convert plot gen import; do
	missing=$(comm -23 <(opts trace "$sub") \
		<(page tasshape-trace.1 | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u))
	ts_true "tasshape-trace(1) documents trace $sub's options (missing: ${missing:-none})" \
		[ -z "$missing" ]
done

# The pages written from the exp and vm specifications follow the commands once they exist.
for cmd in "vm:tasshape-vm.1" "exp run:tasshape-exp.1" "exp merge:tasshape-exp.1" \
	"exp flent:tasshape-exp.1" "exp report:tasshape-exp.1"; do
	read -r -a words <<<"${cmd%%:*}"
	"$TS_BIN" "${words[@]}" --help >/dev/null 2>&1 || continue
	missing=$(comm -23 <(opts "${words[@]}") \
		<(page "${cmd#*:}" | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u))
	ts_true "${cmd#*:} documents every option of tasshape ${cmd%%:*} (missing: ${missing:-none})" \
		[ -z "$missing" ]
done

# --- 6. completion: tasshape tr<TAB>, --trace <TAB>, --queue <TAB>
comp() {
	PATH=$BUILD:$PATH bash -c '. "$1"; shift; COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _tasshape; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$SRC/completion/tasshape.bash" "$@"
}
ts_true "completion: 'tasshape tr<TAB>' offers trace" [ "$(comp tasshape tr)" = trace ]
ts_true "completion: 'tasshape --trace <TAB>' offers starlink and 5g-mmwave-driving" \
	bash -c '[ "$(printf "%s\n" "$@" | grep -cxE "starlink|5g-mmwave-driving")" = 2 ]' _ \
	$(comp tasshape --trace "")
ts_true "completion: 'tasshape --queue <TAB>' offers the queue table" \
	[ "$(comp tasshape --queue "" | tr '\n' ' ')" = "$("$TS_BIN" __complete queue | tr '\n' ' ')" ]
ts_true "completion: 'tasshape trace stats --j<TAB>' offers --json" \
	[ "$(comp tasshape trace stats --j)" = --json ]
# The internal commands exp run starts (exp-agent, exp-guest) are for tasshape itself: not in
# the help, not offered, yet still callable.
ts_true "completion: 'tasshape exp<TAB>' offers exp only (got: $(comp tasshape exp | tr '\n' ' '))" \
	[ "$(comp tasshape exp)" = exp ]
for h in --help help; do
	n=$("$TS_BIN" "$h" 2>&1 | grep -cE 'exp-(agent|guest)')
	ts_check "tasshape $h: lines naming exp-agent or exp-guest" "$n" == 0
done
"$TS_BIN" exp-agent >/dev/null 2>"$TS_TMP/agent.err"
ts_check "tasshape exp-agent (no job): exit status, a usage error" "$?" == 64
ts_true "tasshape exp-agent is still a command: its own usage, not 'unknown command'" \
	grep -q "exp-agent: expected JOB.json" "$TS_TMP/agent.err" || ts_show "$TS_TMP/agent.err"

# --- 7. a usage error exits 64 (EX_USAGE, tasshape(1) EXIT STATUS) from every command, whether
# argp or the command found it; none of these gets as far as touching the system.
while read -r want args; do
	read -r -a words <<<"$args"
	"$TS_BIN" "${words[@]}" >/dev/null 2>"$TS_TMP/usage.err"
	rc=$?
	ts_check "tasshape $args: exit status ($(head -n1 "$TS_TMP/usage.err" | cut -c1-80))" \
		"$rc" == "$want"
done <<'EOF_USAGE'
64 no-such-command
64 --no-such-option
64 trace
64 trace no-such-command
64 trace stats
64 trace check --no-such-option
64 exp
64 exp no-such-command
64 exp list
64 exp check
64 exp merge
64 exp merge out-only
64 exp merge --no-such-option out dir
64 exp flent
64 exp flent --no-such-option dir
64 exp report
64 exp report dir1 dir2
64 exp report --no-such-option dir
64 exp resume
64 sim --no-such-option
64 attach --no-such-option
64 plot
64 doctor --no-such-option
64 cleanup --pid x
64 vm --no-such-option
EOF_USAGE
"$TS_BIN" exp merge --help >"$TS_TMP/merge.help" 2>&1
ts_check "exp merge --help: exit status" "$?" == 0
ts_true "exp merge --help: the usage line" grep -q '^Usage: tasshape exp merge \[OPTION...\] OUT DIR...' \
	"$TS_TMP/merge.help"

# --- 8. --version names the git revision
if rev=$(git -C "$SRC" rev-parse --short=7 HEAD 2>/dev/null); then
	ver=$("$TS_BIN" --version)
	ts_true "--version '$ver' contains the git revision $rev" grep -q "git $rev" <<<"$ver"
else
	ts_skip_part "$SRC is not a git work tree: no revision to compare"
fi
exit 0

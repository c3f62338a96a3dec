#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Paths written as root, the privilege drop, the umask and the --out lock
# (docs/security.md; issue 19 items 2, 3, 4 and the lock of item 7). A
# directory $S, mode 1777 and owned by nobody (uid 65534), stands for a
# shared directory where another local user plants names (links made here
# and given to 65534 with chown -h, as that user would make them).
# 1. Planted links are not followed: --summary-json, --out, --pcap-up,
#    --uplink-log, --stats, --sockstats, trace gen -o and trace convert -o
#    naming a link of 65534's (to a root 0600 file, the victim) fail with
#    a message, and the victim keeps its bytes; a link of 65534's in the
#    parent path (--stats $S/dir/x) is refused and nothing is created where
#    it points; another user's existing file is not replaced.
# 2. Nothing existing is handed over: with SUDO_UID/SUDO_GID 65534, an
#    existing root 0700 directory given as --out and an existing root 0600
#    file given as --summary-json keep owner 0 and their modes, while the
#    files the run creates in that directory belong to 65534; a root 1777
#    directory given as `--out .` keeps owner 0 and mode 1777.
# 3. The privilege drop fails closed: SUDO_UID=1000 with SUDO_GID missing,
#    empty or `abc`, and SUDO_UID=1000x, refuse to run CMD (its marker file
#    does not appear, exit 1, the message names the variable); with
#    --as-root CMD runs, as root.
# 4. One umask: under umask 000 nothing that exp run writes under its
#    results directory, and neither trace gen's nor trace convert's output,
#    is group- or world-writable.
# 5. The --out lock: while run A writes --out DIR, run B given the same
#    DIR fails at once (exit 1, a message saying another run writes it)
#    and A still ends with exit 0.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init sec_paths "${1:-}" iperf3 jq

# The test decides who the invoking user is; a sudo that started it does not.
unset SUDO_UID SUDO_GID SUDO_USER SUDO_COMMAND
NOBODY=65534
S=$TS_TMP/shared
mkdir "$S" "$TS_TMP/elsewhere"
chown "$NOBODY:$NOBODY" "$S"
chmod 1777 "$S"
VICTIM=$TS_TMP/victim
TRACE=$TS_TMP/c10.csv
"$TS_BIN" trace gen const --duration 2s -o "$TRACE" || ts_die "trace gen failed"

# plant NAME [TARGET]: a link $S/NAME to TARGET (default the victim, reset to its one line,
# root's, 0600, so that each case is judged alone), owned by 65534.
plant() {
	echo secret >"$VICTIM" && chown 0:0 "$VICTIM" && chmod 600 "$VICTIM" &&
		ln -sfn "${2:-$VICTIM}" "$S/$1" && chown -h "$NOBODY:$NOBODY" "$S/$1"
}

# victim_kept LABEL: the victim still holds its one line, with its owner and mode.
victim_kept() {
	ts_true "$1: the victim is untouched" \
		test "$(cat "$VICTIM"):$(stat -c %u:%a "$VICTIM")" = "secret:0:600"
}

# refused LABEL RC ERRFILE PATTERN: exit status non-zero and the message.
refused() {
	ts_check "$1: exit status" "$2" "!=" 0
	ts_true "$1: the message says why ($(head -c 300 "$3" | tr '\n' ' '))" grep -q "$4" "$3"
}

# --- 1. planted links
for opt in summary-json out pcap-up uplink-log stats sockstats; do
	plant "l-$opt"
	ts_shape --quiet --trace const:10mbit "--$opt" "$S/l-$opt" -- true 2>"$TS_TMP/err-$opt"
	rc=$?
	if [ "$opt" = out ]; then
		refused "--$opt through a link of uid 65534" "$rc" "$TS_TMP/err-$opt" \
			"symbolic link owned by uid 65534"
	else
		refused "--$opt through a link of uid 65534" "$rc" "$TS_TMP/err-$opt" \
			"is a symbolic link: not followed"
	fi
	victim_kept "--$opt"
done
plant dir "$TS_TMP/elsewhere"
ts_shape --quiet --trace const:10mbit --stats "$S/dir/stats.csv" -- true 2>"$TS_TMP/err-parent"
refused "--stats under a link of uid 65534" "$?" "$TS_TMP/err-parent" \
	"dir is a symbolic link owned by uid 65534.*not followed"
ts_check "--stats under a link: files created where it points" \
	"$(find "$TS_TMP/elsewhere" -mindepth 1 | wc -l)" == 0
echo theirs >"$S/theirs.json"
chown "$NOBODY:$NOBODY" "$S/theirs.json"
ts_shape --quiet --trace const:10mbit --summary-json "$S/theirs.json" -- true 2>"$TS_TMP/err-theirs"
refused "--summary-json over a file of uid 65534" "$?" "$TS_TMP/err-theirs" \
	"belongs to uid 65534.*not replaced"
ts_true "--summary-json over a file of uid 65534: it keeps its bytes" \
	test "$(cat "$S/theirs.json")" = theirs

plant gen.csv
"$TS_BIN" trace gen const --duration 2s -o "$S/gen.csv" 2>"$TS_TMP/err-gen"
refused "trace gen -o through a link" "$?" "$TS_TMP/err-gen" "is a symbolic link: not followed"
victim_kept "trace gen -o"
plant conv.txt
"$TS_BIN" trace convert "$TRACE" --to mahimahi -o "$S/conv.txt" 2>"$TS_TMP/err-conv"
refused "trace convert -o through a link" "$?" "$TS_TMP/err-conv" \
	"is a symbolic link: not followed"
victim_kept "trace convert -o"

# --- 2. nothing existing is handed over
mkdir -m 0700 "$TS_TMP/rootdir"
echo '{}' >"$TS_TMP/root600.json"
chmod 600 "$TS_TMP/root600.json"
SUDO_UID=$NOBODY SUDO_GID=$NOBODY ts_shape --quiet --trace const:10mbit --out "$TS_TMP/rootdir" \
	--summary-json "$TS_TMP/root600.json" -- true 2>"$TS_TMP/err-own"
ts_check "sudo, existing --out and summary: exit status" "$?" == 0
ts_show "$TS_TMP/err-own"
ts_true "existing root 0700 --out: still 0:700 ($(stat -c %u:%a "$TS_TMP/rootdir"))" \
	test "$(stat -c %u:%a "$TS_TMP/rootdir")" = 0:700
ts_true "existing root 0600 summary: still 0:600 ($(stat -c %u:%a "$TS_TMP/root600.json"))" \
	test "$(stat -c %u:%a "$TS_TMP/root600.json")" = 0:600
ts_check "existing root 0600 summary: rewritten (directions in the summary)" \
	"$(jq '.directions | length' "$TS_TMP/root600.json" 2>/dev/null)" == 2
ts_check "sudo: the manifest the run created belongs to 65534" \
	"$(stat -c %u "$TS_TMP/rootdir/manifest.json")" == "$NOBODY"
mkdir -m 1777 "$TS_TMP/pub"
(cd "$TS_TMP/pub" && SUDO_UID=$NOBODY SUDO_GID=$NOBODY ts_shape --quiet --trace const:10mbit \
	--out . -- true) 2>"$TS_TMP/err-pub"
ts_check "sudo, --out . in a root 1777 directory: exit status" "$?" == 0
ts_true "--out . in a root 1777 directory: still 0:1777 ($(stat -c %u:%a "$TS_TMP/pub"))" \
	test "$(stat -c %u:%a "$TS_TMP/pub")" = 0:1777

# --- 3. the privilege drop fails closed
n=0
for env in "SUDO_UID=1000" "SUDO_UID=1000 SUDO_GID=" "SUDO_UID=1000 SUDO_GID=abc" \
	"SUDO_UID=1000x SUDO_GID=1000"; do
	n=$((n + 1))
	ts_ns env $env "$TS_BIN" --quiet --trace const:10mbit -- touch "$TS_TMP/marker-$n" \
		2>"$TS_TMP/err-id-$n"
	rc=$?
	case $env in
	*1000x*) var=SUDO_UID ;;
	*) var=SUDO_GID ;;
	esac
	refused "$env" "$rc" "$TS_TMP/err-id-$n" "refusing to run the command.*$var"
	ts_true "$env: CMD did not run" test ! -e "$TS_TMP/marker-$n"
done
ts_ns env SUDO_UID=1000 SUDO_GID=abc "$TS_BIN" --quiet --as-root --trace const:10mbit -- \
	sh -c "id -u >$TS_TMP/marker-root" 2>"$TS_TMP/err-asroot"
ts_check "SUDO_GID=abc with --as-root: exit status" "$?" == 0
ts_check "SUDO_GID=abc with --as-root: CMD ran as uid" "$(cat "$TS_TMP/marker-root" 2>/dev/null)" == 0

# --- 4. one umask for every command
cat >"$TS_TMP/spec.ini" <<'INI'
[experiment]
name = umask
length = 2s
delay = 1s
[matrix]
cca = cubic
link = c20
test = tcp_upload
[link c20]
trace = const:20mbit
delay = 10ms
INI
(
	umask 000
	ts_ns "$TS_BIN" exp run "$TS_TMP/spec.ini" --out "$TS_TMP/exp" --no-progress \
		>"$TS_TMP/exp.log" 2>&1
	echo $? >"$TS_TMP/exp.rc"
	"$TS_BIN" trace gen const --duration 2s -o "$TS_TMP/u-gen.csv"
	"$TS_BIN" trace convert "$TRACE" --to mahimahi -o "$TS_TMP/u-conv.txt"
)
ts_check "umask 000: exp run exit status" "$(cat "$TS_TMP/exp.rc")" == 0
ts_show "$TS_TMP/exp.log"
ts_check "umask 000: files exp run wrote" "$(find "$TS_TMP/exp" -type f | wc -l)" ">=" 8
loose=$(find "$TS_TMP/exp" "$TS_TMP/u-gen.csv" "$TS_TMP/u-conv.txt" -perm /022 | tr '\n' ' ')
ts_true "umask 000: nothing group- or world-writable ($loose)" test -z "$loose"
ts_check "umask 000: trace gen/convert outputs written" \
	"$(cat "$TS_TMP/u-gen.csv" "$TS_TMP/u-conv.txt" | wc -l)" ">" 2

# --- 5. two runs, one --out
ts_shape_bg --quiet --trace const:10mbit --out "$TS_TMP/shared-out" -- sleep 3 2>"$TS_TMP/err-a"
a=$TS_RUN_PID
for i in $(seq 100); do
	[ -s "$TS_TMP/shared-out/manifest.json" ] && break
	sleep 0.05
done
t0=$(date +%s.%N)
ts_shape --quiet --trace const:10mbit --out "$TS_TMP/shared-out" -- true 2>"$TS_TMP/err-b"
rc=$?
# Refused when it opens its outputs, before CMD: set-up and teardown only (loaded CI hosts: 5 s).
ts_check "second run on the same --out: took" "$(ts_elapsed "$t0")" "<" 5 s
refused "second run on the same --out" "$rc" "$TS_TMP/err-b" \
	"another tasshape run is writing this directory"
wait "$a"
ts_check "first run on that --out: exit status" "$?" == 0
ts_show "$TS_TMP/err-a"

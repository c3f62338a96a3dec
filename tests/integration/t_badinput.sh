#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Bad input, table-driven: every case runs the real binary (the wrapper in
# the test namespace, or a subcommand) on something wrong - unknown and
# conflicting options, absurd values, missing, unreadable and directory
# arguments, huge lines, NUL bytes, non-UTF-8, binary files, a 10^8-line
# trace, importer inputs that do not match their format - and asserts
#
#   - a non-zero exit that is not a crash (no signal, no watchdog kill);
#   - a message naming what was wrong: the option, and the file and line
#     where there is one (each case's expected text is below);
#   - nothing left behind: no namespace, link or iptables rule tagged with
#     that run's pid, and no process of the run (the wrapper's CMD is a
#     `sleep` with a marker argument; none may be running afterwards).
#
# The 10^8-line trace (889 MB, generated on the fly into the test's temp
# directory and deleted) must be refused at the documented limit of
# 10,000,000 entries (docs/trace-formats.md) within 30 s and 300 MB.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init badinput "${1:-}" setpriv seq
export TS_RUN_LIMIT=30

D=$TS_TMP/in
mkdir -p "$D/dir"
IMP=$(cd "$(dirname "$0")/../data/import" && pwd)
MARK="4.$$"        # CMD of the wrapper runs: `sleep $MARK`, recognisable in ps
NCASES=0

# --- inputs
: >"$D/empty.csv"
printf 'time_s,down_mbps\n0,1\0\n' >"$D/nul.csv"
{
	printf 'time_s,down_mbps\n0,'
	head -c 70000 /dev/zero | tr '\0' 7
	printf '\n'
} >"$D/long.csv"
printf 'time_s,down_mbps\n0,\xff\xfe\n1,2\n' >"$D/u8.csv"
cp /bin/true "$D/elf"
printf '1\n7\n5\n' >"$D/dec.mahi"
printf 'time_s,down_mbps\n0,1\n1,2,3\n' >"$D/fields.csv"
printf 'time_s,rsrp\n0,-90\n' >"$D/nocap.csv"
printf 'time_s,down_mbps\n0,1\n1,2\n' >"$D/down.csv"
printf 'time_s,down_mbps\n0,-1\n1,2\n' >"$D/neg.csv"
printf '1\n4294967295\n' >"$D/49days.mahi"
printf 'time_s,down_mbps\n0,1\n1,2\n' >"$D/secret.csv"
chmod 600 "$D/secret.csv"
printf '0 1\n1 2\0\n' >"$D/pnul.txt"
printf '0 0\n1 0\n2 0\n' >"$D/pzero.txt"
printf 'Timestamp,DL_bitrate,UL_bitrate,State\n0000.11.28_07.00.01,5000,300,D\n' >"$D/year0.csv"
LONGSPEC=$(head -c 100000 /dev/zero | tr '\0' a)
EXPOK='[matrix]\ncca = cubic\nlink = a\ntest = tcp_upload\n[link a]\ntrace = const:10mbit\n'
printf "$EXPOK" >"$D/ok.ini"
printf "${EXPOK}dealy = 20ms\n" >"$D/key.ini"
printf '[matrix]\ncca = cubic\n' >"$D/axis.ini"
printf "${EXPOK}mac = wifi6:phy\n" >"$D/mac.ini"
printf "${EXPOK}[experiment]\nrepetitions = 0\n" >"$D/rep.ini"
printf "[experiment]\nseed = 1\nname = x\nseed = 2\n${EXPOK}" >"$D/twice.ini"
printf "[experiment]\nseed = 18446744073709551615\n${EXPOK}" >"$D/seed.ini"
printf "${EXPOK}delay = 1ms\n\nuplink-trace = $D/missing.csv\n" >"$D/keyline.ini"
# a cca line of 5000 characters (inih's buffer was 200: it split the line into keys)
{
	printf '[matrix]\ncca = c0'
	for i in $(seq 1 999); do printf ',c%d' "$i"; done
	printf '\nlink = a\ntest = tcp_upload\n[link a]\ntrace = const:10mbit\n'
} >"$D/longline.ini"
# a path of 600 characters and more (30 directories of 19): the message keeps its start and
# its reason
LONGPATH=$D/$(for _ in $(seq 30); do printf 'ddddddddddddddddddd/'; done)x.csv

# bad NAME EXPECTED [ARGS...]: run tasshape ARGS in the test namespace and
# check exit status, message (a fixed string) and leftovers.
bad() {
	local name=$1 want=$2 rc left procs
	shift 2
	NCASES=$((NCASES + 1))
	ts_shape "$@" >"$TS_TMP/out" 2>"$TS_TMP/err"
	rc=$?
	bad__judge "$name" "$want" "$rc"
}

# bad_as_nobody NAME EXPECTED ARGS...: the same, as uid/gid 65534 (no root).
bad_as_nobody() {
	local name=$1 want=$2 rc
	shift 2
	NCASES=$((NCASES + 1))
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TS_BIN" "$@" >"$TS_TMP/out" \
		2>"$TS_TMP/err"
	rc=$?
	TS_RUN_PID=
	bad__judge "$name" "$want" "$rc"
}

bad__judge() {
	local name=$1 want=$2 rc=$3 left procs msg
	msg=$(head -c 300 "$TS_TMP/err" | tr '\n' ' ')
	if [ "$rc" -eq 0 ] || [ "$rc" -ge 126 ]; then
		ts_fail "$name: exit $rc (want 1 or 64, a refusal; >= 126 is a crash or a kill): $msg"
	elif ! grep -qF -- "$want" "$TS_TMP/err"; then
		ts_fail "$name: message lacks '$want': $msg"
	else
		ts_log "$name: exit $rc, '$(head -n1 "$TS_TMP/err" | cut -c1-150)' ok"
	fi
	if [ -n "$TS_RUN_PID" ]; then
		left=$(ts_leftovers "$TS_RUN_PID")
		[ -z "$left" ] || ts_fail "$name: left behind: $left"
	fi
	procs=$(ps -eo args= | grep -cx "sleep $MARK")
	[ "$procs" -eq 0 ] || ts_fail "$name: $procs CMD process(es) still running"
}

CMD=(-- sleep "$MARK")
C1=(--trace const:1mbit)

# --- command line: unknown and conflicting options
bad "unknown option" "unrecognized option '--frobnicate'" --frobnicate "${CMD[@]}"
bad "unknown command" "unknown command 'frob'" frob
bad "--out-pcap without --out" "--out-pcap needs --out DIR" --out-pcap "${CMD[@]}"
bad "--once with a constant rate" "--once with const:10mbit: a constant rate has no end" \
	--once --trace const:10mbit "${CMD[@]}"
bad "--mac-queue without --mac" "--mac-queue: there is no Wi-Fi hop" "${C1[@]}" \
	--mac-queue droptail:packets=10 "${CMD[@]}"
bad "sim without a trace" "sim: needs a capacity trace" sim --duration 1s

# --- absurd values
bad "--delay in hours" "--delay: '2h': unknown time unit 'h'" --delay 2h "${CMD[@]}"
bad "--delay above 1 hour" "--delay: '3601s': expected at most 1 hour" --delay 3601s "${CMD[@]}"
bad "--delay negative" "--delay: '-5ms': negative values are not allowed" --delay -5ms "${CMD[@]}"
bad "--duration 0" "--duration: '0s': expected more than 0" --duration 0s "${CMD[@]}"
bad "--kernel-queue 1" "--kernel-queue: expected a count from 16 to 16777216, got '1'" \
	--kernel-queue 1 "${CMD[@]}"
bad "--descriptors huge" "--descriptors: expected a count from 16 to 16777216" \
	--descriptors 99999999999 "${CMD[@]}"
bad "--pcap-snaplen 5" "--pcap-snaplen: expected 20 to 128 bytes, got '5'" --pcap-snaplen 5 \
	"${CMD[@]}"
bad "--seed beyond 64 bits" "--seed: '99999999999999999999': too large" \
	--seed 99999999999999999999 "${CMD[@]}"
bad "--uplink-at elsewhere" "--uplink-at: 'sky' (expected sender or network)" --uplink-at sky \
	"${CMD[@]}"
bad "--interval below 1ms" "--interval: expected a time from 1ms to 1h, got '0.1ms'" \
	--interval 0.1ms "${CMD[@]}"
bad "--queue unknown" "--queue: unknown queue 'fifo' (expected one of: droptail" "${C1[@]}" \
	--queue fifo "${CMD[@]}"
bad "--queue value without unit" "codel: target: '5': missing time unit" "${C1[@]}" \
	--queue codel:target=5 "${CMD[@]}"
bad "--queue without a limit" "droptail: needs a limit" "${C1[@]}" --queue droptail:packets=0 \
	"${CMD[@]}"
bad "--queue unknown key" "codel: unknown key 'targt'" "${C1[@]}" --queue codel:targt=5ms \
	"${CMD[@]}"
bad "--queue of 100000 bytes" "is too long (at most 511 characters)" "${C1[@]}" \
	--queue "$LONGSPEC" "${CMD[@]}"
bad "--queue not UTF-8" "non-ASCII character (byte 0xff at offset 5)" "${C1[@]}" \
	--queue $'codel\xff' "${CMD[@]}"
bad "--loss above 100%" "bernoulli: p: '150%': above 100%" "${C1[@]}" --loss 150% "${CMD[@]}"
bad "--loss unknown model" "unknown loss model 'gauss'" "${C1[@]}" --loss gauss:p=1% "${CMD[@]}"
bad "--mac key out of range" "--mac: wifi6: mcs: 99 is out of range (expected 0 to 11)" \
	"${C1[@]}" --mac wifi6:mcs=99 "${CMD[@]}"
bad "--mac unknown" "--mac: unknown MAC 'ethernet'" "${C1[@]}" --mac ethernet "${CMD[@]}"
bad "--trace const:0" "const:0bit: '0bit': the rate must be greater than 0" \
	--trace const:0bit "${CMD[@]}"
bad "--trace const: above 10 Tbit/s" "const:20tbit: above the limit of 10 Tbit/s" \
	--trace const:20tbit "${CMD[@]}"

# --- missing, unreadable and directory arguments
bad "--trace missing" "$D/none.csv: cannot open: No such file or directory" \
	--trace "$D/none.csv" "${CMD[@]}"
bad "--trace a directory" "$D/dir: cannot read: Is a directory" --trace "$D/dir" "${CMD[@]}"
bad "--mac phy_trace missing" "--mac: $D/none.csv: cannot open" "${C1[@]}" \
	--mac "wifi6:phy_trace=$D/none.csv" "${CMD[@]}"
bad "--summary-json in a missing directory" \
	"$D/none/s.json: cannot write the summary: $D/none: No such file or directory" "${C1[@]}" \
	--summary-json "$D/none/s.json" "${CMD[@]}"
bad_as_nobody "trace check of an unreadable file" "$D/secret.csv: cannot open: Permission denied" \
	trace check "$D/secret.csv"
bad "trace import into a missing directory" "$D/none/out.csv: cannot write" \
	trace import pensieve "$IMP/pensieve.txt" -o "$D/none/out.csv"

bad "plot a missing directory" "plot: $D/none: No such file or directory" plot "$D/none"
bad "plot a file" "plot: $D/u8.csv: not a directory" plot "$D/u8.csv"
bad "plot a directory without a run" "plot: nothing to plot in $D/dir" plot "$D/dir"
bad "attach to a missing namespace" "cannot open network namespace /run/netns/tastest-none-$$" \
	attach --netns "tastest-none-$$" "${C1[@]}"
bad "cleanup --pid not a number" "--pid: expected a process id, got 'abc'" cleanup --pid abc

# --- trace contents: names the file and the line
bad "--trace empty" "$D/empty.csv: empty trace" --trace "$D/empty.csv" "${CMD[@]}"
bad "--trace NUL byte" "$D/nul.csv:2: NUL byte: binary data" --trace "$D/nul.csv" "${CMD[@]}"
bad "--trace 70000-byte line" "$D/long.csv:2: line longer than 65536 bytes" \
	--trace "$D/long.csv" "${CMD[@]}"
bad "--trace not UTF-8" \
	"$D/u8.csv:2: down_mbps: expected a finite non-negative decimal number, got '??'" \
	--trace "$D/u8.csv" "${CMD[@]}"
bad "--trace an executable" "$D/elf:1: NUL byte: binary data" --trace "$D/elf" "${CMD[@]}"
bad "--trace decreasing timestamps" "$D/dec.mahi:3: timestamp 5 is before 7 on line 2" \
	--trace "$D/dec.mahi" "${CMD[@]}"
bad "--trace row with a field too many" \
	"$D/fields.csv:3: fields: 3 here, 2 in the header on line 1" --trace "$D/fields.csv" \
	"${CMD[@]}"
bad "--trace without a capacity column" "$D/nocap.csv:1: no capacity column" \
	--trace "$D/nocap.csv" "${CMD[@]}"
bad "--trace negative rate" "$D/neg.csv:2: down_mbps is negative ('-1')" --trace "$D/neg.csv" \
	"${CMD[@]}"
bad "--trace without up_*" "$D/down.csv: no capacity for the uplink (the file has no up_* column)" \
	--trace "$D/down.csv" "${CMD[@]}"
bad "trace check of an executable" "$D/elf:1: control character 0x7f: binary data" \
	trace check "$D/elf"
bad "trace stats in 1 ms bins of 49.7 days" \
	"$D/49days.mahi: more than 10000000 bins in the trace's period: use a wider --bin" \
	trace stats --bin 1ms "$D/49days.mahi"

# --- importers
bad "import unknown format" "unknown format 'cellsim'" trace import cellsim "$D/u8.csv"
bad "import leoreplayer with one input" "leoreplayer: expected BW DELAY" \
	trace import leoreplayer "$IMP/leo_bw.txt"
bad "import gnettrack of another CSV" "$D/u8.csv:1: not a G-NetTrack CSV: no column 'Timestamp'" \
	trace import gnettrack "$D/u8.csv"
bad "import pensieve NUL byte" "$D/pnul.txt:2: NUL byte: binary data, not a pensieve file" \
	trace import pensieve "$D/pnul.txt"
bad "import pensieve without capacity" "$D/pzero.txt: the downlink capacity is 0 in every row" \
	trace import pensieve "$D/pzero.txt"
bad "import gnettrack year 0" "$D/year0.csv:2: Timestamp '0000.11.28_07.00.01': expected a year" \
	trace import gnettrack "$D/year0.csv"
bad "import lumos5g missing" "$D/none.csv: cannot open: No such file or directory" \
	trace import lumos5g "$D/none.csv"
bad "import 5gophers a directory" "$D/dir: cannot read: Is a directory" \
	trace import 5gophers "$D/dir"
bad "import pcap of a CSV" "$D/u8.csv: cannot read the capture" trace import pcap "$D/u8.csv"

# --- experiment specs and --check
bad "exp: unknown link key" "$D/key.ini:7: [link a]: unknown key 'dealy'" exp list "$D/key.ini"
bad "exp: missing axis" "$D/axis.ini: [matrix] has no 'link' axis" exp list "$D/axis.ini"
bad "exp: a --mac that does not split" "$D/mac.ini:7: --mac: " exp list "$D/mac.ini"
bad "exp: 0 repetitions" "$D/rep.ini:8: repetitions" exp list "$D/rep.ini"
bad "exp: spec is a directory" "$D/dir: cannot read: Is a directory" exp list "$D/dir"
bad "exp: spec is endless" "/dev/zero: larger than 1048576 bytes" exp list /dev/zero
bad "exp: spec missing" "$D/none.ini: No such file or directory" exp list "$D/none.ini"
bad "exp: list --jobs (nothing to carry out)" "exp list: --jobs is an option of exp run" \
	exp list "$D/ok.ini" --jobs 2
bad "exp: --check cut short" "at column 33: expected a number or TEST[AXIS=VALUE,...].METRIC" \
	exp check "$D/dir" 'rrul[cca=bbr].ping_icmp_ms.p95 <'
bad "exp: --check unknown metric" "unknown metric 'ping_icmp_msx'" \
	exp run "$D/ok.ini" --out "$D/eo" --check 'rrul[cca=bbr].ping_icmp_msx.p95 < 3'
bad "exp: [experiment] key given twice" "$D/twice.ini:4: [experiment]: seed given twice" \
	exp list "$D/twice.ini"
bad "exp: seed + repetition beyond 2^64 - 1" \
	"seed 18446744073709551615: runs are seeded seed + repetition (1 to 1), which passes 2^64 - 1" \
	exp list "$D/seed.ini"
bad "exp: a link's error names the key's line" \
	"$D/keyline.ini:9: [link a]: $D/missing.csv: cannot open" exp list "$D/keyline.ini"
bad "exp: a line longer than 4096 characters" \
	"$D/longline.ini:2: line longer than 4096 characters" exp list "$D/longline.ini"

# --- empty paths, long values, units, interfaces
bad "--trace ''" "--trace: an empty file name (expected a path)" --trace '' "${CMD[@]}"
bad "--summary-json ''" "--summary-json: an empty file name (expected a path)" "${C1[@]}" \
	--summary-json '' "${CMD[@]}"
bad "trace stats ''" "'': an empty file name (expected the path of a file)" trace stats ''
bad "exp list ''" "'': an empty file name (expected an experiment spec)" exp list ''
bad "--trace of 600 characters and more keeps the reason" " ... " --trace "$LONGPATH" "${CMD[@]}"
grep -qF ".csv: cannot open: No such file or directory" "$TS_TMP/err" ||
	ts_fail "--trace of 600 characters and more: the reason was cut off: $(head -c 600 "$TS_TMP/err")"
bad "vm --memory 1t" "'1t': unknown size unit 't' (expected bytes: B, k or KB, m or MB, g or GB" \
	vm --memory 1t --kernel "$D/elf" -- true
ts_netns_add "tastest-lo-$$"
bad "attach --dev lo" "--dev lo: the loopback interface never leaves namespace tastest-lo-$$" \
	attach --netns "tastest-lo-$$" --dev lo "${C1[@]}"

# --- a 10^8-line trace: refused at 10,000,000 distinct milliseconds, bounded time and memory
ts_log "writing a 10^8-line mahimahi trace"
seq 1 100000000 >"$D/big.mahi" || ts_die "cannot write the 10^8-line trace"
NCASES=$((NCASES + 1))
t0=$(date +%s.%N)
ts_shape_bg --trace "$D/big.mahi" "${CMD[@]}" 2>"$TS_TMP/err"
hwm=0
while kill -0 "$TS_RUN_PID" 2>/dev/null; do
	v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$TS_RUN_PID/status" 2>/dev/null)
	[ -n "$v" ] && hwm=$v
	[ "$(ts_elapsed "$t0" | cut -d. -f1)" -lt 60 ] || kill -KILL "$TS_RUN_PID"
	sleep 0.05
done
wait "$TS_RUN_PID"
rc=$?
el=$(ts_elapsed "$t0")
rm -f "$D/big.mahi"
bad__judge "10^8-line trace" "$D/big.mahi:10000001: more than 10000000 distinct timestamps" "$rc"
ts_check "10^8-line trace: time to refuse" "$el" "<=" 30 "s "
ts_check "10^8-line trace: peak RSS" "$((hwm / 1024))" "<=" 300 "MiB "

ts_check "bad-input cases" "$NCASES" ">=" 40
exit 0

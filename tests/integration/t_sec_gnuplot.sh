#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Data never becomes gnuplot code (issue 19, item 1). tasshape runs as root
# and draws results directories that anyone may have written; gnuplot runs
# shell commands ("!cmd", system()), so a field that ends a datablock or a
# string could run a command as root. Each case hands a doctored input to
# the real binary and asserts:
#
#   - the MARKER file that the planted command would create never appears;
#   - plot and exp report draw the sane parts and fail (exit 1) with a
#     message naming the file and line at fault; trace plot draws its PNG.
#
# Attacks: `plot` on a stats.csv with a row "EOD" followed by a row
# "!touch MARKER #" (ended the inline datablock), and a sockstats.csv with
# a quote in a field; `exp report` on an experiment directory
# (tests/interop/make_results.py) whose configuration id, test name and
# directory name hold a quote, a newline and "!touch MARKER #", whose flow
# names in result.json do too, and whose run's stats.csv has the EOD row;
# `trace plot` of a trace whose file name and --title hold them.
# Run with /work/.../tasshape of before the fix, the MARKER files appear.
#
# Also: `plot` run from a directory holding a planted gnuplot, with an empty
# entry and '.' in $PATH, must run the real one (before: the planted one ran);
# `exp report` of directories whose result.json is a FIFO (before: it waited
# forever), whose configuration id is "../outside" (before: it read the runs
# there) or null (before: a crash), and whose result.json is over 64 MiB
# (before: read whole) must exit 1 at once with a message naming the file.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init sec_gnuplot "${1:-}" gnuplot python3
HERE=$(cd "$(dirname "$0")" && pwd)
GP_DIRS=$(ls -d "${TMPDIR:-/tmp}"/tasshape-gnuplot-* 2>/dev/null | sort) # plot's, before

W=$TS_TMP/work # every command runs here: a relative MARKER would land here
mkdir -p "$W"
cd "$W" || ts_die "cd $W"

# no_marker WHAT: no MARK* file anywhere under the test's temp directory.
no_marker() {
	local found
	found=$(find "$TS_TMP" -name 'MARK*' | head -3)
	if [ -n "$found" ]; then
		ts_fail "$1: a planted command ran: $found"
		rm -f "$TS_TMP"/MARK* "$W"/MARK*
	else
		ts_log "$1: no planted command ran ok"
	fi
}

is_png() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ]; }

# --- plot: a doctored stats.csv and sockstats.csv -----------------------------------------------
R=$TS_TMP/run
mkdir -p "$R"
{
	echo "time_s,dir,interval_s,capacity_bps,throughput_bps,qdelay_p50_ms,qdelay_max_ms"
	echo "0.100,uplink,0.100,20000000,19000000,12.5,25.0"
	echo "EOD,uplink,0.100,1,1,1,1"
	echo "!touch $TS_TMP/MARK-plot-abs #,uplink,0.100,1,1,1,1"
	echo "!touch MARK-plot #,uplink,0.100,1,1,1,1"
} >"$R/stats.csv"
printf '# mahimahi mm-link (Uplink)\n0 + 1504\n5 - 1504 3\n9 - 1504 7\n' >"$R/uplink.log"
cp "$HERE/../data/exp/sockstats.csv" "$R/sockstats.csv"
"$TS_BIN" plot "$R" --format png >"$TS_TMP/plot.out" 2>"$TS_TMP/plot.err"
rc=$?
no_marker "plot, EOD in stats.csv"
ts_check "plot with a malformed stats.csv: exit status" "$rc" == 1
ts_true "plot names stats.csv, line 3 and what was expected" \
	grep -qF "$R/stats.csv:3: time_s: expected a non-negative decimal number, got 'EOD'" \
	"$TS_TMP/plot.err" || ts_show "$TS_TMP/plot.err"
ts_true "plot still draws the sane parts (delay-cdf.png, tcp.png)" \
	eval 'is_png "$R/delay-cdf.png" && is_png "$R/tcp.png"'
ts_true "plot draws nothing from the malformed stats.csv" test ! -e "$R/throughput.png"

# A quote in a sockstats.csv field that plot puts into a title.
sed -i "2s/,bbr,/,bbr' !touch MARK-title #,/" "$R/sockstats.csv"
sed -i '3,$d' "$R/stats.csv"
echo "0.100,downlink,0.100,20000000,18000000,10.5,20.0" >>"$R/stats.csv"
"$TS_BIN" plot "$R" --format png >"$TS_TMP/plot.out" 2>"$TS_TMP/plot.err"
rc=$?
no_marker "plot, a quote in sockstats.csv"
ts_check "plot with a malformed sockstats.csv: exit status" "$rc" == 1
ts_true "plot names sockstats.csv, line 2 and what was expected" \
	grep -qF "$R/sockstats.csv:2: cca: expected a congestion control name" "$TS_TMP/plot.err" ||
	ts_show "$TS_TMP/plot.err"
ts_true "plot still draws throughput.png from the sane stats.csv" is_png "$R/throughput.png"

# --- exp report: ids, test names, directory names, flow names, a run's stats.csv -----------------
E=$TS_TMP/exp
/usr/bin/python3 "$HERE/../interop/make_results.py" "$E" tcp_upload rrul >/dev/null ||
	ts_die "make_results.py failed"
/usr/bin/python3 - "$E" <<'PY' || ts_die "cannot doctor the experiment directory"
import json, os, sys
d = sys.argv[1]
old = "cca=cubic,link=const20,test=rrul"
new = "x'\n!touch MARK-id #"           # also the directory's name
test = "rrul'\n!touch MARK-test #"
e = json.load(open(d + "/experiment.json"))
for c in e["configs"]:
    if c["id"] == old:
        c["id"], c["axes"]["test"] = new, test
for r in e["runs"]:
    if r["id"] == old:
        r["id"] = new
json.dump(e, open(d + "/experiment.json", "w"))
os.rename(d + "/" + old, d + "/" + new)
for rep in os.listdir(d + "/" + new):
    p = d + "/" + new + "/" + rep + "/result.json"
    r = json.load(open(p))
    r["id"], r["axes"]["test"], r["test"] = new, test, test
    for s in r.get("sockstats", []):
        s["flow"] = "f'\n!touch MARK-flow #"
    json.dump(r, open(p, "w"))
    with open(d + "/" + new + "/" + rep + "/stats.csv", "a") as f:
        f.write("EOD,uplink,0.1,1,1,,\n!touch MARK-stats #,uplink,0.1,1,1,,\n")
PY
lines=$(wc -l <"$E/x'"$'\n'"!touch MARK-id #/rep-1/stats.csv")
"$TS_BIN" exp report "$E" >"$TS_TMP/report.out" 2>"$TS_TMP/report.err"
rc=$?
no_marker "exp report, a quote and a newline in ids, test and flow names, EOD in stats.csv"
ts_check "exp report with a malformed stats.csv: exit status" "$rc" == 1
ts_true "exp report names the run's stats.csv, its line and what was expected" \
	grep -qF "rep-1/stats.csv:$((lines - 1)): time_s: expected a non-negative decimal number, got 'EOD'" \
	"$TS_TMP/report.err" || ts_show "$TS_TMP/report.err"
ts_true "exp report draws the other figures and report.md" \
	eval 'is_png "$E/report/rrul-throughput-up.png" && is_png "$E/report/tcp_upload-scatter.png" &&
		[ -s "$E/report/report.md" ]'
n=$(find "$E/report" -name '*.png' | wc -l)
ts_check "exp report: PNG figures of the three tests (9 each)" "$n" == 27
ts_true "the doctored test's figures are files of the report directory, their names made safe" \
	is_png "$E/report/rrul___touch_MARK-test__-latency-cdf.png"
ts_true "a data file row is not split by the id's newline" \
	grep -qF "\"x'?!touch MARK-id #\"" "$E/report/rrul___touch_MARK-test__-throughput-up.dat"

# --- trace plot: a hostile file name and title ----------------------------------------------------
T="$W/s'"$'\n'"!touch MARK-trace #.csv"
cp "$HERE/../../traces/starlink.csv" "$T"
"$TS_BIN" trace plot "$T" -o "$W/t1.png" >"$TS_TMP/tp.out" 2>&1
ts_check "trace plot of a hostile file name: exit status" "$?" == 0
"$TS_BIN" trace plot "$T" --title "a'"$'\n'"!touch MARK-title2 # \`touch MARK-bq\`" \
	-o "$W/t2.png" >>"$TS_TMP/tp.out" 2>&1
ts_check "trace plot of a hostile title: exit status" "$?" == 0
no_marker "trace plot, a quote and a newline in the file name and the title"
ts_true "trace plot draws both PNGs" eval 'is_png "$W/t1.png" && is_png "$W/t2.png"'
ts_true "no private gnuplot directory is left behind" \
	test "$(ls -d "${TMPDIR:-/tmp}"/tasshape-gnuplot-* 2>/dev/null | sort)" = "$GP_DIRS"

# --- a gnuplot planted in the current directory, a relative $PATH entry ---------------------------
# A root PATH with an empty entry (a trailing ':') or '.' names the current
# directory, here a results directory someone else wrote; its gnuplot must not run.
P=$TS_TMP/planted
mkdir -p "$P"
cp "$R/stats.csv" "$P/stats.csv"
printf '#!/bin/sh\ntouch %s/MARK-path\n' "$TS_TMP" >"$P/gnuplot"
chmod 755 "$P/gnuplot"
(cd "$P" && PATH=":.:$PATH" "$TS_BIN" plot . --format png >"$TS_TMP/pp.out" 2>&1)
ts_check "plot from a directory with a planted gnuplot, PATH with '' and '.': exit status" "$?" == 0
no_marker "plot, a gnuplot in the current directory"
ts_true "plot drew throughput.png with the real gnuplot" is_png "$P/throughput.png"

# --- exp report of a directory whose files are traps -------------------------------------------------
# Each must end at once with exit 1 and a message naming the file: a FIFO as
# result.json (it waited forever), a configuration id leading out of the
# directory (it read results elsewhere), a null id (it crashed), a result.json
# larger than the limit (read whole, any size).
trap_report() { # NAME WANT: exp report of $TS_TMP/NAME within 20 s, exit 1, WANT in its stderr
	timeout 20 "$TS_BIN" exp report "$TS_TMP/$1" >"$TS_TMP/$1.out" 2>"$TS_TMP/$1.err"
	ts_check "exp report, $1: exit status" "$?" == 1
	ts_true "exp report, $1: says why" grep -qF -- "$2" "$TS_TMP/$1.err" ||
		ts_show "$TS_TMP/$1.err"
}
for n in fifo dotdot nullid big; do
	/usr/bin/python3 "$HERE/../interop/make_results.py" "$TS_TMP/$n" tcp_upload >/dev/null ||
		ts_die "make_results.py failed"
done
first=$(ls -d "$TS_TMP"/fifo/cca=*/rep-1 | head -1)
rm "$first/result.json" && mkfifo "$first/result.json"
trap_report fifo "result.json: expected a regular file (not a FIFO, device or directory)"
mkdir -p "$TS_TMP/outside/rep-1"
cp "$(ls -d "$TS_TMP"/dotdot/cca=*/rep-1 | head -1)/result.json" "$TS_TMP/outside/rep-1/"
/usr/bin/python3 - "$TS_TMP" <<'PY2' || ts_die "cannot doctor experiment.json"
import json, sys
for n, v in (("dotdot", "../outside"), ("nullid", None)):
    p = sys.argv[1] + "/" + n + "/experiment.json"
    e = json.load(open(p))
    e["configs"][0]["id"] = v
    json.dump(e, open(p, "w"))
PY2
trap_report dotdot "configs[0]: expected \"id\" (a directory name"
trap_report nullid "configs[0]: expected \"id\" (a directory name"
truncate -s 65M "$(ls -d "$TS_TMP"/big/cca=*/rep-1 | head -1)/result.json"
trap_report big "result.json: larger than 67108864 bytes, the limit for this file"
exit 0

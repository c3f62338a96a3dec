#!/bin/bash
# SPDX-License-Identifier: MIT
#
# exp merge, exp report and exp list on results directories another local
# user wrote (docs/security.md). Each case, run with the tasshape of before
# the fix, fails as noted:
#  - a shard directory whose files belong to uid 65534 (its author) merges
#    into files of the invoking user (SUDO_UID 4242 here), copies: the
#    author's later edit of the shard's result.json (in place, as the author)
#    does not reach the merged one (before: hard links, still 65534's, and
#    the edit turned the merged 9.5 into 999.5);
#  - a merge whose second shard holds a run with a -Infinity throughput is
#    refused naming that file and field, leaving OUT absent (and an empty
#    OUT empty) with nothing beside it, and after the shard is mended the
#    same command succeeds (before: OUT half-written, "no throughput_mbps",
#    and the re-run refused as "not empty");
#  - report.md of a configuration id `<img src=x onerror=alert(1)>|x` and a
#    test `<b>t</b>` holds no raw tag (before: both verbatim);
#  - an experiment.json of 200,000 configurations is refused by exp report
#    within 5 s naming the limit of 100,000 (before: it never finished), and
#    one of 50,000 reports within 20 s (before: about 45 s, a linear search
#    per configuration; 40,000 took 30 s);
#  - exp list --shard 2/3 of a one-run spec says on stderr that the shard is
#    empty (before: nothing at all, exit 0).
# No namespace traffic; about 10 s.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init sec_merge "${1:-}" python3 gnuplot setpriv timeout
BIN=$TS_BIN
HERE=$(cd "$(dirname "$0")" && pwd)
MK=$HERE/../interop/make_results.py
chmod 755 "$TS_TMP" # uid 65534 edits its shard in here
cd "$TS_TMP" || ts_die "cd $TS_TMP"
INV=4242 # the invoking user, as sudo would name them

# merge OUT DIR...: exp merge as run through sudo by uid $INV; its stderr in merge.err.
merge() { SUDO_UID=$INV SUDO_GID=$INV "$BIN" exp merge "$@" >merge.out 2>merge.err; }
# leftovers: what a merge left in $TS_TMP besides the shards and its own files.
leftovers() { find "$TS_TMP" -maxdepth 1 -name '.tasshape-*' | wc -l; }

# --- a shard of another user: merged files are the invoker's copies -----------------------------
python3 "$MK" --shard 1/2 s1 tcp_upload >/dev/null || ts_die "make_results s1"
python3 "$MK" --shard 2/2 s2 tcp_upload >/dev/null || ts_die "make_results s2"
chown -R 65534:65534 s2
merge m1 s1 s2
ts_check "merge of a shard of uid 65534: exit status" "$?" == 0
ts_show merge.err
f=$(cd s2 && find . -name result.json | sort | head -1)
ts_true "a run of shard 2 is in the merged directory ($f)" test -f "m1/$f"
ts_check "files of the merged directory not owned by the invoker ($INV)" \
	"$(find m1 ! -uid $INV | wc -l)" == 0
ts_check "files of the merged directory owned by the shard's author (65534)" \
	"$(find m1 -uid 65534 | wc -l)" == 0
ts_check "hard links in the merged directory" "$(find m1 -type f -links +1 | wc -l)" == 0
before=$(sha256sum <"m1/$f")
setpriv --reuid 65534 --regid 65534 --clear-groups \
	sh -c "sed 's/\"throughput_mbps\": [0-9.]*/\"throughput_mbps\": 999.5/' '$PWD/s2/$f' >'$PWD/s2/edited' && cat '$PWD/s2/edited' >'$PWD/s2/$f'" ||
	ts_fail "uid 65534 could not edit its shard"
ts_true "the author's edit is in the shard" grep -q 999.5 "s2/$f"
ts_true "the author's edit does not reach the merged result.json" \
	test "$(sha256sum <"m1/$f")" = "$before"
rm -f s2/edited

# --- a merge refused on the second shard writes nothing; mended, it goes through ----------------
# redone RESULT: the done record of RESULT's run written again (as make_results.py writes it),
# so that the run counts as done with the file as it is now.
redone() {
	python3 -c '
import hashlib, json, os, sys
d = os.path.dirname(sys.argv[1])
r = json.load(open(sys.argv[1]))
files = []
for root, _, names in os.walk(d):
    for n in names:
        rel = os.path.relpath(os.path.join(root, n), d)
        if rel in ("done", "done.tmp"):
            continue
        data = open(os.path.join(root, n), "rb").read()
        files.append({"path": rel, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})
files.sort(key=lambda f: f["path"])
json.dump({"version": 1, "id": r["id"], "rep": r["rep"], "files": files}, open(os.path.join(d, "done"), "w"))
' "$1" || ts_die "done record of $1"
}
python3 "$MK" --shard 2/2 s2 tcp_upload >/dev/null || ts_die "make_results s2 again"
g=$(cd s2 && find . -name result.json | sort | tail -1)
cp "s2/$g" good.json
python3 -c '
import json, sys
p = sys.argv[1]
r = json.load(open(p))
r["flows"][0]["throughput_mbps"] = float("-inf")
json.dump(r, open(p, "w"))
' "s2/$g" || ts_die "doctor $g"
redone "s2/$g"
ts_true "shard 2's run holds -Infinity" grep -q -- -Infinity "s2/$g"
merge m2 s1 s2
ts_check "merge with a -Infinity throughput in shard 2: exit status" "$?" == 1
ts_true "the message names the file and the field" \
	grep -qF "s2/${g#./}: flows[0]: \"throughput_mbps\": expected a finite number, got -Infinity" \
	merge.err || ts_show merge.err
ts_true "OUT was not created" test ! -e m2
ts_check "staging directories left beside OUT" "$(leftovers)" == 0
mkdir m3
merge m3 s1 s2
ts_check "the same into an empty OUT: exit status" "$?" == 1
ts_check "entries in the empty OUT after the refused merge" "$(ls -A m3 | wc -l)" == 0
cp good.json "s2/$g"
redone "s2/$g"
merge m3 s1 s2
ts_check "re-run after mending the shard: exit status" "$?" == 0
ts_show merge.err
ts_true "the merged directory is summarised" test -s m3/summary.json
ts_check "staging directories left beside OUT" "$(leftovers)" == 0

# --- report.md: ids and test names are text, not HTML ------------------------------------------
mkdir x
cat >x/experiment.json <<'EOF'
{"version": 1, "name": "<script>n</script>", "configs": [
 {"id": "<img src=x onerror=alert(1)>|x", "axes": {"test": "<b>t</b>"}},
 {"id": "cca=bbr", "axes": {"test": "<b>t</b>"}}]}
EOF
"$BIN" exp report x --out "$TS_TMP/xr" >report.out 2>report.err
ts_check "exp report of a hostile id: exit status" "$?" == 0
ts_show report.err
ts_true "report.md written" test -s xr/report.md
ts_check "raw <img, <b> or <script> in report.md" \
	"$(grep -cE '<img|<b>|<script' xr/report.md)" == 0
ts_true "the id is in the table as text, its | escaped" \
	grep -qF '| &lt;img src=x onerror=alert(1)&gt;\|x | 0 |' xr/report.md

# --- many configurations: refused beyond the limit, reported below it ---------------------------
# gen N DIR: an experiment.json of N configurations of one test, no run.
gen() {
	mkdir -p "$2"
	python3 -c '
import json, sys
n = int(sys.argv[1])
c = [{"id": "cca=c%d,test=rrul" % i, "axes": {"cca": "c%d" % i, "test": "rrul"}} for i in range(n)]
json.dump({"version": 1, "name": "big", "configs": c, "runs": []}, open(sys.argv[2], "w"))
' "$1" "$2/experiment.json" || ts_die "gen $1"
}
gen 200000 big
ts_log "200,000 configurations: $(wc -c <big/experiment.json) bytes"
t0=$(date +%s.%N)
timeout -s KILL 60 "$BIN" exp report big --out "$TS_TMP/bigr" >big.out 2>big.err
rc=$?
el=$(ts_elapsed "$t0")
ts_check "exp report of 200,000 configurations: exit status" "$rc" == 1
ts_check "exp report of 200,000 configurations: seconds" "$el" "<" 5
ts_true "the refusal names the limit of 100000 configurations" grep -q 100000 big.err ||
	ts_show big.err
ts_true "no report directory was made" test ! -e bigr
gen 50000 mid
t0=$(date +%s.%N)
timeout -s KILL 60 "$BIN" exp report mid --out "$TS_TMP/midr" >mid.out 2>mid.err
rc=$?
el=$(ts_elapsed "$t0")
ts_check "exp report of 50,000 configurations: exit status" "$rc" == 0
ts_check "exp report of 50,000 configurations: seconds" "$el" "<" 20
ts_check "configurations in its report.md" "$(grep -c '^| cca=c' midr/report.md)" == 50000

# --- exp list of an empty shard says so ---------------------------------------------------------
ONE=(--only cca=cubic --only test=tcp_upload --repetitions 1)
"$BIN" exp list "$HERE/../../docs/examples/ci-small.ini" "${ONE[@]}" >list.out 2>list.err
ts_check "the spec has one run" "$(grep -vc '^#' list.out)" == 1
"$BIN" exp list --shard 2/3 "$HERE/../../docs/examples/ci-small.ini" "${ONE[@]}" \
	>list.out 2>list.err
ts_check "exp list --shard 2/3 of one run: exit status" "$?" == 0
ts_check "runs listed" "$(grep -vc '^#' list.out)" == 0
ts_true "stderr says the shard has no runs" grep -q "shard 2/3 has no runs" list.err ||
	ts_show list.err

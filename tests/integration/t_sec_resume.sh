#!/bin/bash
# SPDX-License-Identifier: MIT
#
# exp resume and exp merge on results directories another local user wrote
# (uid 65534 here). Each directory is built by hand (experiment.json, the
# spec, a run directory); no run is carried out: every case is refused
# before one would start. Asserted:
#
#  - a configuration directory that is a symbolic link of uid 65534 to a
#    root 0700 directory holding rep-1/ with a root 0600 file: resume exits
#    1 naming the link, and the file keeps its bytes (before: resume removed
#    <target>/rep-1 as root, then refused to write through the link);
#  - a configuration directory that is a real directory of uid 65534: the
#    partial run in it is not removed, resume exits 1 naming the owner;
#  - a done record listing a FIFO, and one listing a link to /dev/zero:
#    resume and merge exit 1 within seconds naming the file (before: they
#    waited or read forever);
#  - a run directory holding 1000 nested directories (and a done record):
#    resume and merge exit 1 naming the limit (before: SIGSEGV, no message).
. "$(dirname "$0")/lib.sh" || exit 2
ts_init sec_resume "${1:-}" timeout sha256sum
ID="cca=cubic,link=c20,test=tcp_upload"

cat >"$TS_TMP/spec.ini" <<'INI'
[experiment]
name = resume
length = 1s
delay = 0s
[matrix]
cca = cubic
link = c20
test = tcp_upload
[link c20]
trace = const:20mbit
delay = 5ms
INI
SHA=$(sha256sum "$TS_TMP/spec.ini" | cut -d' ' -f1)

# results NAME: an experiment directory $TS_TMP/NAME of the one-run spec, without its run.
results() {
	local d=$TS_TMP/$1
	mkdir -p "$d"
	cp "$TS_TMP/spec.ini" "$d/spec.ini"
	printf '{"version": 1, "spec_sha256": "%s", "spec": "spec.ini", "runs": [{"index": 1, "rep": 1, "id": "%s"}]}\n' \
		"$SHA" "$ID" >"$d/experiment.json"
}

# run_cmd NAME ARGS...: tasshape ARGS in the test namespace, killed after 6 s; sets RC and
# SECS, output in $TS_TMP/NAME.err.
run_cmd() {
	local name=$1 t0
	shift
	t0=$(date +%s.%N)
	ts_ns timeout -s KILL 6 "$TS_BIN" "$@" >"$TS_TMP/$name.out" 2>"$TS_TMP/$name.err"
	RC=$?
	SECS=$(ts_elapsed "$t0")
	ts_log "$name: exit $RC after $SECS s: $(head -c 300 "$TS_TMP/$name.err")"
}

# refused NAME WANT: the last run_cmd exited 1 (not a kill or a crash) within 5 s, WANT in its
# message.
refused() {
	ts_check "$1: exit status" "$RC" == 1
	ts_check "$1: seconds" "$SECS" "<" 5
	ts_true "$1: message says '$2'" grep -qF -- "$2" "$TS_TMP/$1.err" ||
		ts_show "$TS_TMP/$1.err"
}

# --- a configuration directory that is another user's link -------------------------------------
T=$TS_TMP/root-only
mkdir -p "$T/rep-1"
chmod 700 "$T"
echo "root's secret" >"$T/rep-1/secret"
chmod 600 "$T/rep-1/secret"
results link
ln -s "$T" "$TS_TMP/link/$ID"
chown -h 65534:65534 "$TS_TMP/link/$ID"
run_cmd resume-link exp resume "$TS_TMP/link" --no-progress
refused resume-link "$TS_TMP/link/$ID: a symbolic link (owned by uid 65534)"
ts_true "the link's target keeps its run and its 0600 file" \
	test "$(cat "$T/rep-1/secret" 2>/dev/null)" = "root's secret"

# --- a configuration directory of another user ----------------------------------------------------
results owned
mkdir -p "$TS_TMP/owned/$ID/rep-1"
echo partial >"$TS_TMP/owned/$ID/rep-1/result.json"
chown -R 65534:65534 "$TS_TMP/owned/$ID"
run_cmd resume-owned exp resume "$TS_TMP/owned" --no-progress
refused resume-owned "$TS_TMP/owned/$ID: belongs to uid 65534"
ts_true "its partial run is not removed" test -s "$TS_TMP/owned/$ID/rep-1/result.json"

# --- done records listing a FIFO, a link to /dev/zero -----------------------------------------------
for kind in fifo zero; do
	results "$kind"
	R=$TS_TMP/$kind/$ID/rep-1
	mkdir -p "$R"
	if [ "$kind" = fifo ]; then mkfifo "$R/result.json"; else ln -s /dev/zero "$R/result.json"; fi
	printf '{"version": 1, "id": "%s", "rep": 1, "files": [{"path": "result.json", "bytes": 2, "sha256": "%s"}]}\n' \
		"$ID" "$SHA" >"$R/done"
	want="$R/result.json: a FIFO"
	[ "$kind" = zero ] && want="$R/result.json: a symbolic link"
	run_cmd "resume-$kind" exp resume "$TS_TMP/$kind" --no-progress
	refused "resume-$kind" "$want"
	run_cmd "merge-$kind" exp merge "$TS_TMP/merged-$kind" "$TS_TMP/$kind"
	refused "merge-$kind" "$want"
done

# --- 1000 nested directories in a run directory -----------------------------------------------------
results deep
R=$TS_TMP/deep/$ID/rep-1
mkdir -p "$R/$(printf 'd/%.0s' $(seq 1000))"
printf '{"version": 1, "id": "%s", "rep": 1, "files": []}\n' "$ID" >"$R/done"
run_cmd resume-deep exp resume "$TS_TMP/deep" --no-progress
refused resume-deep "directories nested deeper than 8 levels"
run_cmd merge-deep exp merge "$TS_TMP/merged-deep" "$TS_TMP/deep"
refused merge-deep "directories nested deeper than 8 levels"

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The kernel axis of tasshape exp: one cubic tcp_upload (3 s, delay 1 s)
# over a constant 10 Mbit/s link, once on this host's kernel and once
# under [kernel deb] (Debian's stock kernel, image = debian, accel = tcg
# and clock = real so the flag below is the same on every machine; virtual
# time, the default under TCG, is t_vtime.sh's). Checked:
#  - both configurations ran and none failed (exit 0);
#  - each run's goodput is within 10% below and 2% above the link's
#    10 * 1448/1500 = 9.653 Mbit/s (a wider margin than t_rate.sh's, for
#    the guest's timers under TCG and the 3 s flow);
#  - the host run's manifest names this kernel's release; the deb run's
#    names the guest's, a Debian kernel's, different from `uname -r`, and
#    records the bzImage's version string (naming that release), its
#    SHA-256, accel tcg and a clock source; its result carries the tcg
#    flag, the summary lists it and the runner warns about it;
#  - (sealed virtual-time guests, --jobs 2 against --jobs 1, and a congestion
#    control acquired in its guest: t_exp_vtime.sh, which CI runs beside its
#    builds);
#  - kill -TERM on exp run (--jobs 1) while a virtual-time guest boots ends
#    the guest and the campaign within 10 s, exit status 143, and the
#    second repetition never starts;
#  - nothing is left: no QEMU process, no temporary file, no mount.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init exp_kernel "${1:-}" qemu-system-x86_64 iperf3 irtt ping jq pgrep apt-get dpkg-deb depmod
# The test decides who the invoking user is (QEMU runs as that user); a sudo that started it does not.
unset SUDO_UID SUDO_GID SUDO_USER SUDO_COMMAND

ts_vm_begin
WORK=$TS_TMP/work
mkdir -p "$WORK"
cd "$WORK" || ts_die "cd $WORK"

cat >"$TS_TMP/k.ini" <<'INI'
[experiment]
name = kernels
length = 3s
delay = 1s
[matrix]
cca = cubic
link = c10
test = tcp_upload
kernel = host, deb
[link c10]
trace = const:10mbit
delay = 10ms
[kernel deb]
image = debian
accel = tcg
clock = real
INI
OUT=$TS_TMP/out
t0=$(date +%s.%N)
TMPDIR=$VMTMP ts_ns "$TS_BIN" exp run "$TS_TMP/k.ini" --out "$OUT" --no-progress \
	>"$TS_TMP/run.log" 2>&1
rc=$?
ts_log "exp run (host + one TCG guest): $(ts_elapsed "$t0") s"
ts_show "$TS_TMP/run.log"
ts_check "exp run exit status" "$rc" == 0
S=$OUT/summary.json
ts_check "runs carried out" "$(jq '.runs' "$S")" == 2
ts_check "runs failed" "$(jq '.failed' "$S")" == 0

HOST=$OUT/cca=cubic,link=c10,test=tcp_upload,kernel=host/rep-1
DEB=$OUT/cca=cubic,link=c10,test=tcp_upload,kernel=deb/rep-1
EXPECTED=$(awk 'BEGIN { printf "%.4f", 10 * 1448 / 1500 }')
LO=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.3f", e * 0.90 }')
HI=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.3f", e * 1.02 }')
for d in "$HOST" "$DEB"; do
	ts_range "$(basename "$(dirname "$d")") goodput" \
		"$(jq '[.flows[] | select(.dir == "up") | .throughput_mbps] | add' "$d/result.json")" \
		"$LO" "$HI" "Mbit/s "
done

host_rel=$(uname -r)
[ "$(jq -r '.kernel.release' "$HOST/manifest.json")" = "$host_rel" ] ||
	ts_fail "host run's manifest names kernel $(jq -r '.kernel.release' "$HOST/manifest.json"), not $host_rel"
guest_rel=$(jq -r '.kernel.release' "$DEB/manifest.json")
ts_log "host kernel $host_rel, guest kernel $guest_rel"
[ -n "$guest_rel" ] && [ "$guest_rel" != null ] && [ "$guest_rel" != "$host_rel" ] ||
	ts_fail "deb run's manifest names kernel '$guest_rel' (expected the guest's, not $host_rel)"
ts_true "deb manifest: vm release is the guest's uname -r" \
	jqt --arg r "$guest_rel" '.kernel.vm.release == $r and .kernel.requested == "deb"' \
	"$DEB/manifest.json"
ts_true "deb manifest: bzImage version string names that release" \
	jqt --arg r "$guest_rel" '.kernel.vm.version | startswith($r)' "$DEB/manifest.json"
ts_true "deb result: SHA-256, accel tcg, clock source" \
	jqt '(.vm.sha256 | test("^[0-9a-f]{64}$")) and .vm.accel == "tcg" and (.vm.clocksource | length > 0)' \
	"$DEB/result.json"
img=$(jq -r '.vm.image' "$DEB/result.json")
ts_true "deb result: the SHA-256 is the booted bzImage's ($img)" \
	[ "$(jq -r '.vm.sha256' "$DEB/result.json")" = "$(sha256sum "$img" | cut -d' ' -f1)" ]
ts_log "deb: $(jq -c '.vm | {version, accel, clocksource, boot_s}' "$DEB/result.json")"
ts_true "deb result flagged tcg" jqt '.flags | index("tcg")' "$DEB/result.json"
ts_true "host result not flagged tcg" jqt '(.flags // []) | index("tcg") == null' "$HOST/result.json"
ts_true "the summary lists the tcg flag" \
	jqt '[.configs[] | select(.id | endswith("kernel=deb")) | .flags[]] | index("tcg")' "$S"
ts_true "the runner warns about TCG" grep -q "under TCG" "$TS_TMP/run.log"

# kill -TERM stops a campaign whose run is in a guest (virtual time, --jobs 1): the guest ends at
# once and the next repetition never starts. The run would take minutes of wall time.
cat >"$TS_TMP/v.ini" <<'INI'
[experiment]
name = stop
length = 30s
delay = 1s
repetitions = 2
[matrix]
cca = cubic
link = c10
test = tcp_upload
kernel = vdeb
[link c10]
trace = const:10mbit
delay = 10ms
[kernel vdeb]
image = debian
clock = virtual
INI
TMPDIR=$VMTMP ts_ns "$TS_BIN" exp run "$TS_TMP/v.ini" --out "$TS_TMP/out-v" --no-progress \
	>"$TS_TMP/v.log" 2>&1 &
vpid=$!
qemu=
for _ in $(seq 600); do
	qemu=$(pgrep -f "qemu-system.*$VMTMP" | head -n1)
	[ -n "$qemu" ] && break
	sleep 0.1
done
if [ -n "$qemu" ]; then
	sleep 2 # the guest is booting
	# $! is the subshell running ts_ns; with --jobs 1, QEMU's parent is tasshape exp run.
	tpid=$(ps -o ppid= -p "$qemu" | tr -d ' ')
	t0=$(date +%s.%N)
	kill -TERM "$tpid"
	for _ in $(seq 300); do
		kill -0 "$vpid" 2>/dev/null || break
		sleep 0.1
	done
	took=$(ts_elapsed "$t0")
	kill -0 "$vpid" 2>/dev/null && kill -KILL "$tpid"
	wait "$vpid"
	rc=$?
	ts_show "$TS_TMP/v.log"
	ts_range "SIGTERM during a guest's run: seconds until exp run ended" "$took" 0 10 "s "
	ts_check "SIGTERM during a guest's run: exit status (128 + 15)" "$rc" == 143
	ts_true "SIGTERM: the guest's QEMU is gone" [ -z "$(pgrep -f "qemu-system.*$VMTMP")" ]
	ts_true "SIGTERM: repetition 2 never started" \
		[ ! -e "$TS_TMP/out-v/cca=cubic,link=c10,test=tcp_upload,kernel=vdeb/rep-2" ]
	ts_true "SIGTERM: the runner says it stopped" grep -q "stopped by signal 15" "$TS_TMP/v.log"
else
	pkids=$(ps -o pid= --ppid "$vpid" | tr -d ' ')
	[ -n "$pkids" ] && kill -KILL $pkids
	kill -KILL "$vpid"
	wait "$vpid"
	ts_show "$TS_TMP/v.log"
	ts_fail "exp run in virtual time started no QEMU within 60 s"
fi

ts_vm_left
ts_log "done in $((SECONDS - TS_START)) s"

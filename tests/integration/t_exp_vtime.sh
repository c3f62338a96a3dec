#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tasshape exp in sealed virtual-time guests: --jobs 2 against --jobs 1 (the
# rest of the kernel axis, judged partly in real time, is t_exp_kernel.sh).
# Everything checked here is in the guests' own time, so tools/test.sh runs
# it beside CI's builds (label vtime): the load is part of the test. Checked:
#  - two repetitions of one configuration, run as two guests at once
#    (--jobs 2, --only), are recorded as sealed (run record and manifest;
#    the record also as in virtual time and reproducible),
#    preempt=full and PVH-entered, unflagged, with goodput within 5% below
#    the link's 20 * 1448/1500 = 19.307 Mbit/s;
#  - the second, run again alone (--jobs 1, --shard 3/4, so it has another
#    index), delivers the same bytes and per-second intervals to the byte,
#    from the same image;
#  - a congestion control of a [kernel NAME] is acquired in its guest: bbr3
#    under Debian's kernel is a failed run flagged cca_unavailable with the
#    guest's reason, not a skip decided by the host's kernel;
#  - nothing is left: no QEMU process, no temporary file, no mount.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init exp_vtime "${1:-}" qemu-system-x86_64 iperf3 irtt ping jq pgrep apt-get dpkg-deb depmod
# The test decides who the invoking user is (QEMU runs as that user); a sudo that started it does not.
unset SUDO_UID SUDO_GID SUDO_USER SUDO_COMMAND

ts_vm_begin
WORK=$TS_TMP/work
mkdir -p "$WORK"
cd "$WORK" || ts_die "cd $WORK"

# --jobs 2 in virtual time: two guests at once, one CPU each, against the same spec run with
# --jobs 1. Each run boots a sealed guest (its files in its initramfs, nothing read from the host
# before the run ends: docs/kernels.md, "Sealed guests"), so a repetition's guest is the same
# whatever the host does meanwhile: received bytes and every per-second interval equal to the
# byte, the same image (SHA-256) for a repetition in both, unflagged. Guests on the host's files
# over 9p differed here by one segment (1,448 bytes) in both repetitions (docs/kernels.md).
# The two runs select repetition 2 of the same configuration differently: --only (indices 1
# and 2) and --shard 3/4 (the matrix's position 3 alone), so it is another index in each, and
# still boots the same image (the index is not the guest's to know: before, it was an argument
# packed in the image). Alone, it also ran beside nothing where under --jobs 2 it shared the
# host with repetition 1's guest. (Repetition 1 is not run again: it would repeat the same
# comparison at the same index for another 50 s of CI.)
cat >"$TS_TMP/j.ini" <<'INI'
[experiment]
name = jobs
length = 3s
delay = 1s
repetitions = 2
[matrix]
cca = cubic, reno
link = c20
test = tcp_upload
kernel = va
[link c20]
trace = const:20mbit
delay = 20ms
[kernel va]
image = debian
clock = virtual
INI
for j in 2 1; do
	t0=$(date +%s.%N)
	sel=(--only cca=cubic)
	[ $j = 1 ] && sel=(--shard 3/4)
	TMPDIR=$VMTMP ts_ns "$TS_BIN" exp run "$TS_TMP/j.ini" --out "$TS_TMP/out-j$j" --no-progress \
		--jobs $j "${sel[@]}" >"$TS_TMP/j$j.log" 2>&1
	rc=$?
	ts_log "exp run --jobs $j (sealed virtual-time guests): $(ts_elapsed "$t0") s"
	ts_show "$TS_TMP/j$j.log"
	ts_check "--jobs $j in virtual time: exit status" "$rc" == 0
done
J1=$TS_TMP/out-j1/cca=cubic,link=c20,test=tcp_upload,kernel=va/rep-2
ts_check "--shard 3/4: one run" "$(jq '.runs' "$TS_TMP/out-j1/summary.json")" == 1
ts_check "rep 2: index with --shard 3/4 (--jobs 1)" "$(jq .index "$J1/result.json")" == 3
ts_true "rep 2 alone (--jobs 1): not flagged" jqt '(.flags // []) | length == 0' "$J1/result.json"
for r in 1 2; do
	J2=$TS_TMP/out-j2/cca=cubic,link=c20,test=tcp_upload,kernel=va/rep-$r
	ts_log "rep $r: $(jq -c '.vm | {sealed, image_bytes, boot_s}' "$J2/result.json") (--jobs 2)"
	ts_check "rep $r: index with --only (--jobs 2)" "$(jq .index "$J2/result.json")" == "$r"
	ts_true "rep $r: the run's record says the guest was sealed, in virtual time: reproducible" \
		jqt '.vm.sealed and .vm.fidelity == "virtual" and .vm.reproducible' "$J2/result.json"
	ts_true "rep $r: the manifest says the guest was sealed" \
		jqt '.kernel.vm.sealed == true' "$J2/manifest.json"
	ts_true "rep $r: the run's record says the guest's kernel ran with preempt=full" \
		jqt '.vm.preempt == "full"' "$J2/result.json"
	ts_true "rep $r: the run's record says Debian's kernel was entered at PVH" \
		jqt '.vm.boot == "pvh"' "$J2/result.json"
	# The receiver's goodput, within 5% below the bound 20 x 1448/1500 = 19.307 Mbit/s.
	ts_range "rep $r: goodput" \
		"$(jq '[.flows[] | select(.dir == "up") | .throughput_mbps] | add' "$J2/result.json")" \
		18.342 19.320 "Mbit/s "
	ts_true "rep $r (--jobs 2): not flagged" jqt '(.flags // []) | length == 0' "$J2/result.json"
done
b2=$(jq '.end.sum_received.bytes' "$J2/iperf3-up-1.json")
b1=$(jq '.end.sum_received.bytes' "$J1/iperf3-up-1.json")
i2=$(jq -c '[.intervals[].sum.bytes]' "$J2/iperf3-up-1.json")
i1=$(jq -c '[.intervals[].sum.bytes]' "$J1/iperf3-up-1.json")
ts_log "rep 2: received bytes $b2 (--jobs 2), $b1 (--jobs 1, alone); intervals $i2, $i1"
ts_check "rep 2: received bytes, --jobs 2 against --jobs 1" "$b2" == "$b1"
ts_true "rep 2: per-second intervals identical ($i2)" [ "$i2" = "$i1" ]
ts_true "rep 2: both guests from the same image" \
	[ "$(jq -r '.vm.image_sha256' "$J2/result.json")" = "$(jq -r '.vm.image_sha256' "$J1/result.json")" ]

# Congestion controls of a [kernel NAME] are acquired in its guest, not probed on the host: bbr3
# under Debian's kernel (BBR v1 there, or no bbr at all) is a failed run flagged
# cca_unavailable with the guest kernel's reason, not a skip.
sed -e 's/^cca = cubic, reno/cca = bbr3/' -e 's/^repetitions = 2/repetitions = 1/' "$TS_TMP/j.ini" \
	>"$TS_TMP/b.ini"
TMPDIR=$VMTMP ts_ns "$TS_BIN" exp run "$TS_TMP/b.ini" --out "$TS_TMP/out-b" --no-progress \
	>"$TS_TMP/b.log" 2>&1
rc=$?
ts_show "$TS_TMP/b.log"
ts_check "bbr3 in the guest: exit status (a failed run)" "$rc" == 1
ts_true "bbr3 was not skipped on the host's account" \
	jqt '.runs == 1 and .failed == 1 and ((.skipped // []) | length) == 0' "$TS_TMP/out-b/summary.json"
B=$TS_TMP/out-b/cca=bbr3,link=c20,test=tcp_upload,kernel=va/rep-1/result.json
ts_true "bbr3 in the guest: flagged cca_unavailable, with the guest's reason and record" \
	jqt '(.flags | index("cca_unavailable")) and (.error | startswith("bbr3:")) and .vm.accel == "tcg"' "$B"
ts_log "bbr3 in the guest: $(jq -r '.error' "$B")"

ts_vm_left
ts_log "done in $((SECONDS - TS_START)) s"

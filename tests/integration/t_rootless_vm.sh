#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tasshape vm without root or sudo (docs/rootless.md, "tasshape vm"): a
# user made for the test boots Debian's kernel in one sealed guest (TCG,
# virtual time) that runs a short shell command. QEMU runs as that user,
# as it runs as the invoking user under sudo; nothing needs root. Checked:
#  - CMD's exit status (7) is tasshape's, and CMD's output (the guest's
#    /proc/version, read with shell builtins: only sh is packed) names the
#    guest's kernel, Debian's, not this host's;
#  - QEMU ran as the user (seen among the user's processes while it ran);
#  - a file CMD wrote into $TASSHAPE_VM_OUT reached --out, the user's;
#  - --info-json: TCG, virtual clock, sealed, status 7;
#  - nothing is left: no process of the user, nothing in its TMPDIR;
#  - --accel kvm, when /dev/kvm is not open to the user: refused (exit 125)
#    naming /dev/kvm, before any boot.
# The kernel is fetched by root into root's cache (ts_vm_user).
. "$(dirname "$0")/lib.sh" || exit 2
ts_init rootless_vm "${1:-}" qemu-system-x86_64 useradd userdel setpriv pgrep apt-get dpkg-deb \
	depmod
# The test decides who the invoking user is; a sudo that started it does not.
unset SUDO_UID SUDO_GID SUDO_USER SUDO_COMMAND

# The guest's current directory (packed: empty) and --out, in the user's own directory.
ts_vm_user tasrlv cwd cwd out
as_u() { "${AS_U[@]}" "$@"; }

# --accel kvm where the user may not open /dev/kvm: refused before anything boots.
if ! as_u test -r /dev/kvm -a -w /dev/kvm 2>/dev/null; then
	as_u "$UDIR/tasshape" vm --kernel debian --accel kvm -- true 2>"$TS_TMP/kvm.err"
	ts_check "--accel kvm as $U without /dev/kvm: exit status" "$?" == 125
	ts_show "$TS_TMP/kvm.err"
	ts_true "--accel kvm as $U: names /dev/kvm" grep -q "KVM cannot run.*/dev/kvm" \
		"$TS_TMP/kvm.err"
else
	ts_log "/dev/kvm is open to $U: the refusal of --accel kvm is not tested"
fi

# A simple command, not a function: $! is the pid that becomes tasshape (each execs the next).
# shellcheck disable=SC2016 # expanded by the guest's shell
"${AS_U[@]}" "$UDIR/tasshape" vm --kernel debian --seal --quiet --out "$UDIR/out" \
	--info-json "$UDIR/out/info.json" -- \
	sh -c 'read v </proc/version; echo "guest: $v"; echo hi >"$TASSHAPE_VM_OUT/from-guest"
		exit 7' >"$TS_TMP/vm.out" 2>"$TS_TMP/vm.err" &
VPID=$!
TS_TAS_PIDS+=("$VPID")
ts__watchdog "$VPID" 50 &
WD=$!
QEMU_AS_USER=0
while kill -0 "$VPID" 2>/dev/null; do
	if [ -n "$(pgrep -u "$U" -f qemu-system-x86_64)" ]; then
		QEMU_AS_USER=1
		break
	fi
	sleep 0.2
done
wait "$VPID"
RC=$?
wait "$WD"
ts_show "$TS_TMP/vm.out" "$TS_TMP/vm.err"
ts_check "vm as $U: exit status (CMD's)" "$RC" == 7
ts_check "vm as $U: QEMU seen among the user's processes" "$QEMU_AS_USER" == 1
REL=$(uname -r)
ts_true "vm as $U: CMD read a Debian kernel's /proc/version, not this host's ($REL)" \
	grep -q "^guest: Linux version [^ ]* (debian-kernel@" "$TS_TMP/vm.out"
ts_true "vm as $U: the guest's kernel is not this host's" \
	test -z "$(grep -F "Linux version $REL " "$TS_TMP/vm.out")"
ts_true "vm as $U: CMD's file reached --out" grep -qx hi "$UDIR/out/from-guest"
ts_check "vm as $U: owner of CMD's file in --out" "$(stat -c %u "$UDIR/out/from-guest")" == \
	"$UID1"
ts_true "vm as $U: --info-json says TCG, virtual clock, sealed, status 7" \
	jq -e '.accel == "tcg" and .clock == "virtual" and .sealed and .status == 7' \
	"$UDIR/out/info.json" >/dev/null
ts_check "vm as $U: processes of the user after the run" "$(pgrep -c -u "$U")" == 0
ts_check "vm as $U: files left in its TMPDIR" "$(find "$UDIR/tmp" -mindepth 1 | wc -l)" == 0
exit 0

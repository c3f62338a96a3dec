#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tasshape vm --timeout, in real time: a guest that never ends (`sleep 1000`
# under Debian's kernel, TCG, --clock real: in virtual time the sleep would
# end at once) is killed at --timeout 6s: status 124, within the timeout plus
# 5 s, with a message saying so, and nothing is left (no QEMU process, no
# temporary file, no mount). The rest of tasshape vm, in virtual time, is
# t_vm.sh.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init vm_timeout "${1:-}" qemu-system-x86_64 pgrep apt-get dpkg-deb depmod
# The test decides who the invoking user is (QEMU runs as that user); a sudo that started it does not.
unset SUDO_UID SUDO_GID SUDO_USER SUDO_COMMAND

ts_vm_begin
WORK=$TS_TMP/work
mkdir -p "$WORK"
cd "$WORK" || ts_die "cd $WORK"
t0=$(date +%s.%N)
TMPDIR=$VMTMP TS_RUN_LIMIT=60 ts_shape vm --kernel debian --quiet --accel tcg --clock real \
	--timeout 6s -- sleep 1000 >"$TS_TMP/out" 2>"$TS_TMP/err"
rc=$?
took=$(ts_elapsed "$t0")
ts_show "$TS_TMP/err"
ts_check "--timeout 6s: exit status" "$rc" == 124
ts_range "--timeout 6s: time to kill the guest" "$took" 6 11 "s "
ts_true "--timeout: a message says the guest was killed" grep -q "killed after --timeout" "$TS_TMP/err"
ts_vm_left
ts_log "done in $((SECONDS - TS_START)) s"

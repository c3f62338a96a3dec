#!/bin/bash
# SPDX-License-Identifier: MIT
#
# exp run of a spec with a [kernel] section, without root or sudo
# (docs/rootless.md, "exp run"): a user made for the test runs one cubic
# upload (2 s, delay 1 s) over a constant 20 Mbit/s link with 20 ms of
# delay under Debian's kernel, in one guest (TCG, virtual time: sealed).
# The campaign enters its user namespace (and PID namespace) first, and
# starts QEMU from there, as root of that namespace, which is the user
# outside. Checked:
#  - exit 0, one run, none failed;
#  - the run's manifest names the guest's kernel (Debian's, not this
#    host's), a sealed guest in virtual time under TCG;
#  - its upload's goodput is between 15 Mbit/s and the bound 20 x 1448/1500
#    plus 1% (19.50; the 2 s include the start: 18.2 measured);
#  - the results are the user's, and nothing of the user runs afterwards.
# The kernel is fetched by root into root's cache (ts_vm_user).
. "$(dirname "$0")/lib.sh" || exit 2
ts_init rootless_expvm "${1:-}" qemu-system-x86_64 iperf3 useradd userdel setpriv pgrep apt-get \
	dpkg-deb depmod
unset SUDO_UID SUDO_GID SUDO_USER SUDO_COMMAND

# The spec and the results in the user's own directory, its current directory.
ts_vm_user tasrle .
printf '%s\n' '[experiment]' 'name = kvm' 'length = 2s' 'delay = 1s' 'seed = 1' '' \
	'[matrix]' 'cca = cubic' 'link = c20' 'test = tcp_upload' 'kernel = deb' '' \
	'[link c20]' 'trace = const:20mbit' 'delay = 20ms' '' \
	'[kernel deb]' 'image = debian' 'accel = tcg' >"$UDIR/k.ini"
chown "$U:$U" "$UDIR/k.ini" || ts_die "cannot give $UDIR/k.ini to $U"

# A simple command: $! is the pid that becomes tasshape (ip, setpriv and env each exec the next).
"${AS_U[@]}" "$UDIR/tasshape" exp run "$UDIR/k.ini" --out "$UDIR/res" --no-progress \
	>"$TS_TMP/exp.out" 2>&1 &
EPID=$!
TS_TAS_PIDS+=("$EPID")
ts__watchdog "$EPID" 150 &
WD=$!
wait "$EPID"
RC=$?
wait "$WD"
ts_show "$TS_TMP/exp.out"
ts_check "exp run as $U with a [kernel]: exit status" "$RC" == 0
S=$UDIR/res/summary.json
ts_check "exp run as $U: runs" "$(jq -r '.runs // -1' "$S" 2>/dev/null)" == 1
ts_check "exp run as $U: failed runs" "$(jq -r '.failed // -1' "$S" 2>/dev/null)" == 0
M="$UDIR/res/cca=cubic,link=c20,test=tcp_upload,kernel=deb/rep-1/manifest.json"
REL=$(jq -r '.kernel.release // empty' "$M" 2>/dev/null)
ts_true "exp run as $U: the run's kernel is the guest's ($REL), not this host's ($(uname -r))" \
	test -n "$REL" -a "$REL" != "$(uname -r)"
ts_true "exp run as $U: a sealed guest in virtual time under TCG" \
	jq -e '.kernel.vm | .sealed and .clock == "virtual" and .accel == "tcg"' "$M" >/dev/null
ts_range "exp run as $U: upload goodput (bound 19.31)" \
	"$(jq -r '.configs[0].metrics.throughput_up_mbps.mean // 0' "$S" 2>/dev/null)" 15 19.50 \
	"Mbit/s "
ts_check "exp run as $U: owner of the results" "$(stat -c %u "$S" 2>/dev/null)" == "$UID1"
ts_check "exp run as $U: owner of the run's manifest" "$(stat -c %u "$M" 2>/dev/null)" == "$UID1"
ts_check "exp run as $U: processes of the user after it" "$(pgrep -c -u "$U")" == 0
exit 0

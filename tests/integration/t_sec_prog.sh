#!/bin/bash
# SPDX-License-Identifier: MIT
#
# No program is run from the current directory, nor from a directory
# others may write (docs/security.md). tasshape runs as root and is often
# started in a directory someone else wrote; an empty $PATH entry or "."
# names that directory. From a directory $W holding planted executables
# (ip, iptables, iptables-save, ip6tables, ip6tables-save, iperf3,
# qemu-system-x86_64, modprobe, true: each writes a marker file $W/MARK-NAME
# and exits 1), with $PATH ".:<system>" and ":<system>" for tasshape:
#
#   - the wrapper, `tasshape --trace const:10mbit -- true`, exits 0 (the
#     real iptables and the real true ran) and no marker appears;
#   - `tasshape vm --kernel <a made-up bzImage> -- true` fails (the image
#     boots nothing), and no marker appears: QEMU's KVM probe and the VM
#     itself ran the real qemu-system-x86_64;
#   - `tasshape doctor` exits 0, no marker appears, and its iptables, qemu
#     and iperf3 lines name the program run by its absolute path and say
#     that ./NAME was refused for being in a relative $PATH entry.
#
# And with $PATH "$WW:<system>", $WW an absolute directory anyone may write
# (mode 0777, no sticky bit) holding the same programs, the wrapper exits 0
# and no marker appears.
#
# Before the one resolver (io/which.c): the wrapper ran ./iptables and
# ./true with ".", `vm` ran ./qemu-system-x86_64 with "" and ".", doctor
# ran ./iptables and ./qemu-system-x86_64 with ".", all as uid 0.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init sec_prog "${1:-}" jq qemu-system-x86_64

unset SUDO_UID SUDO_GID SUDO_USER SUDO_COMMAND
SYS=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
PLANTED="ip iptables iptables-save ip6tables ip6tables-save iperf3 qemu-system-x86_64 modprobe true"
W=$TS_TMP/work
WW=$TS_TMP/anyone
mkdir -p "$W" "$WW"
chmod 0777 "$WW"
for d in "$W" "$WW"; do
	for p in $PLANTED; do
		printf '#!/bin/sh\ntouch "%s/MARK-%s"\nexit 1\n' "$W" "$p" >"$d/$p"
		chmod 0755 "$d/$p"
	done
done
cd "$W" || ts_die "cd $W"

# A bzImage in name only: the boot-protocol header and a version string, no kernel.
python3 - "$TS_TMP/bzImage" <<'PY' || ts_die "cannot write the made-up bzImage"
import sys
img = bytearray(4096)
img[0x202:0x206] = b"HdrS"
img[0x20e:0x210] = (0x10).to_bytes(2, "little")
img[0x210:0x210 + 18] = b"6.1.0-madeup (t)\0\0"
open(sys.argv[1], "wb").write(img)
PY

# no_marker WHAT: no planted program ran.
no_marker() {
	local found
	found=$(find "$W" -maxdepth 1 -name 'MARK-*' -printf '%f ')
	if [ -n "$found" ]; then
		ts_fail "$1: a planted program ran as root: $found"
		rm -f "$W"/MARK-*
	else
		ts_log "$1: no planted program ran ok"
	fi
}

# contains TEXT PART: whether TEXT holds PART.
contains() { [[ $1 == *"$2"* ]]; }

# in_ns PATHVALUE ARGS...: tasshape ARGS in the test namespace with $PATH set for tasshape
# alone (a planted ip would otherwise run for `ip netns exec` itself); its exit status.
in_ns() {
	local p=$1 wd rc
	shift
	ip netns exec "$TS_NS" env PATH="$p" "$TS_BIN" "$@" &
	TS_RUN_PID=$!
	TS_TAS_PIDS+=("$TS_RUN_PID")
	ts__watchdog "$TS_RUN_PID" 40 &
	wd=$!
	wait "$TS_RUN_PID"
	rc=$?
	wait "$wd"
	return $rc
}

for path in ".:$SYS" ":$SYS"; do
	in_ns "$path" --quiet --trace const:10mbit -- true 2>"$TS_TMP/wrap.err"
	rc=$?
	no_marker "wrapper, PATH=$path"
	ts_check "wrapper, PATH=$path: exit status (the real iptables and true ran)" "$rc" == 0 ||
		ts_show "$TS_TMP/wrap.err"

	timeout -s KILL 60 env PATH="$path" "$TS_BIN" vm --kernel "$TS_TMP/bzImage" \
		--timeout 2s --quiet -- true >"$TS_TMP/vm.out" 2>&1
	rc=$?
	no_marker "vm, PATH=$path"
	ts_check "vm of a made-up bzImage, PATH=$path: exit status (it boots nothing)" "$rc" != 0
	ts_true "vm, PATH=$path: QEMU was found" \
		bash -c "! grep -q 'command not found' '$TS_TMP/vm.out'" || ts_show "$TS_TMP/vm.out"

	in_ns "$path" doctor --json >"$TS_TMP/doctor.json" 2>"$TS_TMP/doctor.err"
	rc=$?
	no_marker "doctor, PATH=$path"
	ts_check "doctor, PATH=$path: exit status" "$rc" == 0 || ts_show "$TS_TMP/doctor.err"
	for c in iptables qemu iperf3; do
		detail=$(jq -r --arg c "$c" '.checks[] | select(.check == $c) | .detail' \
			"$TS_TMP/doctor.json")
		prog=$c
		[ "$c" = qemu ] && prog=qemu-system-x86_64
		want=$(env PATH="$SYS" bash -c 'command -v "$1"' _ "$prog")
		ts_true "doctor, PATH=$path: the $c line names $want" \
			contains "$detail" "$want" || echo "    got: $detail"
		ts_true "doctor, PATH=$path: the $c line says why ./$prog was refused" \
			contains "$detail" "; refused: found ./$prog but it is in a relative \$PATH entry" ||
			echo "    got: $detail"
	done
done

in_ns "$WW:$SYS" --quiet --trace const:10mbit -- true 2>"$TS_TMP/wrap.err"
rc=$?
no_marker "wrapper, PATH=$WW (mode 0777):..."
ts_check "wrapper, PATH=$WW:...: exit status" "$rc" == 0 || ts_show "$TS_TMP/wrap.err"
ts_true "the planted programs are still there (the test planted what it meant to)" \
	test -x "$W/iptables" -a -x "$WW/qemu-system-x86_64"

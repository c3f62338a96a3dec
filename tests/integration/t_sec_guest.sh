#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A guest cannot be root on the host (docs/security.md, "What a guest can and
# cannot reach"), and a spec is data.
# 1. Refused at once, before anything boots (each bounded by `timeout`, so a
#    run that would wait fails instead of hanging): a [kernel] section with
#    `modprobe = -C evil.conf x` (modprobe's own option: the author's install
#    lines would run as root in the guest) or `append = quiet init=/bin/sh`,
#    naming the spec's line; an `image` that is a FIFO (exp run and vm); a
#    modules directory whose modules.dep is a link to /dev/zero (vm --modules,
#    under a 2 GiB address-space cap, and the spec's `modules`).
# 2. Through sudo (SUDO_UID=SUDO_GID=65534) QEMU runs as that user, and still
#    dies with tasshape: its uid is 65534 while it starts, and a SIGKILL of
#    tasshape ends it within 3 s.
# 3. One unsealed TCG boot (Debian's kernel, as t_vm.sh) in which guest root
#    writes a file, a `chmod 4755` copy of a shell and a device node into its
#    writable share, and reads a root-only 0600 canary through the read-only
#    root share: on the host the files belong to 65534, mode 0600, no set-id
#    bit, no device; the copy run by 65534 does not get euid 0; the canary's
#    contents reach neither the share nor CMD's output. The run of case 2,
#    killed, left its temporary directory: this run removes it (nothing is
#    left in TMPDIR at the end).
. "$(dirname "$0")/lib.sh" || exit 2
ts_init sec_guest "${1:-}" qemu-system-x86_64 apt-get dpkg-deb depmod timeout mkfifo setpriv pgrep ps

# The test decides who the invoking user is; a sudo that started it does not.
unset SUDO_UID SUDO_GID SUDO_USER SUDO_COMMAND
NOBODY=65534
BIN=$TS_BIN
# The kernel is fetched where the network is (the test namespace has none); cached after.
"$BIN" vm --kernel debian --fetch-only >"$TS_TMP/fetch" || ts_die "--kernel debian: cannot fetch"
KIMG=$(sed -n 1p "$TS_TMP/fetch")

# --- 1. refused before anything boots
mkfifo "$TS_TMP/fifo"
mkdir "$TS_TMP/mods"
ln -s /dev/zero "$TS_TMP/mods/modules.dep"
# spec NAME KEY-LINES...: a spec whose [kernel k] section (line 8) has image = debian (line 9)
# unless a KEY-LINE says otherwise, then the KEY-LINES from line 10 on.
spec() {
	local f=$TS_TMP/$1.ini
	shift
	printf '[matrix]\ncca = cubic\nlink = a\ntest = tcp_upload\nkernel = k\n[link a]\ndelay = 1ms\n[kernel k]\n' >"$f"
	printf '%s\n' "$@" >>"$f"
	echo "$f"
}
# refused LABEL PATTERN STATUS CMD...: CMD ends within 20 s with STATUS and PATTERN on stderr.
refused() {
	local label=$1 pattern=$2 want=$3 t0 rc
	shift 3
	t0=$(date +%s.%N)
	timeout -s KILL 20 "$@" >"$TS_TMP/r.out" 2>"$TS_TMP/r.err"
	rc=$?
	ts_log "$label: exit $rc after $(ts_elapsed "$t0") s: $(head -c 300 "$TS_TMP/r.err" | tr '\n' ' ')"
	ts_check "$label: exit status (not 137: killed at the 20 s bound)" "$rc" == "$want"
	ts_true "$label: the message says why" grep -q -- "$pattern" "$TS_TMP/r.err"
}
S=$(spec modprobe 'image = debian' 'modprobe = -C evil.conf x')
refused "modprobe = -C evil.conf x" "$S:10: \[kernel k\]: modprobe: '-C': expected a module name" 64 \
	"$BIN" exp run "$S" --out "$TS_TMP/o1"
S=$(spec append 'image = debian' 'append = quiet init=/bin/sh')
refused "append = quiet init=/bin/sh" "$S:10: \[kernel k\]: append: 'init=/bin/sh': not a kernel parameter" 64 \
	"$BIN" exp run "$S" --out "$TS_TMP/o2"
S=$(spec fifo "image = $TS_TMP/fifo")
refused "image = a FIFO (exp run)" "$S:9: \[kernel k\]: image: .*fifo: expected a regular file" 64 \
	"$BIN" exp run "$S" --out "$TS_TMP/o3"
S=$(spec moddep "image = $KIMG" "modules = $TS_TMP/mods")
refused "modules: modules.dep a link to /dev/zero (exp run)" "$S:10: \[kernel k\]: modules: .*modules.dep" 64 \
	"$BIN" exp run "$S" --out "$TS_TMP/o4"
refused "vm --kernel a FIFO" "--kernel .*fifo: expected a regular file" 125 \
	"$BIN" vm --kernel "$TS_TMP/fifo" -- true
# shellcheck disable=SC2016 # expanded by that shell, from its arguments
refused "vm --modules with modules.dep a link to /dev/zero" "--modules .*modules.dep: cannot open" 125 \
	bash -c 'ulimit -v 2097152; cd "$1" && exec "$2" vm --kernel "$3" --modules "$1/mods" -- true' \
	_ "$TS_TMP" "$BIN" "$KIMG"
refused "vm --modprobe '-C evil.conf x'" "--modprobe '-C': expected a module name" 64 \
	"$BIN" vm --kernel "$KIMG" --modprobe '-C evil.conf x' -- true
refused "vm --append init=/bin/sh" "--append 'init=/bin/sh'" 64 \
	"$BIN" vm --kernel "$KIMG" --append 'init=/bin/sh' -- true

# --- 2 and 3: a guest through sudo. QEMU, as 65534, reaches the shares and this tasshape: a
# copy of it in the share (the build tree may be in a directory 65534 cannot read).
chmod 755 "$TS_TMP" # QEMU's 9p server reads each directory on the way, not only searches it
W=$TS_TMP/share
VMTMP=$TS_TMP/vmtmp
mkdir -m 711 "$VMTMP"
mkdir "$W"
cp "$BIN" "$W/tasshape"
chmod 755 "$W/tasshape"
chown "$NOBODY:$NOBODY" "$W"
# The canary, outside /tmp and /run (the guest has its own): root's, 0600, in a directory anyone
# may enter, as a root-only file of the host is.
CDIR=$(mktemp -d /var/tmp/tastest-sec_guest.XXXXXX) || ts_die "mktemp in /var/tmp"
TS_EXTRA_DIRS+=("$CDIR")
chmod 755 "$CDIR"
SECRET="canary-$$-$RANDOM"
echo "$SECRET" >"$CDIR/canary"
chmod 600 "$CDIR/canary"
cd "$W" || ts_die "cd $W"
export SUDO_UID=$NOBODY SUDO_GID=$NOBODY TMPDIR=$VMTMP

# 2. QEMU's user, and its death with tasshape.
TS_BIN=$W/tasshape ts_shape_bg vm --kernel debian --accel tcg --quiet -- sleep 600 \
	>"$TS_TMP/2.out" 2>"$TS_TMP/2.err"
qemu=
for _ in $(seq 100); do
	qemu=$(pgrep -P "$TS_RUN_PID" qemu-system 2>/dev/null | head -n1)
	[ -n "$qemu" ] && break
	sleep 0.1
done
if [ -z "$qemu" ]; then
	ts_fail "no QEMU started within 10 s"
	ts_show "$TS_TMP/2.err"
else
	ts_check "QEMU's uid, through sudo as 65534" "$(ps -o uid= -p "$qemu" | tr -d ' ')" == "$NOBODY"
	kill -KILL "$TS_RUN_PID"
	wait "$TS_RUN_PID" 2>/dev/null
	ts_true "QEMU (as 65534) died with tasshape's SIGKILL within 3 s" ts__wait_pid "$qemu" 3
	kill -KILL "$qemu" 2>/dev/null
fi

# 3. One boot: guest root against the host.
t0=$(date +%s.%N)
# shellcheck disable=SC2016 # expanded by the guest's shell
TS_BIN=$W/tasshape TS_RUN_LIMIT=150 ts_shape vm --kernel debian --accel tcg --quiet -- sh -c '
	echo written >file; cp /bin/sh sh4755; chmod 4755 sh4755; mknod null c 1 3
	ls -ln file sh4755 null >guest.ls; cat "$0" >leak 2>&1; cat "$0"; exit 0' "$CDIR/canary" \
	>"$TS_TMP/3.out" 2>"$TS_TMP/3.err"
rc=$?
ts_log "boot as 65534: $(ts_elapsed "$t0") s"
ts_check "the guest's CMD ran: exit status" "$rc" == 0
ts_show "$TS_TMP/3.err"
ts_log "in the guest: $(tr '\n' ';' <guest.ls 2>/dev/null)"
grep -q '^-rwsr-xr-x 1 0 0 ' guest.ls || ts_fail "the guest did not see its own set-uid root copy (the test proves nothing)"
for f in file sh4755 null; do
	ts_true "$f on the host: 65534's, a regular file, mode 600 ($(stat -c '%u %F %a' "$f" 2>&1))" \
		test -f "$f" -a ! -L "$f" -a "$(stat -c '%u:%a' "$f" 2>&1)" = "$NOBODY:600"
done
ts_true "sh4755 on the host: no set-uid bit" test ! -u sh4755
# Made runnable (when it is not), it runs as whoever starts it.
[ -x sh4755 ] || chmod 755 sh4755
euid=$(setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups ./sh4755 -p -c 'id -u' 2>/dev/null)
ts_true "sh4755 run by 65534 on the host: euid '$euid', not 0" test "$euid" != 0
ts_true "the canary did not reach the share" test -z "$(grep -rlF -- "$SECRET" "$W")"
ts_true "the canary did not reach CMD's output" \
	test -z "$(grep -lF -- "$SECRET" "$TS_TMP/3.out" "$TS_TMP/3.err")"
ts_log "the guest's read of the canary: $(head -c 200 leak 2>/dev/null)"
cd / || true
ts_true "nothing left in TMPDIR (the killed run's directory removed too): $(ls -A "$VMTMP")" \
	test -z "$(ls -A "$VMTMP")"

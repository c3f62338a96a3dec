#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tasshape vm: Debian's stock kernel (--kernel debian, fetched with apt-get
# download into the cache on first use) boots in QEMU with the host's / as
# its read-only root. Checked:
#  1. CMD's output and exit status: `cat /proc/version` prints the Debian
#     kernel's version (not the host's), a file written in the current
#     directory and in --out reaches the host, a file written in /etc does
#     not (tmpfs overlay), stderr stays stderr, and `exit 7` gives 7.
#  2. (--timeout, in real time: t_vm_timeout.sh.)
#  3. The link inside the guest: tasshape --trace const:10mbit around an
#     iperf3 client, its server in the guest: the receiver's goodput is
#     within 5% of 10 * 1448/1500 = 9.653 Mbit/s (IP bytes on the link,
#     1448-byte payloads in 1500-byte packets; see t_rate.sh). The margin is
#     wider than t_rate.sh's because the guest's timers run under TCG.
#  4. A fresh machine whose apt candidate cannot be downloaded (its
#     mirror, the security archive, unreachable; simulated by an apt-get
#     in front of PATH that fails that one download) and an empty cache
#     (TASSHAPE_CACHE, under /tmp: the modules directory must still reach
#     the guest): the next image package of apt's version table is used,
#     a warning names it, and case 1's guest runs that kernel.
#  5. A CMD argument in the host's /tmp outside the shared directories (the
#     guest has its own /tmp) is refused before booting: status 125 and a
#     message naming it; one in the shared current directory is accepted
#     (case 1 passes "$OUT", under /tmp too).
#  6. Nothing is left: no QEMU process, no temporary directory, no mount.
#  7. --time-dilation on a kernel without tasshape's lapic_bus_khz= patch
#     (Debian's): the kernel hands the parameter to init, which refuses the
#     run: status 125 and a message naming the parameter and the patch,
#     before CMD runs (docs/kernels.md, "Time dilation").
# Under TCG the runs are in virtual time (the default there), so CI runs this
# test beside its builds (label vtime, docs/reliability.md, "CI's time").
# When KVM does not work (this kind of machine: /dev/kvm of a paravirtual
# hypervisor), the run must say so on stderr and use TCG.
. "$(dirname "$0")/lib.sh" || exit 2
ts_init vm "${1:-}" qemu-system-x86_64 iperf3 ps pgrep apt-get dpkg-deb depmod
# The test decides who the invoking user is (QEMU runs as that user); a sudo that started it does not.
unset SUDO_UID SUDO_GID SUDO_USER SUDO_COMMAND

ts_vm_begin
WORK=$TS_TMP/work
OUT=$TS_TMP/out
mkdir -p "$WORK" "$OUT"
cd "$WORK" || ts_die "cd $WORK"

# vm LIMIT ARGS...: tasshape vm in the test namespace, temporary files under $VMTMP.
vm() {
	local limit=$1
	shift
	TMPDIR=$VMTMP TS_RUN_LIMIT=$limit ts_shape vm --kernel debian "$@"
}

# 4 (set up here, checked with case 1's boot: one boot less). Fallback along apt's version table.
cand=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }')
older=
for v in $(apt-cache madison linux-image-amd64 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }'); do
	p=$(apt-cache depends "linux-image-amd64=$v" 2>/dev/null | awk '/Depends: linux-image-/ { print $2; exit }')
	if [ -n "$p" ] && [ "$p" != "$cand" ]; then
		older=$p
		break
	fi
done
FB_PATH=$PATH
FB_CACHE=${TASSHAPE_CACHE:-}
if [ -z "$cand" ] || [ -z "$older" ]; then
	ts_log "apt's version table has no second image package besides '$cand': no fallback to test"
else
	mkdir -p "$TS_TMP/fakebin" "$TS_TMP/cache"
	# The candidate's mirror is unreachable; every other apt-get call is the real one.
	printf '#!/bin/sh\ncase " $* " in *" download "*" %s "*) echo "E: simulated: mirror unreachable" >&2; exit 100 ;; esac\nexec %s "$@"\n' \
		"$cand" "$(command -v apt-get)" >"$TS_TMP/fakebin/apt-get"
	chmod +x "$TS_TMP/fakebin/apt-get"
	FB_PATH=$TS_TMP/fakebin:$PATH
	FB_CACHE=$TS_TMP/cache
	# Fetched where the network is (the host's namespace), as on a fresh machine's first run.
	PATH=$FB_PATH TASSHAPE_CACHE=$FB_CACHE "$TS_BIN" vm --kernel debian --fetch-only \
		>"$TS_TMP/4.fetch" 2>"$TS_TMP/4.fetch.err"
	ts_check "fallback fetch: exit status" "$?" == 0
	ts_show "$TS_TMP/4.fetch.err"
	grep -q "warning: using $older .* instead of apt's candidate $cand" "$TS_TMP/4.fetch.err" ||
		ts_fail "no warning naming $older as used instead of $cand"
	grep -q "/$older/root/boot/vmlinuz-" "$TS_TMP/4.fetch" || ts_fail "--fetch-only did not print $older's bzImage"
	[ ! -e "$TS_TMP/cache/kernels/$cand" ] || ts_fail "the failed candidate left $cand in the cache"
fi

# 1. Output, files and exit status. In the test namespace (no network) the candidate of
# case 4 stays out of reach: the cached older kernel runs.
t0=$(date +%s.%N)
# shellcheck disable=SC2016 # expanded by the guest's shell
PATH=$FB_PATH TASSHAPE_CACHE=$FB_CACHE vm 150 --out "$OUT" --info-json "$TS_TMP/1.info.json" -- sh -c 'cat /proc/version; uname -r >release.txt; echo in-out >"$0/o.txt";
	touch /etc/tasshape-vm-test; echo to-stderr >&2; exit 7' "$OUT" \
	>"$TS_TMP/1.out" 2>"$TS_TMP/1.err"
rc=$?
ts_log "boot + cat /proc/version: $(ts_elapsed "$t0") s"
ts_check "exit 7 comes back" "$rc" == 7
ts_show "$TS_TMP/1.err"
if ! grep -q "^Linux version .*Debian" "$TS_TMP/1.out"; then
	ts_fail "/proc/version in the guest is not a Debian kernel's"
	ts_show "$TS_TMP/1.out"
fi
guest_rel=$(cat release.txt 2>/dev/null)
ts_log "guest kernel $guest_rel, host kernel $(uname -r)"
[ -n "$guest_rel" ] || ts_fail "release.txt was not written into the shared current directory"
[ "$guest_rel" != "$(uname -r)" ] || ts_fail "the guest ran the host's kernel"
if [ -n "$older" ]; then
	ts_true "case 4: the guest ran ${older#linux-image-}" [ "$guest_rel" = "${older#linux-image-}" ]
	grep -q "warning: using $older " "$TS_TMP/1.err" || ts_fail "case 4: the run did not say it used $older"
fi
grep -q "^Linux version $guest_rel " "$TS_TMP/1.out" ||
	ts_fail "/proc/version does not name release $guest_rel"
# The record a manifest takes: the release the guest ran, the bzImage's hash, the accelerator.
kpath=$(jq -r .kernel.path "$TS_TMP/1.info.json")
[ "$(jq -r .kernel.release "$TS_TMP/1.info.json")" = "$guest_rel" ] ||
	ts_fail "--info-json: kernel.release is not $guest_rel"
[ "$(jq -r .kernel.sha256 "$TS_TMP/1.info.json")" = "$(sha256sum "$kpath" | cut -d' ' -f1)" ] ||
	ts_fail "--info-json: kernel.sha256 is not the SHA-256 of $kpath"
case "$(jq -r .kernel.version "$TS_TMP/1.info.json")" in
"$guest_rel "*) ;;
*) ts_fail "--info-json: kernel.version does not start with $guest_rel" ;;
esac
ts_log "accelerator $(jq -r .accel "$TS_TMP/1.info.json"), clock source" \
	"$(jq -r .clocksource "$TS_TMP/1.info.json"), CMD started $(jq -r .boot_s "$TS_TMP/1.info.json") s after boot"
# The clock follows the accelerator: virtual time under TCG (icount shift 0, one vCPU).
if [ "$(jq -r .accel "$TS_TMP/1.info.json")" = tcg ]; then
	ts_true "--info-json: clock virtual, icount_shift 0, 1 vCPU, fidelity virtual" \
		jqt '.clock == "virtual" and .icount_shift == 0 and .cpus == 1 and .fidelity == "virtual"' \
		"$TS_TMP/1.info.json"
	# Unsealed, virtual time does not promise the same bytes: the record and stderr say so.
	ts_true "--info-json: an unsealed guest in virtual time is not reproducible" \
		jqt '.sealed == false and .reproducible == false' "$TS_TMP/1.info.json"
	ts_true "stderr: virtual time without --seal is said to be not reproducible" \
		grep -q "virtual time without --seal is not reproducible" "$TS_TMP/1.err"
else
	ts_true "--info-json: clock real under KVM" jqt '.clock == "real"' "$TS_TMP/1.info.json"
fi
[ "$(cat "$OUT/o.txt" 2>/dev/null)" = in-out ] || ts_fail "--out: o.txt not written"
[ ! -e /etc/tasshape-vm-test ] || ts_fail "a write to /etc in the guest reached the host"
grep -q "^to-stderr$" "$TS_TMP/1.err" || ts_fail "CMD's stderr did not come back on stderr"
! grep -q "to-stderr" "$TS_TMP/1.out" || ts_fail "CMD's stderr came back on stdout"
if grep -q "under TCG" "$TS_TMP/1.err"; then
	grep -q "warning: KVM is not usable" "$TS_TMP/1.err" || [ ! -e /dev/kvm ] ||
		ts_fail "TCG was chosen with /dev/kvm present but without a warning saying why"
fi

# 3. The emulated link inside the guest.
EXPECTED=$(awk 'BEGIN { printf "%.4f", 10 * 1448 / 1500 }')
LO=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.3f", e * 0.95 }')
HI=$(awk -v e="$EXPECTED" 'BEGIN { printf "%.3f", e * 1.05 }')
t0=$(date +%s.%N)
# shellcheck disable=SC2016 # expanded by the guest's shell
vm 150 --quiet -- sh -c 'iperf3 -s -1 -p 5201 >/dev/null 2>&1 & sleep 1;
	exec "$0" --trace const:10mbit --quiet -- sh -c "exec iperf3 -c \$TASSHAPE_BASE -p 5201 -t 8 -O 2 -J"' \
	"$TS_BIN" >"$TS_TMP/3.json" 2>"$TS_TMP/3.err"
rc=$?
ts_log "boot + 10 s iperf3 through tasshape in the guest: $(ts_elapsed "$t0") s"
if [ "$rc" -ne 0 ]; then
	ts_fail "iperf3 through tasshape in the guest: exit $rc"
	ts_show "$TS_TMP/3.err"
else
	bps=$(jq -r '.end.sum_received.bits_per_second' "$TS_TMP/3.json")
	ts_log "retransmits $(jq -r '.end.sum_sent.retransmits // "?"' "$TS_TMP/3.json")," \
		"congestion control $(jq -r '.end.sender_tcp_congestion // "?"' "$TS_TMP/3.json")"
	ts_range "goodput through const:10mbit in the guest (s 2-10)" "$(ts_mbit "$bps")" \
		"$LO" "$HI" "Mbit/s "
fi

# 5. A script in the host's /tmp, outside the shares.
echo 'echo hello' >"$TS_TMP/hidden.sh"
vm 60 --quiet -- sh "$TS_TMP/hidden.sh" >"$TS_TMP/5.out" 2>"$TS_TMP/5.err"
ts_check "CMD argument under the host's /tmp: exit status" "$?" == 125
grep -q "CMD argument '$TS_TMP/hidden.sh': .* the guest does not see" "$TS_TMP/5.err" ||
	ts_fail "no message saying the guest does not see $TS_TMP/hidden.sh"
ts_show "$TS_TMP/5.err"

# 7. Time dilation needs the patched kernel; Debian's is refused by the guest's init.
vm 120 --quiet --seal --time-dilation 2 -- sh -c 'echo ran' >"$TS_TMP/7.out" 2>"$TS_TMP/7.err"
ts_check "--time-dilation on Debian's kernel: exit status" "$?" == 125
grep -q "does not know lapic_bus_khz=, so it cannot run with its time dilated: build it with tools/kernel/patches/lapic-bus-khz.patch" \
	"$TS_TMP/7.err" || ts_fail "no message saying the kernel lacks lapic_bus_khz="
! grep -q "^ran$" "$TS_TMP/7.out" || ts_fail "CMD ran in a guest that refused the dilation"
ts_show "$TS_TMP/7.err"

# 6. Nothing left behind on the host.
ts_vm_left
ts_log "done in $((SECONDS - TS_START)) s"

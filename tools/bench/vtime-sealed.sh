#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Is a virtual-time guest that never waits on the host deterministic?
# (Run by hand, as root; not a test. Results in docs/kernels.md, "Measured".)
#
# `tasshape vm` mounts the host's / over virtio-9p: every read the guest makes
# before a run (the boot's modules, tasshape, iperf3, their libraries) is
# answered when the host gets to it, and in virtual time the guest's clock
# jumps ahead while it waits, so each boot reaches the run in another state.
# This script builds a "sealed" initramfs instead: a static busybox, this
# tasshape, iperf3, iptables (xtables-nft-multi and its extensions), kmod,
# every shared library they link, the kernel modules a run loads and the
# /etc files they read, all at their host paths. Its /init runs a 1 s
# warm-up flow and one CUBIC upload (iperf3, 4 s after 1 s omitted) through
# `tasshape --trace const:20mbit --delay 20ms`, prints on the serial console
# the guest's uptime, its boot_id (a random UUID drawn from the kernel's
# random pool at the first read), iperf3's received bytes and intervals and
# tasshape's summary, and powers off. No 9p, no virtio device: the guest's
# only I/O is the serial console, which QEMU writes synchronously.
#
# tasshape exp's virtual-time guests now boot from such an image, built in C
# (src/vm/sealed.c; docs/kernels.md, "Sealed guests"); `tasshape vm` does not.
#
# N guests (default 2) boot at once; the script reports whether their console
# lines are identical. --no-fix leaves out -rtc base=...,clock=vm and -seed
# (what tasshape vm adds in virtual time), to show what they change.
#
# Usage: tools/bench/vtime-sealed.sh [--no-fix] [N]
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
tasshape=${TASSHAPE:-$here/build/tasshape}
fix=1
if [ "${1:-}" = --no-fix ]; then
	fix=0
	shift
fi
n=${1:-2}
case $n in '' | *[!0-9]*) echo "N: expected a number of guests, got '$n'" >&2 && exit 2 ;; esac

mapfile -t km < <("$tasshape" vm --kernel debian --fetch-only)
kernel=${km[0]}
moddir=${km[1]}
rel=$(basename "$moddir")
for t in /bin/busybox /usr/bin/iperf3 /usr/sbin/xtables-nft-multi /usr/bin/kmod; do
	[ -x "$t" ] || { echo "$t: missing (busybox-static, iperf3, iptables, kmod)" >&2 && exit 2; }
done

work=$(mktemp -d /var/tmp/tasshape-sealed.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,lib64,usr/sbin,usr/local/bin,lib/modules/"$rel"}

# put FILE...: each file at its host path, with the shared libraries it links (ldd).
put() {
	local f l
	for f in "$@"; do
		[ -e "$root$f" ] && continue
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
		while read -r l; do
			[ -e "$root$l" ] && continue
			mkdir -p "$root$(dirname "$l")"
			cp -L "$l" "$root$l"
		done < <(ldd "$f" 2>/dev/null | awk '/=> \//{print $3}')
	done
}
cp /bin/busybox "$root/bin/busybox"
cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
put /usr/bin/iperf3 /usr/sbin/xtables-nft-multi /usr/bin/kmod /usr/lib/x86_64-linux-gnu/xtables/*.so
mkdir -p "$root$(dirname "$tasshape")"
cp "$tasshape" "$root/usr/local/bin/tasshape"
put "$tasshape" && rm -f "$root$tasshape"
for t in iptables ip6tables iptables-save ip6tables-save iptables-restore ip6tables-restore; do
	ln -sf xtables-nft-multi "$root/usr/sbin/$t"
done
ln -sf ../usr/bin/kmod "$root/sbin/modprobe"
for f in passwd group nsswitch.conf protocols services ld.so.cache; do
	[ -e "/etc/$f" ] && cp "/etc/$f" "$root/etc/"
done
# The modules a run loads (exec_warm.c's list) and what they depend on, at their paths.
mods="veth nfnetlink_queue xt_NFQUEUE xt_comment xt_MASQUERADE nft_compat nft_chain_nat nf_nat"
mods="$mods nf_conntrack inet_diag tcp_diag udp_diag libcrc32c"
mtree=${moddir%/lib/modules/*}
cp "$moddir"/modules.* "$root/lib/modules/$rel/"
for m in $mods; do modprobe -d "$mtree" -S "$rel" --show-depends "$m"; done |
	awk '$1 == "insmod" {print $2}' | sort -u | while read -r f; do
	mkdir -p "$(dirname "$root${f#"$mtree"}")"
	cp "$f" "$root${f#"$mtree"}"
done
cat >"$root/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp; mount -t tmpfs tmpfs /run
ip link set lo up
for m in $mods; do modprobe \$m; done
cd /tmp
EOF
cat >>"$root/init" <<'EOF'
run() { # NAME SECONDS
	iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	sleep 1
	tasshape --trace const:20mbit --delay 20ms --quiet --summary-json "$1.s.json" -- \
		sh -c "exec iperf3 -c \$TASSHAPE_BASE -p 5201 -t $2 -O 1 -J >$1.json"
	wait
}
run w 1
run a 4
flat() { tr -d ' \t\n' <"$1"; }
echo "SEALED uptime $(cat /proc/uptime)"
echo "SEALED boot_id $(cat /proc/sys/kernel/random/boot_id)"
echo "SEALED received $(flat a.json | grep -o '"sum_received":{[^}]*}' | grep -o '"bytes":[0-9]*')"
echo "SEALED intervals $(flat a.json | grep -o '"sum":{"start":[^}]*}' | grep -o '"bytes":[0-9]*' | tr '\n' ' ')"
echo "SEALED summary $(flat a.s.json)"
poweroff -f
EOF
chmod +x "$root/init"
(cd "$root" && find . | /bin/busybox cpio -o -H newc 2>/dev/null) >"$work/sealed.cpio"

fixargs=()
# shellcheck disable=SC2054 # QEMU's option values have commas
[ $fix = 1 ] && fixargs=(-rtc base=2000-01-01T00:00:00,clock=vm -seed 1)
t0=$(date +%s)
for i in $(seq 1 "$n"); do
	qemu-system-x86_64 -nodefaults -no-user-config -nic none -display none -no-reboot \
		-machine pc,accel=tcg -cpu max -icount shift=0,sleep=off,align=off "${fixargs[@]}" \
		-smp 1 -m 1024 -kernel "$kernel" -initrd "$work/sealed.cpio" \
		-append "console=ttyS0 panic=-1 quiet clocksource=hpet rdinit=/init" \
		-serial "file:$work/console.$i" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done
pids=()
echo "$n guests at once, $(($(date +%s) - t0)) s wall, fix=$fix, load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$n"); do
	grep '^SEALED' "$work/console.$i" | cut -c1-160 | sed "s/^/guest $i: /"
	grep '^SEALED' "$work/console.$i" >"$work/lines.$i"
done
same=1
for i in $(seq 2 "$n"); do cmp -s "$work/lines.1" "$work/lines.$i" || same=0; done
if [ ! -s "$work/lines.1" ]; then
	echo "guest 1 printed no result: see its console" && tail -n 20 "$work/console.1"
	exit 1
fi
[ $same = 1 ] && echo "identical: every guest's lines, the summary's included" && exit 0
# Which fields differ: the lines split at commas, guest 1 against each other guest.
for i in $(seq 2 "$n"); do
	echo "guest 1 (<) against guest $i (>):"
	diff <(tr ',' '\n' <"$work/lines.1") <(tr ',' '\n' <"$work/lines.$i") | grep '^[<>]' || true
done
echo "different" && exit 1

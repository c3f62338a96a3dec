#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Per packet against --gso through a Wi-Fi 6 station, in one sealed guest (run by hand, as
# root; not a test): does `--gso`, whose super-packets the MAC aggregates segment by segment,
# fill its A-MPDUs as a station fed per packet does? One CUBIC upload per mode and PHY width,
# behind a wired hop, in this order after a 1 s warm-up: per packet and --gso at 40 MHz, then
# at 20 MHz (HE-MCS and spatial streams as given). Per run: goodput (iperf3's receiver), the
# uplink's mean MPDUs per A-MPDU, the release error p99 of both directions in guest time,
# whether the run fell behind (its summary's fell_behind), the access point's TXOPs, the
# station's collisions, and the uplink's rate per successful airtime (IP bytes over the
# station's airtime in A-MPDUs not lost in a collision). Per width: the A-MPDU means' and the
# rates' ratios and the total variation distance between the two modes' distributions of
# MPDUs per A-MPDU (`n_hist`). A comparison is meaningful only where per packet did not fall
# behind: a late guest batches the server's ACKs and refills the station late.
#
# Per packet needs a fast guest CPU at these rates: -D K dilates the guest's time (tasshape vm
# --time-dilation, a kernel built with tools/kernel/patches/lapic-bus-khz.patch; docs/kernels.md,
# "Time dilation"). At K = 8, HE-MCS 11, 1 SS, per packet kept the timing rule at both widths
# (docs/kernels.md, "The paper's Wi-Fi regime"). Output: the table on stdout, the runs' files in
# the -o directory.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
tasshape=${TASSHAPE:-$here/build/tasshape}
kernel=
modules=
dil=
mcs=11
ss=1
secs=6
out=/var/tmp/tasshape-wifi6-gso-pkt

usage() {
	cat <<EOF
Usage: $0 -k BZIMAGE [-m MODULES] [-D K] [-c MCS] [-s SS] [-t SECONDS] [-o DIR] [-b TASSHAPE]
  -k BZIMAGE   the guest kernel (with -D: built with tools/kernel/patches/lapic-bus-khz.patch)
  -m MODULES   its modules directory (lib/modules/RELEASE)
  -D K         dilate the guest's time by K (default: none)
  -c MCS       HE-MCS (default $mcs); -s SS spatial streams (default $ss)
  -t SECONDS   measured seconds per run, after 1 s omitted (default $secs)
  -o DIR       where the runs' files go (default $out; emptied first)
  -b PATH      tasshape binary (default \$TASSHAPE or $here/build/tasshape), not under /tmp
Needs root, qemu-system-x86_64, iperf3, jq and python3. About 6 to 15 minutes of wall time at
K = 3 to 8 on a quiet 2-core machine.
EOF
}

while getopts "k:m:D:c:s:t:o:b:h" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	m) modules=$OPTARG ;;
	D) dil=$OPTARG ;;
	c) mcs=$OPTARG ;;
	s) ss=$OPTARG ;;
	t) secs=$OPTARG ;;
	o) out=$OPTARG ;;
	b) tasshape=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ -n "$kernel" ] || { usage >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "$0: needs root" >&2; exit 2; }
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -ge 1 ] || { echo "$0: -t: whole seconds expected" >&2; exit 2; }
[[ $mcs =~ ^[0-9]+$ && $ss =~ ^[0-9]+$ ]] || { echo "$0: -c and -s: whole numbers expected" >&2; exit 2; }
for t in qemu-system-x86_64 iperf3 jq python3; do
	command -v "$t" >/dev/null || { echo "$0: $t is not installed" >&2; exit 2; }
done
case $out in /*) ;; *) out=$PWD/$out ;; esac
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d /var/tmp/tasshape-gsopkt.XXXXXX)
trap 'rm -rf "$work"' EXIT

t0=$(date +%s)
# The guest starts in an empty directory of its image; its files reach $out after CMD.
cd "$work"
# shellcheck disable=SC2016 # expanded by the guest's shell
"$tasshape" vm --kernel "$kernel" ${modules:+--modules "$modules"} --seal \
	${dil:+--time-dilation "$dil"} --quiet --seal-tool iperf3 --seal-tool sleep --seal-tool cp \
	--out "$out" --info-json "$out/vm.json" -- sh -c '
	run() { # NAME SECONDS LINK-OPTIONS...
		n=$1 t=$2; shift 2
		iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
		sleep 1
		"$T" "$@" --quiet --summary-json "/tmp/$n.s.json" -- \
			sh -c "exec iperf3 -c \$TASSHAPE_BASE -p 5201 -t $t -O 1 -J >/tmp/$n.json" || return 1
		wait
	}
	T=$0 t=$1 phy=$2
	run w 1 --trace const:20mbit --delay 20ms &&
		run p40 "$t" --mac "wifi6:bw=40,$phy" --trace const:1gbit &&
		run g40 "$t" --mac "wifi6:bw=40,$phy" --trace const:1gbit --gso &&
		run p20 "$t" --mac "wifi6:bw=20,$phy" --trace const:1gbit &&
		run g20 "$t" --mac "wifi6:bw=20,$phy" --trace const:1gbit --gso &&
		cp /tmp/*.json "$TASSHAPE_VM_OUT"' "$tasshape" "$secs" "mcs=$mcs,ss=$ss" \
	>"$out/guest.out" 2>"$out/guest.err" || {
	echo "$0: the guest failed (its stderr: $out/guest.err)" >&2
	exit 1
}
echo "K ${dil:-1}, HE-MCS $mcs, $ss SS, ${secs} s per run: $(($(date +%s) - t0)) s of wall time"

python3 - "$out" <<'EOF'
import json, sys

d = sys.argv[1]

def run(name):
    s = json.load(open(f"{d}/{name}.s.json"))
    i = json.load(open(f"{d}/{name}.json"))
    up, down = s["directions"][0], s["directions"][1]
    w = up["wifi6"]
    succ = w["airtime_utilisation"] * (1 - w["collisions"] / w["txops"])
    hist = {int(k): v for k, v in w["n_hist"].items()}
    total = sum(hist.values())
    return {
        "good": i["end"]["sum_received"]["bits_per_second"] / 1e6,
        "mean": w["mean_n"],
        "p99": (up["release_error_ns"]["p99"] / 1e3, down["release_error_ns"]["p99"] / 1e3),
        "fell": any(x.get("fell_behind") for x in s["directions"]),
        "ap_txops": down["wifi6"]["txops"],
        "coll": (w["collisions"], w["txops"]),
        "per_air": up["throughput_bps"] / 1e6 / succ,
        "dist": {k: v / total for k, v in hist.items()},
    }

print("| width | mode | goodput Mbit/s | A-MPDU mean | release p99 up / down, us | flagged "
      "| AP TXOPs | station collisions | per airtime, Mbit/s |")
print("|---|---|---|---|---|---|---|---|---|")
pairs = []
for width in (40, 20):
    p, g = run(f"p{width}"), run(f"g{width}")
    pairs.append((width, p, g))
    for mode, r in (("per packet", p), ("--gso", g)):
        print(f"| {width} MHz | {mode} | {r['good']:.2f} | {r['mean']:.2f} | "
              f"{r['p99'][0]:.0f} / {r['p99'][1]:.0f} | {'yes' if r['fell'] else 'no'} | "
              f"{r['ap_txops']} | {r['coll'][0]} of {r['coll'][1]} | {r['per_air']:.2f} |")
for width, p, g in pairs:
    keys = set(p["dist"]) | set(g["dist"])
    tv = 0.5 * sum(abs(p["dist"].get(k, 0) - g["dist"].get(k, 0)) for k in keys)
    note = "per packet fell behind: not comparable" if p["fell"] else "per packet kept the rule"
    print(f"{width} MHz: A-MPDU mean per packet / --gso {p['mean'] / g['mean']:.4f}, "
          f"TV {tv:.3f}, rate per successful airtime {p['per_air'] / g['per_air']:.4f}, "
          f"goodput {p['good'] / g['good']:.4f} ({note})")
EOF

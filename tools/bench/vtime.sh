#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Capacity of a guest in virtual time (run by hand, as root; not a test).
#
# Under `tasshape vm --clock virtual` the guest's clock is QEMU's instruction
# counter (1 ns per instruction): its CPU runs 1e9 instructions per virtual
# second, however fast the host is. A link whose per-packet work exceeds that
# budget saturates the virtual CPU: the release timing, measured in guest time,
# degrades, and the one fell-behind rule (release error p99 above 200 us, or a
# packet lost outside the model; src/run/fidelity.c, docs/experiments.md
# "Fidelity") says so: the row takes the verdict the run's own summary wrote,
# and shows the guest CPU's idle share in the run's busiest second (how near
# the budget the run came).
#
# One row per rate: a sealed guest (`tasshape vm --seal`: it reads nothing from
# the host until the run ends, so the guest-time columns are the same on any host
# under any load) boots, starts an iperf3 server, and runs one CUBIC upload
# through `tasshape --trace const:RATE --delay DELAY [--gso]`, all inside the
# guest (it has no network device). Per row: goodput against the bound
# RATE x 1448/1500, the release error p50/p99 in guest time (the worse direction),
# whether the rule flags either direction, and the wall-clock seconds per virtual second of the run (the
# row's wall time minus a boot-only guest's, over the run's virtual seconds).
# Output: a table on stdout, one JSON object per row in the -o file. Results go
# into docs/benchmarks.md and docs/kernels.md.
#
# A row whose goodput is below half its bound while the guest CPU was idle at
# least half of the run's busiest second is a stall, not a capacity limit: a
# window stopped growing. The script then prints a STALL line under the row,
# sets "stall" in its JSON, and exits 1 after the last row. At 300 Mbit/s per
# packet the shaper's loop once polled whole gaps between its releases, held
# the one virtual CPU for each burst, and the receiver, reading a burst only
# after it, never grew its window: 15 Mbit/s with the CPU 88% idle
# (docs/benchmarks.md, "Sealed guests on a quiet host"). tests/unit/test_spin.c
# checks the loop's side of that without a guest; this check is the only one
# that sees a whole guest's flow, so it is not in CI: it needs a sealed guest
# in virtual time (minutes of TCG per row) and a kernel built for it.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
out=/var/tmp/tasshape-vtime.jsonl
tasshape=${TASSHAPE:-$here/build/tasshape}
kernel=debian
modules=
dur=10
delay=20ms
pkt_rates="20mbit 100mbit 200mbit 250mbit"
gso_rates="300mbit 500mbit 1gbit"
dilation=

usage() {
	cat <<EOF
Usage: $0 [-o FILE] [-b TASSHAPE] [-k KERNEL] [-m MODULES] [-t SECONDS] [-d DELAY] [-p "RATE ..."] [-g "RATE ..."] [-D K]
  -o FILE      JSON lines output (default $out)
  -b PATH      tasshape binary (default \$TASSHAPE or $here/build/tasshape); the guest
               runs it from the same path, so not under /tmp (the guest's /tmp is its own)
  -k KERNEL    bzImage or debian (default $kernel)
  -m MODULES   the bzImage's modules directory (lib/modules/RELEASE), when it has one
  -t SECONDS   measured seconds per iperf3 run, after 2 s omitted (default $dur)
  -d DELAY     one-way delay of the link (default $delay)
  -p RATES     per-packet rates (default "$pkt_rates"; "" for none)
  -g RATES     --gso rates (default "$gso_rates"; "" for none)
  -D K         dilate the guests' time by K (tasshape vm --time-dilation; a kernel built
               with tools/kernel/patches/lapic-bus-khz.patch): a CPU K times as fast; the
               wall-time column then counts the guest's own seconds
Needs root, qemu-system-x86_64, iperf3 and jq. Takes about (1 + rows) x (boot + 3 x (t + 3)) s
of wall time on a quiet 2-core machine.
EOF
}

while getopts "o:b:k:m:t:d:p:g:D:h" opt; do
	case $opt in
	o) out=$OPTARG ;;
	b) tasshape=$OPTARG ;;
	k) kernel=$OPTARG ;;
	m) modules=$OPTARG ;;
	t) dur=$OPTARG ;;
	d) delay=$OPTARG ;;
	p) pkt_rates=$OPTARG ;;
	g) gso_rates=$OPTARG ;;
	D) dilation=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "$0: needs root" >&2; exit 2; }
[[ $dur =~ ^[0-9]+$ ]] && [ "$dur" -ge 1 ] || { echo "$0: -t: whole seconds expected" >&2; exit 2; }
for t in qemu-system-x86_64 iperf3 jq; do
	command -v "$t" >/dev/null || { echo "$0: $t is not installed" >&2; exit 2; }
done
tasshape=$(cd "$(dirname "$tasshape")" && pwd)/$(basename "$tasshape")
case $out in /*) ;; *) out=$PWD/$out ;; esac
case $tasshape in /tmp/* | /run/*) echo "$0: -b $tasshape: the guest cannot see /tmp or /run" >&2; exit 2 ;; esac

work=$(mktemp -d /var/tmp/tasshape-vtime.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/run" "$work/out"
# The guest starts in an empty directory of its image and writes into $TASSHAPE_VM_OUT,
# copied into $work/out when it ends.
cd "$work/run"
vm=("$tasshape" vm --kernel "$kernel" ${modules:+--modules "$modules"} --clock virtual --seal
	${dilation:+--time-dilation "$dilation"} --seal-tool iperf3 --seal-tool sleep --out "$work/out" --quiet)
"$tasshape" vm --kernel "$kernel" --fetch-only >/dev/null 2>&1 || [ "$kernel" != debian ] ||
	{ echo "$0: cannot fetch Debian's kernel" >&2; exit 1; }

now() { date +%s.%N; }
# rate in bit/s of a tc-style rate (20mbit, 1gbit)
bps() { awk -v r="$1" 'BEGIN { n = r + 0; u = tolower(substr(r, length(n "") + 1));
	m = u == "kbit" ? 1e3 : u == "mbit" ? 1e6 : u == "gbit" ? 1e9 : 1; printf "%.0f", n * m }'; }
# one-way delay in ns (20ms, 500us)
delay_ns() { awk -v d="$1" 'BEGIN { n = d + 0; u = substr(d, length(n "") + 1);
	m = u == "ms" ? 1e6 : u == "us" ? 1e3 : u == "s" ? 1e9 : 1; printf "%.0f", n * m }'; }

# A boot with nothing to run: the fixed cost subtracted from every row.
t0=$(now)
"${vm[@]}" --info-json "$work/boot.json" -- true
boot_wall=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
echo "boot only: ${boot_wall} s wall, CMD started $(jq .boot_s "$work/boot.json") s of guest time after boot"
: >"$out"
printf '%-5s %-9s %10s %8s %9s %9s %7s %8s %9s\n' mode rate goodput bound "p50_us" "p99_us" "idle%" flagged wall/vs

# stalled GOODPUT BOUND IDLE: below half the bound with the CPU idle half the busiest second or
# more. No verdict without both numbers (iperf3 or the summary did not give one).
stalled() {
	awk -v g="$1" -v b="$2" -v i="$3" 'function num(x) { return x ~ /^[0-9.eE+-]+$/ }
		BEGIN { exit !(num(g) && num(i) && g < b / 2 && i >= 50) }'
}

stalls=0
row() { # MODE RATE
	local mode=$1 rate=$2 gso=
	[ "$mode" = gso ] && gso=--gso
	rm -f "$work/out/s.json" "$work/out/i.json"
	t0=$(now)
	# shellcheck disable=SC2016 # expanded by the guest's shell
	"${vm[@]}" --info-json "$work/vm.json" -- sh -c '
		iperf3 -s -1 -p 5201 >/dev/null 2>&1 & sleep 1
		exec "$0" --trace "const:$1" --delay "$2" $3 --quiet \
			--summary-json "$TASSHAPE_VM_OUT/s.json" -- \
			sh -c "exec iperf3 -c \$TASSHAPE_BASE -p 5201 -t $4 -O 2 -J >\$TASSHAPE_VM_OUT/i.json"' \
		"$tasshape" "$rate" "$delay" "$gso" "$dur" || true
	cd "$work/out"
	local wall
	wall=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
	if [ ! -s s.json ] || [ ! -s i.json ]; then
		echo "$mode $rate: the run in the guest wrote no results" >&2
		cd "$work/run"
		return
	fi
	local good bound p50 p99 kdrop flagged per_vs idle stall=no
	good=$(jq '.end.sum_received.bits_per_second / 1e6' i.json)
	bound=$(awk -v r="$(bps "$rate")" 'BEGIN { printf "%.2f", r * 1448 / 1500 / 1e6 }')
	p50=$(jq '[.directions[] | .release_error_ns.p50 // 0] | max / 1e3' s.json)
	p99=$(jq '[.directions[] | .release_error_ns.p99 // 0] | max / 1e3' s.json)
	# The guest CPU's idle share in the run's busiest second (virtual time only).
	idle=$(jq -r '(.vcpu_idle_min_permille // null) | if . == null then "-" else . / 10 end' s.json)
	kdrop=$(jq '[.directions[] | (.kernel_dropped // 0) + (.socket_overrun // 0) + (.unexplained_drops // 0)] | add' s.json)
	# The rule's verdict as the run's summary wrote it (null per direction that kept its timing).
	flagged=$(jq -r 'if [.directions[] | .fell_behind | select(. != null)] | length > 0 then "yes" else "no" end' s.json)
	# Virtual seconds of the row beyond a bare boot: 1 s sleep, the omitted 2 s, the measured ones.
	per_vs=$(awk -v w="$wall" -v b="$boot_wall" -v t="$dur" 'BEGIN { printf "%.2f", (w - b) / (t + 3) }')
	printf '%-5s %-9s %10.2f %8s %9.1f %9.1f %7s %8s %9s\n' "$mode" "$rate" "$good" "$bound" "$p50" "$p99" "$idle" "$flagged" "$per_vs"
	if stalled "$good" "$bound" "$idle"; then
		stall=yes
		stalls=$((stalls + 1))
		printf 'STALL: %s %s delivered %.2f Mbit/s of %s with the guest CPU %s%% idle in its busiest second: not a CPU limit, a window stopped growing\n' \
			"$mode" "$rate" "$good" "$bound" "$idle"
	fi
	# Numbers pass as strings: one the run did not produce becomes null, not a jq error.
	jq -nc --arg mode "$mode" --arg rate "$rate" --arg good "$good" --arg bound "$bound" \
		--arg p50 "$p50" --arg p99 "$p99" --arg kdrop "$kdrop" --arg idle "$idle" \
		--arg flagged "$flagged" --arg wall "$wall" --arg boot "$boot_wall" --arg t "$dur" \
		--arg per_vs "$per_vs" --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" --arg stall "$stall" \
		--arg dil "${dilation:-1}" \
		'def n: tonumber? // null;
		 {mode: $mode, rate: $rate, goodput_mbps: ($good | n), bound_mbps: ($bound | n),
		  release_p50_us: ($p50 | n), release_p99_us: ($p99 | n), vcpu_idle_min_pct: ($idle | n),
		  kernel_drops: ($kdrop | n), flagged: ($flagged == "yes"), wall_s: ($wall | n),
		  boot_wall_s: ($boot | n), measured_s: ($t | n), wall_per_virtual_s: ($per_vs | n),
		  loadavg: $load, stall: ($stall == "yes"), time_dilation: ($dil | n)}' >>"$out"
	cd "$work/run"
}

for r in $pkt_rates; do row pkt "$r"; done
for r in $gso_rates; do row gso "$r"; done
echo "rule: flagged when a direction's release error p99 > 200 us or a packet was lost outside the model (its summary's fell_behind); idle%: the guest CPU's idle share in the run's busiest second; rows in $out"
if [ "$stalls" -gt 0 ]; then
	echo "$0: $stalls row(s) STALLED: goodput below half the bound with the guest CPU mostly idle" >&2
	exit 1
fi

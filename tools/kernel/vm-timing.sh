#!/usr/bin/env bash
# Release timing of the emulated link on the host and inside `tasshape vm` guests: one CUBIC
# iperf3 upload (2 s omitted + 8 s measured) through `tasshape --trace const:RATE`, per setting,
# printing the goodput, TCP retransmissions, link drops and the uplink's release timing error
# (tasshape's release_error_ns: from a packet's model release time to the clock read after its
# verdict is sent). The guest settings compare the defaults of `tasshape vm` (HPET clock source
# under TCG, 2 vCPUs) with the TSC clock source and with one vCPU. Root; traffic stays in a
# namespace this script makes (host) or inside the guest. Figures go to docs/kernels.md.
#
#   tools/kernel/vm-timing.sh TASSHAPE [KERNEL|debian [MODULES]] [RATE]
set -euo pipefail

bin=$(cd "$(dirname "${1:?usage: vm-timing.sh TASSHAPE [KERNEL|debian [MODULES]] [RATE]}")" && pwd)/$(basename "$1")
kernel=${2:-debian}
modules=${3:-}
rate=${4:-20mbit}
[ "$(id -u)" -eq 0 ] || { echo "vm-timing.sh: needs root" >&2; exit 1; }
tmp=$(mktemp -d /tmp/tas-vmtiming.XXXXXX)
ns=tasvmtime-$$
cleanup() {
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# The flow, as a shell command run where the link is (host namespace, or the guest).
flow="iperf3 -s -1 -p 5201 >/dev/null 2>&1 & sleep 1;
\"$bin\" --trace const:$rate --quiet --summary-json \"$tmp/sum.json\" -- \
	sh -c 'exec iperf3 -c \$TASSHAPE_BASE -p 5201 -t 10 -O 2 -C cubic -J' >\"$tmp/ip.json\""

report() {
	local name=$1
	jq -r --arg n "$name" --slurpfile s "$tmp/sum.json" '
		($s[0].directions[0]) as $d |
		"| \($n) | \(.end.sum_received.bits_per_second / 1e6 * 1000 | round / 1000) | " +
		"\(.end.sum_sent.retransmits) | \([$d.drops[]] | add) | " +
		"\($d.release_error_ns.p50 / 1000 | round) | \($d.release_error_ns.p99 / 1000 | round) | " +
		"\($d.release_error_ns.max / 1000 | round) |"' "$tmp/ip.json"
}

vmargs=(--kernel "$kernel" --quiet --timeout 120s)
[ -n "$modules" ] && vmargs+=(--modules "$modules")
echo "| where | goodput Mbit/s | retransmits | link drops | release error p50 us | p99 us | max us |"
echo "|---|---|---|---|---|---|---|"
ip netns add "$ns"
ip -n "$ns" link set lo up
ip netns exec "$ns" sh -c "$flow"
report "host $(uname -r)"
for setting in "default (hpet, 2 vCPUs)|" "clocksource=tsc|--append clocksource=tsc" \
	"1 vCPU|--cpus 1"; do
	name=${setting%%|*}
	# shellcheck disable=SC2206 # the extra arguments are words on purpose
	extra=(${setting#*|})
	(cd "$tmp" && "$bin" vm "${vmargs[@]}" "${extra[@]}" --out "$tmp" -- sh -c "$flow") 2>"$tmp/vm.err" ||
		{ echo "| guest $name | failed: $(tail -1 "$tmp/vm.err") |"; continue; }
	report "guest $name"
done

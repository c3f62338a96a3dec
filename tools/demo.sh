#!/usr/bin/env bash
# The main job on a bundled trace, self-contained: a namespace stands in for "the internet"
# (an iperf3 server), tasshape runs inside it, and a real kernel TCP flow from behind the
# emulated link uploads to that server through the trace. Prints iperf3's per-second report and
# tasshape's run summary. Needs root. Everything it creates is removed on exit.
#
#   tools/demo.sh [TRACE] [SECONDS] [CCA]      default: traces/step-10-40mbit.csv 20 cubic
set -euo pipefail
cd "$(dirname "$0")/.."

trace=${1:-traces/step-10-40mbit.csv}
secs=${2:-20}
cca=${3:-cubic}
bin=${TASSHAPE:-build/tasshape}
ns="tasdemo-$$"

[ "$(id -u)" -eq 0 ] || { echo "demo: needs root (namespaces and NFQUEUE)" >&2; exit 1; }
[ -x "$bin" ] || { echo "demo: $bin not built: run tools/setup-debian.sh" >&2; exit 1; }

cleanup() {
	ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
	ip netns del "$ns" 2>/dev/null || true
}
trap cleanup EXIT

ip netns add "$ns"
ip -n "$ns" link set lo up
ip netns exec "$ns" iperf3 -s -1 -D >/dev/null

echo "== ${secs} s ${cca} upload over ${trace}, 20 ms one-way delay =="
ip netns exec "$ns" "$bin" --trace "$trace" --delay 20ms -- \
	sh -c 'exec iperf3 -c "$TASSHAPE_BASE" -t "$1" -C "$2" -f m' iperf3 "$secs" "$cca"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The ns-3 reference for tasshape's Wi-Fi 6 MAC model: builds
# tools/validate/wifi6_ns3.cc against Debian's ns-3 (apt-get install
# libns3-dev; 3.37 in bookworm) and runs the scenarios of
# docs/validation/wifi6-ns3.md, one output line each, into
# docs/validation/wifi6-ns3.data (what tools/validate/wifi6_compare.sh
# reads). Not part of CI: ns-3 is not a build dependency, and the runs take
# about a minute of CPU each.
#
# Usage: [JOBS=2] tools/validate/wifi6_ns3.sh [OUT_DIR] [RUNS]
#   OUT_DIR  where the binary is built (default build/validate)
#   RUNS     seeds per scenario (default 1)
set -euo pipefail
cd "$(dirname "$0")/../.."

out=${1:-build/validate}
runs=${2:-1}
data=docs/validation/wifi6-ns3.data
mkdir -p "$out"
if ! [ -e /usr/include/ns3/wifi-module.h ]; then
	echo "wifi6_ns3: ns-3 headers not found (apt-get install libns3-dev)" >&2
	exit 1
fi
g++ -O2 -std=c++17 -o "$out/wifi6_ns3" tools/validate/wifi6_ns3.cc -lns3-wifi \
	-lns3-applications -lns3-internet -lns3-mobility -lns3-network -lns3-propagation \
	-lns3-core

# One scenario per line: the program's arguments. --offered (per flow, Mbit/s) keeps
# every queue full with little waste: ns-3's time goes mostly to the packets offered.
scenarios() {
	local n m
	for n in 1 2 3 4 5 6 7 8; do echo "--stations=$n --offered=$((1400 / n))"; done
	# About 1.3 x what one station gets: 54, 175, 484, 865 Mbit/s.
	for m in 1:70 4:230 16:630 64:1100; do echo "--stations=1 --mpdus=${m%:*} --offered=${m#*:}"; done
	for n in 1 4 8; do echo "--stations=$n --bw=40 --ss=1 --mcs=11 --offered=$((360 / n))"; done
	for n in 1 4 8; do echo "--stations=$n --bw=40 --ss=1 --mcs=7 --offered=$((220 / n))"; done
	echo "--stations=1 --up=0 --down=1 --offered=1400"
	echo "--stations=1 --down=1 --offered=700"
	echo "--stations=4 --down=1 --offered=300"
	echo "--stations=8 --bar=0 --offered=175"
}

# One run: its output line into $tmpd/NNN (the scenario's number and the seed).
run_one() {
	local i=$1 r=$2
	shift 2
	# shellcheck disable=SC2068 # the scenario is a list of arguments
	nice -n 5 "$out/wifi6_ns3" $@ --run="$r" >"$tmpd/$(printf '%03d-%02d' "$i" "$r")"
}

tmpd=$(mktemp -d)
trap 'rm -rf "$tmpd"' EXIT
i=0
scenarios | while read -r args; do
	i=$((i + 1))
	for r in $(seq 1 "$runs"); do echo "$i $r $args"; done
done | {
	# JOBS runs at a time (default 1).
	while read -r line; do
		while [ "$(jobs -rp | wc -l)" -ge "${JOBS:-1}" ]; do wait -n; done
		# shellcheck disable=SC2086 # the line is the arguments
		run_one $line &
	done
	wait
}
{
	echo "# ns-3 $(dpkg-query -W -f '${Version}' libns3-dev 2>/dev/null || echo '?'):" \
		"tools/validate/wifi6_ns3.cc, one line per run"
	cat "$tmpd"/*
} >"$data"
echo "wifi6_ns3: wrote $data"

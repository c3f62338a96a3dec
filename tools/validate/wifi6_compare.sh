#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tasshape's Wi-Fi 6 model against ns-3: for every run in
# docs/validation/wifi6-ns3.data (written by tools/validate/wifi6_ns3.sh),
# runs `tasshape sim` on the same scenario (the measured station plus
# stations=N-1 saturated contenders, the same PHY and A-MPDU limit, 10 s)
# and writes the table to docs/validation/wifi6-ns3.md (the text around it
# is in tools/validate/wifi6-ns3.md.in). Needs jq and a built tasshape.
#
# Usage: [SEEDS=5] tools/validate/wifi6_compare.sh [TASSHAPE] [KEYS]
#   TASSHAPE  the binary (default build/tasshape)
#   KEYS      extra wifi6 keys for every run (default eifs=0: ns-3 applies no EIFS
#             after these collisions, see the page)
#   SEEDS     tasshape runs per scenario (seeds 1..SEEDS), averaged
set -euo pipefail
cd "$(dirname "$0")/../.."

bin=${1:-build/tasshape}
keys=${2-eifs=0}
data=docs/validation/wifi6-ns3.data
page=docs/validation/wifi6-ns3.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The value of KEY in an ns-3 line of key=value words.
val() {
	tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"
}

# The figures of one ns-3 line: total up, station mean/min/max up, total down, lost fraction, BAR/s.
ns3_figures() {
	awk -v line="$1" 'BEGIN {
		n = split(line, w, " ");
		for (i = 1; i <= n; i++) { split(w[i], kv, "="); v[kv[1]] = kv[2] }
		s = v["stations"]; min = -1; max = 0; ppdus = 0; lost = 0; bars = 0;
		for (i = 1; i <= s; i++) {
			x = v["n" i "_up_mbps"];
			if (min < 0 || x < min) min = x;
			if (x > max) max = x;
		}
		for (i = 0; i <= s; i++) {
			ppdus += v["n" i "_ppdus"]; lost += v["n" i "_lost"]; bars += v["n" i "_bars"];
		}
		printf "%.1f %.1f %.1f %.1f %.1f %.3f %.0f\n", v["up_mbps"], v["up_mbps"] / s, min, max,
			v["down_mbps"], ppdus ? lost / ppdus : 0, bars / 10;
	}'
}

# The same figures from a tasshape summary.
ts_figures() {
	jq -r '.directions[0].wifi6 as $u | .directions[1].wifi6 as $d |
		($u.stations_delivered_bps // [.directions[0].throughput_bps]) as $r |
		($u.others // []) as $o |
		(($u.txops + $d.txops + ([$o[].txops] | add // 0))) as $tx |
		(($u.collisions + $u.failures + $d.collisions + $d.failures +
		  ([$o[] | .collisions + .failures] | add // 0))) as $lost |
		(($u.bars + $d.bars + ([$o[].bars] | add // 0))) as $bars |
		[($r | add) / 1e6, ($r | add) / ($r | length) / 1e6, ($r | min) / 1e6,
		 ($r | max) / 1e6, .directions[1].throughput_bps / 1e6, $r[0] / 1e6,
		 (if $tx > 0 then $lost / $tx else 0 end), $bars / 10] |
		"\(.[0]) \(.[1]) \(.[2]) \(.[3]) \(.[4]) \(.[5]) \(.[6]) \(.[7])"' "$1" |
		awk '{ printf "%.1f %.1f %.1f %.1f %.1f %.1f %.3f %.0f\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
}

# The column means of lines of numbers.
average() {
	awk '{ for (i = 1; i <= NF; i++) s[i] += $i; n++ }
	END { printf "%.1f %.1f %.1f %.1f %.1f %.1f %.3f %.0f\n", s[1] / n, s[2] / n, s[3] / n,
		s[4] / n, s[5] / n, s[6] / n, s[7] / n, s[8] / n }'
}

rows=$tmp/rows
: >"$rows"
grep -v '^#' "$data" | while read -r line; do
	ns_stations=$(val stations "$line")
	ns_bw=$(val bw "$line")
	ns_mcs=$(val mcs "$line")
	ns_ss=$(val ss "$line")
	ns_mpdus=$(val mpdus "$line")
	ns_up=$(val up "$line")
	ns_down=$(val down "$line")
	ns_bar=$(val bar "$line")
	ns_run=$(val run "$line")
	base="wifi6:bw=$ns_bw,mcs=$ns_mcs,ss=$ns_ss,mpdus=$ns_mpdus,stations=$((ns_stations - 1))"
	base="$base,bar=$ns_bar"
	up=0mbit
	down=0mbit
	[ "$ns_up" = 1 ] && up=3gbit
	[ "$ns_down" != 0 ] && down=3gbit
	for k in "${keys:+,$keys}" ""; do
		for seed in $(seq 1 "${SEEDS:-5}"); do
			"$bin" sim --duration 10s --trace const:20gbit --mac "$base$k" \
				--offered-up "$up" --offered-down "$down" --seed "$seed" \
				--summary-json "$tmp/s.json" >/dev/null
			ts_figures "$tmp/s.json"
		done | average >"$tmp/fig$k"
	done
	read -r n_tot n_mean n_min n_max n_down n_lost n_bars <<<"$(ns3_figures "$line")"
	read -r t_tot t_mean t_min t_max t_down t_sta t_lost t_bars <"$tmp/fig${keys:+,$keys}"
	read -r d_tot _ _ _ d_down _ <"$tmp/fig"
	what="$ns_stations x ${ns_bw} MHz ${ns_ss} SS MCS $ns_mcs, M = $ns_mpdus"
	[ "$ns_up" = 0 ] && what="$what, downlink only"
	[ "$ns_up" = 1 ] && [ "$ns_down" != 0 ] && what="$what, + downlink to one"
	[ "$ns_bar" = 0 ] && what="$what, bar=0"
	[ "$ns_run" != 1 ] && what="$what (ns-3 run $ns_run)"
	awk -v w="$what" -v nt="$n_tot" -v tt="$t_tot" -v nm="$n_mean" -v nmin="$n_min" \
		-v nmax="$n_max" -v ts="$t_sta" -v tm="$t_mean" -v tmin="$t_min" -v tmax="$t_max" -v nd="$n_down" \
		-v td="$t_down" -v nl="$n_lost" -v tl="$t_lost" -v nb="$n_bars" -v tb="$t_bars" \
		-v dt="$d_tot" -v dd="$d_down" \
		'BEGIN {
			r = nt + nd > 0 ? (tt + td) / (nt + nd) : 0;
			rd = nt + nd > 0 ? (dt + dd) / (nt + nd) : 0;
			printf "| %s | %s | %s | **%.3f** | %s (%s-%s) | %s (%s-%s), this one %s | %s | %s | %s | %s | %s | %s | %.3f |\n",
				w, nt, tt, r, nm, nmin, nmax, tm, tmin, tmax, ts, nd, td, nl, tl, nb, tb, rd;
		}' >>"$rows"
done

{
	sed -n '1,/^<!-- table -->$/p' tools/validate/wifi6-ns3.md.in
	echo
	echo "tasshape: the mean of seeds 1 to ${SEEDS:-5} (ns-3: one run each), keys added to every"
	echo "run: \`${keys:-none}\` (the last column: without them, tasshape's defaults)."
	echo
	echo "| scenario | ns-3 up total | tasshape up total | ratio | ns-3 per station (min-max) | tasshape per station (min-max), the measured one | ns-3 down | tasshape down | ns-3 lost A-MPDUs | tasshape lost | ns-3 BAR/s | tasshape BAR/s | ratio, tasshape defaults |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	cat "$rows"
	sed -n '/^<!-- table -->$/,$p' tools/validate/wifi6-ns3.md.in | tail -n +2
} >"$page"
echo "wifi6_compare: wrote $page"

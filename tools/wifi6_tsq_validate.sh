#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Validation of the Wi-Fi station's TCP Small Queues budget (docs/wifi6-model.md,
# "TCP Small Queues and the pacing shift") with real TCP uploads; writes
# docs/validation/wifi6-tsq.md.
#
# For CUBIC and BBR, over wifi6 at 1201 Mbit/s (80 MHz, 2 SS, MCS 11) and 286.8
# Mbit/s (40 MHz, 1 SS, MCS 11), each behind a 10 Gbit/s wired hop, with
# pacing_shift kernel, 10, 8 and 7, REPS uploads of 1+4 s each:
#   - the flow's TSQ budget (bytes and ms at its pacing rate) and its peak and
#     mean station queue in bytes and in ms at the pacing rate, and the ratio of
#     the peak to the budget;
#   - mean A-MPDU size N, the IP throughput of the uplink and the 802.11ax
#     formula's saturated throughput at that N (docs/wifi6-model.md);
#   - goodput, retransmissions and the sender's mean and minimum RTT (iperf3).
# Every figure is the median of the repetitions; all of them are kept in the
# table's raw file.
#
# With BASE_BIN=PATH (a tasshape built from before the budget was emulated), the
# same uploads through it too, to compare with pacing_shift=kernel.
#
# Runs as root, inside a network namespace it creates (and removes), at nice 19.
# Usage: sudo [BASE_BIN=PATH] tools/wifi6_tsq_validate.sh [BUILD_DIR] [REPS]
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build}
reps=${2:-3}
bin=$(pwd)/$build/tasshape
out=docs/validation/wifi6-tsq.md
[ "$(id -u)" -eq 0 ] || { echo "wifi6_tsq_validate: needs root" >&2; exit 1; }
for t in jq awk iperf3 ip; do
	command -v "$t" >/dev/null || { echo "wifi6_tsq_validate: $t is not installed" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "wifi6_tsq_validate: build $bin first" >&2; exit 1; }

ns=tasval-$$
tmp=$(mktemp -d)
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null
	ip netns del "$ns" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$ns"
ip -n "$ns" link set lo up

port=5600
run() { # CCA PHYSPEC[+DELAY] SHIFT REP -> one TSV row
	local cca=$1 phy=${2%%+*} shift=$3 rep=$4 tag="$1-$3-$4-${2//[^a-z0-9]/}" delay=()
	[ "$phy" != "$2" ] && delay=(--delay "${2#*+}")
	port=$((port + 1))
	ip netns exec "$ns" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	server=$!
	sleep 0.3
	# shellcheck disable=SC2016 # expanded inside the link
	nice -n 19 ip netns exec "$ns" "$bin" --mac "wifi6:$phy,pacing_shift=$shift" \
		--uplink-trace const:10gbit "${delay[@]}" --quiet --summary-json "$tmp/$tag.sum.json" -- \
		sh -c 'exec iperf3 -c "$TASSHAPE_BASE" "$@"' sh -p "$port" -t 4 -O 1 -C "$cca" -J \
		>"$tmp/$tag.json" 2>"$tmp/$tag.err" || true
	# The server's last exchange may be cut when CMD ends: do not wait for it.
	kill "$server" 2>/dev/null || true
	wait "$server" 2>/dev/null || true
	server=
	jq -r --arg cca "$cca" --arg phy "$2" --arg shift "$shift" --argjson port "$port" -s '
		.[0] as $i | .[1] as $s | $s.directions[0] as $u |
		([$u.wifi6.flows[] | select(.dport == $port)] | max_by(.station_peak_bytes)) as $f |
		[$cca, $phy, $shift, $f.pacing_shift, $f.tsq_budget_bytes, $f.tsq_budget_ms,
		 $f.station_peak_bytes, $f.station_mean_bytes, $f.station_peak_ms, $f.station_mean_ms,
		 $f.pacing_rate_bps, $u.wifi6.mean_n, $u.throughput_bps,
		 $i.end.sum_received.bits_per_second, $i.end.sum_sent.retransmits,
		 $i.end.streams[0].sender.mean_rtt, $i.end.streams[0].sender.min_rtt,
		 $f.early_released_pkts, $f.tsq_budget_at_peak_bytes, $f.tsq_budget_max_bytes] | @tsv' \
		"$tmp/$tag.json" "$tmp/$tag.sum.json" ||
		echo "wifi6_tsq_validate: $tag failed: $(tail -3 "$tmp/$tag.err")" >&2
}

# A run through the older binary (no pacing_shift key, no per-flow record): N, rates, RTT.
run_base() { # CCA PHYSPEC REP -> one TSV row
	local cca=$1 phy=$2 rep=$3 tag="base-$1-$3-${2//[^a-z0-9]/}"
	port=$((port + 1))
	ip netns exec "$ns" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	server=$!
	sleep 0.3
	# shellcheck disable=SC2016 # expanded inside the link
	nice -n 19 ip netns exec "$ns" "$BASE_BIN" --mac "wifi6:$phy" \
		--uplink-trace const:10gbit --quiet --summary-json "$tmp/$tag.sum.json" -- \
		sh -c 'exec iperf3 -c "$TASSHAPE_BASE" "$@"' sh -p "$port" -t 4 -O 1 -C "$cca" -J \
		>"$tmp/$tag.json" 2>"$tmp/$tag.err" || true
	# The server's last exchange may be cut when CMD ends: do not wait for it.
	kill "$server" 2>/dev/null || true
	wait "$server" 2>/dev/null || true
	server=
	jq -r --arg cca "$cca" --arg phy "$phy" -s '.[0] as $i | .[1] as $s | $s.directions[0] as $u |
		[$cca, $phy, $u.wifi6.mean_n, $u.throughput_bps, $i.end.sum_received.bits_per_second,
		 $i.end.sum_sent.retransmits, $i.end.streams[0].sender.mean_rtt,
		 $i.end.streams[0].sender.min_rtt,
		 ([$u.stages[] | select(.place == "sender") | .peak_bytes] | max)] | @tsv' \
		"$tmp/$tag.json" "$tmp/$tag.sum.json" ||
		echo "wifi6_tsq_validate: $tag failed: $(tail -3 "$tmp/$tag.err")" >&2
}

raw=$tmp/raw.tsv
braw=$tmp/base.tsv
: >"$raw"
: >"$braw"
for phy in "phy=1201mbit" "bw=40,mcs=11,ss=1"; do
	for cca in cubic bbr; do
		for rep in $(seq "$reps"); do
			# Interleaved, so a change of load on the host hits every shift alike.
			for shift in kernel 10 8 7; do
				run "$cca" "$phy" "$shift" "$rep" >>"$raw"
			done
			if [ -n "${BASE_BIN:-}" ]; then
				run_base "$cca" "$phy" "$rep" >>"$braw"
			fi
		done
	done
done
# The same flows when the path behind the access point is long (10 ms each way), so that cwnd
# is far above the budget and only the station can hold the flow back.
for cca in cubic bbr; do
	for rep in $(seq "$reps"); do
		for shift in kernel 7; do
			run "$cca" "phy=1201mbit+10ms" "$shift" "$rep" >>"$raw"
		done
	done
done

# Medians per configuration (columns as in the raw rows).
med=$tmp/med.tsv
awk -F'\t' '
	{ k = $1 "\t" $2 "\t" $3; if (!(k in n)) order[++nk] = k; n[k]++
	  for (c = 4; c <= NF; c++) v[k, c, n[k]] = $c; nf = NF }
	function median(k, c,   m, i, j, t, a) {
		m = n[k]; for (i = 1; i <= m; i++) a[i] = v[k, c, i] + 0
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
	END { for (o = 1; o <= nk; o++) { k = order[o]; line = k
		for (c = 4; c <= nf; c++) line = line "\t" median(k, c); print line } }' "$raw" >"$med"

table() { # PHYSPEC NDBPS PREAMBLE
	awk -F'\t' -v phy="$1" -v d="$2" -v p="$3" '
		function formula(n,   nn, sym, t) { nn = int(n + 0.5); if (nn < 1) nn = 1
			sym = int((22 + 8 * nn * 1544 + d - 1) / d)
			t = 43 + 67.5 + p + sym * 13.6 + 16 + 40; return nn * 1500 * 8 / t }
		$2 == phy { f = formula($12)
		printf "| %s | %s | %d | %.0f | %.2f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %.1f | %.0f | %.0f | %.0f | %.0f | %.2f / %.2f |\n",
			$1, $3, $4, $5, $6, $20, $7, $8, $9, $10, ($19 > 0 ? $7 / $19 : 0), $12,
			$13 / 1e6, f, $14 / 1e6, $15, $16 / 1e3, $17 / 1e3 }' "$med"
}

hdr="| CCA | pacing_shift | shift | budget B | budget ms | budget max B | station peak B | mean B | peak ms | mean ms | peak / budget then | mean N | uplink IP Mbit/s | formula at N | goodput Mbit/s | retrans | RTT mean / min ms |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"

{
	cat <<EOF
# Validation: the Wi-Fi station's TCP Small Queues budget

Generated by \`tools/wifi6_tsq_validate.sh\` on $(date -u +%Y-%m-%d) (kernel $(uname -r),
$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end). Method in
[../wifi6-model.md](../wifi6-model.md#tcp-small-queues-and-the-pacing-shift).

One iperf3 upload (1 s omitted, 4 s measured) per run, $reps runs per row, medians shown; a
10 Gbit/s wired hop behind the access point, so the Wi-Fi hop is the bottleneck. Columns:

- *budget*: the station's TSQ limit for the flow, max(2 x truesize, pacing rate >> shift)
  (time-weighted over the samples while the flow had packets queued), in bytes and in
  milliseconds at its pacing rate (7.81 ms for shift 7, 3.91 for 8; at shift 10 the 2-skb
  floor of 138,240 bytes dominates at these rates);
- *station peak / mean*: the flow's packets held in the station's queue (charged and
  uncharged parts together), peak and time-weighted mean, in bytes and ms at the pacing rate;
  *peak / budget then* divides the peak by the budget in force at that moment (1.0 to 1.12
  at shift 7 when the budget binds: the kernel lets one more 64 KB skb go while under the
  limit, as on a real station; at shift 10 that skb is half the 138 KB floor, so 1.5);
  *budget max* is the largest budget while the flow had packets queued; the ms figures use
  the pacing rate of each moment, so a moment of low rate (slow start, BBR's PROBE_RTT)
  weighs heavily in the peak ms;
- *mean N*: MPDUs per A-MPDU of the station; *formula at N*: the saturated throughput of
  1500-byte packets at that N (docs/wifi6-model.md); the uplink IP throughput is below it
  whenever the station's queue runs empty between channel accesses;
- *pacing_shift kernel*: no emulation (what tasshape did before the budget was emulated);
  *10*: the emulation running with the kernel's own shift (its overhead alone).

Reading the tables.

- *The budget is the ceiling.* With shifts 8 and 7 the station's peak queue reaches the budget
  in force at that moment (*peak / budget then* near 1; lower where the budget moved faster
  than the queue could follow: CUBIC's slow start, whose ratio-scaled pacing rate makes a
  budget of megabytes for a few round trips, and BBR's probing), against the kernel's 2-skb
  floor plus one skb with the kernel's shift; the mean A-MPDU size and the throughput grow
  with the budget.
- *The mean queue stays below it, as on a real station.* The station's queue is drained a
  whole A-MPDU at a time and its frames stay charged to the socket until their BlockAck, so
  the socket refills only after each aggregate; BBR sends at the rate it paces, not at the
  budget, and CUBIC's bursts follow its ACKs, which come back in the access point's own
  aggregates. Between channel accesses the queue runs down, at times to empty (the uplink's
  IP throughput below the formula at the same N). TSQ limits what a socket may queue; it does
  not fill the queue. The last table shows that this holds when cwnd does not bind either
  (10 ms each way behind the access point).
- *CUBIC's retransmissions at shift 7 (1201 Mbit/s)* are drops of the driver queue
  (\`overlimit\`): in slow start its budget (up to *budget max*) exceeds the default 1000-frame
  \`--mac-queue\`. mac80211's per-interface limit is 8192 frames (\`fq_init()\` in \`include/net/fq_impl.h\`); with
  \`--mac-queue droptail:packets=8192\` the same uploads have none.
- *pacing_shift=kernel and 10* show the cost of the mechanism itself: 10 runs the emulation
  with the kernel's own shift, and gives the figures of kernel within the run-to-run spread
  (same RTT, no extra retransmissions).
$(awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v n="$(nproc)" 'BEGIN { if (l + 0 > n)
	print "\n*This host was loaded (load average above): when the shaper does not get the CPU " \
		"in time its verdicts go out late, which adds to every RTT and caps the goodput; the " \
		"throughput columns then measure the host, not the model.*" }')

## 1201 Mbit/s (80 MHz, 2 SS, MCS 11, GI 0.8 us)

$hdr
$(table "phy=1201mbit" 16333 52)

## 286.8 Mbit/s (40 MHz, 1 SS, MCS 11, GI 0.8 us)

$hdr
$(table "bw=40,mcs=11,ss=1" 3900 44)

## 1201 Mbit/s, 10 ms each way behind the access point

cwnd far above the budget: only the station can hold the flow back.

$hdr
$(table "phy=1201mbit+10ms" 16333 52)

$(if [ -s "$braw" ]; then
	echo "## pacing_shift=kernel against the binary from before the emulation"
	echo
	echo "Same uploads through a tasshape built before the budget was emulated (medians of $reps):"
	echo "its mean N, uplink IP throughput, goodput, retransmissions, RTT and peak station queue"
	echo "(the sender stage's peak, all flows), beside this binary's pacing_shift=kernel rows."
	echo
	echo "| CCA | PHY | binary | mean N | uplink IP Mbit/s | goodput Mbit/s | retrans | RTT mean / min ms | station peak B |"
	echo "|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' '{ k = $1 "\t" $2; if (!(k in n)) order[++nk] = k; n[k]++
		for (c = 3; c <= 9; c++) v[k, c, n[k]] = $c }
		function median(k, c,   m, i, j, t, a) { m = n[k]; for (i = 1; i <= m; i++) a[i] = v[k, c, i] + 0
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
		END { for (o = 1; o <= nk; o++) { k = order[o]; split(k, f, "\t")
			printf "| %s | %s | before | %.1f | %.0f | %.0f | %.0f | %.2f / %.2f | %.0f |\n", f[1], f[2],
				median(k, 3), median(k, 4) / 1e6, median(k, 5) / 1e6, median(k, 6),
				median(k, 7) / 1e3, median(k, 8) / 1e3, median(k, 9) } }' "$braw"
	awk -F'\t' '$3 == "kernel" && $2 !~ /[+]/ { printf "| %s | %s | pacing_shift=kernel | %.1f | %.0f | %.0f | %.0f | %.2f / %.2f | %.0f |\n",
		$1, $2, $12, $13 / 1e6, $14 / 1e6, $15, $16 / 1e3, $17 / 1e3, $7 }' "$med"
	echo
	echo '```'
	echo "cca phy mean_n uplink_ip_bps goodput_bps retrans mean_rtt_us min_rtt_us sender_peak_B"
	cat "$braw"
	echo '```'
	echo
fi)

## Raw runs

\`\`\`
cca phy pacing_shift shift budget_B budget_ms peak_B mean_B peak_ms mean_ms pacing_bps mean_n uplink_ip_bps goodput_bps retrans mean_rtt_us min_rtt_us early_pkts budget_at_peak_B budget_max_B
$(cat "$raw")
\`\`\`
EOF
} >"$out"
echo "wrote $out"

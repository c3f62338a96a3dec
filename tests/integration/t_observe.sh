#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Recording a run (docs/observability.md). One 5 s CUBIC upload through a
# constant 12 Mbit/s link (the mahimahi trace "1": one 1500-byte
# opportunity per ms), 10 ms each way, a 20-packet queue (at most 20 ms of
# queueing), with --out DIR --out-pcap. Then:
#   - uplink.pcap / downlink.pcap: nanosecond pcap, DLT_RAW, IPv4 headers,
#     exactly the packets the summary says each direction delivered,
#     timestamps non-decreasing;
#   - uplink.log (mahimahi format): 12 Mbit/s of capacity from its "#"
#     lines, the delivered bytes of the summary from its "-" lines (sizes
#     are IP + 4), every arrival of the summary as a "+" line, times
#     non-decreasing;
#   - sockstats.csv: the iperf3 data flow shows cubic, cwnd > 0, and a
#     smoothed RTT near the 20 ms round trip (plus at most the queue);
#   - stats.csv: the windows' delivered bytes add up to the summary's;
#   - manifest.json: the kernel release and the trace file's SHA-256; CMD's namespace has its
#     own 8,192-bucket TCP hash (so a socket sample walks 8,192 buckets, not the host's table);
#   - no status line on stderr (not a terminal); with a pseudo-terminal
#     (script(1)) there is one;
#   - tasshape plot: non-empty 1024x640 PNGs (when gnuplot is installed).
. "$(dirname "$0")/lib.sh" || exit 2
ts_init observe "${1:-}" iperf3 perl sha256sum od

RUN=$TS_TMP/run
printf '1\n' >"$TS_TMP/12mbit.mahi"
ts_iperf_server 5301
# shellcheck disable=SC2016 # expanded by the shell inside the namespace
ts_shape --trace "$TS_TMP/12mbit.mahi" --delay 10ms --queue droptail:packets=20 \
	--out "$RUN" --out-pcap -- \
	sh -c 'exec iperf3 -c "$TASSHAPE_BASE" -p 5301 -t 5 -C cubic' \
	>"$TS_TMP/iperf3.out" 2>"$TS_TMP/err"
rc=$?
if [ "$rc" -ne 0 ]; then
	ts_show "$TS_TMP/err" "$TS_TMP/iperf3.out"
	ts_die "tasshape/iperf3 exited $rc"
fi
for f in manifest.json summary.json stats.csv sockstats.csv uplink.log downlink.log \
	uplink.pcap downlink.pcap ingress.pcap drops.pcap drops.pcap.csv; do
	[ -s "$RUN/$f" ] || ts_fail "$RUN/$f is missing or empty"
done

# --- no status line when stderr is not a terminal --------------------------------------
if grep -q $'\r' "$TS_TMP/err"; then
	ts_fail "stderr (not a terminal) holds a status line: $(tr '\r' '|' <"$TS_TMP/err" | head -c 300)"
else
	ts_log "no status line on a non-terminal stderr ok"
fi

# --- pcap ---------------------------------------------------------------------------------
# pcap_check FILE: "RECORDS MAGIC LINKTYPE SORTED IP CAPMAX" (SORTED: timestamps non-decreasing;
# IP: records starting with an IPv4 or IPv6 header).
pcap_check() {
	perl -e '
		open(my $f, "<:raw", $ARGV[0]) or die "$ARGV[0]: $!";
		read($f, my $h, 24) == 24 or die "short header";
		my ($magic, undef, undef, undef, undef, undef, $lt) = unpack("L S S l L L L", $h);
		my ($n, $last, $sorted, $v4, $capmax) = (0, 0, 1, 0, 0);
		while (read($f, my $r, 16) == 16) {
			my ($s, $ns, $cap, $len) = unpack("L4", $r);
			read($f, my $d, $cap) == $cap or die "short record";
			my $t = $s * 1000000000 + $ns;
			$sorted = 0 if $t < $last;
			$last = $t;
			$v4++ if (ord($d) >> 4) == 4 || (ord($d) >> 4) == 6;
			$capmax = $cap if $cap > $capmax;
			$n++;
		}
		printf "%d %x %d %d %d %d\n", $n, $magic, $lt, $sorted, $v4, $capmax;' "$1"
}
for d in 0 1; do
	name=$([ $d -eq 0 ] && echo uplink || echo downlink)
	want=$(jq -r ".directions[$d].pkts_out" "$RUN/summary.json")
	read -r n magic lt sorted v4 capmax <<<"$(pcap_check "$RUN/$name.pcap")"
	ts_log "$name.pcap: $n records, magic $magic, link type $lt, max captured $capmax bytes"
	ts_check "$name.pcap: records = delivered packets of the summary ($want)" "$n" == "$want"
	ts_check "$name.pcap: nanosecond magic a1b23c4d" "$((16#$magic))" == $((16#a1b23c4d))
	ts_check "$name.pcap: link type RAW (101)" "$lt" == 101
	ts_check "$name.pcap: timestamps non-decreasing" "$sorted" == 1
	ts_check "$name.pcap: records starting with an IP header" "$v4" == "$n"
	ts_check "$name.pcap: captured bytes per record" "$capmax" "<=" 128
done

# --- mahimahi log --------------------------------------------------------------------------
read -r opp arr dep depip dur sorted <<<"$(awk '
	/^#/ { next }
	{ if (n++ == 0) first = $1; if ($1 < last) bad = 1; last = $1 }
	$2 == "#" { opp++ } $2 == "+" { arr++ } $2 == "-" { dep++; bytes += $3 }
	END { printf "%d %d %d %d %d %d\n", opp, arr, dep, bytes - 4 * dep, last - first, !bad }' \
	"$RUN/uplink.log")"
cap_ip=$(awk -v o="$opp" -v d="$dur" 'BEGIN { printf "%.3f", o * 1500 * 8 / d / 1000 }')
cap_tun=$(awk -v o="$opp" -v d="$dur" 'BEGIN { printf "%.3f", o * 1504 * 8 / d / 1000 }')
ts_log "uplink.log: $opp opportunities in $dur ms: $cap_ip Mbit/s of IP bytes ($cap_tun counting \
mahimahi's 1504-byte opportunities), $arr arrivals, $dep departures"
ts_range "uplink.log: capacity" "$cap_ip" 11.95 12.05 "Mbit/s "
ts_check "uplink.log: delivered IP bytes = summary" "$depip" == \
	"$(jq -r '.directions[0].bytes_out' "$RUN/summary.json")"
ts_check "uplink.log: departures = summary packets out" "$dep" == \
	"$(jq -r '.directions[0].pkts_out' "$RUN/summary.json")"
ts_check "uplink.log: arrivals = summary packets in" "$arr" == \
	"$(jq -r '.directions[0].pkts_in' "$RUN/summary.json")"
ts_check "uplink.log: times non-decreasing" "$sorted" == 1
ts_check "uplink.log: no drop lines without --log-drops (mm-throughput-graph reads it)" \
	"$(grep -c '^[0-9]* d ' "$RUN/uplink.log")" == 0

# --- stats.csv ------------------------------------------------------------------------------
sum=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["dir"] == "uplink" { s += $c["delivered_bytes"] } END { printf "%d", s }' "$RUN/stats.csv")
ts_check "stats.csv: uplink delivered bytes add up to the summary" "$sum" == \
	"$(jq -r '.directions[0].bytes_out' "$RUN/summary.json")"

# --- socket statistics ----------------------------------------------------------------------
# The data flow: the connection to port 5301 with the most bytes acknowledged.
flow=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["dport"] == 5301 && $c["bytes_acked"] + 0 >= b { b = $c["bytes_acked"] + 0; k = $c["flow"] }
	END { print k }' "$RUN/sockstats.csv")
read -r rows cca cwnd minrtt <<<"$(awk -F, -v k="$flow" '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["flow"] == k { n++; cca = $c["cca"]; mr = $c["min_rtt_ms"]
		if ($c["cwnd_pkts"] + 0 > cw) cw = $c["cwnd_pkts"] + 0 }
	END { printf "%d %s %d %s\n", n, cca, cw, mr }' "$RUN/sockstats.csv")"
srtt=$(awk -F, -v k="$flow" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["flow"] == k && $c["srtt_ms"] != "" { print $c["srtt_ms"] }' "$RUN/sockstats.csv" |
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
ts_log "sockstats.csv: data flow sampled $rows times, $cca, max cwnd $cwnd, median srtt $srtt ms, \
min_rtt $minrtt ms"
ts_check "sockstats: samples of the data flow (5 s at 50 ms)" "$rows" ">=" 60
[ "$cca" = cubic ] && ts_log "sockstats: congestion control cubic ok" ||
	ts_fail "sockstats: congestion control '$cca', want cubic"
ts_check "sockstats: cwnd" "$cwnd" ">" 0 "packets "
ts_range "sockstats: min_rtt (20 ms round trip)" "$minrtt" 19.5 25 "ms "
ts_range "sockstats: median srtt (20 ms + at most 20 ms of queue)" "$srtt" 19.5 45 "ms "

# --- manifest ---------------------------------------------------------------------------------
ts_check "manifest: kernel release" "$(jq -r '.kernel.release == "'"$(uname -r)"'"' \
	"$RUN/manifest.json" | sed 's/true/1/;s/false/0/')" == 1
hash=$(sha256sum "$TS_TMP/12mbit.mahi" | cut -d' ' -f1)
ts_check "manifest: trace SHA-256" "$(jq -r '.traces[0].sha256 == "'"$hash"'"' \
	"$RUN/manifest.json" | sed 's/true/1/;s/false/0/')" == 1
# A load-insensitive guard that socket sampling stays cheap (docs/benchmarks.md, "Why exp run
# fell behind"): negative would mean the host's shared table.
if [ -r /proc/sys/net/ipv4/tcp_child_ehash_entries ]; then
	ts_check "manifest: CMD's namespace's own TCP hash buckets" \
		"$(jq -r '.sysctls["net.ipv4.tcp_ehash_entries"]' "$RUN/manifest.json")" "==" 8192
else
	ts_skip_part "no per-namespace TCP hash in this kernel (Linux 5.19 has it)"
fi
ts_log "manifest: version $(jq -r .tasshape_version "$RUN/manifest.json") ($(jq -r \
	.git_revision "$RUN/manifest.json")), stop '$(jq -r .stop "$RUN/manifest.json")', namespace \
CCA $(jq -r '.sysctls["net.ipv4.tcp_congestion_control"]' "$RUN/manifest.json")"
ts_check "manifest: exit code of CMD" "$(jq -r .exit_code "$RUN/manifest.json")" == 0

# --- status line on a terminal ----------------------------------------------------------------
if command -v script >/dev/null 2>&1; then
	ts_ns script -qec "$TS_BIN --trace const:12mbit --delay 5ms -- sleep 2.3" \
		"$TS_TMP/tty.log" >/dev/null 2>&1
	if grep -aq $'\rtasshape 2\\.' "$TS_TMP/tty.log"; then
		ts_log "status line on a terminal ok: $(grep -ao $'\rtasshape 2[^\x1b]*' \
			"$TS_TMP/tty.log" | tr -d '\r' | head -1)"
	else
		ts_fail "no status line on a pseudo-terminal: $(tr '\r\033' '|^' <"$TS_TMP/tty.log" |
			head -c 300)"
	fi
else
	ts_skip_part "script(1) is not installed: the terminal case is not tested"
fi

# --- plots ---------------------------------------------------------------------------------------
if command -v gnuplot >/dev/null 2>&1; then
	"$TS_BIN" plot "$RUN" >"$TS_TMP/plot.out" 2>&1 || {
		ts_show "$TS_TMP/plot.out"
		ts_fail "tasshape plot failed"
	}
	for p in throughput delay delay-cdf tcp; do
		f=$RUN/$p.png
		if [ ! -s "$f" ]; then
			ts_fail "$f missing"
			continue
		fi
		# PNG signature, then the IHDR chunk: width and height, big-endian, at bytes 16-23.
		read -r -a b <<<"$(od -An -tu1 -w24 -N24 "$f")"
		wh="$(((b[16] << 24) | (b[17] << 16) | (b[18] << 8) | b[19]))x$(((b[20] << 24) | \
			(b[21] << 16) | (b[22] << 8) | b[23]))"
		sig="${b[1]}${b[2]}${b[3]}"
		ts_check "$p.png: PNG signature" "$sig" == 807871 # "PNG"
		[ "$wh" = 1024x640 ] && ts_log "$p.png: $wh, $(stat -c %s "$f") bytes ok" ||
			ts_fail "$p.png: $wh, want 1024x640"
		[ -s "$RUN/$p.svg" ] || ts_fail "$p.svg missing"
	done
else
	ts_log "gnuplot is not installed: tasshape plot is not tested"
	"$TS_BIN" plot "$RUN" >/dev/null 2>"$TS_TMP/plot.err" && ts_fail "plot without gnuplot succeeded"
	grep -q "gnuplot is not installed" "$TS_TMP/plot.err" && ts_log "plot names the missing gnuplot ok"
fi
exit 0

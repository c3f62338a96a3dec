#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Data-path benchmark of the tasshape wrapper (run by hand, as root; not a test).
#
# One CUBIC iperf3 upload per row, all in namespaces this script creates, so no
# traffic touches the host's network:
#   veth     unshaped veth pair (tasbench-c -> tasbench-s): the machine's ceiling
#   tbf      the same veth with `tc qdisc ... root tbf rate R burst B latency 50ms`
#   tasshape `ip netns exec tasbench-t tasshape [--trace const:R] [--gso] -- iperf3 ...`
#            with the iperf3 server in tasbench-t; without a trace the link is
#            unshaped (no NFQUEUE), which measures the topology's own overhead
# Every figure is compared with baselines measured in the same run (the machine is
# noisy). Output: a table on stdout, one JSON object per line in the -o file.
# See docs/bench-datapath.md for how to read the columns and the targets.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
out=/tmp/tasshape-bench.jsonl
tasshape=${TASSHAPE:-$here/build/tasshape}
dur=10
rates="500mbit 1gbit 2gbit 4gbit"
port=5201

usage() {
	cat <<EOF
Usage: $0 [-o FILE] [-b TASSHAPE] [-t SECONDS] [-r "RATE ..."]
  -o FILE      JSON lines output (default $out)
  -b PATH      tasshape binary (default \$TASSHAPE or $here/build/tasshape)
  -t SECONDS   measured seconds per iperf3 run, after 1 s omitted (default $dur)
  -r RATES     nominal rates, tc syntax kbit/mbit/gbit (default "$rates")
Needs root, iperf3, tc (tbf), jq; perf (optional) for the shaper's CPU. Takes about (1 + 3 x rates + 2) x (t + 2) seconds.
EOF
}

while getopts "o:b:t:r:h" opt; do
	case $opt in
	o) out=$OPTARG ;;
	b) tasshape=$OPTARG ;;
	t) dur=$OPTARG ;;
	r) rates=$OPTARG ;;
	h) usage && exit 0 ;;
	*) usage >&2 && exit 2 ;;
	esac
done
[[ $dur =~ ^[1-9][0-9]{0,2}$ ]] || { echo "-t: want 1..999 seconds" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "needs root (namespaces, tc, NFQUEUE)" >&2; exit 1; }
for t in iperf3 tc jq ip awk; do
	command -v "$t" >/dev/null || { echo "missing: $t" >&2; exit 1; }
done
have_perf=$(command -v perf || true) # optional: the shaper's CPU from task-clock
[ -x "$tasshape" ] || { echo "no tasshape binary at $tasshape (build it, or -b)" >&2; exit 1; }
# tasshape keeps a TASSHAPE_BASE it inherits; the child must see its own.
unset TASSHAPE_BASE TASSHAPE_BASE6 MAHIMAHI_BASE

ns_c=tasbench-c # baseline client
ns_s=tasbench-s # baseline server
ns_t=tasbench-t # tasshape's outer namespace and its iperf3 server
addr_c=198.18.0.1
addr_s=198.18.0.2 # a /30 of the benchmarking range (RFC 2544)
hz=$(getconf CLK_TCK)
ncpu=$(nproc)
work=$(mktemp -d /tmp/tasbench.XXXXXX)
pids=() # processes started here, killed by id on exit
r_cpu_cores=
made_ns=() # namespaces created here, deleted on exit

forget() { # pid: it has ended and been waited for
	local p keep=()
	for p in "${pids[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	pids=("${keep[@]}")
}

cleanup() {
	local p ns
	set +e
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		# tasshape removes its own namespace and rules on SIGTERM: give it time.
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
	done
	for ns in "${made_ns[@]}"; do
		# Anything still inside a namespace created here was started here.
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
		ip netns del "$ns" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# "500mbit" -> 500000000 (tc's units: k/m/g are powers of 1000).
rate_bps() {
	local v=${1,,}
	case $v in
	*gbit) echo $((${v%gbit} * 1000000000)) ;;
	*mbit) echo $((${v%mbit} * 1000000)) ;;
	*kbit) echo $((${v%kbit} * 1000)) ;;
	*bit) echo "${v%bit}" ;;
	*) echo "bad rate: $1" >&2 && return 1 ;;
	esac
}

# Busy and total jiffies of the whole machine, from /proc/stat.
sys_jiffies() {
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i;
		       print t - $5 - $6, t; exit }' /proc/stat
}

# CPU time of a live process: nanoseconds of all its threads from schedstat, then
# utime + stime in ticks from stat (comm may hold spaces). Kept next to perf's
# task-clock because on the development VM both read up to a third lower than
# task-clock for the per-packet shaper (see docs/bench-datapath.md); perf's
# wall time on the CPU is the figure shown when perf is installed.
proc_cpu() {
	local s ns=0 t
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	for t in /proc/"$1"/task/*/schedstat; do
		ns=$((ns + $(cut -d' ' -f1 "$t" 2>/dev/null || echo 0)))
	done
	awk -v ns="$ns" '{ print ns, $12 + $13 }' <<<"$s"
}

wait_listen() { # ns
	for _ in $(seq 50); do
		ip netns exec "$1" ss -Htln "sport = :$port" | grep -q . && return 0
		sleep 0.1
	done
	echo "iperf3 server in $1 did not start" >&2
	return 1
}

start_server() { # ns
	ip netns exec "$1" iperf3 -s -p "$port" >/dev/null 2>&1 &
	pids+=($!)
	wait_listen "$1"
}

setup() {
	local ns
	for ns in $ns_c $ns_s $ns_t; do
		if [ -e "/run/netns/$ns" ]; then
			echo "namespace $ns exists: another benchmark running, or a leftover" \
				"(ip netns del $ns)" >&2
			exit 1
		fi
	done
	for ns in $ns_c $ns_s $ns_t; do
		ip netns add "$ns"
		made_ns+=("$ns")
		ip -n "$ns" link set lo up
	done
	ip link add tasbench-c netns $ns_c type veth peer name tasbench-s netns $ns_s
	ip -n $ns_c addr add $addr_c/30 dev tasbench-c
	ip -n $ns_s addr add $addr_s/30 dev tasbench-s
	ip -n $ns_c link set tasbench-c up
	ip -n $ns_s link set tasbench-s up
	start_server $ns_s
	start_server $ns_t
}

# Fields of an iperf3 -J result: goodput (receiver) bit/s, retransmits, MSS, CPU %.
iperf_fields() { # file
	jq -r '[.end.sum_received.bits_per_second, .end.sum_sent.retransmits,
		(.start.tcp_mss_default // 1448), .end.cpu_utilization_percent.host_total,
		.end.cpu_utilization_percent.remote_total, (.end.sender_tcp_congestion // "?")] | @tsv' "$1"
}

iperf_args() {
	# The namespace default cannot be set to cubic here: outside the initial
	# namespace the kernel only accepts a default from
	# net.ipv4.tcp_allowed_congestion_control (EPERM otherwise). The client runs
	# as root, so it may pick cubic per socket; emit() checks what was used.
	echo "-p $port -C cubic -t $dur -O 1 -J"
}

# Result of the last run, read by emit().
r_ok='' r_err='' r_iperf='' r_summary='' r_cpu_s='' r_cpu_stat_s='' r_cpu_sched_s='' r_cpu_perf_s='' r_wall_s='' r_sys_busy=''

# Baseline run: iperf3 over the tasbench veth, optionally behind tbf.
run_veth() { # rate|""
	local rate=$1 bps burst j0 j1 t0 t1
	r_ok=0 r_err='' r_iperf=$work/iperf.json r_summary='' r_cpu_s='' r_cpu_stat_s='' r_cpu_sched_s='' r_cpu_perf_s='' r_wall_s='' r_sys_busy=''
	tc -n $ns_c qdisc del dev tasbench-c root 2>/dev/null || true
	if [ -n "$rate" ]; then
		bps=$(rate_bps "$rate")
		# 1 ms at the rate, but at least two 64 KB GSO super-packets: a smaller
		# bucket makes tbf split GSO packets and starves the flow.
		burst=$((bps / 8 / 1000))
		[ $burst -ge 131072 ] || burst=131072
		tc -n $ns_c qdisc add dev tasbench-c root tbf rate "$rate" burst "$burst" latency 50ms
	fi
	read -r j0 _ < <(sys_jiffies)
	t0=$EPOCHREALTIME
	# shellcheck disable=SC2046
	if ! ip netns exec $ns_c timeout $((dur + 30)) iperf3 -c $addr_s $(iperf_args) \
		>"$r_iperf" 2>"$work/iperf.err"; then
		r_err="iperf3 failed: $(jq -r '.error // empty' "$r_iperf" 2>/dev/null) $(head -c 200 "$work/iperf.err")"
	fi
	t1=$EPOCHREALTIME
	read -r j1 _ < <(sys_jiffies)
	r_wall_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	r_sys_busy=$(awk -v j="$((j1 - j0))" -v w="$r_wall_s" -v hz="$hz" \
		'BEGIN { printf "%.2f", j / hz / w }')
	tc -n $ns_c qdisc del dev tasbench-c root 2>/dev/null || true
	[ -z "$r_err" ] && r_ok=1
	return 0
}

# tasshape run: the shaper in tasbench-t, iperf3 inside its inner namespace.
run_tasshape() { # rate|"" gso(0|1)
	local rate=$1 gso=$2 pid perf_pid cpu last="0 0" j0 j1 t0 t1 tl rc=0 args=()
	r_ok=0 r_err='' r_iperf=$work/iperf.json r_summary=$work/summary.json r_cpu_s='' r_cpu_stat_s='' r_cpu_sched_s='' r_cpu_perf_s='' r_wall_s='' r_sys_busy=''
	rm -f "$r_iperf" "$r_summary"
	[ -n "$rate" ] && args+=(--trace "const:$rate")
	[ "$gso" = 1 ] && args+=(--gso)
	read -r j0 _ < <(sys_jiffies)
	t0=$EPOCHREALTIME
	tl=$t0
	# ip netns exec execs tasshape in place, so $! is the shaper itself.
	ip netns exec $ns_t "$tasshape" "${args[@]}" --duration $((dur + 20))s --quiet \
		--summary-json "$r_summary" -- \
		sh -c "exec iperf3 -c \"\$TASSHAPE_BASE\" $(iperf_args) >'$r_iperf' 2>'$work/iperf.err'" \
		2>"$work/tasshape.err" &
	pid=$!
	pids+=("$pid")
	perf_pid=
	if [ -n "$have_perf" ]; then
		perf stat -x, -e task-clock -p "$pid" -o "$work/perf.txt" 2>/dev/null &
		perf_pid=$!
		pids+=("$perf_pid")
	fi
	# The shaper's CPU, sampled until it exits (the last sample misses at most
	# 50 ms of its shutdown). It includes the kernel work done inside its verdict
	# sendto(): the reinjected packet's forwarding, veth, and the receiving TCP
	# stack all run in that system call and the softirqs it triggers.
	while kill -0 "$pid" 2>/dev/null; do
		if cpu=$(proc_cpu "$pid"); then
			last=$cpu
			tl=$EPOCHREALTIME
		fi
		if awk -v a="$t0" -v b="$EPOCHREALTIME" -v m="$((dur + 40))" 'BEGIN { exit !(b - a > m) }'; then
			kill "$pid" 2>/dev/null
			r_err="tasshape did not end in $((dur + 40)) s"
		fi
		sleep 0.05
	done
	wait "$pid" || rc=$?
	forget "$pid"
	r_cpu_perf_s=''
	if [ -n "$perf_pid" ]; then
		# perf stat -p ends by itself when the shaper has exited.
		wait "$perf_pid" || true
		forget "$perf_pid"
		r_cpu_perf_s=$(awk -F, '$3 ~ /^task-clock/ { printf "%.2f", $1 / 1000 }' "$work/perf.txt" 2>/dev/null || true)
	fi
	t1=$EPOCHREALTIME
	read -r j1 _ < <(sys_jiffies)
	r_wall_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	read -r r_cpu_sched_s r_cpu_stat_s < <(awk -v hz="$hz" '{ printf "%.2f %.2f\n", $1 / 1e9, $2 / hz }' <<<"$last")
	r_cpu_s=${r_cpu_perf_s:-$r_cpu_sched_s}
	# Cores: CPU seconds over the time the shaper was seen alive.
	r_cpu_cores=$(awk -v c="$r_cpu_s" -v a="$t0" -v b="$tl" \
		'BEGIN { printf "%.2f", (b > a) ? c / (b - a) : 0 }')
	r_sys_busy=$(awk -v j="$((j1 - j0))" -v w="$r_wall_s" -v hz="$hz" \
		'BEGIN { printf "%.2f", j / hz / w }')
	if [ -z "$r_err" ] && [ "$rc" -ne 0 ]; then
		r_err="tasshape exit $rc: $(tr '\n' ' ' <"$work/tasshape.err" | head -c 200)$(head -c 200 "$work/iperf.err" 2>/dev/null)"
	fi
	[ -s "$r_iperf" ] || r_err=${r_err:-"no iperf3 output"}
	[ -z "$r_err" ] && r_ok=1
	return 0
}

results=$work/rows.jsonl
: >"$results"
base_veth= # goodput of the unshaped veth
declare -A base_tbf

# One JSON line for the last run into $results.
emit() { # kind mode rate
	local kind=$1 mode=$2 rate=$3 nominal=null gp=null retr=null mss=1448 hc=null rc=null
	local sj=null vs_tbf=null vs_veth=null cca=
	[ -n "$rate" ] && nominal=$(rate_bps "$rate")
	if [ "$r_ok" = 1 ]; then
		IFS=$'\t' read -r gp retr mss hc rc cca < <(iperf_fields "$r_iperf")
		gp=${gp:-null} retr=${retr:-null} mss=${mss:-1448} hc=${hc:-null} rc=${rc:-null}
		[ -n "$base_veth" ] && vs_veth=$(awk -v a="$gp" -v b="$base_veth" 'BEGIN { printf "%.3f", a / b }')
		if [ -n "$rate" ] && [ -n "${base_tbf[$rate]:-}" ] && [ "$kind" != tbf ]; then
			vs_tbf=$(awk -v a="$gp" -v b="${base_tbf[$rate]}" 'BEGIN { printf "%.3f", a / b }')
		fi
	fi
	if [ -n "$r_summary" ] && [ -s "$r_summary" ]; then
		sj=$(jq -c '.directions[0] | {utilisation, throughput_bps, capacity_bytes,
			pkts_in, pkts_out, drops_total: ([.drops[]] | add), kernel_dropped,
			unexplained_drops, release_error_ns: (.release_error_ns // null)}' "$r_summary")
	fi
	jq -nc --arg kind "$kind" --arg mode "$mode" --arg rate "$rate" \
		--argjson nominal "$nominal" --argjson gp "$gp" --argjson retr "$retr" \
		--argjson mss "$mss" --argjson hc "$hc" --argjson rcpu "$rc" \
		--argjson sj "$sj" --argjson vs_tbf "$vs_tbf" --argjson vs_veth "$vs_veth" \
		--arg cca "$cca" --arg err "$r_err" --arg cpu "$r_cpu_s" --arg cpu_stat "$r_cpu_stat_s" \
		--arg cpu_sched "$r_cpu_sched_s" --arg cpu_perf "$r_cpu_perf_s" --arg cores "${r_cpu_cores:-}" \
		--arg wall "$r_wall_s" --arg busy "$r_sys_busy" --argjson dur "$dur" '
		def num($s): if $s == "" then null else ($s | tonumber) end;
		{kind: "run", what: $kind, mode: $mode, rate: (if $rate == "" then "unlimited" else $rate end),
		 nominal_bps: $nominal, seconds: $dur, goodput_bps: $gp, retransmits: $retr, mss: $mss,
		 cca: $cca,
		 util_goodput: (if $nominal and $gp then $gp / $nominal else null end),
		 # IP bytes on the wire per payload byte: (mss + 52) / mss for full segments
		 # (20 IP + 20 TCP + 12 timestamp option), so 1500 / 1448.
		 util_ip: (if $nominal and $gp then $gp * ($mss + 52) / $mss / $nominal else null end),
		 vs_tbf: $vs_tbf, vs_veth: $vs_veth,
		 shaper_cpu_s: num($cpu), shaper_cores: num($cores),
		 shaper_task_clock_s: num($cpu_perf), shaper_schedstat_s: num($cpu_sched),
		 shaper_utime_stime_s: num($cpu_stat),
		 sys_busy_cores: num($busy), wall_s: num($wall),
		 iperf_client_cpu_pct: $hc, iperf_server_cpu_pct: $rcpu,
		 # Busy cores not explained by the shaper or iperf3: other work on the
		 # machine during the row (a sign the row was disturbed), or softirqs.
		 other_cores: (if num($busy) and $hc and $rcpu then
			([num($busy) - (num($cores) // 0) - ($hc + $rcpu) / 100, 0] | max
			 | . * 100 | round / 100) else null end),
		 tasshape: $sj, error: (if $err == "" then null else $err end)}' >>"$results"
	r_cpu_cores=
}

# ---- the run ----
for r in $rates; do rate_bps "$r" >/dev/null; done
# One binary for the whole run, even if the build tree is rebuilt meanwhile.
cp "$tasshape" "$work/tasshape"
bin_src=$tasshape
bin_version=$("$tasshape" --version 2>/dev/null | head -1 || true)
# The build type matters (the model runs in the shaper's thread); a Debug build is -O0.
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$(dirname "$tasshape")/CMakeCache.txt" 2>/dev/null || true)
tasshape=$work/tasshape
setup
start_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "tasshape data-path benchmark, $start_date, $(uname -n), $ncpu CPUs," \
	"$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), kernel $(uname -r)," \
	"load $load0" >&2
echo "iperf3 CUBIC upload, $dur s measured after 1 s omitted; $bin_src" >&2
echo "binary: ${bin_version:-?}, build type ${build_type:-unknown}" >&2
case ${build_type,,} in
debug | "") echo "warning: not an optimised build; configure with -DCMAKE_BUILD_TYPE=RelWithDebInfo" >&2 ;;
esac
if awk '{ exit !($1 > 0.5) }' /proc/loadavg; then
	echo "warning: load average $(cut -d' ' -f1 /proc/loadavg) before the run; figures will be low" >&2
fi

step() { echo "  $*..." >&2; }
step "unshaped veth"
run_veth ""
emit veth - ""
base_veth=$(jq -r 'select(.what == "veth") | .goodput_bps // empty' "$results" | tail -1)
for r in $rates; do
	step "tbf $r"
	run_veth "$r"
	emit tbf - "$r"
	base_tbf[$r]=$(jq -r 'select(.what == "tbf") | .goodput_bps // empty' "$results" | tail -1)
done
for r in $rates ""; do
	for g in 0 1; do
		mode=per-packet
		[ $g = 1 ] && mode=gso
		step "tasshape ${r:-unlimited} $mode"
		run_tasshape "$r" $g
		emit tasshape $mode "$r"
		sleep 1 # let TIME_WAIT sockets and the previous namespace go
	done
done

# ---- targets (reported, never failing) ----
targets=$(jq -sc '
	def m: 1e6;
	# Shaped runs only: without a trace no packet goes through the shaper.
	def pp: map(select(.what == "tasshape" and .mode == "per-packet" and .nominal_bps and .goodput_bps));
	def gso: map(select(.what == "tasshape" and .mode == "gso" and .nominal_bps and .goodput_bps));
	def tbf: map(select(.what == "tbf" and .goodput_bps));
	def shaped: map(select(.what == "tasshape" and .tasshape.release_error_ns));
	(pp | map(select(.rate == "2gbit")) | first) as $p2 |
	(pp | map(.goodput_bps) | max) as $pmax |
	(gso | map(.goodput_bps) | max) as $gmax |
	(tbf | map(.goodput_bps) | max) as $tmax |
	(shaped | map(.tasshape.release_error_ns.p99) | max) as $e99 |
	[
	 {target: "per-packet 2gbit utilisation >= 0.97 (IP level)",
	  value: ($p2.util_ip // null), also_tasshape_summary: ($p2.tasshape.utilisation // null),
	  met: (($p2.util_ip // 0) >= 0.97)},
	 {target: "per-packet ceiling >= 3 Gbit/s goodput (best shaped run)", value_mbit: (($pmax // 0) / m),
	  met: (($pmax // 0) >= 3e9)},
	 {target: "--gso ceiling >= tbf ceiling (best shaped run vs best tbf)", value_mbit: (($gmax // 0) / m),
	  tbf_mbit: (($tmax // 0) / m), met: ($gmax != null and $tmax != null and $gmax >= $tmax)},
	 {target: "release error p99 <= 50 us (worst shaped run)", value_us: (($e99 // 0) / 1000),
	  met: ($e99 != null and $e99 <= 50000)}
	] | map({kind: "target"} + .)' "$results")

{
	jq -nc --arg date "$start_date" --arg host "$(uname -n)" --arg kernel "$(uname -r)" \
		--arg cpu "$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)" \
		--argjson ncpu "$ncpu" --arg bin "$bin_src" --argjson dur "$dur" --arg load "$load0" \
		--arg ver "$bin_version" --arg btype "$build_type" \
		'{kind: "meta", load_before: $load, version: $ver, build_type: $btype, date: $date, host: $host, kernel: $kernel, cpu: $cpu, cpus: $ncpu,
		  tasshape: $bin, seconds: $dur, flow: "iperf3 CUBIC upload, 1 s omitted"}'
	cat "$results"
	jq -c '.[]' <<<"$targets"
} >"$out"

# ---- table ----
jq -r -s '
	def f($x; $d): if $x == null then "-" else ($x * $d | round / $d | tostring) end;
	def us($x): if $x == null then "-" else ($x / 1000 | round | tostring) end;
	def mb($x): if $x == null then null else $x / 1e6 end;
	["what", "mode", "rate", "goodput Mbit/s", "util", "util IP", "tas util", "retr",
	 "shaper CPU", "busy", "other", "vs tbf", "vs veth", "rel err p50/p99/max us"],
	(.[] | select(.kind == "run") |
	 [.what, .mode, .rate, f(mb(.goodput_bps); 1), f(.util_goodput; 1000), f(.util_ip; 1000),
	  f(.tasshape.utilisation; 1000), f(.retransmits; 1), f(.shaper_cores; 100),
	  f(.sys_busy_cores; 100), f(.other_cores; 100), f(.vs_tbf; 100), f(.vs_veth; 100),
	  (if .tasshape.release_error_ns then
	     "\(us(.tasshape.release_error_ns.p50))/\(us(.tasshape.release_error_ns.p99))/\(us(.tasshape.release_error_ns.max))"
	   else "-" end)] + (if .error then ["ERROR: " + .error] else [] end)) | @tsv' "$out" |
	column -t -s $'\t'
echo
jq -r 'select(.kind == "target") |
	"\(if .met then "met    " else "NOT met" end)  \(.target): \(del(.kind, .target, .met) | tostring)"' "$out"
echo "JSON lines: $out"

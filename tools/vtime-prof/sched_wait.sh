#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Who holds a virtual-time guest's one CPU while the shaper's loop waits to run (run by hand for
# docs/kernels.md; not part of tasshape). Boots a sealed guest, traces the scheduler (ftrace's
# sched_switch and sched_wakeup) around one run of N uploads through a link, and prints, for the
# loop's wake-ups that ran late, which tasks ran meanwhile (sched_wait.py).
#
#   tools/vtime-prof/sched_wait.sh --out DIR [--kernel BZIMAGE|debian] [--modules DIR]
#       [--append ARGS] [--modprobe 'NAME [PARAM=V]...'] [--cca NAME] [--flows N] [--seconds S]
#       [--parallel] [--tasshape BIN] -- LINK-OPTIONS...
#
# The load is Flent's tcp_Nup: N iperf3 clients, one process and one server each, and a ping
# every 0.2 s; --parallel makes it one iperf3 with -P N and no ping instead. DIR receives
# trace.txt, the wrapper's summary (s.json), iperf3's JSON (i.N.json) and the ping (ping.txt).
# Tracing costs guest instructions, so the run's timing is not quite an untraced run's.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="" kernel=debian modules="" append="" modprobe="" cca=cubic flows=8 secs=5 bin="" parallel=0
die() { echo "sched_wait.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out="$2"; shift 2 ;;
	--kernel) kernel="$2"; shift 2 ;;
	--modules) modules="$2"; shift 2 ;;
	--append) append="$2"; shift 2 ;;
	--modprobe) modprobe="$2"; shift 2 ;;
	--cca) cca="$2"; shift 2 ;;
	--flows) flows="$2"; shift 2 ;;
	--seconds) secs="$2"; shift 2 ;;
	--tasshape) bin="$2"; shift 2 ;;
	--parallel) parallel=1; shift ;;
	--) shift; break ;;
	*) die "unknown argument '$1' (see the top of $0)" ;;
	esac
done
[ -n "$out" ] || die "--out DIR is required"
[ $# -gt 0 ] || die "link options after -- are required"
[[ "$flows" =~ ^[1-9][0-9]?$ && "$secs" =~ ^[1-9][0-9]*$ ]] || die "--flows, --seconds: numbers"
[[ "$cca" =~ ^[a-z0-9_]+$ ]] || die "--cca: a congestion control's name"
bin="${bin:-$(command -v tasshape)}" || die "tasshape is not in PATH: give --tasshape BIN"
mkdir -p "$out"
vm=(--kernel "$kernel" --clock virtual --seal --memory 2g --quiet --out "$out")
[ -z "$modules" ] || vm+=(--modules "$modules")
[ -z "$append" ] || vm+=(--append "$append")
[ -z "$modprobe" ] || vm+=(--modprobe "$modprobe")
for t in iperf3 sleep cat mount sysctl grep ping kill; do vm+=(--seal-tool "$t"); done
# shellcheck disable=SC2016 # expanded by the guest's shell
"$bin" vm "${vm[@]}" -- sh -c '
	T=/sys/kernel/tracing bin=$1 cca=$2 flows=$3 secs=$4 parallel=$5
	shift 5
	# The load, run by the wrapper in the station: N clients and a ping, or one iperf3 -P N.
	cat >/tmp/load.sh <<\EOS
n=$1 s=$2 o=$3 p=$4 i=0
if [ "$p" = 1 ]; then
	exec iperf3 -c "$TASSHAPE_BASE" -p 5201 -t "$s" -O 1 -P "$n" -J >"$o/i.0.json"
fi
while [ $i -lt "$n" ]; do
	iperf3 -c "$TASSHAPE_BASE" -p $((5201 + i)) -t "$s" -O 1 -J >"$o/i.$i.json" &
	i=$((i + 1))
done
ping -q -i 0.2 -w $((s + 1)) "$TASSHAPE_BASE" >"$o/ping.txt"
wait
EOS
	mount -t tracefs nodev $T 2>/dev/null
	echo 0 >$T/tracing_on
	echo 98304 >$T/buffer_size_kb
	echo 1 >$T/events/sched/sched_switch/enable
	echo 1 >$T/events/sched/sched_wakeup/enable
	echo >$T/trace
	sysctl -qw net.ipv4.tcp_congestion_control="$cca" || exit 1
	servers=1
	[ "$parallel" = 1 ] || servers=$flows
	i=0 pids=
	while [ $i -lt $servers ]; do
		iperf3 -s -1 -p $((5201 + i)) >/dev/null 2>&1 &
		pids="$pids $!" i=$((i + 1))
	done
	sleep 1
	echo 1 >$T/tracing_on
	"$bin" "$@" --quiet --summary-json "$TASSHAPE_VM_OUT/s.json" -- \
		sh /tmp/load.sh "$flows" "$secs" "$TASSHAPE_VM_OUT" "$parallel"
	echo 0 >$T/tracing_on
	# A server whose client never came would keep wait from returning.
	kill $pids 2>/dev/null
	wait
	cat $T/trace >"$TASSHAPE_VM_OUT/trace.txt"
	grep -q "^overrun: 0$" $T/per_cpu/cpu0/stats || echo "sched_wait: the trace overran" >&2' \
	sched_wait "$bin" "$cca" "$flows" "$secs" "$parallel" "$@"
python3 "$here/sched_wait.py" "$out/trace.txt"

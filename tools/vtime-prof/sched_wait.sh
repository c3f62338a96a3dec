#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Who holds a virtual-time guest's one CPU while the shaper's loop waits to run (run by hand for
# docs/kernels.md; not part of tasshape). Boots a sealed guest, traces the scheduler (ftrace's
# sched_switch and sched_wakeup) around one run of N uploads through a link, and prints, for the
# loop's wake-ups that ran late, which tasks ran meanwhile (sched_wait.py).
#
#   tools/vtime-prof/sched_wait.sh --out DIR [--kernel BZIMAGE|debian] [--modules DIR]
#       [--append ARGS] [--modprobe 'NAME [PARAM=V]...'] [--cca NAME] [--flows N] [--seconds S]
#       [--tasshape BIN] -- LINK-OPTIONS...
#
# DIR receives trace.txt, the wrapper's summary (s.json) and iperf3's JSON (i.json). Tracing costs
# guest instructions, so the run's release timing is a little worse than untraced.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="" kernel=debian modules="" append="" modprobe="" cca=cubic flows=8 secs=5 bin=""
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
	--) shift; break ;;
	*) die "unknown argument '$1' (see the top of $0)" ;;
	esac
done
[ -n "$out" ] || die "--out DIR is required"
[ $# -gt 0 ] || die "link options after -- are required"
[[ "$flows" =~ ^[1-9][0-9]?$ && "$secs" =~ ^[1-9][0-9]*$ ]] || die "--flows, --seconds: numbers"
[[ "$cca" =~ ^[a-z0-9_]+$ ]] || die "--cca: a congestion control's name"
bin="${bin:-$(command -v tasshape)}"
mkdir -p "$out"
vm=(--kernel "$kernel" --clock virtual --seal --memory 2g --quiet --out "$out")
[ -z "$modules" ] || vm+=(--modules "$modules")
[ -z "$append" ] || vm+=(--append "$append")
[ -z "$modprobe" ] || vm+=(--modprobe "$modprobe")
for t in iperf3 sleep cat mount sysctl grep; do vm+=(--seal-tool "$t"); done
# shellcheck disable=SC2016 # expanded by the guest's shell
"$bin" vm "${vm[@]}" -- sh -c '
	T=/sys/kernel/tracing bin=$1 cca=$2 flows=$3 secs=$4
	shift 4
	mount -t tracefs nodev $T 2>/dev/null
	echo 98304 >$T/buffer_size_kb
	echo 1 >$T/events/sched/sched_switch/enable
	echo 1 >$T/events/sched/sched_wakeup/enable
	echo 0 >$T/tracing_on
	sysctl -qw net.ipv4.tcp_congestion_control="$cca" || exit 1
	iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	sleep 1
	echo 1 >$T/tracing_on
	"$bin" "$@" --quiet --summary-json "$TASSHAPE_VM_OUT/s.json" -- sh -c "exec iperf3 \
		-c \$TASSHAPE_BASE -p 5201 -t $secs -O 1 -P $flows -J >$TASSHAPE_VM_OUT/i.json"
	echo 0 >$T/tracing_on
	wait
	cat $T/trace >"$TASSHAPE_VM_OUT/trace.txt"
	grep -q "^overrun: 0$" $T/per_cpu/cpu0/stats || echo "sched_wait: the trace overran" >&2' \
	sched_wait "$bin" "$cca" "$flows" "$secs" "$@"
python3 "$here/sched_wait.py" "$out/trace.txt"

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Virtual time (tasshape vm --clock virtual): what a guest sees is its own
# instruction count, so a run is the same whatever the host does meanwhile.
# Debian's kernel boots twice, the second time with both host CPUs kept busy
# by two busy loops this test starts (and kills by PID). Each guest runs, in
# this order:
#   w. a warm-up: a 1 s flow through the same link, so that every program
#      the runs start (tasshape's iptables, iperf3, their libraries) has
#      been read from the host once; a first read during a run would shift
#      its flow against the link by however long the host took
#      (docs/kernels.md, "What breaks determinism"). For the same reason
#      the runs write their files on the guest's /tmp (opening a.json in
#      the shared directory as iperf3 starts is a 9p round trip), copied
#      into the shared directory at the end;
#   a. one CUBIC upload through --trace const:20mbit --delay 20ms (iperf3,
#      4 s after 1 s omitted);
#   b. the same link with --loss 2%, --seed 1 in the first boot and --seed 2
#      in the second.
# Checked:
#  1. a: the receiver's bytes and every per-second interval's bytes (the
#     sender's, the one omitted included) are identical in both boots
#     (quiet host, busy host), and the receiver's goodput is within 3%
#     below the bound 20 x 1448/1500 = 19.307 Mbit/s;
#  2. b: the seed changes the lossy run: its delivered bytes differ between
#     the boots, whose history up to b is otherwise identical (1.), and
#     both runs lost packets (TCP retransmitted);
#  3. --info-json of both boots says clock virtual, icount_shift 0, rtc_base
#     2000-01-01T00:00:00, qemu_seed 1, 1 vCPU;
#  4. the busy loops ran: the second boot took more wall time (logged), and
#     nothing is left (no QEMU process, no temporary file, no mount).
. "$(dirname "$0")/lib.sh" || exit 2
ts_init vtime "${1:-}" qemu-system-x86_64 iperf3 jq pgrep apt-get dpkg-deb depmod

VMTMP=$TS_TMP/vmtmp
mkdir -p "$VMTMP" "$TS_TMP/w1" "$TS_TMP/w2"
vm_mounts() { awk -v t="$TS_TMP" '$3 == "9p" || $3 == "overlay" || index($2, t) == 1' /proc/mounts | sort; }
vm_mounts >"$TS_TMP/mounts.before"
jqt() { jq -e "$@" >/dev/null; } # a jq test, quietly
# The kernel is fetched where the network is: the test namespace has none.
"$TS_BIN" vm --kernel debian --fetch-only >/dev/null || ts_die "--kernel debian: cannot fetch the kernel"

# boot N SEED: one guest, runs a and b in $TS_TMP/wN.
boot() {
	local n=$1 seed=$2 t0 rc
	cd "$TS_TMP/w$n" || ts_die "cd $TS_TMP/w$n"
	t0=$(date +%s.%N)
	# shellcheck disable=SC2016 # expanded by the guest's shell
	TMPDIR=$VMTMP TS_RUN_LIMIT=400 ts_shape vm --kernel debian --accel tcg --clock virtual --quiet \
		--info-json "$TS_TMP/w$n/vm.json" -- sh -c '
		run() { # NAME SECONDS LINK-OPTIONS...
			n=$1 t=$2; shift 2
			iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
			sleep 1
			"$T" --trace const:20mbit --delay 20ms "$@" --quiet --summary-json "/tmp/$n.s.json" -- \
				sh -c "exec iperf3 -c \$TASSHAPE_BASE -p 5201 -t $t -O 1 -J >/tmp/$n.json" || exit 1
			wait
		}
		T=$0
		run w 1 && run a 4 && run b 4 --loss 2% --seed "$1" && cp /tmp/*.json .' "$TS_BIN" "$seed" \
		>"$TS_TMP/$n.out" 2>"$TS_TMP/$n.err"
	rc=$?
	ts_log "boot $n: $(ts_elapsed "$t0") s wall"
	ts_check "boot $n: exit status" "$rc" == 0
	ts_show "$TS_TMP/$n.out" "$TS_TMP/$n.err"
	ts_true "boot $n: --info-json says clock virtual, icount_shift 0, the fixed RTC and seed, 1 vCPU" \
		jqt '.clock == "virtual" and .icount_shift == 0 and .rtc_base == "2000-01-01T00:00:00"
			and .qemu_seed == 1 and .cpus == 1' "$TS_TMP/w$n/vm.json"
	cd "$TS_TMP" || ts_die "cd $TS_TMP"
}

t0=$(date +%s.%N)
boot 1 1
wall1=$(ts_elapsed "$t0")
# Both host CPUs busy for the second boot.
ts_bg sh -c 'while :; do :; done'
ts_bg sh -c 'while :; do :; done'
busy=("${TS_BG_PIDS[@]}")
t0=$(date +%s.%N)
boot 2 2
wall2=$(ts_elapsed "$t0")
for p in "${busy[@]}"; do
	kill -TERM "$p" 2>/dev/null
done
ts_log "wall time: quiet $wall1 s, busy $wall2 s; load average now $(cut -d' ' -f1-3 /proc/loadavg)"

# 1. The same run, to the byte and to the interval.
recv() { jq '.end.sum_received.bytes' "$1"; }
ivals() { jq -c '[.intervals[].sum.bytes]' "$1"; }
A1=$TS_TMP/w1/a.json
A2=$TS_TMP/w2/a.json
if [ -s "$A1" ] && [ -s "$A2" ]; then
	ts_log "a, quiet host: $(recv "$A1") bytes received, intervals $(ivals "$A1")"
	ts_log "a, busy host:  $(recv "$A2") bytes received, intervals $(ivals "$A2")"
	# Every per-second interval must be identical to the byte. The end total also counts
	# what arrives while iperf3 stops (its control exchange, its JSON written over 9p):
	# one CI run saw it differ by one segment (1,448 bytes) with identical intervals,
	# so it is held to one segment and logged (docs/kernels.md, "What breaks determinism").
	ts_true "a: per-second intervals identical" [ "$(ivals "$A1")" = "$(ivals "$A2")" ]
	ts_range "a: bytes received, busy host minus quiet" "$(($(recv "$A2") - $(recv "$A1")))" \
		-1448 1448
	ts_check "a: measured intervals" "$(jq '[.intervals[] | select(.sum.omitted | not)] | length' "$A1")" == 4
	# The receiver's goodput rounds to the bound's last digit (19.308 measured).
	ts_range "a: goodput" "$(ts_mbit "$(jq '.end.sum_received.bits_per_second' "$A1")")" \
		18.728 19.320 "Mbit/s "
else
	ts_fail "run a wrote no iperf3 result in one of the boots"
fi

# 2. The seed decides the lossy run.
B1=$TS_TMP/w1/b.json
B2=$TS_TMP/w2/b.json
if [ -s "$B1" ] && [ -s "$B2" ]; then
	ts_log "b, --seed 1: $(recv "$B1") bytes received, retransmits $(jq .end.sum_sent.retransmits "$B1")"
	ts_log "b, --seed 2: $(recv "$B2") bytes received, retransmits $(jq .end.sum_sent.retransmits "$B2")"
	ts_check "b: bytes received, --seed 2 against --seed 1" "$(recv "$B2")" != "$(recv "$B1")"
	ts_check "b: retransmits with --seed 1" "$(jq .end.sum_sent.retransmits "$B1")" '>' 0
	ts_check "b: retransmits with --seed 2" "$(jq .end.sum_sent.retransmits "$B2")" '>' 0
else
	ts_fail "run b wrote no iperf3 result in one of the boots"
fi

# 4. Nothing left behind on the host.
left=$(pgrep -f "$VMTMP" | tr '\n' ' ')
[ -z "$left" ] || ts_fail "processes left running: $left"
[ -z "$(ls -A "$VMTMP")" ] || ts_fail "temporary files left: $(ls -A "$VMTMP")"
vm_mounts >"$TS_TMP/mounts.after"
new=$(comm -13 "$TS_TMP/mounts.before" "$TS_TMP/mounts.after")
[ -z "$new" ] || ts_fail "mounts left on the host: $new"
ts_log "done in $((SECONDS - TS_START)) s"

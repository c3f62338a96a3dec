#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Soak test of the shaper: tools/soak.sh [DURATION] [TASSHAPE]
#
# Drives a bidirectional TCP load (iperf3 --bidir: one upload and one download at the same time)
# through a varying bundled trace (traces/lte-driving.csv, 22 Mbit/s down and 5 Mbit/s up on
# average, with outages) for DURATION (default 30m; 60s, 90s, 30m, 1h or plain seconds), between
# two namespaces: one the script creates for the iperf3 server (the outer end of the link) and the
# one tasshape creates for the client. Every SOAK_INTERVAL seconds (default: DURATION / 360, at
# least 1 s) it samples the shaper's resident memory (VmRSS) and its open file descriptors, and at
# the end it checks:
#
#   - RSS flat after warm-up (the first sixth of the run, 10 s to 5 min): the largest RSS after
#     warm-up exceeds the RSS at the end of warm-up by at most SOAK_RSS_SLACK_KB (default 1024);
#   - file descriptors: never more after warm-up than at its end;
#   (both judged while the load runs, up to DURATION: at the end the shaper opens netlink
#   sockets to take the link down, which is not growth);
#   - the summary JSON: no unexplained drops in either direction, and the counters add up:
#     pkts_in = pkts_out + every drop cause + pkts_held, per direction;
#   - the flows: iperf3 ends without error, moves data both ways, and receives no more TCP payload
#     than the shaper released as IP bytes in that direction.
#
# Figures go to stdout and, with SOAK_OUT=DIR, into DIR (samples.csv, summary.json, iperf3.json,
# soak.json). Needs root (namespaces, iptables, NFQUEUE), iperf3 and jq. Run long soaks under
# `nice -n 19` on a shared machine. Exit 0 when every check passed, 1 when one failed, 2 on a
# usage error, 77 when it cannot run here (not root, a tool missing).
#
# SOAK_NETNS=NAME uses an existing namespace (lo up) for the server instead of creating one (the
# integration test passes its own); SOAK_PIDFILE=FILE receives tasshape's pid.
set -u
cd "$(dirname "$0")/.."

DUR_ARG=${1:-30m}
BIN=${2:-${TASSHAPE:-build/tasshape}}
TRACE=${SOAK_TRACE:-traces/lte-driving.csv}
PORT=${SOAK_PORT:-5399}
RSS_SLACK_KB=${SOAK_RSS_SLACK_KB:-1024}

log() { printf '[soak] %s\n' "$*"; }
FAILED=0
fail() {
	log "FAIL: $*"
	FAILED=$((FAILED + 1))
}

case $DUR_ARG in
*h) DUR=$((${DUR_ARG%h} * 3600)) ;;
*m) DUR=$((${DUR_ARG%m} * 60)) ;;
*s) DUR=${DUR_ARG%s} ;;
*) DUR=$DUR_ARG ;;
esac
if ! [[ $DUR =~ ^[0-9]+$ ]] || [ "$DUR" -lt 20 ]; then
	echo "usage: $0 [DURATION (at least 20s; e.g. 60s, 30m, 1h)] [TASSHAPE]" >&2
	exit 2
fi
if [ ! -x "$BIN" ]; then
	echo "$0: $BIN is not an executable (build first, or pass the path)" >&2
	exit 2
fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
[ "$(id -u)" -eq 0 ] || {
	log "SKIP: needs root (namespaces, iptables, NFQUEUE)"
	exit 77
}
for t in iperf3 jq ip awk; do
	command -v "$t" >/dev/null 2>&1 || {
		log "SKIP: $t is not installed"
		exit 77
	}
done

WARM=$((DUR / 6))
[ "$WARM" -ge 10 ] || WARM=10
[ "$WARM" -le 300 ] || WARM=300
INTERVAL=${SOAK_INTERVAL:-$((DUR / 360))}
[ "$INTERVAL" -ge 1 ] || INTERVAL=1

# A directory of our own only where the caller gave none (SOAK_OUT), so that none is left behind.
TMP=
if [ -n "${SOAK_OUT:-}" ]; then
	OUT=$SOAK_OUT
else
	TMP=$(mktemp -d /tmp/tassoak.XXXXXX)
	OUT=$TMP
fi
mkdir -p "$OUT"
NS=${SOAK_NETNS:-}
MADE_NS=
SRV=
TAS=

cleanup() {
	local i
	set +e
	[ -n "$TAS" ] && kill -0 "$TAS" 2>/dev/null && kill -TERM "$TAS" 2>/dev/null
	for i in $(seq 50); do
		[ -n "$TAS" ] && kill -0 "$TAS" 2>/dev/null || break
		sleep 0.1
	done
	[ -n "$TAS" ] && kill -KILL "$TAS" 2>/dev/null
	[ -n "$SRV" ] && kill -TERM "$SRV" 2>/dev/null
	wait 2>/dev/null
	if [ -n "$TAS" ] && compgen -G "/run/netns/tas-$TAS-*" >/dev/null; then
		fail "namespace /run/netns/tas-$TAS-* left behind; removing it (cleanup --pid $TAS)"
		"$BIN" cleanup --pid "$TAS" >/dev/null 2>&1
		ip netns exec "$NS" "$BIN" cleanup --pid "$TAS" >/dev/null 2>&1
	fi
	[ -n "$MADE_NS" ] && ip netns del "$MADE_NS" 2>/dev/null
	[ -n "$TMP" ] && [ "$FAILED" -eq 0 ] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'log "interrupted"; FAILED=$((FAILED + 1)); exit 1' INT TERM HUP

if [ -z "$NS" ]; then
	NS=tassoak-$$
	ip netns add "$NS" || exit 77
	MADE_NS=$NS
	ip -n "$NS" link set lo up
fi
ip netns exec "$NS" iperf3 -s -1 -p "$PORT" >"$OUT/iperf3-server.log" 2>&1 &
SRV=$!
for _ in $(seq 50); do
	[ -n "$(ip netns exec "$NS" ss -Hltn "sport = :$PORT" 2>/dev/null)" ] && break
	sleep 0.1
done

log "trace $TRACE, ${DUR} s (warm-up ${WARM} s, a sample every ${INTERVAL} s), tasshape $BIN"
# shellcheck disable=SC2016 # expanded by the shell inside the namespace
ip netns exec "$NS" "$BIN" --trace "$TRACE" --delay 10ms --quiet \
	--summary-json "$OUT/summary.json" -- \
	sh -c 'exec iperf3 -c "$TASSHAPE_BASE" "$@"' sh -p "$PORT" --bidir -t "$DUR" -J \
	>"$OUT/iperf3.json" 2>"$OUT/tasshape.err" &
TAS=$!
[ -n "${SOAK_PIDFILE:-}" ] && echo "$TAS" >"$SOAK_PIDFILE"

# Samples: seconds since start, VmRSS in KiB, open file descriptors.
echo "t_s,rss_kb,fds" >"$OUT/samples.csv"
t0=$SECONDS
while kill -0 "$TAS" 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$TAS/status" 2>/dev/null)
	fds=$(find "/proc/$TAS/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
	[ -n "$rss" ] && echo "$((SECONDS - t0)),$rss,$fds" >>"$OUT/samples.csv"
	sleep "$INTERVAL"
	if [ $((SECONDS - t0)) -gt $((DUR + 120)) ]; then
		fail "tasshape still running $((SECONDS - t0)) s after the start of a ${DUR} s run"
		break
	fi
done
wait "$TAS"
rc=$?
elapsed=$((SECONDS - t0))
[ "$rc" -eq 0 ] || {
	fail "tasshape/iperf3 exited $rc"
	sed 's/^/    | /' "$OUT/tasshape.err"
}

# --- memory and descriptors
read -r n w_rss w_fds rss_max rss_min fds_max rss_end fds_end < <(awk -F, -v w="$WARM" -v d="$DUR" '
	NR == 1 || $1 > d { next }
	$1 <= w { wr = $2; wf = $3; next }
	{ n++; if (n == 1 || $2 > rmax) rmax = $2; if (n == 1 || $2 < rmin) rmin = $2
	  if (n == 1 || $3 > fmax) fmax = $3; re = $2; fe = $3 }
	END { if (wr == "") wr = "-"; if (wf == "") wf = "-"
	      printf "%d %s %s %s %s %s %s %s\n", n, wr, wf, rmax + 0, rmin + 0, fmax + 0, re + 0, fe + 0 }' \
	"$OUT/samples.csv")
log "samples after warm-up, up to ${DUR} s: $n; RSS at warm-up ${w_rss} KiB, after it min ${rss_min} max ${rss_max}" \
	"end ${rss_end} KiB; descriptors at warm-up ${w_fds}, max after ${fds_max}, end ${fds_end}"
if [ "$n" -lt 3 ] || [ "$w_rss" = - ]; then
	fail "too few samples ($n after warm-up) to judge memory"
else
	growth=$((rss_max - w_rss))
	if [ "$growth" -le "$RSS_SLACK_KB" ]; then
		log "RSS growth after warm-up: ${growth} KiB (want <= ${RSS_SLACK_KB}) ok"
	else
		fail "RSS growth after warm-up: ${growth} KiB (want <= ${RSS_SLACK_KB})"
	fi
	if [ "$fds_max" -le "$w_fds" ]; then
		log "descriptors after warm-up: max ${fds_max} (want <= ${w_fds}) ok"
	else
		fail "descriptors after warm-up: max ${fds_max} (want <= ${w_fds})"
	fi
fi

# --- counters
S=$OUT/summary.json
if ! jq -e '.directions | length == 2' "$S" >/dev/null 2>&1; then
	fail "no summary JSON with two directions in $S"
else
	for d in 0 1; do
		read -r name pin pout held drops unexpl kdrop overrun bout < <(jq -r --argjson d "$d" '
			.directions[$d] | [.name, .pkts_in, .pkts_out, .pkts_held,
			([.drops[]] | add), .unexplained_drops, .kernel_dropped, .socket_overrun,
			.bytes_out] | @tsv' "$S")
		log "$name: in $pin, out $pout, dropped $drops ($(jq -r --argjson d "$d" \
			'.directions[$d].drops | to_entries | map(select(.value > 0)) |
			map("\(.key) \(.value)") | join(", ")' "$S")), held $held;" \
			"kernel-dropped $kdrop, socket overruns $overrun, unexplained $unexpl"
		if [ "$pin" -eq $((pout + drops + held)) ]; then
			log "$name: in = out + dropped + held ($pin = $pout + $drops + $held) ok"
		else
			fail "$name: in $pin != out $pout + dropped $drops + held $held"
		fi
		log "$name: utilisation $(jq -r --argjson d "$d" '.directions[$d].utilisation' "$S")," \
			"queueing delay p99 $(jq -r --argjson d "$d" \
			'.directions[$d].queueing_delay_ns.p99 / 1e6 | floor' "$S") ms, release" \
			"error p50/p99/max $(jq -r --argjson d "$d" '.directions[$d].release_error_ns |
			if . then "\(.p50 / 1e3 | floor) us / \(.p99 / 1e3 | floor) us / \(.max / 1e3 |
			floor) us" else "-" end' "$S")"
		[ "$unexpl" -eq 0 ] || fail "$name: $unexpl unexplained drops"
		[ "$pout" -gt 0 ] || fail "$name: nothing delivered"
		eval "BOUT_$d=$bout"
	done
fi

# --- the flows (iperf3 --bidir: sum_received is the upload, sum_received_bidir_reverse the download)
J=$OUT/iperf3.json
if jq -e '.error' "$J" >/dev/null 2>&1; then
	fail "iperf3: $(jq -r .error "$J")"
elif jq -e '.end.sum_received_bidir_reverse' "$J" >/dev/null 2>&1; then
	up=$(jq -r '.end.sum_received.bytes' "$J")
	down=$(jq -r '.end.sum_received_bidir_reverse.bytes' "$J")
	log "iperf3: upload $(awk -v b="$up" -v t="$DUR" 'BEGIN { printf "%.2f", b * 8 / t / 1e6 }')" \
		"Mbit/s, download $(awk -v b="$down" -v t="$DUR" 'BEGIN { printf "%.2f", b * 8 / t / 1e6 }')" \
		"Mbit/s (payload), retransmits $(jq -r '[.end.sum_sent.retransmits,
		.end.sum_sent_bidir_reverse.retransmits] | map(. // 0) | add' "$J")"
	[ "$up" -gt 0 ] && [ "$down" -gt 0 ] || fail "iperf3: a direction moved no data (up $up, down $down)"
	if [ -n "${BOUT_0:-}" ]; then
		[ "$up" -le "$BOUT_0" ] || fail "upload: iperf3 received $up payload bytes > $BOUT_0 released"
		[ "$down" -le "$BOUT_1" ] || fail "download: iperf3 received $down > $BOUT_1 released"
	fi
else
	fail "iperf3 gave no --bidir result in $J"
fi

jq -n --arg trace "$TRACE" --argjson dur "$DUR" --argjson elapsed "$elapsed" \
	--argjson warm "$WARM" --argjson n "$n" --arg w_rss "$w_rss" --argjson rss_max "$rss_max" \
	--argjson rss_min "$rss_min" --argjson rss_end "$rss_end" --arg w_fds "$w_fds" \
	--argjson fds_max "$fds_max" --argjson failed "$FAILED" \
	'{trace: $trace, duration_s: $dur, elapsed_s: $elapsed, warmup_s: $warm, samples: $n,
	  rss_kb: {warmup: ($w_rss | tonumber? // null), min: $rss_min, max: $rss_max, end: $rss_end},
	  fds: {warmup: ($w_fds | tonumber? // null), max: $fds_max}, failed_checks: $failed}' \
	>"$OUT/soak.json"
if [ "$FAILED" -eq 0 ]; then
	log "PASS (${elapsed} s)"
	exit 0
fi
log "FAILED: $FAILED check(s); files in $OUT"
exit 1

#!/bin/bash
# SPDX-License-Identifier: MIT
# What the running kernel charges a TCP socket per queued segment (docs/kernels.md, "The
# paper's Wi-Fi regime"): one iperf3 upload for 3 s between two namespaces made here, its
# packets held by a tbf qdisc, sk_wmem_alloc (ss -tm) read beside the qdisc's backlog.
#   seg   a burst of 3000 bytes: tbf segments each GSO unit at enqueue (skb_gso_segment, as
#         mac80211 does), and tcp_gso_segment() charges each segment its own head
#   unit  a burst of 200000 bytes: tbf holds the units whole, charged one head each
# Every wmem_alloc is then a multiple of one segment's truesize (seg) or one unit's (unit).
# Root; needs iproute2 and iperf3. Usage: skb-truesize.sh seg|unit
set -u
mode=${1:-seg}
case $mode in seg | unit) ;; *) echo "usage: $0 seg|unit" >&2; exit 64 ;; esac
A=tsz-a-$$ B=tsz-b-$$ SPID=
cleanup() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
}
trap cleanup EXIT
ip netns add "$A" && ip netns add "$B" || exit 1
ip link add va netns "$A" type veth peer name vb netns "$B" || exit 1
ip -n "$A" addr add 10.99.0.1/24 dev va
ip -n "$B" addr add 10.99.0.2/24 dev vb
for n in "$A" "$B"; do ip -n "$n" link set lo up; done
ip -n "$A" link set va up
ip -n "$B" link set vb up
burst=3000
[ "$mode" = unit ] && burst=200000
ip netns exec "$A" tc qdisc add dev va root tbf rate 50mbit burst "$burst" limit 3000000 || exit 1
ip netns exec "$B" iperf3 -s -1 -p 5999 >/dev/null 2>&1 &
SPID=$!
sleep 0.5
ip netns exec "$A" iperf3 -c 10.99.0.2 -p 5999 -t 3 >/dev/null 2>&1 &
cpid=$!
for _ in 1 2 3 4 5; do
	sleep 0.4
	t=$(ip netns exec "$A" ss -tmn dst 10.99.0.2 | grep -o 'skmem:([^)]*)' | grep -o ',t[0-9]*' |
		tr -d ',t' | sort -n | tail -1)
	q=$(ip netns exec "$A" tc -s qdisc show dev va | grep -o 'backlog [0-9]*b [0-9]*p' | head -1)
	echo "$mode wmem_alloc=$t qdisc $q"
done
wait "$cpid"

#!/usr/bin/env bash
# Writes the pcap fixtures of tests/unit/test_trace_import.c and tests/integration/t_trace_cli.sh:
# small synthetic captures of a download, as tcpdump would write them with a short snaplen
# (frames cut after the TCP header; the IP length field tells the real size).
#   download.pcap       Ethernet, IPv4 10.0.0.1 -> 10.0.0.2 data, ACKs back, an ARP frame
#   download-sll2.pcap  Linux cooked v2 (tcpdump -i any), IPv6 2001:db8::1 -> 2001:db8::2
# Everything is built as hex text and turned into bytes at the end (bash strings cannot hold
# NUL bytes). Run from anywhere; the files land next to this script.
set -euo pipefail
cd "$(dirname "$0")"

le32() { printf '%02x%02x%02x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
be16() { printf '%02x%02x' $(($1 >> 8 & 255)) $(($1 & 255)); }
tobytes() { printf '%b' "$(tr -d ' \n' | sed 's/../\\x&/g')"; }

# global header: magic (microsecond stamps), version 2.4, zone 0, sigfigs 0, snaplen 96, link type
header() { echo "d4c3b2a1 0200 0400 $(le32 0) $(le32 0) $(le32 96) $(le32 "$1")"; }

# record SEC USEC FRAME_HEX ORIGLEN (the frame is captured whole: caplen = its length)
record() { echo "$(le32 "$1") $(le32 "$2") $(le32 $((${#3} / 2))) $(le32 "$4") $3"; }

eth_ip4() { # SRC_LAST_OCTET DST_LAST_OCTET IP_LEN: Ethernet + IPv4 + TCP headers (54 bytes)
	printf '0200000000%02x0200000000%02x0800' "$2" "$1"
	printf '4500%s000140004006 0000 0a0000%02x 0a0000%02x' "$(be16 "$3")" "$1" "$2"
	printf '1f90c350 00000001 00000001 5010ffff 00000000'
}

data4() { record "$1" "$2" "$(eth_ip4 1 2 "${3:-1500}" | tr -d ' ')" $((14 + ${3:-1500})); }
ack4() { record "$1" "$2" "$(eth_ip4 2 1 52 | tr -d ' ')" 66; }

{
	header 1
	ack4 0 0 # the client's request goes first: not part of the download
	record 0 100 ffffffffffff0200000000020806000108000604000100000000000000000000 42 # ARP
	data4 1 0
	data4 1 400
	ack4 1 500
	data4 1 1000
	data4 1 1100
	data4 1 2500
	data4 1 2500
	data4 1 3000
	ack4 1 3100
	data4 1 10000
	data4 1 10000
	data4 1 10100
	data4 1 20000 750
	data4 1 20500 750
} | tobytes >download.pcap

sll2_ip6() { # SRC_LAST DST_LAST PAYLOAD_LEN: SLL2 (20) + IPv6 (40) + TCP (20)
	printf '86dd0000 00000002 00010006 02000000 00010000'
	printf '60000000%s0640' "$(be16 "$3")"
	printf '20010db8000000000000000000000%03x' "$1"
	printf '20010db8000000000000000000000%03x' "$2"
	printf '1f90c350 00000001 00000001 5010ffff 00000000'
}

{
	header 276
	# 3000-byte IPv6 packets (GRO on the capturing host): two opportunities each
	record 5 0 "$(sll2_ip6 1 2 2960 | tr -d ' ')" 3020
	record 5 200 "$(sll2_ip6 2 1 32 | tr -d ' ')" 92
	record 5 1500 "$(sll2_ip6 1 2 2960 | tr -d ' ')" 3020
	record 5 4999 "$(sll2_ip6 1 2 1460 | tr -d ' ')" 1520
} | tobytes >download-sll2.pcap

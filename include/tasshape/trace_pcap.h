/* SPDX-License-Identifier: MIT */
/*
 * A delivery-opportunity trace from a capture of a saturating download,
 * the way the mahimahi (Cellsim/Saturatr) traces were recorded: each 1500
 * bytes received is one opportunity, at the millisecond it arrived. This
 * is the pure part (frame parsing, counting); reading the pcap file with
 * libpcap is in src/io/pcap_import.c.
 */
#ifndef TASSHAPE_TRACE_PCAP_H
#define TASSHAPE_TRACE_PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasshape/err.h"
#include "tasshape/trace.h"

/* Link-layer types (the DLT_ values of pcap files) ts_pcap_ip_parse knows. */
enum {
	TS_DLT_NULL = 0,	/* BSD loopback: 4-byte address family, host order */
	TS_DLT_EN10MB = 1,	/* Ethernet, with 802.1Q tags */
	TS_DLT_RAW = 12,	/* raw IP (also 14 and LINKTYPE_RAW 101) */
	TS_DLT_LOOP = 108,	/* OpenBSD loopback: 4-byte address family, network order */
	TS_DLT_LINUX_SLL = 113, /* "tcpdump -i any", cooked v1 */
	TS_DLT_IPV4 = 228,
	TS_DLT_IPV6 = 229,
	TS_DLT_LINUX_SLL2 = 276, /* cooked v2 */
};

struct ts_pcap_ip {
	uint8_t version; /* 4 or 6 */
	uint8_t src[16]; /* IPv4 in the first 4 bytes */
	uint8_t dst[16];
	uint32_t ip_len; /* IP bytes of the packet, from its header (not the capture length) */
};

/*
 * ts_pcap_ip_parse - the IP header of a frame of link type @dlt, @caplen
 * bytes captured. Returns 0, -EPROTONOSUPPORT for a link type not listed
 * above, or -EINVAL when the frame is not IPv4/IPv6 or is cut before the
 * addresses.
 */
int ts_pcap_ip_parse(int dlt, const uint8_t *frame, uint32_t caplen, struct ts_pcap_ip *out);

/* Counting received bytes into opportunities. */
struct ts_opp_builder {
	bool started;
	ts_ns_t t0, last; /* first and latest arrival */
	uint64_t carry;	  /* bytes not yet making a whole opportunity */
	uint64_t packets, bytes, reordered;
	struct ts_trace_opp *opps;
	size_t n, cap;
};

void ts_opp_builder_init(struct ts_opp_builder *b);

/*
 * ts_opp_builder_add - @bytes arrived at @t. Each time the received bytes
 * pass a multiple of TS_OPP_BYTES, one opportunity is added at
 * millisecond (t - t0) / 1 ms + 1, t0 being the first arrival (so the
 * first millisecond is 1, and the trace never needs an opportunity at 0).
 * An arrival earlier than the one before (capture reordering) counts at
 * the time of the one before. Returns 0 or -ENOMEM.
 */
int ts_opp_builder_add(struct ts_opp_builder *b, ts_ns_t t, uint64_t bytes);

/*
 * ts_opp_builder_finish - the trace (kind TS_TRACE_OPPS, named @name);
 * bytes short of a last whole opportunity are dropped. Returns 0 with
 * *@out owned by the caller, -EINVAL when no opportunity was made (less
 * than 1500 bytes) or the capture is longer than 49.7 days, -ENOMEM.
 * The builder is emptied.
 */
int ts_opp_builder_finish(struct ts_opp_builder *b, const char *name, struct ts_trace **out,
			  struct ts_err *err);

void ts_opp_builder_free(struct ts_opp_builder *b);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * From captured frames to delivery opportunities (see trace_pcap.h):
 * link-layer headers are skipped to the IP header, whose length field
 * (not the capture length: captures are often cut at a small snaplen)
 * says how many bytes arrived.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/trace_pcap.h"
#include "trace_read_priv.h"

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static int ip_parse(const uint8_t *p, uint32_t len, struct ts_pcap_ip *out)
{
	memset(out, 0, sizeof(*out));
	if (len < 1)
		return -EINVAL;
	out->version = p[0] >> 4;
	if (out->version == 4) {
		if (len < 20)
			return -EINVAL;
		out->ip_len = be16(p + 2);
		memcpy(out->src, p + 12, 4);
		memcpy(out->dst, p + 16, 4);
		return 0;
	}
	if (out->version == 6) {
		if (len < 40)
			return -EINVAL;
		out->ip_len = (uint32_t)be16(p + 4) + 40;
		memcpy(out->src, p + 8, 16);
		memcpy(out->dst, p + 24, 16);
		return 0;
	}
	return -EINVAL;
}

/* An ethertype's payload, or -EINVAL for a protocol other than IP. */
static int ether_ip(uint16_t type, const uint8_t *p, uint32_t len, struct ts_pcap_ip *out)
{
	if (type != 0x0800 && type != 0x86dd)
		return -EINVAL;
	if (ip_parse(p, len, out))
		return -EINVAL;
	return out->version == (type == 0x0800 ? 4 : 6) ? 0 : -EINVAL;
}

int ts_pcap_ip_parse(int dlt, const uint8_t *f, uint32_t caplen, struct ts_pcap_ip *out)
{
	uint32_t off;
	uint16_t type;

	switch (dlt) {
	case TS_DLT_EN10MB:
		off = 12;
		if (caplen < off + 2)
			return -EINVAL;
		type = be16(f + off);
		/* 802.1Q and 802.1ad tags: 4 bytes each before the real type */
		while ((type == 0x8100 || type == 0x88a8) && caplen >= off + 6) {
			off += 4;
			type = be16(f + off);
		}
		off += 2;
		return ether_ip(type, f + off, caplen - off, out);
	case TS_DLT_LINUX_SLL:
		if (caplen < 16)
			return -EINVAL;
		return ether_ip(be16(f + 14), f + 16, caplen - 16, out);
	case TS_DLT_LINUX_SLL2:
		if (caplen < 20)
			return -EINVAL;
		return ether_ip(be16(f), f + 20, caplen - 20, out);
	case TS_DLT_NULL:
	case TS_DLT_LOOP:
		/* the address family's value differs between systems: trust the IP version */
		if (caplen < 4)
			return -EINVAL;
		return ip_parse(f + 4, caplen - 4, out);
	case TS_DLT_RAW:
	case 14:  /* DLT_RAW on OpenBSD */
	case 101: /* LINKTYPE_RAW */
	case TS_DLT_IPV4:
	case TS_DLT_IPV6:
		return ip_parse(f, caplen, out);
	default:
		return -EPROTONOSUPPORT;
	}
}

void ts_opp_builder_init(struct ts_opp_builder *b)
{
	memset(b, 0, sizeof(*b));
}

void ts_opp_builder_free(struct ts_opp_builder *b)
{
	free(b->opps);
	ts_opp_builder_init(b);
}

static int add_opp(struct ts_opp_builder *b, uint64_t ms)
{
	if (b->n && b->opps[b->n - 1].ms == ms && b->opps[b->n - 1].count < UINT32_MAX) {
		b->opps[b->n - 1].count++;
		return 0;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct ts_trace_opp *p = realloc(b->opps, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		b->opps = p;
		b->cap = cap;
	}
	b->opps[b->n].ms = ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
	b->opps[b->n].count = 1;
	b->n++;
	return 0;
}

int ts_opp_builder_add(struct ts_opp_builder *b, ts_ns_t t, uint64_t bytes)
{
	uint64_t ms;
	int ret;

	if (!b->started) {
		b->started = true;
		b->t0 = t;
		b->last = t;
	}
	if (t < b->last) {
		b->reordered++;
		t = b->last;
	}
	b->last = t;
	b->packets++;
	b->bytes += bytes;
	b->carry += bytes;
	ms = (uint64_t)((t - b->t0) / TS_NSEC_PER_MSEC) + 1;
	while (b->carry >= TS_OPP_BYTES) {
		b->carry -= TS_OPP_BYTES;
		ret = add_opp(b, ms);
		if (ret)
			return ret;
	}
	return 0;
}

int ts_opp_builder_finish(struct ts_opp_builder *b, const char *name, struct ts_trace **out,
			  struct ts_err *err)
{
	struct ts_trace *t;

	*out = NULL;
	if (!b->n) {
		ts_err_set(err,
			   "%s: less than %u bytes received: no delivery opportunity (is this a "
			   "capture of a download?)",
			   name, TS_OPP_BYTES);
		return -EINVAL;
	}
	if (b->opps[b->n - 1].ms == UINT32_MAX) {
		ts_err_set(err, "%s: the capture is longer than 49.7 days", name);
		return -EINVAL;
	}
	t = tr_trace_new(name, TS_TRACE_OPPS);
	if (!t) {
		ts_err_set(err, "%s: out of memory", name);
		return -ENOMEM;
	}
	t->opps = b->opps;
	t->n = b->n;
	t->cap = b->cap;
	t->period = (ts_ns_t)b->opps[b->n - 1].ms * TS_NSEC_PER_MSEC;
	b->opps = NULL;
	b->n = 0;
	b->cap = 0;
	*out = t;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The station's TSQ budget (run/tsq_station_priv.h): which flow a packet of
 * the station's queue belongs to, and which packet released early the
 * kernel queues again at the uplink network hook.
 *
 * An early-released packet is found again at the network hook by a hash
 * of its IP and TCP headers (TTL and checksums left out), looked up among
 * the oldest packets still in transit: the veth delivers in verdict order,
 * so the first few always match.
 */
#include <string.h>
#include <sys/socket.h>

#include "run/tsq_station_priv.h"

#define WINDOW 256 /* in-transit packets searched per arrival at the network hook */

/*
 * FNV-1a over the IP and TCP headers, eight bytes a step, without what may change between the
 * hooks (TTL or hop limit, the IPv4 header checksum, the TCP checksum), and the length. The
 * payload adds nothing a packet in transit could be told apart by (IP ID, sequence and
 * acknowledgement numbers, timestamps are in the headers) and hashing it byte by byte cost
 * 1,200 guest instructions a packet at each of the two hooks (docs/benchmarks.md).
 */
static uint64_t header_key(const struct ts_nfq_pkt *kp, uint32_t l4, bool v4)
{
	uint8_t b[TS_NFQ_COPY_RANGE + 8];
	uint64_t h = 1469598103934665603ULL, w;
	uint32_t n = l4 + (uint32_t)(kp->hdr[l4 + 12] >> 4) * 4, i;

	if (n > kp->hdrlen)
		n = kp->hdrlen;
	memcpy(b, kp->hdr, n);
	memset(b + n, 0, 8);
	if (v4)
		b[8] = b[10] = b[11] = 0; /* TTL, IPv4 header checksum */
	else
		b[7] = 0; /* hop limit */
	if (l4 + 17 < n)
		b[l4 + 16] = b[l4 + 17] = 0; /* TCP checksum */
	for (i = 0; i < n; i += 8) {
		memcpy(&w, b + i, sizeof(w));
		h ^= w;
		h *= 1099511628211ULL;
	}
	h ^= kp->len;
	return h * 1099511628211ULL;
}

/* A TCP packet's flow and key; false for anything else. */
bool ts_tsqst_parse_tcp(const struct ts_nfq_pkt *kp, struct ts_tsqst_flow *f, uint64_t *key)
{
	const uint8_t *b = kp->hdr;
	uint32_t l4;

	if (kp->hdrlen >= 20 && (b[0] >> 4) == 4) {
		l4 = (uint32_t)(b[0] & 15) * 4;
		if (b[9] != IPPROTO_TCP || kp->hdrlen < l4 + 20)
			return false;
		f->family = AF_INET;
		memset(f->saddr, 0, 32);
		memcpy(f->saddr, b + 12, 4);
		memcpy(f->daddr, b + 16, 4);
	} else if (kp->hdrlen >= 60 && (b[0] >> 4) == 6) {
		l4 = 40;
		if (b[6] != IPPROTO_TCP)
			return false;
		f->family = AF_INET6;
		memcpy(f->saddr, b + 8, 16);
		memcpy(f->daddr, b + 24, 16);
	} else {
		return false;
	}
	f->sport = (uint16_t)(b[l4] << 8 | b[l4 + 1]);
	f->dport = (uint16_t)(b[l4 + 2] << 8 | b[l4 + 3]);
	*key = header_key(kp, l4, f->family == AF_INET);
	return true;
}

int ts_tsqst_flow_find(struct ts_tsqst *t, const struct ts_tsqst_flow *k)
{
	unsigned int i;
	struct ts_tsqst_flow *f;

	for (i = 0; i < t->nflows; i++) {
		f = &t->flows[i];
		if (f->sport == k->sport && f->dport == k->dport && f->family == k->family &&
		    !memcmp(f->saddr, k->saddr, 16) && !memcmp(f->daddr, k->daddr, 16))
			return (int)i;
	}
	if (t->nflows == TS_TSQST_FLOWS)
		return -1;
	f = &t->flows[t->nflows];
	memset(f, 0, sizeof(*f));
	f->family = k->family;
	memcpy(f->saddr, k->saddr, 16);
	memcpy(f->daddr, k->daddr, 16);
	f->sport = k->sport;
	f->dport = k->dport;
	inet_ntop(f->family, f->saddr, f->src, sizeof(f->src));
	inet_ntop(f->family, f->daddr, f->dst, sizeof(f->dst));
	f->head = f->tail = f->first_chg = -1;
	f->shift = ts_tsq_shift(&t->conf, TS_BBR_NONE);
	f->phase = TS_BBR_NONE;
	return (int)t->nflows++;
}

struct ts_tsqst_flow *ts_tsqst_flow_of_sock(struct ts_tsqst *t, const struct ts_sockstat *st)
{
	unsigned int i;

	for (i = 0; i < t->nflows; i++) {
		struct ts_tsqst_flow *f = &t->flows[i];

		if (f->sport == st->sport && f->dport == st->dport && f->family == st->family &&
		    !strcmp(f->src, st->src) && !strcmp(f->dst, st->dst))
			return f;
	}
	return NULL;
}

void ts_tsqst_ring_push(struct ts_tsqst *t, int32_t i, ts_ns_t now)
{
	uint32_t k = (t->rhead + t->rcount) % TS_TSQST_RING;

	t->ring[k] = i;
	t->ring_t[k] = now;
	t->rcount++;
}

/*
 * At the network hook: is this one we released early? Its descriptor, or
 * -1. The first WINDOW packets still in transit are searched (slots already
 * matched are skipped, at most 4 x WINDOW of them): the veth delivers in
 * verdict order, give or take what two CPUs' backlogs reorder.
 */
int32_t ts_tsqst_ring_match(struct ts_tsqst *t, uint64_t key)
{
	uint32_t k, live = 0;

	for (k = 0; k < t->rcount && live < WINDOW && k < 4 * WINDOW; k++) {
		uint32_t slot = (t->rhead + k) % TS_TSQST_RING;
		int32_t i = t->ring[slot];

		if (i < 0)
			continue;
		live++;
		if (t->key[i] == key) {
			t->ring[slot] = -1;
			return i;
		}
	}
	return -1;
}

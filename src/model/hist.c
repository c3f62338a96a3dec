/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "tasshape/hist.h"

void ts_hist_init(struct ts_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = TS_NEVER;
}

static unsigned int bucket_of(uint64_t v)
{
	unsigned int msb, shift;

	if (v < TS_HIST_SUB)
		return (unsigned int)v;
	msb = 63u - (unsigned int)__builtin_clzll(v);
	shift = msb - TS_HIST_SUB_BITS + 1;
	/* (v >> shift) is in [SUB/2, SUB): each power of two gets SUB/2 buckets. */
	return shift * (TS_HIST_SUB / 2) + (unsigned int)(v >> shift);
}

static uint64_t bucket_low(unsigned int b)
{
	unsigned int shift, sub;

	if (b < TS_HIST_SUB)
		return b;
	shift = b / (TS_HIST_SUB / 2) - 1;
	sub = b - shift * (TS_HIST_SUB / 2);
	return (uint64_t)sub << shift;
}

void ts_hist_add(struct ts_hist *h, ts_ns_t v)
{
	if (v < 0)
		v = 0;
	h->bucket[bucket_of((uint64_t)v)]++;
	h->count++;
	h->sum += (double)v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

ts_ns_t ts_hist_quantile(const struct ts_hist *h, double q)
{
	uint64_t rank, seen = 0;
	unsigned int b;

	if (!h->count)
		return 0;
	if (q >= 1.0)
		return h->max;
	if (q <= 0.0)
		return h->min;
	/* The smallest value with at least ceil(q * count) samples at or below it. */
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	for (b = 0; b < TS_HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank) {
			ts_ns_t low = (ts_ns_t)bucket_low(b);

			return low < h->min ? h->min : low;
		}
	}
	return h->max;
}

/* SPDX-License-Identifier: MIT */
/*
 * A fixed-size log-linear histogram of non-negative durations (ns), for
 * queueing-delay percentiles without storing samples or allocating on
 * the packet path. Values below 2^TS_HIST_SUB_BITS ns are exact; above,
 * each power of two is split into 2^(TS_HIST_SUB_BITS-1) buckets, so a
 * reported percentile is within 1/64 (1.6%) of the true sample (the
 * scheme of HdrHistogram, Tene 2012).
 */
#ifndef TASSHAPE_HIST_H
#define TASSHAPE_HIST_H

#include <stdint.h>

#include "tasshape/time.h"

#define TS_HIST_SUB_BITS 7
#define TS_HIST_SUB	 (1u << TS_HIST_SUB_BITS)
#define TS_HIST_BUCKETS	 ((64 - TS_HIST_SUB_BITS + 2) * (TS_HIST_SUB / 2))

struct ts_hist {
	uint64_t count;
	ts_ns_t min, max;
	double sum;
	uint32_t bucket[TS_HIST_BUCKETS];
};

void ts_hist_init(struct ts_hist *h);
void ts_hist_add(struct ts_hist *h, ts_ns_t v);

/* The value at quantile @q in [0, 1] (the bucket's lower bound, or max for q = 1); 0 if empty. */
ts_ns_t ts_hist_quantile(const struct ts_hist *h, double q);

static inline double ts_hist_mean(const struct ts_hist *h)
{
	return h->count ? h->sum / (double)h->count : 0.0;
}

#endif

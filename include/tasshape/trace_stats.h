/* SPDX-License-Identifier: MIT */
/*
 * What a trace contains: its long-run mean, the distribution of its rate
 * over bins (1 s by default), its outages and its delay. Everything is
 * computed over one period of the looped trace in steady state, with
 * integer arithmetic, so the numbers are exact and reproducible.
 *
 * Bins: the period is cut into bins of @bin from 0; the last bin is
 * shorter when @bin does not divide the period, and counts with its
 * length. A bin's rate is its capacity / its length (bit/s, floor). A
 * mahimahi opportunity at millisecond m is an instant; the bin (a, b]
 * holds the instants after a up to b, and an opportunity at ms 0 is not
 * counted (the cursor replays it only in the first pass).
 *
 * Percentiles are time-weighted nearest ranks over the bins: p is the
 * smallest bin rate r such that bins with rate <= r cover at least p
 * percent of the period (for equal bins the ceil(p/100 * n)-th smallest).
 *
 * Outage: time in stretches without any capacity that last at least
 * @outage_min: runs of zero-rate rows (joined across the loop), or gaps
 * between consecutive opportunities of a mahimahi trace.
 */
#ifndef TASSHAPE_TRACE_STATS_H
#define TASSHAPE_TRACE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasshape/text.h"
#include "tasshape/trace.h"

struct ts_trace_stats {
	ts_ns_t duration; /* the period */
	ts_ns_t bin;
	size_t nbins;
	uint64_t mean_bps; /* capacity of a period / period, floor */
	uint64_t min_bps, p5_bps, p50_bps, p95_bps, max_bps; /* over bins */
	ts_ns_t outage;					     /* total outage time in a period */
	uint32_t outage_ppm;				     /* outage / duration in ppm, rounded */
	uint64_t outages;				     /* stretches counted */
	bool has_delay;
	ts_ns_t delay_min, delay_mean, delay_max; /* time-weighted mean */
};

/*
 * Most bins a period may be cut into (as many as a trace may have rows):
 * a 49-day trace in 1 ms bins would need 69 GB.
 */
#define TS_TRACE_BINS_MAX 10000000u

/*
 * ts_trace_bins - the rate of each bin of one period: *@bps (bit/s, owned
 * by the caller, free()) and *@n. @bin > 0. Returns 0, -E2BIG (more than
 * TS_TRACE_BINS_MAX bins) or -ENOMEM.
 */
int ts_trace_bins(const struct ts_trace *t, ts_ns_t bin, uint64_t **bps, size_t *n);

/*
 * ts_trace_stats - fill @st for @t with bins of @bin (> 0) and outages of
 * at least @outage_min. Returns 0, -E2BIG (as ts_trace_bins) or -ENOMEM.
 */
int ts_trace_stats(const struct ts_trace *t, ts_ns_t bin, ts_ns_t outage_min,
		   struct ts_trace_stats *st);

/*
 * ts_trace_stats_md - one Markdown table row for traces/README.md:
 * "| `NAME` | DIR | DURATION s | mean | p5 | p50 | p95 | max | outage % |"
 * with rates in Mbit/s to 2 decimals (rounded half up), duration to 3,
 * outage percent to 2. Returns 0 or -ENOMEM.
 */
int ts_trace_stats_md(struct ts_text *out, const char *name, const char *dir,
		      const struct ts_trace_stats *st);

/* Append @bps as Mbit/s rounded half up to @digits decimals (0 to 6). */
int ts_text_mbps(struct ts_text *out, uint64_t bps, int digits);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Trace statistics (see include/tasshape/trace_stats.h for the
 * definitions). Capacities are integrated in bit-nanoseconds in 128-bit
 * integers, as the cursor does, so bins and means are exact.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/trace_stats.h"

typedef unsigned __int128 u128;

#define OPP_BITNS ((u128)TS_OPP_BYTES * 8u * (u128)TS_NSEC_PER_SEC)

static ts_ns_t row_end(const struct ts_trace *t, size_t i)
{
	return i + 1 < t->n ? t->rows[i + 1].t : t->period;
}

static size_t nbins_of(const struct ts_trace *t, ts_ns_t bin)
{
	return (size_t)((t->period + bin - 1) / bin);
}

/* Capacity of each bin in bit-ns: *acc (caller frees) of nbins_of() entries. */
static int bin_work(const struct ts_trace *t, ts_ns_t bin, u128 **acc)
{
	size_t n = nbins_of(t, bin), i;
	u128 *a;

	*acc = NULL;
	if (n > TS_TRACE_BINS_MAX)
		return -E2BIG;
	a = calloc(n, sizeof(*a));
	*acc = a;
	if (!a)
		return -ENOMEM;
	if (t->kind == TS_TRACE_OPPS) {
		for (i = 0; i < t->n; i++) {
			ts_ns_t x = (ts_ns_t)t->opps[i].ms * TS_NSEC_PER_MSEC;

			if (x > 0)
				a[(x - 1) / bin] += (u128)t->opps[i].count * OPP_BITNS;
		}
		return 0;
	}
	for (i = 0; i < t->n; i++) {
		ts_ns_t x = t->rows[i].t, end = row_end(t, i);
		size_t j = (size_t)(x / bin);

		while (x < end) {
			ts_ns_t e = ts_min(end, (ts_ns_t)(j + 1) * bin);

			a[j] += (u128)t->rows[i].bps * (u128)(e - x);
			x = e;
			j++;
		}
	}
	return 0;
}

static ts_ns_t bin_len(const struct ts_trace *t, ts_ns_t bin, size_t j)
{
	return ts_min(bin, t->period - (ts_ns_t)j * bin);
}

int ts_trace_bins(const struct ts_trace *t, ts_ns_t bin, uint64_t **bps, size_t *n)
{
	u128 *acc;
	size_t j;
	int ret = bin_work(t, bin, &acc);

	*bps = NULL;
	*n = 0;
	if (ret)
		return ret;
	*n = nbins_of(t, bin);
	*bps = malloc(*n * sizeof(**bps));
	if (!*bps) {
		free(acc);
		*n = 0;
		return -ENOMEM;
	}
	for (j = 0; j < *n; j++)
		(*bps)[j] = (uint64_t)(acc[j] / (u128)bin_len(t, bin, j));
	free(acc);
	return 0;
}

struct wbin {
	uint64_t bps;
	ts_ns_t len;
};

static int wbin_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct wbin *)a)->bps, y = ((const struct wbin *)b)->bps;

	return (x > y) - (x < y);
}

static uint64_t percentile(const struct wbin *w, size_t n, ts_ns_t total, unsigned int p)
{
	u128 cum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		cum += (u128)w[i].len;
		if (cum * 100 >= (u128)p * (u128)total)
			return w[i].bps;
	}
	return n ? w[n - 1].bps : 0;
}

/* Count a stretch of @len without capacity. */
static void outage_add(struct ts_trace_stats *st, ts_ns_t len, ts_ns_t min)
{
	if (len > 0 && len >= min) {
		st->outage += len;
		st->outages++;
	}
}

static void outages_rate(const struct ts_trace *t, ts_ns_t min, struct ts_trace_stats *st)
{
	ts_ns_t head = 0, run = 0;
	bool in_head = true;
	size_t i;

	for (i = 0; i < t->n; i++) {
		ts_ns_t len = row_end(t, i) - t->rows[i].t;

		if (t->rows[i].bps == 0) {
			run += len;
			continue;
		}
		if (in_head)
			head = run; /* may join the run at the end of the period */
		else
			outage_add(st, run, min);
		in_head = false;
		run = 0;
	}
	if (in_head) /* no capacity anywhere: one stretch of the whole period */
		outage_add(st, run, min);
	else
		outage_add(st, head + run, min);
}

static void outages_opps(const struct ts_trace *t, ts_ns_t min, struct ts_trace_stats *st)
{
	ts_ns_t prev = 0; /* the opportunity at ms == period stands at 0 of the next pass */
	size_t i;

	for (i = 0; i < t->n; i++) {
		ts_ns_t x = (ts_ns_t)t->opps[i].ms * TS_NSEC_PER_MSEC;

		if (x == 0)
			continue;
		outage_add(st, x - prev, min);
		prev = x;
	}
}

static void delay_stats(const struct ts_trace *t, struct ts_trace_stats *st)
{
	__int128 sum = 0;
	size_t i;

	if (t->kind != TS_TRACE_RATE || !t->delay || !t->n)
		return;
	st->has_delay = true;
	st->delay_min = st->delay_max = t->delay[0];
	for (i = 0; i < t->n; i++) {
		sum += (__int128)t->delay[i] * (row_end(t, i) - t->rows[i].t);
		st->delay_min = ts_min(st->delay_min, t->delay[i]);
		st->delay_max = ts_max(st->delay_max, t->delay[i]);
	}
	st->delay_mean = (ts_ns_t)(sum / t->period);
}

int ts_trace_stats(const struct ts_trace *t, ts_ns_t bin, ts_ns_t outage_min,
		   struct ts_trace_stats *st)
{
	struct wbin *w = NULL;
	u128 *acc, total = 0;
	size_t j, n;
	int ret;

	memset(st, 0, sizeof(*st));
	st->duration = t->period;
	st->bin = bin;
	ret = bin_work(t, bin, &acc);
	if (ret)
		return ret;
	n = nbins_of(t, bin);
	w = malloc(n * sizeof(*w));
	if (!w) {
		free(acc);
		return -ENOMEM;
	}
	for (j = 0; j < n; j++) {
		w[j].len = bin_len(t, bin, j);
		w[j].bps = (uint64_t)(acc[j] / (u128)w[j].len);
		total += acc[j];
	}
	free(acc);
	st->nbins = n;
	st->mean_bps = (uint64_t)(total / (u128)t->period);
	qsort(w, n, sizeof(*w), wbin_cmp);
	st->min_bps = w[0].bps;
	st->max_bps = w[n - 1].bps;
	st->p5_bps = percentile(w, n, t->period, 5);
	st->p50_bps = percentile(w, n, t->period, 50);
	st->p95_bps = percentile(w, n, t->period, 95);
	free(w);
	if (t->kind == TS_TRACE_OPPS)
		outages_opps(t, outage_min, st);
	else
		outages_rate(t, outage_min, st);
	st->outage_ppm =
		(uint32_t)(((u128)st->outage * 1000000u + (u128)(t->period / 2)) / (u128)t->period);
	delay_stats(t, st);
	return 0;
}

int ts_text_mbps(struct ts_text *out, uint64_t bps, int digits)
{
	uint64_t unit = 1, v;
	int i;

	for (i = digits; i < 6; i++)
		unit *= 10;
	v = bps / unit + (bps % unit >= (unit + 1) / 2 && unit > 1 ? 1 : 0);
	if (!digits)
		return ts_text_printf(out, "%llu", (unsigned long long)v);
	return ts_text_printf(out, "%llu.%0*llu", (unsigned long long)(v / (1000000 / unit)),
			      digits, (unsigned long long)(v % (1000000 / unit)));
}

int ts_trace_stats_md(struct ts_text *out, const char *name, const char *dir,
		      const struct ts_trace_stats *st)
{
	uint32_t hundredths = (st->outage_ppm + 50) / 100;

	ts_text_printf(out, "| `%s` | %s | ", name, dir);
	ts_text_fixed(out, (unsigned long long)((st->duration + 500000) / 1000000), 3);
	ts_text_add(out, " | ", 3);
	ts_text_mbps(out, st->mean_bps, 2);
	ts_text_add(out, " | ", 3);
	ts_text_mbps(out, st->p5_bps, 2);
	ts_text_add(out, " | ", 3);
	ts_text_mbps(out, st->p50_bps, 2);
	ts_text_add(out, " | ", 3);
	ts_text_mbps(out, st->p95_bps, 2);
	ts_text_add(out, " | ", 3);
	ts_text_mbps(out, st->max_bps, 2);
	ts_text_printf(out, " | %u.%02u |", hundredths / 100, hundredths % 100);
	return out->oom ? -ENOMEM : 0;
}

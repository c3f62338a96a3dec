/* SPDX-License-Identifier: MIT */
/*
 * Rate traces to mahimahi opportunities with error diffusion, and
 * opportunity traces to rows (see include/tasshape/trace_conv.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/trace_conv.h"
#include "trace_read_priv.h"

typedef unsigned __int128 u128;

#define OPP_BITNS ((u128)TS_OPP_BYTES * 8u * (u128)TS_NSEC_PER_SEC)

/* Write @n lines "ms\n". */
static void put_opps(struct ts_text *out, uint64_t ms, uint64_t n)
{
	char line[24];
	int len = snprintf(line, sizeof(line), "%llu\n", (unsigned long long)ms);

	while (n--)
		ts_text_add(out, line, (size_t)len);
}

static int rate_to_mahimahi(const struct ts_trace *t, struct ts_text *out)
{
	uint64_t pms = (uint64_t)((t->period + TS_NSEC_PER_MSEC - 1) / TS_NSEC_PER_MSEC), k;
	size_t i = 0;
	u128 carry = 0;

	for (k = 0; k < pms && !out->oom; k++) {
		ts_ns_t a = (ts_ns_t)k * TS_NSEC_PER_MSEC;
		ts_ns_t b = ts_min(a + TS_NSEC_PER_MSEC, t->period);
		uint64_t n;

		/* Rows overlapping [a, b); row i is the one containing a. */
		for (;;) {
			ts_ns_t end = i + 1 < t->n ? t->rows[i + 1].t : t->period;
			ts_ns_t s = ts_max(a, t->rows[i].t), e = ts_min(b, end);

			if (e > s)
				carry += (u128)t->rows[i].bps * (u128)(e - s);
			if (end > b || i + 1 == t->n)
				break;
			i++;
		}
		n = (uint64_t)(carry / OPP_BITNS);
		carry -= (u128)n * OPP_BITNS;
		if (k + 1 == pms && n == 0)
			n = 1; /* the last timestamp sets the period */
		put_opps(out, k + 1, n);
	}
	return out->oom ? -ENOMEM : 0;
}

uint64_t ts_trace_mahimahi_opps(const struct ts_trace *t)
{
	u128 total = 0;
	size_t i;

	if (t->kind == TS_TRACE_OPPS) {
		for (i = 0; i < t->n; i++)
			total += t->opps[i].count;
	} else {
		for (i = 0; i < t->n; i++) {
			ts_ns_t end = i + 1 < t->n ? t->rows[i + 1].t : t->period;
			ts_ns_t start = ts_max(t->rows[i].t, 0);

			end = ts_min(end, t->period);
			if (end > start)
				total += (u128)t->rows[i].bps * (u128)(end - start);
		}
		total /= OPP_BITNS;
	}
	return total > UINT64_MAX ? UINT64_MAX : (uint64_t)total;
}

int ts_trace_mahimahi_check(const struct ts_trace *t, struct ts_err *err)
{
	uint64_t n;

	if (t->period > TR_PERIOD_MAX) {
		ts_err_set(err, "%s: longer than 49.7 days, the limit of mahimahi timestamps",
			   t->name);
		return -EINVAL;
	}
	n = ts_trace_mahimahi_opps(t);
	if (n > TS_MAHIMAHI_MAX_OPPS) {
		ts_err_set(err,
			   "%s: %llu opportunities (mahimahi lines), more than the limit of %llu "
			   "(expected a lower rate or a shorter trace)",
			   t->name, (unsigned long long)n, TS_MAHIMAHI_MAX_OPPS);
		return -E2BIG;
	}
	return 0;
}

int ts_trace_write_mahimahi(const struct ts_trace *t, struct ts_text *out, struct ts_err *err)
{
	size_t i;
	int ret;

	ret = ts_trace_mahimahi_check(t, err);
	if (ret < 0)
		return ret;
	if (t->kind == TS_TRACE_OPPS) {
		for (i = 0; i < t->n && !out->oom; i++)
			put_opps(out, t->opps[i].ms, t->opps[i].count);
		ret = out->oom ? -ENOMEM : 0;
	} else {
		ret = rate_to_mahimahi(t, out);
	}
	if (ret)
		ts_err_set(err, "%s: out of memory", t->name);
	return ret;
}

/* The opportunities of a trace looped over (0, total], in time order. */
struct opp_iter {
	const struct ts_trace *t;
	ts_ns_t base; /* start of the current pass */
	size_t i;     /* next entry */
	ts_ns_t x;    /* time of the current entry, or TS_NEVER at the end */
	uint32_t count;
};

static void opp_next(struct opp_iter *it, ts_ns_t total)
{
	const struct ts_trace *t = it->t;

	it->x = TS_NEVER;
	if (!t)
		return;
	for (;;) {
		if (it->i == t->n) {
			it->i = 0;
			it->base += t->period;
			if (it->base >= total)
				return;
		}
		if (t->opps[it->i].ms) {
			ts_ns_t x = it->base + (ts_ns_t)t->opps[it->i].ms * TS_NSEC_PER_MSEC;

			if (x > total)
				return;
			it->x = x;
			it->count = t->opps[it->i++].count;
			return;
		}
		it->i++;
	}
}

/*
 * Bins are filled from the opportunities in time order, so memory and
 * time grow with the rows written, not with period / bin: a sparse
 * trace with a long period (one opportunity at 49 days) makes two rows.
 */
int ts_opps_to_series(const struct ts_trace *down, const struct ts_trace *up, ts_ns_t bin,
		      ts_ns_t period, struct ts_series *out)
{
	struct opp_iter it[2] = {{.t = down}, {.t = up}};
	int64_t n = (period + bin - 1) / bin, j = 0;
	int ret = 0, d;

	out->period = period;
	opp_next(&it[0], period);
	opp_next(&it[1], period);
	while (j < n && !ret) {
		ts_ns_t x = ts_min(it[0].x, it[1].x), len;
		struct ts_series_row row = {0};
		u128 acc[2] = {0, 0};
		int64_t jb;

		if (x == TS_NEVER) {
			/* The rest of the period is empty: one row of nothing. */
			row.t = j * bin;
			ret = ts_series_add(out, &row);
			break;
		}
		jb = (x - 1) / bin;
		if (jb > j) {
			row.t = j * bin;
			ret = ts_series_add(out, &row);
			j = jb;
			continue;
		}
		for (d = 0; d < 2; d++) {
			while (it[d].x != TS_NEVER && (it[d].x - 1) / bin == j) {
				acc[d] += (u128)it[d].count * OPP_BITNS;
				opp_next(&it[d], period);
			}
		}
		len = ts_min(bin, period - j * bin);
		row.t = j * bin;
		row.down = (uint64_t)(acc[0] / (u128)len);
		row.up = (uint64_t)(acc[1] / (u128)len);
		ret = ts_series_add(out, &row);
		if (!ret && out->n > TR_ENTRIES_MAX)
			ret = -E2BIG;
		j++;
	}
	return ret;
}

int ts_rate_to_series(const struct ts_trace *down, const struct ts_trace *up, struct ts_series *out)
{
	const struct ts_trace *any = down ? down : up;
	size_t i;
	int ret = 0;

	out->period = any->period;
	for (i = 0; i < any->n && !ret; i++) {
		struct ts_series_row row = {.t = any->rows[i].t};

		row.down = down ? down->rows[i].bps : 0;
		row.up = up ? up->rows[i].bps : 0;
		row.delay = any->delay ? any->delay[i] : 0;
		row.loss_ppm = any->loss_ppm ? any->loss_ppm[i] : 0;
		ret = ts_series_add(out, &row);
	}
	return ret;
}

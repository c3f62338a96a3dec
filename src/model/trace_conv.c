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

int ts_trace_write_mahimahi(const struct ts_trace *t, struct ts_text *out, struct ts_err *err)
{
	size_t i;
	int ret;

	if (t->period > TR_PERIOD_MAX) {
		ts_err_set(err, "%s: longer than 49.7 days, the limit of mahimahi timestamps",
			   t->name);
		return -EINVAL;
	}
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

/* Add the opportunities of @t, looped, that fall in (0, total] to @acc. */
static void opps_bin_loop(const struct ts_trace *t, ts_ns_t bin, ts_ns_t total, u128 *acc)
{
	ts_ns_t base;
	size_t i;

	for (base = 0; base < total; base += t->period) {
		for (i = 0; i < t->n; i++) {
			ts_ns_t x = base + (ts_ns_t)t->opps[i].ms * TS_NSEC_PER_MSEC;

			if (t->opps[i].ms == 0)
				continue;
			if (x > total)
				return;
			acc[(x - 1) / bin] += (u128)t->opps[i].count * OPP_BITNS;
		}
	}
}

int ts_opps_to_series(const struct ts_trace *down, const struct ts_trace *up, ts_ns_t bin,
		      ts_ns_t period, struct ts_series *out)
{
	size_t n = (size_t)((period + bin - 1) / bin), j;
	u128 *acc = calloc(2 * n, sizeof(*acc));
	int ret = 0;

	if (!acc)
		return -ENOMEM;
	if (down)
		opps_bin_loop(down, bin, period, acc);
	if (up)
		opps_bin_loop(up, bin, period, acc + n);
	out->period = period;
	for (j = 0; j < n && !ret; j++) {
		ts_ns_t len = ts_min(bin, period - (ts_ns_t)j * bin);
		struct ts_series_row row = {.t = (ts_ns_t)j * bin};

		row.down = (uint64_t)(acc[j] / (u128)len);
		row.up = (uint64_t)(acc[n + j] / (u128)len);
		ret = ts_series_add(out, &row);
	}
	free(acc);
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

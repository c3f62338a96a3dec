/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer harnesses: the abort-on-violation check, line
 * splitting, and the invariants every accepted trace must satisfy (the
 * ones the cursor and the index rely on). Header-only, so each harness
 * stays one file plus this one.
 */
#ifndef TS_FUZZ_COMMON_H
#define TS_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tasshape/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond))                                                                       \
			__builtin_trap();                                                          \
	} while (0)

/* Loose bounds: 49.7 days, 10 Tbit/s, one hour of delay. */
#define FUZZ_PERIOD_MAX ((ts_ns_t)UINT32_MAX * TS_NSEC_PER_MSEC)
#define FUZZ_RATE_MAX	10000000000000ull

typedef int (*fuzz_line_fn)(void *ctx, const char *line, size_t len, struct ts_err *err);

/* Feed @data line by line (each with its '\n'); stops at the first error and returns it. */
static inline int fuzz_lines(const uint8_t *data, size_t size, fuzz_line_fn fn, void *ctx,
			     struct ts_err *err)
{
	const char *s = (const char *)data;
	size_t pos = 0;
	int ret;

	while (pos < size) {
		const char *nl = memchr(s + pos, '\n', size - pos);
		size_t end = nl ? (size_t)(nl - s) + 1 : size;

		ret = fn(ctx, s + pos, end - pos, err);
		if (ret)
			return ret;
		pos = end;
	}
	return 0;
}

static inline void fuzz_check_opps(const struct ts_trace *t)
{
	size_t i;

	CHECK(t->kind == TS_TRACE_OPPS);
	CHECK(t->n >= 1 && t->cap >= t->n && t->opps);
	CHECK(!t->rows && !t->delay && !t->loss_ppm);
	for (i = 0; i < t->n; i++) {
		CHECK(t->opps[i].count >= 1);
		CHECK(i == 0 || t->opps[i].ms > t->opps[i - 1].ms);
	}
	CHECK(t->period > 0);
	CHECK(t->period == (ts_ns_t)t->opps[t->n - 1].ms * TS_NSEC_PER_MSEC);
}

/* @need_nonzero: a capacity trace (some row > 0); a PHY trace has every row > 0. */
static inline void fuzz_check_rate(const struct ts_trace *t, bool need_nonzero)
{
	bool nonzero = false;
	size_t i;

	CHECK(t->kind == TS_TRACE_RATE);
	CHECK(t->n >= 1 && t->cap >= t->n && t->rows && !t->opps);
	CHECK(t->rows[0].t == 0);
	for (i = 0; i < t->n; i++) {
		CHECK(i == 0 || t->rows[i].t > t->rows[i - 1].t);
		CHECK(t->rows[i].bps <= FUZZ_RATE_MAX);
		nonzero |= t->rows[i].bps > 0;
		CHECK(!t->delay || (t->delay[i] >= 0 && t->delay[i] <= 3600 * TS_NSEC_PER_SEC));
		CHECK(!t->loss_ppm || t->loss_ppm[i] <= 1000000);
	}
	CHECK(nonzero || !need_nonzero);
	CHECK(t->period > t->rows[t->n - 1].t && t->period <= FUZZ_PERIOD_MAX);
}

/*
 * Replay: capacity with and without the cumulative index must agree, and
 * a cursor serving packets (sizes from @seed bytes) must move forward.
 */
static inline void fuzz_check_replay(struct ts_trace *t, const uint8_t *seed, size_t nseed)
{
	struct ts_trace_cursor c;
	ts_ns_t probe[4], now = 0;
	uint64_t before[3];
	size_t i;

	probe[0] = 0;
	probe[1] = t->period / 3;
	probe[2] = t->period + t->period / 2 + 1;
	probe[3] = 3 * t->period + 7;
	for (i = 0; i < 3; i++)
		before[i] = ts_trace_capacity_bytes(t, probe[i], probe[i + 1]);
	if (ts_trace_index(t) == 0)
		for (i = 0; i < 3; i++)
			CHECK(ts_trace_capacity_bytes(t, probe[i], probe[i + 1]) == before[i]);
	ts_trace_cursor_init(&c, t, 0, nseed && (seed[0] & 1));
	for (i = 0; i < 32; i++) {
		uint64_t bytes = 40 + (nseed ? seed[i % nseed] : 0) * 6u;
		ts_ns_t start = ts_trace_cursor_start(&c, now), done;

		if (start == TS_NEVER) {
			CHECK(c.once);
			break;
		}
		CHECK(start >= now);
		done = ts_trace_cursor_serve(&c, start, bytes);
		if (done == TS_NEVER) {
			CHECK(c.once);
			break;
		}
		CHECK(done >= start);
		now = done;
	}
}

static inline int fuzz_reader_line(void *ctx, const char *line, size_t len, struct ts_err *err)
{
	return ts_trace_read_line(ctx, line, len, err);
}

/*
 * The incremental trace reader on @data with format @fmt: a parse may
 * fail (with a message naming the input "fuzz"); a trace that loads must
 * be well formed and replay sensibly.
 */
static inline void fuzz_trace_reader(const uint8_t *data, size_t size, enum ts_trace_format fmt)
{
	struct ts_trace_reader *r = ts_trace_read_init("fuzz", fmt);
	struct ts_trace *down, *up;
	struct ts_err err;
	int ret;

	if (!r)
		return;
	err.msg[0] = '\0';
	ret = fuzz_lines(data, size, fuzz_reader_line, r, &err);
	if (ret) {
		ts_trace_read_free(r);
		CHECK(!strncmp(err.msg, "fuzz:", 5));
		return;
	}
	ret = ts_trace_read_finish(r, &down, &up, &err);
	if (ret) {
		CHECK(!down && !up && !strncmp(err.msg, "fuzz", 4));
		return;
	}
	CHECK(down || up);
	if (down && down->kind == TS_TRACE_OPPS) {
		CHECK(!up && fmt != TS_FMT_CSV);
		fuzz_check_opps(down);
	} else {
		CHECK(fmt != TS_FMT_MAHIMAHI);
		if (down)
			fuzz_check_rate(down, true);
		if (up)
			fuzz_check_rate(up, true);
		if (down && up)
			CHECK(down->n == up->n && down->period == up->period);
	}
	if (down)
		fuzz_check_replay(down, data, size);
	if (up)
		fuzz_check_replay(up, data + size / 2, size - size / 2);
	ts_trace_free(down);
	ts_trace_free(up);
}

#endif

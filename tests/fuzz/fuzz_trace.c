/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the trace readers: the input is a trace file,
 * split into lines and fed to the incremental reader with the format
 * detected. A parse may fail (with a message naming the input); a
 * trace that loads must satisfy the invariants the cursor relies on,
 * else the harness aborts. Build with clang and -DTS_FUZZ=ON; run as
 *   fuzz_trace -dict=tests/fuzz/trace.dict -max_total_time=60 CORPUS
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond))                                                                       \
			__builtin_trap();                                                          \
	} while (0)

/* Loose bounds: 49.7 days, 10 Tbit/s, one hour of delay. */
#define MAX_PERIOD ((ts_ns_t)UINT32_MAX * TS_NSEC_PER_MSEC)

static void check_opps(const struct ts_trace *t)
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

static void check_rate(const struct ts_trace *t)
{
	bool nonzero = false;
	size_t i;

	CHECK(t->kind == TS_TRACE_RATE);
	CHECK(t->n >= 1 && t->cap >= t->n && t->rows && !t->opps);
	CHECK(t->rows[0].t == 0);
	for (i = 0; i < t->n; i++) {
		CHECK(i == 0 || t->rows[i].t > t->rows[i - 1].t);
		CHECK(t->rows[i].bps <= 10000000000000ull);
		nonzero |= t->rows[i].bps > 0;
		CHECK(!t->delay || (t->delay[i] >= 0 && t->delay[i] <= 3600 * TS_NSEC_PER_SEC));
		CHECK(!t->loss_ppm || t->loss_ppm[i] <= 1000000);
	}
	CHECK(nonzero);
	CHECK(t->period > t->rows[t->n - 1].t && t->period <= MAX_PERIOD);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_trace_reader *r = ts_trace_read_init("fuzz", TS_FMT_AUTO);
	const char *s = (const char *)data;
	struct ts_trace *down, *up;
	struct ts_err err;
	size_t pos = 0;
	int ret = 0;

	if (!r)
		return 0;
	err.msg[0] = '\0';
	while (pos < size) {
		const char *nl = memchr(s + pos, '\n', size - pos);
		size_t end = nl ? (size_t)(nl - s) + 1 : size;

		ret = ts_trace_read_line(r, s + pos, end - pos, &err);
		if (ret)
			break;
		pos = end;
	}
	if (ret) {
		ts_trace_read_free(r);
		CHECK(!strncmp(err.msg, "fuzz:", 5));
		return 0;
	}
	ret = ts_trace_read_finish(r, &down, &up, &err);
	if (ret) {
		CHECK(!down && !up && !strncmp(err.msg, "fuzz", 4));
		return 0;
	}
	CHECK(down || up);
	if (down && down->kind == TS_TRACE_OPPS) {
		CHECK(!up);
		check_opps(down);
	} else {
		if (down)
			check_rate(down);
		if (up)
			check_rate(up);
		if (down && up)
			CHECK(down->n == up->n && down->period == up->period);
	}
	ts_trace_free(down);
	ts_trace_free(up);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for one importer (`tasshape trace import FMT`), built
 * once per format with -DFUZZ_IMPORT_FMT="name" (fuzz_import_<name>).
 * Input: the first byte picks the options (gnettrack keep_idle, one
 * mahimahi file as the uplink, a lumos5g run number, a row width, the
 * 5gophers operator); the rest is the input file, or the two files of a
 * two-input format separated by a form feed (0x0c). Checks: an error
 * names an input and stops the import; an import that succeeds gives a
 * series with times increasing from 0 inside a period of at most 49.7
 * days, which written as native CSV reads back through the trace reader
 * with the same rows: what `trace import` writes, `--trace` accepts.
 *
 * mahimahi and LeoReplayer inputs with a number of 6 digits or more (a
 * timestamp of 100 s) are skipped: their bins are legitimately many (2.7
 * hours is 10^6 rows of 10 ms and takes a second; a 49-day period is
 * refused after 10^7 rows, but only after seconds of work), which would
 * make the fuzzer slow without reaching new code. The reader itself is fuzzed with any number (fuzz_trace_mahimahi);
 * the long-period cases are unit tests (test_trace_conv.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "tasshape/series.h"
#include "tasshape/text.h"
#include "tasshape/trace_import.h"

#ifndef FUZZ_IMPORT_FMT
#error "build with -DFUZZ_IMPORT_FMT=\"format\""
#endif

static const char *const names[2] = {"fuzz-a", "fuzz-b"};
static const char *const operators[3] = {"Verizon", "TMobile", "Sprint"};

/* A run of 6 or more digits: a timestamp of at least 100,000 ms. */
static bool long_period(const uint8_t *p, size_t n)
{
	size_t i, run = 0;

	for (i = 0; i < n; i++) {
		run = p[i] >= '0' && p[i] <= '9' ? run + 1 : 0;
		if (run >= 6)
			return true;
	}
	return false;
}

static int feed(struct ts_import *im, size_t input, const uint8_t *p, size_t n, struct ts_err *err)
{
	const char *s = (const char *)p;
	size_t pos = 0;
	int ret;

	while (pos < n) {
		const char *nl = memchr(s + pos, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - (s + pos)) : n - pos;

		ret = ts_import_line(im, input, s + pos, len, err);
		if (ret)
			return ret;
		pos += len + (nl ? 1 : 0);
	}
	return 0;
}

static int read_line(void *ctx, const char *line, size_t len, struct ts_err *err)
{
	return ts_trace_read_line(ctx, line, len, err);
}

/* The series as native CSV must read back with the same rows. */
static void roundtrip(const struct ts_series *s, const struct ts_text *notes)
{
	struct ts_trace_reader *r;
	struct ts_trace *down, *up;
	struct ts_text csv;
	struct ts_err err;
	size_t i;

	ts_text_init(&csv);
	CHECK(ts_series_write_csv(s, notes->p, &csv) == 0);
	r = ts_trace_read_init("fuzz-out", TS_FMT_CSV);
	CHECK(r);
	err.msg[0] = '\0';
	CHECK(fuzz_lines((const uint8_t *)csv.p, csv.len, read_line, r, &err) == 0);
	if (ts_trace_read_finish(r, &down, &up, &err) != 0) {
		fprintf(stderr, "imported, but the trace reader refuses it: %s\n%s", err.msg,
			csv.p);
		__builtin_trap();
	}
	CHECK(!!down == !!(s->cols & TS_COL_DOWN) && !!up == !!(s->cols & TS_COL_UP));
	for (i = 0; down && i < s->n; i++)
		CHECK(down->n == s->n && down->rows[i].t == s->rows[i].t &&
		      down->rows[i].bps == s->rows[i].down);
	for (i = 0; up && i < s->n; i++)
		CHECK(up->n == s->n && up->rows[i].t == s->rows[i].t &&
		      up->rows[i].bps == s->rows[i].up);
	if (down)
		CHECK(down->period == s->period);
	ts_trace_free(down);
	ts_trace_free(up);
	ts_text_fini(&csv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct ts_import_fmt *f = NULL;
	struct ts_import_opts o = {0};
	struct ts_import *im = NULL;
	const uint8_t *in[2];
	size_t len[2], nin, i;
	struct ts_series s;
	struct ts_text notes;
	struct ts_err err;
	const uint8_t *ff;
	uint8_t b;
	int ret;

	if (!size)
		return 0;
	for (i = 0; i < ts_import_count(); i++)
		if (!strcmp(ts_import_at(i)->name, FUZZ_IMPORT_FMT))
			f = ts_import_at(i);
	CHECK(f);
	if ((!strcmp(f->name, "mahimahi") || !strcmp(f->name, "leoreplayer")) &&
	    long_period(data, size))
		return 0;
	b = data[0];
	o.keep_idle = b & 1;
	o.up = b & 2;
	o.has_run = b & 4;
	o.run = b >> 4;
	o.bin = (b & 8) ? (ts_ns_t)(1 + (b >> 4)) * 10 * TS_NSEC_PER_MSEC : 0;
	o.operator_name = operators[(b >> 5) % 3];
	data++;
	size--;

	/* Up to two inputs, separated by a form feed. */
	ff = f->max_inputs > 1 ? memchr(data, '\f', size) : NULL;
	in[0] = data;
	len[0] = ff ? (size_t)(ff - data) : size;
	in[1] = ff ? ff + 1 : data + size;
	len[1] = ff ? size - len[0] - 1 : 0;
	nin = ff ? 2 : 1;
	if (nin < f->min_inputs)
		nin = f->min_inputs;

	err.msg[0] = '\0';
	ret = ts_import_new(FUZZ_IMPORT_FMT, names, nin, &o, &im, &err);
	if (ret) {
		CHECK(!im && err.msg[0]);
		return 0;
	}
	ts_series_init(&s, 0);
	ts_text_init(&notes);
	for (i = 0; i < nin; i++) {
		ret = feed(im, i, in[i], len[i], &err);
		if (ret) {
			CHECK(!strncmp(err.msg, names[i], 6));
			/* After an error the import only repeats it. */
			CHECK(ts_import_line(im, i, "1", 1, &err) == -EINVAL);
			goto out;
		}
	}
	err.msg[0] = '\0';
	ret = ts_import_finish(im, &s, &notes, &err);
	if (ret) {
		CHECK(err.msg[0]);
		goto out;
	}
	CHECK(s.n >= 1 && s.rows[0].t == 0);
	for (i = 0; i < s.n; i++) {
		CHECK(i == 0 || s.rows[i].t > s.rows[i - 1].t);
		CHECK(s.rows[i].down <= FUZZ_RATE_MAX && s.rows[i].up <= FUZZ_RATE_MAX);
	}
	CHECK(s.period > s.rows[s.n - 1].t && s.period <= FUZZ_PERIOD_MAX);
	roundtrip(&s, &notes);
out:
	ts_import_free(im);
	ts_series_fini(&s);
	ts_text_fini(&notes);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Trace readers: mahimahi and CSV parsing through the incremental reader
 * (strings split into lines here), the block loader on real files, the
 * exact decimal parser, "const:RATE" and the --trace spec.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsu.h"
#include "tasshape/trace.h"
#include "model/trace_read_priv.h"

/* Feed @len bytes of @text line by line (each with its '\n') as "t". */
static int feed_fmt(const char *text, size_t len, enum ts_trace_format fmt, struct ts_trace **down,
		    struct ts_trace **up, struct ts_err *err)
{
	struct ts_trace_reader *r = ts_trace_read_init("t", fmt);
	size_t pos = 0;
	int ret;

	err->msg[0] = '\0';
	*down = NULL;
	*up = NULL;
	if (!r)
		return -ENOMEM;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) + 1 : len;

		ret = ts_trace_read_line(r, text + pos, end - pos, err);
		if (ret) {
			ts_trace_read_free(r);
			return ret;
		}
		pos = end;
	}
	return ts_trace_read_finish(r, down, up, err);
}

static int feed(const char *text, struct ts_trace **down, struct ts_trace **up, struct ts_err *err)
{
	return feed_fmt(text, strlen(text), TS_FMT_AUTO, down, up, err);
}

/* The message contains @want; print it when it does not. */
static void expect_msg(const struct ts_err *err, const char *want)
{
	if (!strstr(err->msg, want))
		fprintf(stderr, "\n  message '%s'\n  lacks   '%s'\n", err->msg, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(err->msg, want));
}

/* Parse @text, expect failure with a message containing @want. */
static void expect_fail(const char *text, size_t len, int want_ret, const char *want)
{
	struct ts_trace *d, *u;
	struct ts_err err;
	int ret = feed_fmt(text, len, TS_FMT_AUTO, &d, &u, &err);

	TSU_EQ(ret, want_ret);
	CU_ASSERT_PTR_NULL(d);
	CU_ASSERT_PTR_NULL(u);
	expect_msg(&err, want);
}

static void expect_fail_ret(const char *text, int want_ret, const char *want)
{
	expect_fail(text, strlen(text), want_ret, want);
}

static void expect_fail_s(const char *text, const char *want)
{
	expect_fail(text, strlen(text), -EINVAL, want);
}

/* ---- mahimahi ---------------------------------------------------------- */

static void test_mm_single(void)
{
	struct ts_trace *d, *u;
	struct ts_err err;

	TSU_EQ(feed("1\n", &d, &u, &err), 0);
	CU_ASSERT_PTR_NULL(u);
	TSU_EQ(d->kind, TS_TRACE_OPPS);
	TSU_EQ(d->n, 1);
	TSU_EQ(d->opps[0].ms, 1);
	TSU_EQ(d->opps[0].count, 1);
	/* period = last timestamp, 1 ms = 1000000 ns */
	TSU_EQ(d->period, 1000000);
	CU_ASSERT_STRING_EQUAL(d->name, "t");
	CU_ASSERT_PTR_NULL(d->rows);
	ts_trace_free(d);
}

static void test_mm_runs(void)
{
	struct ts_trace *d, *u;
	struct ts_err err;

	TSU_EQ(feed("1\n1\n2\n", &d, &u, &err), 0);
	TSU_EQ(d->n, 2);
	TSU_EQ(d->opps[0].ms, 1);
	TSU_EQ(d->opps[0].count, 2);
	TSU_EQ(d->opps[1].ms, 2);
	TSU_EQ(d->opps[1].count, 1);
	TSU_EQ(d->period, 2000000);
	ts_trace_free(d);

	/* The largest timestamp, 2^32 - 1 ms, and a leading zero. */
	TSU_EQ(feed("0\n007\n4294967295\n", &d, &u, &err), 0);
	TSU_EQ(d->n, 3);
	TSU_EQ(d->opps[0].ms, 0);
	TSU_EQ(d->opps[1].ms, 7);
	TSU_EQ(d->opps[2].ms, 4294967295u);
	/* 4294967295 ms * 1000000 ns/ms */
	TSU_EQ(d->period, 4294967295000000LL);
	ts_trace_free(d);
}

static void test_mm_friendly(void)
{
	struct ts_trace *d, *u;
	struct ts_err err;

	/* BOM, comments, blank lines, CRLF, trailing blanks, no final '\n'. */
	TSU_EQ(feed("\xef\xbb\xbf# uplink\n\n1 \r\n 1\t\r\n\n# gap\n3\r\n5", &d, &u, &err), 0);
	TSU_EQ(d->n, 3);
	TSU_EQ(d->opps[0].ms, 1);
	TSU_EQ(d->opps[0].count, 2);
	TSU_EQ(d->opps[1].ms, 3);
	TSU_EQ(d->opps[1].count, 1);
	TSU_EQ(d->opps[2].ms, 5);
	TSU_EQ(d->period, 5000000);
	ts_trace_free(d);

	/* Forced format: the same text read as mahimahi. */
	TSU_EQ(feed_fmt("2\n", 2, TS_FMT_MAHIMAHI, &d, &u, &err), 0);
	TSU_EQ(d->period, 2000000);
	ts_trace_free(d);
}

static void test_mm_errors(void)
{
	expect_fail_s("1\n2\nx\n", "t:3: expected a millisecond timestamp (an unsigned integer), "
				   "got 'x'");
	expect_fail_s("1\n2\n2.5\n", "t:3: expected a millisecond timestamp");
	expect_fail_s("1\n2\n-5\n", "t:3: negative timestamp '-5'");
	expect_fail_s("-5\n", "t:1: negative timestamp '-5'");
	expect_fail_s("1\n7\n5\n",
		      "t:3: timestamp 5 is before 7 on line 2; timestamps must not decrease");
	/* Blank and comment lines count: the earlier timestamp is on line 3. */
	expect_fail_s("1\n\n7\n# c\n5\n", "t:5: timestamp 5 is before 7 on line 3");
	expect_fail_ret(
		"1\n4294967296\n", -ERANGE,
		"t:2: timestamp '4294967296' is too large (at most 4294967295 ms, 49.7 days)");
	expect_fail_ret("1\n99999999999999999999999\n", -ERANGE, "t:2: timestamp");
	expect_fail_s("0\n0\n", "t:2: the last timestamp is 0");
	expect_fail_s("", "t: empty trace");
	expect_fail_s("# nothing\n\n  \n", "t: empty trace");
	/* A headerless CSV gets a hint. */
	expect_fail_s("0,12.5\n", "t:1: expected a millisecond timestamp (an unsigned integer), "
				  "got '0,12.5'; a CSV trace needs a header line");
	expect_fail_s("1\n# duration=5s\n", "t:2: '# duration=' applies to CSV traces only");
	/* Binary junk: a NUL byte, and a control character. */
	expect_fail("1\n2\0\n", 5, -EINVAL, "t:2: NUL byte");
	expect_fail_s("1\n\x01\x02\n", "t:2: expected a millisecond timestamp (an unsigned "
				       "integer), got '?"
				       "?'");
}

static void test_mm_forced_empty(void)
{
	struct ts_trace *d, *u;
	struct ts_err err;

	TSU_EQ(feed_fmt("", 0, TS_FMT_MAHIMAHI, &d, &u, &err), -EINVAL);
	expect_msg(&err, "t: no timestamps");
	TSU_EQ(feed_fmt("", 0, TS_FMT_CSV, &d, &u, &err), -EINVAL);
	expect_msg(&err, "t: empty trace: expected a CSV header");
	/* Forced CSV: a number is a header without a time column. */
	TSU_EQ(feed_fmt("1\n", 2, TS_FMT_CSV, &d, &u, &err), -EINVAL);
	expect_msg(&err, "t:1: missing time column");
}

/* After an error the reader repeats it and accepts nothing else. */
static void test_reader_sticky(void)
{
	struct ts_trace_reader *r = ts_trace_read_init("t", TS_FMT_AUTO);
	struct ts_trace *d, *u;
	struct ts_err err;

	TSU_EQ(ts_trace_read_line(r, "1\n", 2, &err), 0);
	TSU_EQ(ts_trace_read_line(r, "x\n", 2, &err), -EINVAL);
	TSU_EQ(ts_trace_read_line(r, "2\n", 2, &err), -EINVAL);
	expect_msg(&err, "t:2: expected a millisecond timestamp");
	TSU_EQ(ts_trace_read_finish(r, &d, &u, &err), -EINVAL);
	expect_msg(&err, "t:2: expected a millisecond timestamp");
	CU_ASSERT_PTR_NULL(d);
	CU_ASSERT_PTR_NULL(u);
}

/* ---- CSV --------------------------------------------------------------- */

static void test_csv_basic(void)
{
	struct ts_trace *d, *u;
	struct ts_err err;

	TSU_EQ(feed("time_s,down_mbps,up_mbps\n# duration=60s\n0,10,5\n30,50,1.5\n", &d, &u, &err),
	       0);
	TSU_EQ(d->kind, TS_TRACE_RATE);
	TSU_EQ(u->kind, TS_TRACE_RATE);
	TSU_EQ(d->n, 2);
	TSU_EQ(u->n, 2);
	TSU_EQ(d->rows[0].t, 0);
	TSU_EQ(d->rows[0].bps, 10000000); /* 10 Mbit/s */
	TSU_EQ(d->rows[1].t, 30000000000LL);
	TSU_EQ(d->rows[1].bps, 50000000);
	TSU_EQ(u->rows[0].bps, 5000000);
	TSU_EQ(u->rows[1].t, 30000000000LL);
	TSU_EQ(u->rows[1].bps, 1500000); /* 1.5 * 10^6, exact */
	TSU_EQ(d->period, 60000000000LL);
	TSU_EQ(u->period, 60000000000LL);
	CU_ASSERT_PTR_NULL(d->delay);
	CU_ASSERT_PTR_NULL(d->loss_ppm);
	CU_ASSERT_PTR_NULL(d->opps);
	CU_ASSERT_STRING_EQUAL(d->name, "t");
	ts_trace_free(d);
	ts_trace_free(u);
}

static void test_csv_units(void)
{
	struct ts_trace *d, *u;
	struct ts_err err;

	/* kbps * 10^3, gbps * 10^9; ms * 10^6 ns */
	TSU_EQ(feed("time_ms,down_kbps,up_gbps\n0,1500,0.0025\n250,12.5,1\n", &d, &u, &err), 0);
	TSU_EQ(d->rows[0].bps, 1500000);
	TSU_EQ(d->rows[1].bps, 12500);
	TSU_EQ(u->rows[0].bps, 2500000);
	TSU_EQ(u->rows[1].bps, 1000000000);
	TSU_EQ(d->rows[1].t, 250000000);
	/* one interval of 250 ms: period = 250 + 250 ms */
	TSU_EQ(d->period, 500000000);
	ts_trace_free(d);
	ts_trace_free(u);

	/* bps, an exponent, and rounding: 999.5 bit/s rounds half up to 1000. */
	TSU_EQ(feed("time_s,up_bps\n0,1e3\n1,999.5\n2,2.5E+3\n", &d, &u, &err), 0);
	CU_ASSERT_PTR_NULL(d);
	TSU_EQ(u->n, 3);
	TSU_EQ(u->rows[0].bps, 1000);
	TSU_EQ(u->rows[1].bps, 1000);
	TSU_EQ(u->rows[2].bps, 2500);
	TSU_EQ(u->period, 3000000000LL);
	ts_trace_free(u);

	/* Names ignore case; all capitals "MBPS" is megabits. Quotes, blanks. */
	TSU_EQ(feed("\"Time_S\", DOWN_MBPS ,Up_Mbps\r\n0, 1 ,\"2\"\r\n1,3,4\r\n", &d, &u, &err), 0);
	TSU_EQ(d->rows[0].bps, 1000000);
	TSU_EQ(d->rows[1].bps, 3000000);
	TSU_EQ(u->rows[0].bps, 2000000);
	TSU_EQ(u->rows[1].bps, 4000000);
	ts_trace_free(d);
	ts_trace_free(u);
}

static void test_csv_delay_loss(void)
{
	struct ts_trace *d, *u;
	struct ts_err err;

	TSU_EQ(feed("time_s,down_mbps,up_mbps,delay_ms,loss\n# duration = 2.5s\n"
		    "0,10,1,20,0.001\n1,10,1,25.5,0\n",
		    &d, &u, &err),
	       0);
	TSU_EQ(d->period, 2500000000LL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d->delay);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d->loss_ppm);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u->delay);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u->loss_ppm);
	TSU_EQ(d->delay[0], 20000000); /* 20 ms */
	TSU_EQ(d->delay[1], 25500000); /* 25.5 ms */
	TSU_EQ(d->loss_ppm[0], 1000);  /* 0.001 * 10^6 */
	TSU_EQ(d->loss_ppm[1], 0);
	/* Each direction owns a copy. */
	CU_ASSERT(d->delay != u->delay);
	CU_ASSERT(d->loss_ppm != u->loss_ppm);
	TSU_EQ(u->delay[1], 25500000);
	TSU_EQ(u->loss_ppm[0], 1000);
	ts_trace_free(d);
	ts_trace_free(u);

	/* delay_us, loss_pct: 250 us = 250000 ns; 0.5 % = 5000 ppm */
	TSU_EQ(feed("time_s,down_mbps,delay_us,loss_pct\n0,1,250,0.5\n1,1,1000,100\n", &d, &u,
		    &err),
	       0);
	CU_ASSERT_PTR_NULL(u);
	TSU_EQ(d->delay[0], 250000);
	TSU_EQ(d->delay[1], 1000000);
	TSU_EQ(d->loss_ppm[0], 5000);
	TSU_EQ(d->loss_ppm[1], 1000000);
	ts_trace_free(d);

	/* delay_s: 0.6 s = 600000000 ns */
	TSU_EQ(feed("time_s,up_mbps,delay_s\n# duration=500ms\n0,1,0.6\n", &d, &u, &err), 0);
	TSU_EQ(u->delay[0], 600000000);
	TSU_EQ(u->period, 500000000);
	CU_ASSERT_PTR_NULL(u->loss_ppm);
	ts_trace_free(u);
}

static void test_csv_median(void)
{
	struct ts_trace *d, *u;
	struct ts_err err;

	/* intervals 1, 1, 2 s: median 1 s, last row 4..5 s */
	TSU_EQ(feed("time_s,down_mbps\n0,1\n1,1\n2,1\n4,1\n", &d, &u, &err), 0);
	TSU_EQ(d->n, 4);
	TSU_EQ(d->rows[3].t, 4000000000LL);
	TSU_EQ(d->period, 5000000000LL);
	ts_trace_free(d);

	/* intervals 1, 3 s: the lower median 1 s, so 4 + 1 = 5 s */
	TSU_EQ(feed("time_s,down_mbps\n0,1\n1,1\n4,1\n", &d, &u, &err), 0);
	TSU_EQ(d->period, 5000000000LL);
	ts_trace_free(d);

	/* A duration overrides the median: 4 s + 0.25 s. */
	TSU_EQ(feed("time_s,down_mbps\n0,1\n1,1\n4,1\n#duration=4250ms\n", &d, &u, &err), 0);
	TSU_EQ(d->period, 4250000000LL);
	ts_trace_free(d);
}

static void test_csv_shift(void)
{
	struct ts_trace *d, *u;
	struct ts_err err;

	/* 100.5, 101, 102 s become 0, 0.5, 1.5 s; intervals 0.5, 1: lower
	 * median 0.5 s, period 1.5 + 0.5 = 2 s */
	TSU_EQ(feed("time_s,down_mbps\n100.5,10\n101,20\n102,30\n", &d, &u, &err), 0);
	TSU_EQ(d->rows[0].t, 0);
	TSU_EQ(d->rows[1].t, 500000000);
	TSU_EQ(d->rows[2].t, 1500000000);
	TSU_EQ(d->period, 2000000000);
	ts_trace_free(d);

	/* Unix epoch milliseconds: 1700000000000 ms, then + 1000 ms. */
	TSU_EQ(feed("time_ms,down_mbps\n1700000000000,1\n1700000001000,2\n", &d, &u, &err), 0);
	TSU_EQ(d->rows[1].t, 1000000000);
	TSU_EQ(d->period, 2000000000);
	ts_trace_free(d);
}

static void test_csv_extra_columns(void)
{
	struct ts_trace *d, *u;
	struct ts_err err;

	/* Unknown columns are skipped, empty or not, even "up_time". */
	TSU_EQ(feed("# from a drive\nlat,time_s,foo,down_mbps,up_time,bar\n"
		    "1.5,0,x,10,,\n2,1,y,20,abc,z\n",
		    &d, &u, &err),
	       0);
	CU_ASSERT_PTR_NULL(u);
	TSU_EQ(d->n, 2);
	TSU_EQ(d->rows[1].bps, 20000000);
	TSU_EQ(d->period, 2000000000);
	ts_trace_free(d);

	/* Zero rows are outages, fine while some row delivers. */
	TSU_EQ(feed("time_s,down_mbps\n0,0\n1,5\n2,0\n", &d, &u, &err), 0);
	TSU_EQ(d->rows[0].bps, 0);
	TSU_EQ(d->rows[1].bps, 5000000);
	ts_trace_free(d);
}

static void test_csv_header_errors(void)
{
	expect_fail_s("down_mbps,up_mbps\n10,1\n",
		      "t:1: missing time column: expected time_s or time_ms (known columns: "
		      "time_s or time_ms; down_ and up_ with bps, kbps, mbps or gbps;");
	expect_fail_s("# c\ntime_s,delay_ms\n0,1\n",
		      "t:2: no capacity column: expected down_<unit> and/or up_<unit>");
	expect_fail_s("time_s,down_mbps,down_kbps\n",
		      "t:1: columns 'down_mbps' and 'down_kbps' give the same quantity");
	expect_fail_s("time_s,time_ms,down_mbps\n",
		      "t:1: columns 'time_s' and 'time_ms' give the same quantity");
	expect_fail_s("time_s,down_MBps\n", "t:1: column 'down_MBps': a capital B means bytes");
	expect_fail_s("time_s,up_mbit\n",
		      "t:1: column 'up_mbit': unknown rate unit; expected up_bps, up_kbps, "
		      "up_mbps or up_gbps");
	expect_fail_s("time_s,down_tbps\n", "t:1: column 'down_tbps': unknown rate unit");
	expect_fail_s("time_s,down_mbps\n", "t:1: no data rows after the header");
}

static void test_csv_row_errors(void)
{
	expect_fail_s("time_s,down_mbps\n0,1\n2,1\n2,1\n",
		      "t:4: time_s 2 is not after 2 on line 3; times must increase");
	expect_fail_s("time_s,down_mbps\n5,1\n\n4.5,1\n",
		      "t:4: time_s 4.5 is not after 5 on line 2; times must increase");
	expect_fail_s("time_s,down_mbps\n0,-1\n", "t:2: down_mbps is negative ('-1')");
	expect_fail_s("time_s,down_mbps\n0,1\n-1,1\n", "t:3: time_s is negative ('-1')");
	expect_fail_s("time_s,down_mbps\n0,nan\n",
		      "t:2: down_mbps: expected a finite non-negative decimal number, got 'nan'");
	expect_fail_s("time_s,up_kbps\n0,1\n1,inf\n", "t:3: up_kbps: expected a finite");
	expect_fail_s("time_s,down_mbps\n0,1x\n", "t:2: down_mbps: expected a finite");
	expect_fail_s("time_s,down_mbps\n0,\n", "t:2: down_mbps: empty value");
	/* 10 Tbit/s is the limit: 10000000 Mbit/s passes, 10000001 does not. */
	expect_fail_ret("time_s,down_mbps\n0,10000000\n1,10000001\n", -ERANGE,
			"t:3: down_mbps '10000001' is above the limit of 10 Tbit/s");
	expect_fail_ret("time_s,down_gbps\n0,1e300\n", -ERANGE,
			"t:2: down_gbps '1e300' is above the limit");
	expect_fail_ret("time_s,down_mbps,delay_ms\n0,1,3600001\n", -ERANGE,
			"t:2: delay_ms '3600001' is above the limit of 1 hour");
	expect_fail_ret("time_s,down_mbps,loss\n0,1,1.5\n", -ERANGE,
			"t:2: loss '1.5' is above 1 (loss is a fraction; use loss_pct");
	expect_fail_ret("time_s,down_mbps,loss_pct\n0,1,100.1\n", -ERANGE,
			"t:2: loss_pct '100.1' is above 100 percent");
	expect_fail_s("time_s,down_mbps\n0,1,2\n",
		      "t:2: fields: 3 here, 2 in the header on line 1");
	expect_fail_s("time_s,down_mbps\n0\n", "t:2: fields: 1 here, 2 in the header on line 1");
	/* 2^32 - 1 ms after row 0 is too late for a row to start. */
	expect_fail_ret("time_ms,down_mbps\n0,1\n4294967295,1\n", -ERANGE,
			"t:3: row starts more than 49.7 days after the first row");
	expect_fail_ret("time_s,down_mbps\n0\t,1\n1,\x7f\n", -EINVAL,
			"t:3: down_mbps: expected a finite non-negative decimal number, got '?'");
}

static void test_csv_whole_errors(void)
{
	expect_fail_s("time_s,down_mbps,up_mbps\n0,0,1\n1,0,2\n", "t: down_mbps is 0 in every row");
	expect_fail_s("time_s,down_mbps,up_kbps\n0,1,0\n1,2,0\n", "t: up_kbps is 0 in every row");
	expect_fail_s("time_s,down_mbps\n0,1\n",
		      "t: a single data row needs a '# duration=' line (for example "
		      "'# duration=60s')");
	expect_fail_s("# duration=2s\ntime_s,down_mbps\n0,1\n2,1\n",
		      "t:1: duration 2s does not reach past the last row, which starts 2s after "
		      "the first");
	expect_fail_s("time_s,down_mbps\n0,1\n2.5,1\n# duration=1500ms\n",
		      "t:4: duration 1.5s does not reach past the last row, which starts 2.5s");
	expect_fail_s("# duration: 60s\n", "t:1: write the duration as '# duration=60s'");
	expect_fail_s("# duration=60\n", "t:1: expected '# duration=' and a time with unit s, ms, "
					 "us or ns, such as '# duration=60s', got '60'");
	expect_fail_s("# duration=s\n", "t:1: expected '# duration=' and a time with unit");
	expect_fail_s("# duration=1min\n", "t:1: expected '# duration=' and a time with unit");
	expect_fail_s("# duration=x5s\n", "t:1: expected '# duration=' and a time such as");
	expect_fail_s("# duration=0s\n", "t:1: duration '0s' must be > 0");
	expect_fail_ret("# duration=50days\n", -EINVAL, "t:1: expected '# duration='");
	expect_fail_ret("# duration=4294967296s\n", -ERANGE,
			"t:1: duration '4294967296s' is longer than 49.7 days");
	expect_fail_s("# duration=1s\n#duration=2s\n",
		      "t:2: duration given twice (first on line 1)");
}

static void test_csv_duration_forms(void)
{
	struct ts_trace *d, *u;
	struct ts_err err;

	/* Prose comments that start with "duration" are ordinary comments. */
	TSU_EQ(feed("# duration of the drive: long\n#DURATION = 60 s\ntime_s,down_mbps\n0,1\n", &d,
		    &u, &err),
	       0);
	TSU_EQ(d->period, 60000000000LL);
	ts_trace_free(d);

	/* 1500000 us and 7 ns */
	TSU_EQ(feed("#duration=1500000us\ntime_s,down_mbps\n0,1\n", &d, &u, &err), 0);
	TSU_EQ(d->period, 1500000000);
	ts_trace_free(d);
	TSU_EQ(feed("#duration=7ns\ntime_s,down_mbps\n0,1\n", &d, &u, &err), 0);
	TSU_EQ(d->period, 7);
	ts_trace_free(d);
}

/* ---- exact decimals ---------------------------------------------------- */

static uint64_t dec(const char *s, int pow10, uint64_t max, int want_ret)
{
	uint64_t v = 12345;
	int ret = tr_parse_decimal(s, strlen(s), pow10, max, &v);

	TSU_EQ(ret, want_ret);
	return ret ? 0 : v;
}

static void test_decimal(void)
{
	TSU_EQ(dec("1.5", 9, UINT64_MAX, 0), 1500000000);
	TSU_EQ(dec("0.0000000005", 9, UINT64_MAX, 0), 1); /* 0.5 ns rounds up */
	TSU_EQ(dec("0.0000000004999", 9, UINT64_MAX, 0), 0);
	TSU_EQ(dec("1e3", 0, UINT64_MAX, 0), 1000);
	TSU_EQ(dec("2.5E-1", 1, UINT64_MAX, 0), 3); /* 2.5 rounds up */
	TSU_EQ(dec(".5", 1, UINT64_MAX, 0), 5);
	TSU_EQ(dec("5.", 0, UINT64_MAX, 0), 5);
	TSU_EQ(dec("0000000000000000000000000001", 0, UINT64_MAX, 0), 1);
	TSU_EQ(dec("0.1", -1, UINT64_MAX, 0), 0); /* 0.01 */
	TSU_EQ(dec("5", -1, UINT64_MAX, 0), 1);	  /* 0.5 */
	TSU_EQ(dec("18446744073709551615", 0, UINT64_MAX, 0), UINT64_MAX);
	dec("18446744073709551616", 0, UINT64_MAX, -ERANGE);
	dec("18446744073709551615.5", 0, UINT64_MAX, -ERANGE);
	TSU_EQ(dec("9.4", 0, 9, 0), 9);
	dec("9.5", 0, 9, -ERANGE); /* rounds to 10 */
	TSU_EQ(dec("0e999999999", 0, UINT64_MAX, 0), 0);
	dec("1e999999999", 0, UINT64_MAX, -ERANGE);
	TSU_EQ(dec("1e-999999999", 9, UINT64_MAX, 0), 0);
	dec("", 0, UINT64_MAX, -EINVAL);
	dec(".", 0, UINT64_MAX, -EINVAL);
	dec("1e", 0, UINT64_MAX, -EINVAL);
	dec("1e+", 0, UINT64_MAX, -EINVAL);
	dec("+1", 0, UINT64_MAX, -EINVAL);
	dec("-1", 0, UINT64_MAX, -EINVAL);
	dec("1 ", 0, UINT64_MAX, -EINVAL);
	dec("0x10", 0, UINT64_MAX, -EINVAL);
	dec("nan", 0, UINT64_MAX, -EINVAL);
	dec("inf", 0, UINT64_MAX, -EINVAL);
}

/* ---- files ------------------------------------------------------------- */

/* Write @len bytes to a new temporary file; its path goes into @path. */
static void write_tmp(char *path, size_t size, const char *data, size_t len)
{
	int fd;

	snprintf(path, size, "/tmp/ts_trace_test_XXXXXX");
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, data, len) == (ssize_t)len);
	close(fd);
}

static void test_load_fixtures(void)
{
	struct ts_trace *d, *u;
	struct ts_err err;

	/* tests/data/trace-small.mahi: 1, 1, 2, 2, 2, 5 with CRLF and a comment */
	TSU_EQ(ts_trace_load(TS_TEST_DATA "/trace-small.mahi", TS_FMT_AUTO, &d, &u, &err), 0);
	CU_ASSERT_PTR_NULL(u);
	TSU_EQ(d->n, 3);
	TSU_EQ(d->opps[0].count, 2);
	TSU_EQ(d->opps[1].ms, 2);
	TSU_EQ(d->opps[1].count, 3);
	TSU_EQ(d->opps[2].ms, 5);
	TSU_EQ(d->period, 5000000);
	CU_ASSERT_STRING_EQUAL(d->name, TS_TEST_DATA "/trace-small.mahi");
	ts_trace_free(d);

	/* tests/data/trace-small.csv: 3 rows over 0, 10, 20 s, duration 30 s */
	TSU_EQ(ts_trace_load(TS_TEST_DATA "/trace-small.csv", TS_FMT_AUTO, &d, &u, &err), 0);
	TSU_EQ(d->n, 3);
	TSU_EQ(d->rows[2].t, 20000000000LL);
	TSU_EQ(d->rows[2].bps, 5000000);
	TSU_EQ(u->rows[1].bps, 2500000);
	TSU_EQ(d->period, 30000000000LL);
	TSU_EQ(d->delay[0], 40000000);
	TSU_EQ(u->loss_ppm[2], 2000);
	ts_trace_free(d);
	ts_trace_free(u);

	TSU_EQ(ts_trace_open_spec(TS_TEST_DATA "/trace-small.mahi", &d, &u, &err), 0);
	TSU_EQ(d->n, 3);
	CU_ASSERT_PTR_NULL(u);
	ts_trace_free(d);
}

/*
 * 300000 lines "i/3 + 1" for i = 0..299999: 100000 distinct ms with
 * count 3, about 1.9 MB, so lines straddle the 1 MiB read blocks.
 */
static void test_load_blocks(void)
{
	size_t cap = 3u << 20, len = 0, i, bad = 0;
	char *buf = malloc(cap), path[64];
	struct ts_trace *d, *u;
	struct ts_err err;

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	for (i = 0; i < 300000; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%zu\n", i / 3 + 1);
	len--; /* no final newline */
	write_tmp(path, sizeof(path), buf, len);
	TSU_EQ(ts_trace_load(path, TS_FMT_MAHIMAHI, &d, &u, &err), 0);
	unlink(path);
	TSU_EQ(d->n, 100000);
	for (i = 0; i < d->n; i++)
		bad += d->opps[i].ms != i + 1 || d->opps[i].count != 3;
	TSU_EQ(bad, 0);
	TSU_EQ(d->period, 100000LL * 1000000);
	TSU_EQ(d->cap, d->n);
	ts_trace_free(d);
	free(buf);
}

static void test_load_errors(void)
{
	static const char csv_bad[] = "time_s,down_mbps\r\n0,1\r\n0,2\r\n";
	char path[64], want[128], *junk;
	struct ts_trace *d, *u;
	struct ts_err err;

	TSU_EQ(ts_trace_load("/nonexistent/x.txt", TS_FMT_AUTO, &d, &u, &err), -ENOENT);
	expect_msg(&err, "/nonexistent/x.txt: cannot open: No such file or directory");
	CU_ASSERT_PTR_NULL(d);

	TSU_EQ(ts_trace_load("/tmp", TS_FMT_AUTO, &d, &u, &err), -EISDIR);
	expect_msg(&err, "/tmp: cannot read: Is a directory");

	write_tmp(path, sizeof(path), csv_bad, sizeof(csv_bad) - 1);
	TSU_EQ(ts_trace_load(path, TS_FMT_AUTO, &d, &u, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s:3: time_s 0 is not after 0 on line 2", path);
	expect_msg(&err, want);
	unlink(path);

	/* 100 kB without a newline: too long a line, not a huge allocation. */
	junk = malloc(100000);
	CU_ASSERT_PTR_NOT_NULL_FATAL(junk);
	memset(junk, 'a', 100000);
	write_tmp(path, sizeof(path), junk, 100000);
	TSU_EQ(ts_trace_load(path, TS_FMT_AUTO, &d, &u, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s:1: line longer than 65536 bytes", path);
	expect_msg(&err, want);
	unlink(path);

	/* Binary: NUL bytes on the second line. */
	memset(junk, 0, 100);
	memcpy(junk, "12\n", 3);
	write_tmp(path, sizeof(path), junk, 100);
	TSU_EQ(ts_trace_load(path, TS_FMT_AUTO, &d, &u, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s:2: NUL byte", path);
	expect_msg(&err, want);
	unlink(path);

	/* Empty file. */
	write_tmp(path, sizeof(path), "", 0);
	TSU_EQ(ts_trace_load(path, TS_FMT_AUTO, &d, &u, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s: empty trace", path);
	expect_msg(&err, want);
	unlink(path);
	free(junk);
}

/* ---- const and specs --------------------------------------------------- */

static void test_const(void)
{
	struct ts_trace *t = ts_trace_const(50000000);

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	TSU_EQ(t->kind, TS_TRACE_RATE);
	TSU_EQ(t->n, 1);
	TSU_EQ(t->rows[0].t, 0);
	TSU_EQ(t->rows[0].bps, 50000000);
	TSU_EQ(t->period, 1000000000);
	CU_ASSERT_PTR_NULL(t->delay);
	CU_ASSERT_STRING_EQUAL(t->name, "const:50000000bit");
	ts_trace_free(t);
	ts_trace_free(NULL);
}

static void test_open_spec(void)
{
	struct ts_trace *d, *u;
	struct ts_err err;

	TSU_EQ(ts_trace_open_spec("const:50mbit", &d, &u, &err), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_PTR_NULL(u);
	TSU_EQ(d->rows[0].bps, 50000000); /* 50 * 10^6 */
	CU_ASSERT_STRING_EQUAL(d->name, "const:50mbit");
	ts_trace_free(d);

	TSU_EQ(ts_trace_open_spec("const:1.2gbit", &d, &u, &err), 0);
	TSU_EQ(d->rows[0].bps, 1200000000);
	ts_trace_free(d);

	CU_ASSERT(ts_trace_open_spec("const:0bit", &d, &u, &err) < 0);
	CU_ASSERT_PTR_NULL(d);
	expect_msg(&err, "const:0bit: ");
	CU_ASSERT(ts_trace_open_spec("const:fast", &d, &u, &err) < 0);
	expect_msg(&err, "const:fast: ");
	/* the CSV reader's limit applies to const: too (found by fuzz_trace_const) */
	TSU_EQ(ts_trace_open_spec("const:10tbit", &d, &u, &err), 0);
	TSU_EQ(d->rows[0].bps, 10000000000000ull);
	ts_trace_free(d);
	TSU_EQ(ts_trace_open_spec("const:222222222222kBps", &d, &u, &err), -ERANGE);
	CU_ASSERT_PTR_NULL(d);
	expect_msg(&err, "const:222222222222kBps: above the limit of 10 Tbit/s (wrong unit?)");
	TSU_EQ(ts_trace_open_spec("/nonexistent.csv", &d, &u, &err), -ENOENT);
	expect_msg(&err, "/nonexistent.csv: cannot open:");
}

/*
 * At most 10,000,000 entries per trace, so a runaway file (the bad-input
 * test feeds 10^8 lines) is refused at a bounded size: the 10,000,001st
 * distinct millisecond or CSV row is an error naming its line, while
 * repeated milliseconds (one entry) are not counted against it.
 */
static void test_entry_limit(void)
{
	struct ts_trace_reader *r = ts_trace_read_init("big", TS_FMT_AUTO);
	struct ts_trace *d, *u;
	struct ts_err err;
	char line[32];
	unsigned long i;
	int ret = 0, len;

	for (i = 1; i <= 10000001 && !ret; i++) {
		len = snprintf(line, sizeof(line), "%lu\n", i);
		ret = ts_trace_read_line(r, line, (size_t)len, &err);
	}
	TSU_EQ(ret, -E2BIG);
	TSU_EQ(i - 1, 10000001);
	expect_msg(&err, "big:10000001: more than 10000000 distinct timestamps, the most a trace "
			 "may hold");
	ts_trace_read_free(r);

	r = ts_trace_read_init("rep", TS_FMT_AUTO);
	ret = 0;
	for (i = 0; i < 20000000 && !ret; i++)
		ret = ts_trace_read_line(r, i < 10000000 ? "1\n" : "2\n", 2, &err);
	TSU_EQ(ret, 0);
	TSU_EQ(ts_trace_read_finish(r, &d, &u, &err), 0);
	TSU_EQ(d->n, 2);
	TSU_EQ(d->opps[0].count, 10000000);
	ts_trace_free(d);

	r = ts_trace_read_init("rows", TS_FMT_AUTO);
	ret = ts_trace_read_line(r, "time_ms,down_kbps", 17, &err);
	for (i = 0; i <= 10000000 && !ret; i++) {
		len = snprintf(line, sizeof(line), "%lu,1", i);
		ret = ts_trace_read_line(r, line, (size_t)len, &err);
	}
	TSU_EQ(ret, -E2BIG);
	expect_msg(&err, "rows:10000002: more than 10000000 rows, the most a trace may hold");
	ts_trace_read_free(r);
}

static const struct tsu_test tests[] = {
	{"at most 10,000,000 entries", test_entry_limit},
	{"mahimahi single line", test_mm_single},
	{"mahimahi run lengths", test_mm_runs},
	{"mahimahi CRLF, blanks, comments", test_mm_friendly},
	{"mahimahi errors with line numbers", test_mm_errors},
	{"forced formats on empty input", test_mm_forced_empty},
	{"reader stays failed", test_reader_sticky},
	{"csv two rows and duration", test_csv_basic},
	{"csv unit conversions", test_csv_units},
	{"csv delay and loss columns", test_csv_delay_loss},
	{"csv median rule for the last row", test_csv_median},
	{"csv time shift", test_csv_shift},
	{"csv extra columns ignored", test_csv_extra_columns},
	{"csv header errors", test_csv_header_errors},
	{"csv row errors", test_csv_row_errors},
	{"csv whole-file errors", test_csv_whole_errors},
	{"csv duration comment forms", test_csv_duration_forms},
	{"exact decimal parser", test_decimal},
	{"load fixture files", test_load_fixtures},
	{"load across read blocks", test_load_blocks},
	{"load errors", test_load_errors},
	{"const trace", test_const},
	{"open spec", test_open_spec},
};

TSU_MAIN("trace_read", tests)

/* SPDX-License-Identifier: MIT */
/*
 * Conversions: rate traces to mahimahi with error diffusion (exact lines
 * for small traces worked out by hand), mahimahi to rows, and round trips
 * CSV -> mahimahi -> CSV that keep the mean capacity within 0.1%.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "tsu.h"
#include "tasshape/trace_conv.h"
#include "tasshape/trace_gen.h"
#include "tasshape/trace_stats.h"

#define MS  TS_NSEC_PER_MSEC
#define SEC TS_NSEC_PER_SEC

/* Read @text (a whole trace) through the incremental reader. */
static int read_text(const char *text, struct ts_trace **down, struct ts_trace **up)
{
	struct ts_trace_reader *r = ts_trace_read_init("t", TS_FMT_AUTO);
	struct ts_err err;
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (ts_trace_read_line(r, p, len, &err)) {
			fprintf(stderr, "\n  %s\n", err.msg);
			ts_trace_read_free(r);
			return -EINVAL;
		}
		p += len + (nl ? 1 : 0);
	}
	if (ts_trace_read_finish(r, down, up, &err)) {
		fprintf(stderr, "\n  %s\n", err.msg);
		return -EINVAL;
	}
	return 0;
}

static void expect_mm(struct ts_trace *t, const char *want)
{
	struct ts_text b;
	struct ts_err err;

	ts_text_init(&b);
	TSU_EQ(ts_trace_write_mahimahi(t, &b, &err), 0);
	if (!b.p || strcmp(b.p, want))
		fprintf(stderr, "\n  got  '%s'\n  want '%s'\n", b.p ? b.p : "", want);
	CU_ASSERT_STRING_EQUAL(b.p ? b.p : "", want);
	ts_text_fini(&b);
	fx_trace_free(t);
}

static struct ts_trace *rate1(uint64_t bps, ts_ns_t period)
{
	const ts_ns_t at[] = {0};

	return fx_rate(at, &bps, 1, period);
}

static void test_diffusion(void)
{
	/* 6 Mbit/s = 6000 bits per ms: half an opportunity; the carry makes one every 2nd ms */
	expect_mm(rate1(6000000, 4 * MS), "2\n4\n");
	/* 24 Mbit/s: two opportunities in each ms, at its end */
	expect_mm(rate1(24000000, 2 * MS), "1\n1\n2\n2\n");
	/* 3 Mbit/s: one every 4 ms */
	expect_mm(rate1(3000000, 8 * MS), "4\n8\n");
}

static void test_last_ms(void)
{
	/* 6 Mbit/s for 3 ms: one at 2; the 6000 bits left get the forced last line at 3 */
	expect_mm(rate1(6000000, 3 * MS), "2\n3\n");
	{
		/* 12 Mbit/s for 2 ms then 0 for 2 ms: 1, 2, then the period's line at 4 */
		const ts_ns_t at[] = {0, 2 * MS};
		const uint64_t bps[] = {12000000, 0};

		expect_mm(fx_rate(at, bps, 2, 4 * MS), "1\n2\n4\n");
	}
	/* a period of 2.5 ms is rounded up: 12 Mbit/s gives 1, 2, and 6000 bits + the last at 3 */
	expect_mm(rate1(12000000, 2500 * 1000), "1\n2\n3\n");
}

static void test_sub_ms_rows(void)
{
	/* 12 Mbit/s for 0.5 ms (6000 bits) then 36 Mbit/s for 0.5 ms (18000): 2 at ms 1 */
	const ts_ns_t at[] = {0, 500 * 1000};
	const uint64_t bps[] = {12000000, 36000000};

	expect_mm(fx_rate(at, bps, 2, MS), "1\n1\n");
}

static void test_opps_as_is(void)
{
	const uint32_t ms[] = {1, 3};
	const uint32_t count[] = {2, 1};

	expect_mm(fx_opps(ms, count, 2), "1\n1\n3\n");
}

static void test_opps_to_series(void)
{
	/* down: 3 at ms 5, 1 at 20 (period 20); up: 1 at 10 (period 10, loops: 10, 20, 30, 40) */
	const uint32_t dms[] = {5, 20}, dcount[] = {3, 1}, ums[] = {10}, ucount[] = {1};
	struct ts_trace *d = fx_opps(dms, dcount, 2), *u = fx_opps(ums, ucount, 1);
	struct ts_series s;

	ts_series_init(&s, TS_COL_DOWN | TS_COL_UP);
	TSU_EQ(ts_opps_to_series(d, u, 10 * MS, 40 * MS, &s), 0);
	/*
	 * down loops too: (0,10] 3, (10,20] 1, (20,30] 3, (30,40] 1 opportunities;
	 * up 1 in each bin. 1 opportunity in 10 ms = 12000 bits / 0.01 s = 1.2 Mbit/s.
	 */
	TSU_EQ(s.period, 40 * MS);
	TSU_EQ(s.n, 4);
	TSU_EQ(s.rows[0].down, 3600000);
	TSU_EQ(s.rows[1].down, 1200000);
	TSU_EQ(s.rows[2].down, 3600000);
	TSU_EQ(s.rows[3].down, 1200000);
	TSU_EQ(s.rows[0].up, 1200000);
	TSU_EQ(s.rows[3].t, 30 * MS);
	ts_series_fini(&s);
	fx_trace_free(d);
	fx_trace_free(u);
}

/*
 * A sparse trace with the longest period (found by fuzz_import_mahimahi: the
 * bins used to be one dense array, 1.4 GB here): one opportunity at 1 ms and
 * one at 4294967295 ms in 100 ms bins give three rows, and the 42,949,673 bins
 * of the period are refused by ts_trace_bins (more than 10,000,000).
 */
static void test_opps_sparse(void)
{
	const uint32_t ms[] = {1, 4294967295u}, count[] = {1, 1};
	struct ts_trace *d = fx_opps(ms, count, 2);
	uint64_t *bps = NULL;
	struct ts_series s;
	size_t n = 0;

	ts_series_init(&s, TS_COL_DOWN);
	TSU_EQ(ts_opps_to_series(d, NULL, 100 * MS, d->period, &s), 0);
	TSU_EQ(s.n, 3);
	TSU_EQ(s.period, 4294967295LL * MS);
	/* (0, 100 ms]: 12000 bits in 0.1 s */
	TSU_EQ(s.rows[0].t, 0);
	TSU_EQ(s.rows[0].down, 120000);
	TSU_EQ(s.rows[1].t, 100 * MS);
	TSU_EQ(s.rows[1].down, 0);
	/* the last bin, 42949672 * 100 ms, is 95 ms long: 12000 bits / 0.095 s = 126315.7 */
	TSU_EQ(s.rows[2].t, 4294967200LL * MS);
	TSU_EQ(s.rows[2].down, 126315);
	ts_series_fini(&s);
	TSU_EQ(ts_trace_bins(d, 100 * MS, &bps, &n), -E2BIG);
	CU_ASSERT_PTR_NULL(bps);
	TSU_EQ(n, 0);
	/* one more row than a trace may hold: 1 ms bins of 10,000,001 opportunities */
	{
		uint32_t *many = malloc(10000001 * sizeof(*many)), *ones;
		struct ts_trace *t;
		size_t i;

		ones = malloc(10000001 * sizeof(*ones));
		for (i = 0; i < 10000001; i++) {
			many[i] = (uint32_t)(2 * i + 1);
			ones[i] = 1;
		}
		t = fx_opps(many, ones, 10000001);
		ts_series_init(&s, TS_COL_DOWN);
		/* each opportunity has its bin, each gap an empty one: the limit is passed */
		TSU_EQ(ts_opps_to_series(t, NULL, MS, t->period, &s), -E2BIG);
		ts_series_fini(&s);
		fx_trace_free(t);
		free(many);
		free(ones);
	}
	fx_trace_free(d);
}

/* |a - b| <= b / 1000: within 0.1% */
static void expect_close(uint64_t a, uint64_t b)
{
	uint64_t diff = a > b ? a - b : b - a;

	if (diff * 1000 > b)
		fprintf(stderr, "\n  %llu vs %llu: more than 0.1%% apart\n", (unsigned long long)a,
			(unsigned long long)b);
	CU_ASSERT_TRUE(diff * 1000 <= b);
}

static void test_round_trip(void)
{
	struct ts_trace *d = NULL, *u = NULL, *m = NULL, *mu = NULL, *d2 = NULL, *u2 = NULL;
	struct ts_trace_stats s0, s1, s2;
	struct ts_text csv, mm, csv2;
	struct ts_series s;
	struct ts_err err;

	ts_text_init(&csv);
	ts_text_init(&mm);
	ts_text_init(&csv2);
	ts_series_init(&s, TS_COL_DOWN);
	/* a minute of a generated LTE drive, 100 ms rows */
	TSU_EQ(ts_gen_csv("lte-driving", 3, 60 * SEC, NULL, 0, &csv, &err), 0);
	TSU_EQ(read_text(csv.p, &d, &u), 0);
	TSU_EQ(ts_trace_write_mahimahi(d, &mm, &err), 0);
	TSU_EQ(read_text(mm.p, &m, &mu), 0);
	CU_ASSERT_PTR_NULL(mu);
	TSU_EQ(m->period, 60 * SEC);
	TSU_EQ(ts_opps_to_series(m, NULL, 100 * MS, m->period, &s), 0);
	TSU_EQ(ts_series_write_csv(&s, "round trip", &csv2), 0);
	TSU_EQ(read_text(csv2.p, &d2, &u2), 0);
	TSU_EQ(ts_trace_stats(d, SEC, 20 * MS, &s0), 0);
	TSU_EQ(ts_trace_stats(m, SEC, 20 * MS, &s1), 0);
	TSU_EQ(ts_trace_stats(d2, SEC, 20 * MS, &s2), 0);
	/* within one opportunity per period: 12000 bits / 60 s = 200 bit/s of about 10 Mbit/s */
	CU_ASSERT_TRUE(s1.mean_bps + 200 >= s0.mean_bps && s1.mean_bps <= s0.mean_bps + 200);
	expect_close(s1.mean_bps, s0.mean_bps);
	expect_close(s2.mean_bps, s0.mean_bps);
	/* mahimahi to CSV keeps every bin's capacity: the same mean to the bit/s */
	TSU_EQ(s2.mean_bps, s1.mean_bps);
	ts_trace_free(d);
	ts_trace_free(u);
	ts_trace_free(m);
	ts_trace_free(d2);
	ts_trace_free(u2);
	ts_series_fini(&s);
	ts_text_fini(&csv);
	ts_text_fini(&mm);
	ts_text_fini(&csv2);
}

static void test_rate_to_series(void)
{
	struct ts_trace *d, *u;
	struct ts_series s;
	struct ts_text b;

	ts_text_init(&b);
	TSU_EQ(read_text("time_s,down_mbps,up_mbps,delay_ms\n0,10,1,20\n1,10,1,20\n2,5,1,25.5\n",
			 &d, &u),
	       0);
	ts_series_init(&s, TS_COL_DOWN | TS_COL_UP | TS_COL_DELAY);
	TSU_EQ(ts_rate_to_series(d, u, &s), 0);
	/* the equal row at 1 s merges into the first; the period is 3 s (median interval) */
	TSU_EQ(ts_series_write_csv(&s, NULL, &b), 0);
	CU_ASSERT_STRING_EQUAL(b.p, "# duration=3s\ntime_s,down_mbps,up_mbps,delay_ms\n0,10,1,20\n"
				    "2,5,1,25.5\n");
	ts_series_fini(&s);
	ts_text_fini(&b);
	ts_trace_free(d);
	ts_trace_free(u);
}

/*
 * The limit of mahimahi output, checked before a line is written: 240 Mbit/s
 * for 1000 s is 2.4e8 x 1000 / 12000 = 20,000,000 opportunities, the limit;
 * 1 ms more is 240,000 bits = 20 more (20,000,020). 10,000 Gbit/s for 1 s: 1e13 / 12000 =
 * 833,333,333.
 */
static void test_mahimahi_limit(void)
{
	const uint32_t ms[] = {1, 5, 9}, count[] = {3, 1, 4};
	struct ts_trace *t = rate1(240000000, 1000 * SEC);
	struct ts_text b;
	struct ts_err err;

	TSU_EQ(ts_trace_mahimahi_opps(t), 20000000);
	TSU_EQ(ts_trace_mahimahi_check(t, &err), 0);
	fx_trace_free(t);
	t = rate1(240000000, 1000 * SEC + MS);
	TSU_EQ(ts_trace_mahimahi_opps(t), 20000020);
	TSU_EQ(ts_trace_mahimahi_check(t, &err), -E2BIG);
	fx_trace_free(t);
	t = rate1(10000000000000ULL, SEC);
	TSU_EQ(ts_trace_mahimahi_opps(t), 833333333);
	ts_text_init(&b);
	TSU_EQ(ts_trace_write_mahimahi(t, &b, &err), -E2BIG);
	CU_ASSERT_STRING_EQUAL(err.msg,
			       "fixture: 833333333 opportunities (mahimahi lines), more than "
			       "the limit of 20000000 (expected a lower rate or a "
			       "shorter trace)");
	TSU_EQ(b.len, 0); /* refused before a line was written */
	ts_text_fini(&b);
	fx_trace_free(t);
	/* two rows: 12 Mbit/s for 2 ms then 24 Mbit/s for 3 ms: 2 + 6 opportunities */
	{
		const ts_ns_t at[] = {0, 2 * MS};
		const uint64_t bps[] = {12000000, 24000000};

		t = fx_rate(at, bps, 2, 5 * MS);
		TSU_EQ(ts_trace_mahimahi_opps(t), 8);
		fx_trace_free(t);
	}
	/* an opportunity trace: the sum of its counts */
	t = fx_opps(ms, count, 3);
	TSU_EQ(ts_trace_mahimahi_opps(t), 8);
	fx_trace_free(t);
}

static const struct tsu_test tests[] = {
	{"rate to mahimahi: error diffusion", test_diffusion},
	{"the last millisecond always has a line", test_last_ms},
	{"rows shorter than a millisecond", test_sub_ms_rows},
	{"an opportunity trace is written as it is", test_opps_as_is},
	{"opportunities to rows, looping", test_opps_to_series},
	{"a sparse trace with the longest period, the row limit", test_opps_sparse},
	{"CSV -> mahimahi -> CSV keeps the mean within 0.1%", test_round_trip},
	{"rate trace rows with delay back to CSV", test_rate_to_series},
	{"mahimahi output limit, before any line", test_mahimahi_limit},
};

TSU_MAIN("trace_conv", tests)

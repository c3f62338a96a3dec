/* SPDX-License-Identifier: MIT */
/*
 * Trace statistics on hand-made traces: the mean, bins, time-weighted
 * percentiles, outages (joined across the loop, gaps between mahimahi
 * opportunities), delay, and the Markdown row of traces/README.md. Every
 * expected number is worked out in the comment above it.
 */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "tsu.h"
#include "tasshape/trace_stats.h"

#define MS  TS_NSEC_PER_MSEC
#define SEC TS_NSEC_PER_SEC

static void expect_text(struct ts_text *b, const char *want)
{
	if (!b->p || strcmp(b->p, want))
		fprintf(stderr, "\n  got  '%s'\n  want '%s'\n", b->p ? b->p : "(null)", want);
	CU_ASSERT_STRING_EQUAL(b->p ? b->p : "", want);
}

/* 10 Mbit/s for 1 s, 0 for 0.5 s, 30 Mbit/s for 1.5 s; delays 10, 20, 30 ms. */
static struct ts_trace *three_rows(void)
{
	const ts_ns_t at[] = {0, SEC, 1500 * MS};
	const uint64_t bps[] = {10000000, 0, 30000000};
	struct ts_trace *t = fx_rate(at, bps, 3, 3 * SEC);

	t->delay = calloc(3, sizeof(*t->delay));
	t->delay[0] = 10 * MS;
	t->delay[1] = 20 * MS;
	t->delay[2] = 30 * MS;
	return t;
}

static void test_rate_stats(void)
{
	struct ts_trace *t = three_rows();
	struct ts_trace_stats st;

	TSU_EQ(ts_trace_stats(t, SEC, 20 * MS, &st), 0);
	TSU_EQ(st.duration, 3 * SEC);
	TSU_EQ(st.nbins, 3);
	/* (10 * 1 + 0 * 0.5 + 30 * 1.5) / 3 = 18.333... Mbit/s, floor to bit/s */
	TSU_EQ(st.mean_bps, 18333333);
	/* bins: [0,1) 10; [1,2) (0 * 0.5 + 30 * 0.5) / 1 = 15; [2,3) 30 Mbit/s */
	TSU_EQ(st.min_bps, 10000000);
	TSU_EQ(st.max_bps, 30000000);
	/* equal bins: p5 the 1st of 3 (ceil(0.15)), p50 the 2nd (ceil(1.5)), p95 the 3rd */
	TSU_EQ(st.p5_bps, 10000000);
	TSU_EQ(st.p50_bps, 15000000);
	TSU_EQ(st.p95_bps, 30000000);
	/* one zero run of 500 ms >= 20 ms: 0.5 / 3 = 166666.7 ppm, rounded */
	TSU_EQ(st.outages, 1);
	TSU_EQ(st.outage, 500 * MS);
	TSU_EQ(st.outage_ppm, 166667);
	/* delay: (10 * 1 + 20 * 0.5 + 30 * 1.5) / 3 = 21.6666 ms, floor to ns */
	CU_ASSERT_TRUE(st.has_delay);
	TSU_EQ(st.delay_min, 10 * MS);
	TSU_EQ(st.delay_max, 30 * MS);
	TSU_EQ(st.delay_mean, 21666666);
	/* outages shorter than 600 ms do not count */
	TSU_EQ(ts_trace_stats(t, SEC, 600 * MS, &st), 0);
	TSU_EQ(st.outages, 0);
	TSU_EQ(st.outage_ppm, 0);
	fx_trace_free(t);
}

static void test_bins_partial(void)
{
	const ts_ns_t at[] = {0, 1500 * MS};
	const uint64_t bps[] = {8000000, 4000000};
	struct ts_trace *t = fx_rate(at, bps, 2, 2500 * MS);
	struct ts_trace_stats st;
	uint64_t *b;
	size_t n;

	TSU_EQ(ts_trace_bins(t, SEC, &b, &n), 0);
	/* [0,1) 8; [1,2) (8 * 0.5 + 4 * 0.5) = 6; [2,2.5) 4 Mbit/s over its 0.5 s */
	TSU_EQ(n, 3);
	TSU_EQ(b[0], 8000000);
	TSU_EQ(b[1], 6000000);
	TSU_EQ(b[2], 4000000);
	free(b);
	/*
	 * Time-weighted: sorted 4 (0.5 s), 6 (1 s), 8 (1 s) of 2.5 s. p5: 0.5 >= 0.125 -> 4;
	 * p50: 0.5 < 1.25, 1.5 >= 1.25 -> 6; p95: 2.5 >= 2.375 -> 8. Mean (8 * 1.5 + 4) / 2.5
	 * = 6.4 Mbit/s.
	 */
	TSU_EQ(ts_trace_stats(t, SEC, 20 * MS, &st), 0);
	TSU_EQ(st.p5_bps, 4000000);
	TSU_EQ(st.p50_bps, 6000000);
	TSU_EQ(st.p95_bps, 8000000);
	TSU_EQ(st.mean_bps, 6400000);
	CU_ASSERT_FALSE(st.has_delay);
	fx_trace_free(t);
}

static void test_outage_wraps(void)
{
	/* 0 for 1 s, 12 Mbit/s for 1 s, 0 for 1 s: the two zero runs are one across the loop */
	const ts_ns_t at[] = {0, SEC, 2 * SEC};
	const uint64_t bps[] = {0, 12000000, 0};
	struct ts_trace *t = fx_rate(at, bps, 3, 3 * SEC);
	struct ts_trace_stats st;

	TSU_EQ(ts_trace_stats(t, SEC, 20 * MS, &st), 0);
	TSU_EQ(st.outages, 1);
	TSU_EQ(st.outage, 2 * SEC);
	TSU_EQ(st.outage_ppm, 666667); /* 2/3 */
	TSU_EQ(st.mean_bps, 4000000);  /* 12 / 3 */
	fx_trace_free(t);
}

static void test_opps_stats(void)
{
	/* opportunities: 1 at ms 0 (first pass only), 2 at ms 1, 1 at 3, 1 at 40 (the period) */
	const uint32_t ms[] = {0, 1, 3, 40};
	const uint32_t count[] = {1, 2, 1, 1};
	struct ts_trace *t = fx_opps(ms, count, 4);
	struct ts_trace_stats st;
	uint64_t *b;
	size_t n;

	/* steady state: 4 opportunities * 12000 bits / 40 ms = 1.2 Mbit/s */
	TSU_EQ(ts_trace_stats(t, 10 * MS, 20 * MS, &st), 0);
	TSU_EQ(st.mean_bps, 1200000);
	/* bins (0,10]: 3 opportunities = 36000 bits / 10 ms = 3.6 Mbit/s; (10,20], (20,30]: 0;
	 * (30,40]: 1 = 1.2 Mbit/s */
	TSU_EQ(ts_trace_bins(t, 10 * MS, &b, &n), 0);
	TSU_EQ(n, 4);
	TSU_EQ(b[0], 3600000);
	TSU_EQ(b[1], 0);
	TSU_EQ(b[2], 0);
	TSU_EQ(b[3], 1200000);
	free(b);
	/* sorted 0, 0, 1.2, 3.6: p5 and p50 (2nd of 4) are 0, p95 (4th) 3.6 */
	TSU_EQ(st.p5_bps, 0);
	TSU_EQ(st.p50_bps, 0);
	TSU_EQ(st.p95_bps, 3600000);
	/* gaps from 0 (the period's opportunity): 1, 2 and 37 ms; only 37 >= 20 counts */
	TSU_EQ(st.outages, 1);
	TSU_EQ(st.outage, 37 * MS);
	TSU_EQ(st.outage_ppm, 925000);
	fx_trace_free(t);
}

static void test_markdown(void)
{
	struct ts_trace *t = three_rows();
	struct ts_trace_stats st;
	struct ts_text b;

	ts_text_init(&b);
	TSU_EQ(ts_trace_stats(t, SEC, 20 * MS, &st), 0);
	TSU_EQ(ts_trace_stats_md(&b, "x.csv", "down", &st), 0);
	/* 18333333 bit/s is 18.33; outage 166667 ppm is 16.67 % */
	expect_text(&b, "| `x.csv` | down | 3 | 18.33 | 10.00 | 15.00 | 30.00 | 30.00 | 16.67 |");
	ts_text_fini(&b);
	fx_trace_free(t);
}

static void test_mbps_rounding(void)
{
	struct ts_text b;

	ts_text_init(&b);
	ts_text_mbps(&b, 1234999, 2); /* 1.234999 -> 1.23 */
	ts_text_add(&b, " ", 1);
	ts_text_mbps(&b, 1235000, 2); /* exactly half: up to 1.24 */
	ts_text_add(&b, " ", 1);
	ts_text_mbps(&b, 1234567, 6);
	ts_text_add(&b, " ", 1);
	ts_text_mbps(&b, 0, 2);
	ts_text_add(&b, " ", 1);
	ts_text_mbps(&b, 1999999999, 0); /* 1999.999999 -> 2000 */
	expect_text(&b, "1.23 1.24 1.234567 0.00 2000");
	ts_text_fini(&b);
}

static const struct tsu_test tests[] = {
	{"rate trace: mean, bins, percentiles, outage, delay", test_rate_stats},
	{"a shorter last bin counts with its length", test_bins_partial},
	{"zero rows at both ends are one outage", test_outage_wraps},
	{"mahimahi: steady state, bins (a,b], gaps", test_opps_stats},
	{"Markdown row of traces/README.md", test_markdown},
	{"Mbit/s rounded half up", test_mbps_rounding},
};

TSU_MAIN("trace_stats", tests)

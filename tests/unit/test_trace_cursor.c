/* SPDX-License-Identifier: MIT */
/* Replaying capacity traces: when packets start and finish (trace_cursor.c). */
#include "fixture.h"
#include "tsu.h"

#define MS  TS_NSEC_PER_MSEC
#define SEC TS_NSEC_PER_SEC

/* Serve @bytes as soon as possible after @t; returns the completion time. */
static ts_ns_t serve_at(struct ts_trace_cursor *c, ts_ns_t t, uint64_t bytes)
{
	ts_ns_t s = ts_trace_cursor_start(c, t);

	if (s == TS_NEVER)
		return TS_NEVER;
	return ts_trace_cursor_serve(c, s, bytes);
}

/* mahimahi "1": one 1500-byte opportunity every millisecond. */
static void test_opps_one_per_ms(void)
{
	uint32_t ms[] = {1}, cnt[] = {1};
	struct ts_trace *t = fx_opps(ms, cnt, 1);
	struct ts_trace_cursor c;
	ts_ns_t done = 0;
	int k;

	ts_trace_cursor_init(&c, t, 0, false);
	/* Back to back from t = 0: packet k (0-based) finishes at (k + 1) ms. */
	for (k = 0; k < 1000; k++) {
		done = serve_at(&c, done, 1500);
		TSU_EQ(done, (k + 1) * MS);
	}
	fx_trace_free(t);
}

/* A 3000-byte packet needs two opportunities; three 500-byte ones share one. */
static void test_opps_spanning_and_sharing(void)
{
	uint32_t ms[] = {1}, cnt[] = {1};
	struct ts_trace *t = fx_opps(ms, cnt, 1);
	struct ts_trace_cursor c;
	ts_ns_t d;

	ts_trace_cursor_init(&c, t, 0, false);
	TSU_EQ(serve_at(&c, 0, 3000), 2 * MS);
	/* Three 500 B packets queued at 2 ms: the opportunity at 3 ms carries all three. */
	d = serve_at(&c, 2 * MS, 500);
	TSU_EQ(d, 3 * MS);
	TSU_EQ(serve_at(&c, d, 500), 3 * MS);
	TSU_EQ(serve_at(&c, d, 500), 3 * MS);
	/* 1500 bytes of that opportunity are used up: the fourth waits for 4 ms. */
	TSU_EQ(serve_at(&c, d, 500), 4 * MS);
	fx_trace_free(t);
}

/* Capacity offered while idle is lost, including the rest of a partly used opportunity. */
static void test_opps_idle_capacity_lost(void)
{
	uint32_t ms[] = {1}, cnt[] = {1};
	struct ts_trace *t = fx_opps(ms, cnt, 1);
	struct ts_trace_cursor c;

	ts_trace_cursor_init(&c, t, 0, false);
	TSU_EQ(serve_at(&c, 0, 500), 1 * MS); /* 1000 bytes left at 1 ms */
	/* Arrives at 1.2 ms: the leftover at 1 ms is gone, next is 2 ms. */
	TSU_EQ(ts_trace_cursor_start(&c, 1 * MS + 200000), 2 * MS);
	TSU_EQ(serve_at(&c, 1 * MS + 200000, 1500), 2 * MS);
	/* Idle from 2 ms to 7.5 ms: opportunities 3..7 wasted, packet leaves at 8 ms. */
	TSU_EQ(serve_at(&c, 7 * MS + 500000, 1500), 8 * MS);
	/* An hour of idleness is a jump, not a walk, and lands on the right millisecond. */
	TSU_EQ(serve_at(&c, 3600 * SEC + 300000, 1500), 3600 * SEC + 1 * MS);
	fx_trace_free(t);
}

/*
 * A trace "0\n5\n" (period 5 ms). mahimahi replays opportunities at 0, 5,
 * 5, 10, 10, ...: the wrap doubles the one at the period. Here ms 0 exists
 * in the first pass only, so one opportunity every 5 ms: 0, 5, 10, 15.
 */
static void test_opps_wrap_no_double(void)
{
	uint32_t ms[] = {0, 5}, cnt[] = {1, 1};
	struct ts_trace *t = fx_opps(ms, cnt, 2);
	struct ts_trace_cursor c;
	ts_ns_t d = 0;
	int k;

	ts_trace_cursor_init(&c, t, 0, false);
	for (k = 0; k < 4; k++) {
		d = serve_at(&c, d, 1500);
		TSU_EQ(d, k * 5 * MS);
	}
	/* Capacity in [0, 20 ms): opportunities at 0, 5, 10, 15. */
	TSU_EQ(ts_trace_capacity_bytes(t, 0, 20 * MS), 4 * 1500);
	fx_trace_free(t);
}

/* Repeated lines: "2\n2\n2\n4\n" gives 3 opportunities at 2 ms and 1 at 4 ms. */
static void test_opps_counts(void)
{
	uint32_t ms[] = {2, 4}, cnt[] = {3, 1};
	struct ts_trace *t = fx_opps(ms, cnt, 2);
	struct ts_trace_cursor c;
	ts_ns_t d = 0;

	ts_trace_cursor_init(&c, t, 0, false);
	/* 4500 bytes at once at 2 ms, then 1500 at 4, then the next pass: 6 ms (3 x). */
	d = serve_at(&c, d, 4500);
	TSU_EQ(d, 2 * MS);
	d = serve_at(&c, d, 1500);
	TSU_EQ(d, 4 * MS);
	d = serve_at(&c, d, 4600); /* 4 opportunities: 6, 6, 6, 8 */
	TSU_EQ(d, 8 * MS);
	/*
	 * One pass (4 ms) is 4 x 1500 bytes; [0, 1 s) holds 250 passes minus the
	 * last pass's opportunity at 1000 ms, which is not before 1 s.
	 */
	TSU_EQ(ts_trace_capacity_bytes(t, 0, SEC), 250 * 4 * 1500 - 1500);
	fx_trace_free(t);
}

static void test_opps_once(void)
{
	uint32_t ms[] = {1, 2}, cnt[] = {1, 1};
	struct ts_trace *t = fx_opps(ms, cnt, 2);
	struct ts_trace_cursor c;

	ts_trace_cursor_init(&c, t, 10 * MS, true); /* trace starts at 10 ms */
	TSU_EQ(serve_at(&c, 10 * MS, 1500), 11 * MS);
	TSU_EQ(serve_at(&c, 11 * MS, 1500), 12 * MS);
	TSU_EQ(serve_at(&c, 12 * MS, 1500), TS_NEVER);
	TSU_EQ(ts_trace_cursor_start(&c, 13 * MS), TS_NEVER);
	fx_trace_free(t);
}

/*
 * 10 Mbit/s for 1 s, then 50 Mbit/s for 1 s. 1500-byte packets (12000 bits)
 * back to back from 0: packet n (1-based) ends at n * 12000 / 10e6 s while
 * n <= 833 (833 * 1.2 ms = 999.6 ms); packet 834 has 4000 bits at 10 Mbit/s
 * (0.4 ms) and 8000 bits at 50 Mbit/s (0.16 ms): ends at 1000.16 ms. The
 * whole period carries 10e6 + 50e6 bits = 5000 packets, the last ending
 * exactly at 2 s.
 */
static void test_rate_two_rows(void)
{
	ts_ns_t at[] = {0, SEC};
	uint64_t bps[] = {10000000, 50000000};
	struct ts_trace *t = fx_rate(at, bps, 2, 2 * SEC);
	struct ts_trace_cursor c;
	ts_ns_t d = 0;
	int n;

	ts_trace_cursor_init(&c, t, 0, false);
	for (n = 1; n <= 5000; n++) {
		d = serve_at(&c, d, 1500);
		if (n <= 833)
			TSU_EQ(d, (ts_ns_t)n * 1200000);
		if (n == 834)
			TSU_EQ(d, 1000160000);
	}
	TSU_EQ(d, 2 * SEC);
	TSU_EQ(ts_trace_capacity_bytes(t, 0, SEC), 1250000);
	TSU_EQ(ts_trace_capacity_bytes(t, SEC, 2 * SEC), 6250000);
	/* 0.5 s at 10 and 0.5 s at 50 Mbit/s: 625000 + 3125000 bytes. */
	TSU_EQ(ts_trace_capacity_bytes(t, SEC / 2, 3 * SEC / 2), 3750000);
	/* Looping: [2 s, 4 s) is the same again. */
	TSU_EQ(ts_trace_capacity_bytes(t, 2 * SEC, 4 * SEC), 7500000);
	fx_trace_free(t);
}

/*
 * A slow link with a short period (found by fuzz_trace_csv: it walked one
 * row per microsecond): rows of 1 bit/s for 0.5 us and 3 bit/s for 0.5 us,
 * period 1 us, so 2 bit-us per period. One byte (8 bits) from 0 takes
 * exactly 4 s; a second byte, started at 4 s + 0.25 us (inside the first
 * row), takes 4 s more: it ends at 8 s + 0.25 us.
 */
static void test_rate_short_period(void)
{
	ts_ns_t at[] = {0, 500};
	uint64_t bps[] = {1, 3};
	struct ts_trace *t = fx_rate(at, bps, 2, 1000);
	struct ts_trace_cursor c;

	ts_trace_cursor_init(&c, t, 0, false);
	TSU_EQ(serve_at(&c, 0, 1), 4 * SEC);
	TSU_EQ(serve_at(&c, 4 * SEC + 250, 1), 8 * SEC + 250);
	fx_trace_free(t);
}

/* Rounding: 1 byte at 3 bit/s takes 8/3 s; three back to back end at exactly 8 s. */
static void test_rate_sub_ns_remainder(void)
{
	ts_ns_t at[] = {0};
	uint64_t bps[] = {3};
	struct ts_trace *t = fx_rate(at, bps, 1, SEC);
	struct ts_trace_cursor c;
	ts_ns_t d;

	ts_trace_cursor_init(&c, t, 0, false);
	d = serve_at(&c, 0, 1);
	TSU_EQ(d, 2666666667); /* ceil(8e9 / 3) */
	d = serve_at(&c, d, 1);
	TSU_EQ(d, 5333333334); /* ceil(16e9 / 3): the 1/3 ns left over was kept */
	d = serve_at(&c, d, 1);
	TSU_EQ(d, 8 * SEC);
	fx_trace_free(t);
}

/* An outage row: a packet arriving during it waits for the next row with capacity. */
static void test_rate_outage(void)
{
	ts_ns_t at[] = {0, SEC};
	uint64_t bps[] = {12000000, 0};
	struct ts_trace *t = fx_rate(at, bps, 2, 2 * SEC);
	struct ts_trace_cursor c;

	ts_trace_cursor_init(&c, t, 0, false);
	TSU_EQ(ts_trace_cursor_start(&c, 3 * SEC / 2), 2 * SEC);
	/* 1500 bytes at 12 Mbit/s: 1 ms. */
	TSU_EQ(serve_at(&c, 3 * SEC / 2, 1500), 2 * SEC + MS);
	/* A packet that starts 0.5 ms before the outage finishes 0.5 ms after it. */
	TSU_EQ(serve_at(&c, 3 * SEC - MS / 2, 1500), 4 * SEC + MS / 2);
	fx_trace_free(t);
}

static void test_rate_delay_loss_columns(void)
{
	ts_ns_t at[] = {0, SEC};
	uint64_t bps[] = {1000000, 1000000};
	struct ts_trace *t = fx_rate(at, bps, 2, 2 * SEC);
	ts_ns_t d = 0;
	uint32_t ppm = 0;

	CU_ASSERT_FALSE(ts_trace_delay_at(t, 0, &d));
	t->delay = calloc(2, sizeof(*t->delay));
	t->loss_ppm = calloc(2, sizeof(*t->loss_ppm));
	t->delay[0] = 20 * MS;
	t->delay[1] = 600 * MS;
	t->loss_ppm[1] = 1000;
	CU_ASSERT_TRUE(ts_trace_delay_at(t, SEC - 1, &d));
	TSU_EQ(d, 20 * MS);
	CU_ASSERT_TRUE(ts_trace_delay_at(t, 3 * SEC, &d)); /* looped: row 1 */
	TSU_EQ(d, 600 * MS);
	CU_ASSERT_TRUE(ts_trace_loss_at(t, SEC, &ppm));
	TSU_EQ(ppm, 1000);
	fx_trace_free(t);
}

/*
 * The cumulative index must not change any answer: compare capacities over
 * many windows, before and after ts_trace_index, for both kinds, including
 * windows that cross passes and the ms-0 entry that exists in pass 0 only.
 */
static void test_index_same_answers(void)
{
	uint32_t ms[] = {0, 2, 5, 7}, cnt[] = {2, 1, 3, 1};
	ts_ns_t at[] = {0, 300 * MS, 900 * MS};
	uint64_t bps[] = {10000000, 0, 50000000};
	struct ts_trace *tr[2] = {fx_opps(ms, cnt, 4), fx_rate(at, bps, 3, 2 * SEC)};
	uint64_t before[2][40];
	int k, i;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < 40; i++)
			before[k][i] =
				ts_trace_capacity_bytes(tr[k], i * 37 * MS / 3, i * 211 * MS);
		CU_ASSERT_EQUAL_FATAL(ts_trace_index(tr[k]), 0);
		for (i = 0; i < 40; i++)
			TSU_EQ(ts_trace_capacity_bytes(tr[k], i * 37 * MS / 3, i * 211 * MS),
			       before[k][i]);
		fx_trace_free(tr[k]);
	}
	/* One hand-checked value: opportunities in [0, 14 ms): 2@0, 1@2, 3@5, 1@7 (pass 0), 1@9, 3@12. */
	tr[0] = fx_opps(ms, cnt, 4);
	ts_trace_index(tr[0]);
	TSU_EQ(ts_trace_capacity_bytes(tr[0], 0, 14 * MS), 11 * 1500);
	fx_trace_free(tr[0]);
}

static const struct tsu_test tests[] = {
	{"index: same answers", test_index_same_answers},
	{"opps: one opportunity per ms", test_opps_one_per_ms},
	{"opps: spanning and sharing", test_opps_spanning_and_sharing},
	{"opps: idle capacity is lost", test_opps_idle_capacity_lost},
	{"opps: wrap without a double opportunity", test_opps_wrap_no_double},
	{"opps: repeated lines", test_opps_counts},
	{"opps: --once ends", test_opps_once},
	{"rate: two rows, exact times", test_rate_two_rows},
	{"rate: sub-ns remainder kept", test_rate_sub_ns_remainder},
	{"rate: outage", test_rate_outage},
	{"rate: a slow link with a 1 us period", test_rate_short_period},
	{"rate: delay and loss columns", test_rate_delay_loss_columns},
};

TSU_MAIN("trace_cursor", tests)

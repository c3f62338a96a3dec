/* SPDX-License-Identifier: MIT */
/* The per-window time series (record/stats_out.c): window arithmetic and exact rows. */
#include <stdlib.h>
#include <string.h>

#include "record/stats_out.h"
#include "tsu.h"

#define MS TS_NSEC_PER_MSEC

struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static struct ts_pool pool;

static void release(void *ctx, struct ts_pkt *p, ts_ns_t t)
{
	(void)ctx;
	(void)t;
	ts_pool_put(&pool, p);
}

static void drop(void *ctx, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t t)
{
	(void)ctx;
	(void)cause;
	(void)t;
	ts_pool_put(&pool, p);
}

/* An uplink of constant 12 Mbit/s (150,000 bytes per 100 ms), time 0 at @origin. */
static void build(struct ts_dir *d, struct ts_trace **t, ts_ns_t origin)
{
	struct ts_dir_conf c = {.name = "uplink", .seed = 1, .place = TS_PLACE_NETWORK};
	struct ts_err err;

	*t = ts_trace_const(12000000);
	c.trace = *t;
	c.origin = origin;
	CU_ASSERT_EQUAL_FATAL(ts_dir_build(d, &c, release, drop, NULL, &err), 0);
}

/* The drop columns: @n of @cause, 0 for the others. */
static void drop_cols(char *buf, size_t len, int cause, int n)
{
	size_t k = 0;
	int c;

	buf[0] = '\0';
	for (c = 0; c < TS_DROP__COUNT; c++)
		k += (size_t)snprintf(buf + k, len - k, ",%d", c == cause ? n : 0);
}

/*
 * Window 0 = [0, 100 ms): arrivals of 1500 (10 ms) and 1000 (50 ms)
 * bytes, one 1500-byte delivery at 20 ms that spent 5 ms on the link, one
 * tail drop at 60 ms. The arrival at 150 ms closes it:
 *   capacity 150,000 B * 8 / 0.1 s = 12,000,000 bit/s
 *   throughput 1500 B * 8 / 0.1 s = 120,000 bit/s
 *   delay p50 = max = 5 ms (one sample; the quantile is clamped to the minimum)
 * Window 1 = [100, 200 ms): the 500-byte arrival only, no delay sample
 * (empty fields). The close at 250 ms writes it and the partial window
 * [200, 250): 0.05 s long, capacity 75,000 B * 8 / 0.05 s = 12 Mbit/s.
 * The origin is 7 s on the loop's clock; times in the rows are from it.
 */
static void test_windows(void)
{
	const ts_ns_t o = 7 * TS_NSEC_PER_SEC;
	struct ts_trace *t;
	struct ts_dir d;
	const struct ts_dir *dirs[2] = {&d, NULL};
	struct capture c = {0};
	struct ts_stats s;
	char d0[128], none[128], expect[2048];
	const char *rows;

	build(&d, &t, o);
	c.f = open_memstream(&c.buf, &c.len);
	ts_stats_init(&s, c.f, dirs, o, 100 * MS);
	TSU_EQ(ts_stats_next_deadline(&s), o + 100 * MS);
	ts_stats_arrival(&s, 0, 1500, o + 10 * MS);
	ts_stats_link_delay(&s, 0, 5 * MS, o + 20 * MS);
	ts_stats_delivered(&s, 0, 1500, o + 20 * MS);
	ts_stats_arrival(&s, 0, 1000, o + 50 * MS);
	ts_stats_drop(&s, 0, TS_DROP_OVERLIMIT, o + 60 * MS);
	TSU_EQ(s.rows, 0);
	ts_stats_arrival(&s, 0, 500, o + 150 * MS);
	TSU_EQ(s.rows, 1);
	TSU_EQ(ts_stats_next_deadline(&s), o + 200 * MS);
	TSU_EQ(ts_stats_close(&s, o + 250 * MS), 0);
	TSU_EQ(s.rows, 3);
	fclose(c.f);
	drop_cols(d0, sizeof(d0), TS_DROP_OVERLIMIT, 1);
	drop_cols(none, sizeof(none), -1, 0);
	rows = strchr(c.buf, '\n') + 1;
	snprintf(expect, sizeof(expect),
		 "0.100,uplink,0.100,12000000,120000,2500,1500,1,0,0,5.000,5.000,1%s\n"
		 "0.200,uplink,0.100,12000000,0,500,0,0,0,0,,,0%s\n"
		 "0.250,uplink,0.050,12000000,0,0,0,0,0,0,,,0%s\n",
		 d0, none, none);
	CU_ASSERT_STRING_EQUAL(rows, expect);
	CU_ASSERT(strncmp(c.buf, "time_s,dir,interval_s,capacity_bps,throughput_bps,", 50) == 0);
	free(c.buf);
	ts_dir_fini(&d, o);
	ts_trace_free(t);
}

/* A quiet gap closes every window in it, each with its own row (capacity still offered). */
static void test_gap(void)
{
	struct ts_trace *t;
	struct ts_dir d;
	const struct ts_dir *dirs[2] = {&d, NULL};
	struct capture c = {0};
	struct ts_stats s;

	build(&d, &t, 0);
	c.f = open_memstream(&c.buf, &c.len);
	ts_stats_init(&s, c.f, dirs, 0, 100 * MS);
	ts_stats_advance(&s, 99 * MS);
	TSU_EQ(s.rows, 0);
	ts_stats_advance(&s, 100 * MS); /* the end of window 0 is in window 1 */
	TSU_EQ(s.rows, 1);
	ts_stats_advance(&s, 1050 * MS); /* windows 1..9 */
	TSU_EQ(s.rows, 10);
	TSU_EQ(s.win_start, 1000 * MS);
	TSU_EQ(ts_stats_close(&s, 1000 * MS), 0); /* no partial window of length 0 */
	TSU_EQ(s.rows, 10);
	fclose(c.f);
	free(c.buf);
	ts_dir_fini(&d, 0);
	ts_trace_free(t);
}

/*
 * Queue occupancy at a window's end: three 1500-byte packets enqueued at
 * 0 and not yet served (the model is not advanced): the trace server
 * holds all three, one of them on the link: 4500 bytes, 3 packets.
 */
static void test_queue(void)
{
	struct ts_trace *t;
	struct ts_dir d;
	uint64_t bytes, pkts;
	int i;

	CU_ASSERT_EQUAL_FATAL(ts_pool_init(&pool, 8), 0);
	build(&d, &t, 0);
	for (i = 0; i < 3; i++) {
		struct ts_pkt *p = ts_pool_get(&pool);

		p->len = 1500;
		p->segs = 1;
		ts_pipe_enqueue(&d.pipe[TS_PLACE_NETWORK], p, 0);
	}
	ts_stats_queue(&d, &bytes, &pkts);
	TSU_EQ(bytes, 4500);
	TSU_EQ(pkts, 3);
	ts_dir_fini(&d, 0);
	TSU_EQ(pool.used, 0);
	ts_pool_fini(&pool);
	ts_trace_free(t);
}

static const struct tsu_test tests[] = {
	{"windows and rows", test_windows},
	{"quiet gap", test_gap},
	{"queue occupancy", test_queue},
};

TSU_MAIN("stats_out", tests)

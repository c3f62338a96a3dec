/* SPDX-License-Identifier: MIT */
/* The mahimahi-format link log (record/mmlog.c): exact lines from made-up events. */
#include <stdlib.h>
#include <string.h>

#include "record/mmlog.h"
#include "tsu.h"

#define MS     TS_NSEC_PER_MSEC
#define ORIGIN (5 * TS_NSEC_PER_SEC) /* the link's time 0, on the loop's clock */

struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static void cap_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->f);
}

/* The event lines: everything after the header's '#' lines. */
static const char *events(struct capture *c)
{
	char *p;

	fflush(c->f);
	p = c->buf;
	while (p && *p == '#' && strchr(p, '\n'))
		p = strchr(p, '\n') + 1;
	return p ? p : "";
}

static void cap_close(struct capture *c)
{
	fclose(c->f);
	free(c->buf);
}

static struct ts_mmlog_conf conf(const struct ts_trace *t, ts_ns_t lag)
{
	struct ts_mmlog_conf c = {
		.link_name = "Uplink",
		.path = "up.log",
		.command_line = "tasshape --trace const:12mbit --uplink-log up.log",
		.queue = "droptail:packets=100",
		.trace = t,
		.origin = ORIGIN,
		.init_epoch_ms = 1700000000123,
		.lag_ns = lag,
		.ring = 64,
		.drops = true,
	};
	return c;
}

static void test_header(void)
{
	struct ts_trace *t = ts_trace_const(12000000);
	struct ts_mmlog_conf c = conf(t, 0);
	struct ts_mmlog m;
	struct capture cap;

	cap_open(&cap);
	TSU_EQ(ts_mmlog_init(&m, cap.f, &c), 0);
	TSU_EQ(ts_mmlog_close(&m, ORIGIN), 0);
	fflush(cap.f);
	CU_ASSERT_STRING_EQUAL(cap.buf,
			       "# mahimahi mm-link (Uplink) [const:12000000bit] > up.log\n"
			       "# command line: tasshape --trace const:12mbit --uplink-log up.log\n"
			       "# queue: droptail:packets=100\n"
			       "# init timestamp: 1700000000123\n"
			       "# base timestamp: 0\n"
			       "# tasshape: sizes are IP bytes + 4 (mahimahi's TUN header); one "
			       "opportunity (# 1504) carries 1500 IP bytes\n");
	cap_close(&cap);
	ts_trace_free(t);
}

/*
 * 12 Mbit/s is 1500 IP bytes per ms: one "# 1504" per ms. Events:
 * a 1500-byte packet arrives at 0.2 ms (line "0 + 1504") and leaves the
 * link at 1.2 ms ("1 - 1504 1": 1 ms after the arrival's ms), a 100-byte
 * packet is dropped at 1.5 ms ("1 d 1 104"), a 52-byte one arrives at
 * 2.0 ms ("2 + 56"). A flush at 10 ms with no delay line (lag 0 -> 1 ms)
 * writes what lies before ms 10 - 1 = 9; the close at 10.5 ms writes the
 * opportunity of ms 9 (ms 10 is not complete).
 */
static void test_events(void)
{
	struct ts_trace *t = ts_trace_const(12000000);
	struct ts_mmlog_conf c = conf(t, 0);
	struct ts_mmlog m;
	struct capture cap;

	cap_open(&cap);
	TSU_EQ(ts_mmlog_init(&m, cap.f, &c), 0);
	ts_mmlog_arrival(&m, ORIGIN + 200000, 1500);
	ts_mmlog_departure(&m, ORIGIN + 200000, ORIGIN + 1200000, 1500);
	ts_mmlog_drop(&m, ORIGIN + 1500000, 1, 100);
	ts_mmlog_arrival(&m, ORIGIN + 2 * MS, 52);
	ts_mmlog_flush(&m, ORIGIN + 10 * MS);
	CU_ASSERT_STRING_EQUAL(events(&cap), "0 + 1504\n"
					     "0 # 1504\n"
					     "1 d 1 104\n"
					     "1 # 1504\n"
					     "1 - 1504 1\n"
					     "2 + 56\n"
					     "2 # 1504\n"
					     "3 # 1504\n"
					     "4 # 1504\n"
					     "5 # 1504\n"
					     "6 # 1504\n"
					     "7 # 1504\n"
					     "8 # 1504\n");
	TSU_EQ(ts_mmlog_close(&m, ORIGIN + 10 * MS + 500000), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "8 # 1504\n9 # 1504\n"));
	CU_ASSERT_PTR_NULL(strstr(cap.buf, "10 # 1504"));
	cap_close(&cap);
	ts_trace_free(t);
}

/* Without --log-drops a drop writes nothing: every mm-throughput-graph reads the log. */
static void test_no_drops(void)
{
	struct ts_mmlog_conf c = conf(NULL, 0);
	struct ts_mmlog m;
	struct capture cap;

	c.drops = false;
	cap_open(&cap);
	TSU_EQ(ts_mmlog_init(&m, cap.f, &c), 0);
	ts_mmlog_arrival(&m, ORIGIN, 1500);
	ts_mmlog_drop(&m, ORIGIN, 1, 1500);
	TSU_EQ(ts_mmlog_close(&m, ORIGIN + MS), 0);
	CU_ASSERT_STRING_EQUAL(events(&cap), "0 + 1504\n");
	cap_close(&cap);
}

/* 6 Mbit/s is 750 bytes per ms: one 1500-byte opportunity every 2 ms, at ms 1, 3, 5. */
static void test_rate_opportunities(void)
{
	struct ts_trace *t = ts_trace_const(6000000);
	struct ts_mmlog_conf c = conf(t, 0);
	struct ts_mmlog m;
	struct capture cap;

	cap_open(&cap);
	TSU_EQ(ts_mmlog_init(&m, cap.f, &c), 0);
	TSU_EQ(ts_mmlog_close(&m, ORIGIN + 6 * MS), 0);
	CU_ASSERT_STRING_EQUAL(events(&cap), "1 # 1504\n3 # 1504\n5 # 1504\n");
	cap_close(&cap);
	ts_trace_free(t);
}

/*
 * A mahimahi trace "1 1 3" (two opportunities at ms 1, one at 3, period
 * 3 ms) replays as written, then loops: pass 2 has 3+1 = 4 (twice) and
 * 3+3 = 6. Up to ms 6 (close at 7 ms): 1, 1, 3, 4, 4, 6.
 */
static void test_mahimahi_opportunities(void)
{
	struct ts_trace_reader *r = ts_trace_read_init("t.mahi", TS_FMT_MAHIMAHI);
	struct ts_trace *down = NULL, *up = NULL;
	struct ts_mmlog_conf c;
	struct ts_mmlog m;
	struct capture cap;
	struct ts_err err;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	TSU_EQ(ts_trace_read_line(r, "1", 1, &err), 0);
	TSU_EQ(ts_trace_read_line(r, "1", 1, &err), 0);
	TSU_EQ(ts_trace_read_line(r, "3", 1, &err), 0);
	TSU_EQ(ts_trace_read_finish(r, &down, &up, &err), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(down);
	c = conf(down, 0);
	cap_open(&cap);
	TSU_EQ(ts_mmlog_init(&m, cap.f, &c), 0);
	TSU_EQ(ts_mmlog_close(&m, ORIGIN + 7 * MS), 0);
	CU_ASSERT_STRING_EQUAL(events(&cap), "1 # 1504\n1 # 1504\n3 # 1504\n4 # 1504\n"
					     "4 # 1504\n6 # 1504\n");
	cap_close(&cap);
	ts_trace_free(down);
}

/*
 * A 20 ms delay line: a departure from the link at ms 30 is only learnt
 * when the packet leaves the delay line at ms 50, after arrivals at ms
 * 40 were logged. lag = 20 ms -> 21 ms: a flush at 45 ms writes what
 * lies before ms 24 (nothing here), so the close still puts the departure
 * first. Unlimited capacity (no trace): no opportunity lines.
 */
static void test_reorder(void)
{
	struct ts_mmlog_conf c = conf(NULL, 20 * MS);
	struct ts_mmlog m;
	struct capture cap;

	cap_open(&cap);
	TSU_EQ(ts_mmlog_init(&m, cap.f, &c), 0);
	ts_mmlog_arrival(&m, ORIGIN + 29 * MS, 1500);
	ts_mmlog_flush(&m, ORIGIN + 29 * MS);
	ts_mmlog_arrival(&m, ORIGIN + 40 * MS, 1000);
	ts_mmlog_flush(&m, ORIGIN + 45 * MS);
	CU_ASSERT_STRING_EQUAL(events(&cap), "");
	ts_mmlog_departure(&m, ORIGIN + 29 * MS, ORIGIN + 30 * MS + 999999, 1500);
	ts_mmlog_flush(&m, ORIGIN + 52 * MS); /* before 52 - 21 = 31: the first two */
	CU_ASSERT_STRING_EQUAL(events(&cap), "29 + 1504\n30 - 1504 1\n");
	TSU_EQ(ts_mmlog_close(&m, ORIGIN + 60 * MS), 0);
	CU_ASSERT_STRING_EQUAL(events(&cap), "29 + 1504\n30 - 1504 1\n40 + 1004\n");
	TSU_EQ(m.out_of_order_risk, 0);
	cap_close(&cap);
}

/* A full ring (64 events here) writes its oldest event early rather than losing any. */
static void test_ring_full(void)
{
	struct ts_mmlog_conf c = conf(NULL, 1000 * MS);
	struct ts_mmlog m;
	struct capture cap;
	int i;

	cap_open(&cap);
	TSU_EQ(ts_mmlog_init(&m, cap.f, &c), 0);
	for (i = 0; i < 70; i++)
		ts_mmlog_arrival(&m, ORIGIN + i * MS, 100);
	/* 70 pushes into 64 slots: 6 went out early, in order. */
	TSU_EQ(m.out_of_order_risk, 6);
	TSU_EQ(m.lines, 6);
	TSU_EQ(ts_mmlog_close(&m, ORIGIN + 70 * MS), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "5 + 104\n6 + 104\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(cap.buf, "69 + 104\n"));
	cap_close(&cap);
}

static const struct tsu_test tests[] = {
	{"header", test_header},
	{"events and opportunities", test_events},
	{"drops only when asked", test_no_drops},
	{"opportunities of a rate", test_rate_opportunities},
	{"opportunities of a mahimahi trace", test_mahimahi_opportunities},
	{"departures after the delay line", test_reorder},
	{"full ring", test_ring_full},
};

TSU_MAIN("mmlog", tests)

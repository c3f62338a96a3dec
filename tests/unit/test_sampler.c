/* SPDX-License-Identifier: MIT */
/*
 * The socket sampler's thread (run/sampler.c) with a made-up dump: what a
 * batch holds, the capacity bound, a sample skipped while the loop holds
 * the last one (the loop never waits), errors, and a stop that does not
 * wait for the next sample. The waits below are bounded polls for the
 * thread's first dump, not sleeps that hope: each fails the test if the
 * thread did not answer within 5 s.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "io/clock.h"
#include "run/sampler.h"
#include "tsu.h"

#define HOUR (3600LL * TS_NSEC_PER_SEC)

struct fake {
	unsigned nsocks; /* sockets each dump reports, ports 1..nsocks */
	int ret;	 /* < 0: fail with it */
};

static int fake_dump(void *ctx, ts_sockdiag_fn cb, void *cb_ctx)
{
	struct fake *f = ctx;
	struct ts_sockstat st;
	unsigned i;

	if (f->ret < 0)
		return f->ret;
	for (i = 0; i < f->nsocks; i++) {
		memset(&st, 0, sizeof(st));
		st.sport = (uint16_t)(i + 1);
		st.dport = 5201;
		cb(cb_ctx, &st);
	}
	return (int)f->nsocks;
}

/* Until @s made @n dumps (true), or 5 s passed (false). */
static bool wait_samples(struct ts_sampler *s, uint64_t n, uint64_t skipped)
{
	struct timespec ms = {0, 1000000};
	int i;

	for (i = 0; i < 5000; i++) {
		struct ts_sampler_counts c = ts_sampler_counts(s);

		if (c.samples >= n && c.skipped >= skipped)
			return true;
		nanosleep(&ms, NULL);
	}
	return false;
}

struct got {
	unsigned calls;
	size_t n, over;
	int ret;
	uint16_t ports[8];
	ts_ns_t t;
};

static void take_fn(void *ctx, const struct ts_sampler_batch *b)
{
	struct got *g = ctx;
	size_t i;

	g->calls++;
	g->n = b->n;
	g->over = b->over;
	g->ret = b->ret;
	g->t = b->t;
	for (i = 0; i < b->n && i < 8; i++)
		g->ports[i] = b->st[i].sport;
}

/* First sample due now, the next in an hour: exactly one batch, taken once. */
static void test_one_batch(void)
{
	struct fake f = {.nsocks = 3};
	struct ts_sampler *s;
	struct ts_err err;
	struct got g = {0};
	ts_ns_t t0 = ts_clock_now();

	TSU_EQ(ts_sampler_start(&s, fake_dump, &f, t0, HOUR, 8, NULL, &err), 0);
	CU_ASSERT_TRUE(wait_samples(s, 1, 0));
	CU_ASSERT_TRUE(ts_sampler_take(s, take_fn, &g));
	TSU_EQ(g.calls, 1);
	TSU_EQ(g.n, 3);
	TSU_EQ(g.over, 0);
	TSU_EQ(g.ret, 3);
	TSU_EQ(g.ports[0], 1);
	TSU_EQ(g.ports[2], 3);
	CU_ASSERT_TRUE(g.t >= t0);
	/* Taken: not handed over a second time. */
	CU_ASSERT_FALSE(ts_sampler_take(s, take_fn, &g));
	TSU_EQ(g.calls, 1);
	/* The next sample is an hour away: stop must not wait for it. */
	ts_sampler_stop(s);
	TSU_EQ(ts_sampler_counts(s).samples, 1);
	TSU_EQ(ts_sampler_counts(s).skipped, 0);
	TSU_EQ(ts_sampler_counts(s).err, 0);
	ts_sampler_free(s);
}

/* 5 sockets, room for 3: 3 kept, 2 counted over, the sample counted truncated. */
static void test_capacity(void)
{
	struct fake f = {.nsocks = 5};
	struct ts_sampler *s;
	struct ts_err err;
	struct got g = {0};

	TSU_EQ(ts_sampler_start(&s, fake_dump, &f, ts_clock_now(), HOUR, 3, NULL, &err), 0);
	CU_ASSERT_TRUE(wait_samples(s, 1, 0));
	ts_sampler_stop(s);
	/* A batch finished before the stop is still there. */
	CU_ASSERT_TRUE(ts_sampler_take(s, take_fn, &g));
	TSU_EQ(g.n, 3);
	TSU_EQ(g.over, 2);
	TSU_EQ(g.ret, 5);
	TSU_EQ(g.ports[2], 3);
	TSU_EQ(ts_sampler_counts(s).truncated, 1);
	ts_sampler_free(s);
}

/*
 * Every 1 ms, and the loop takes nothing: the first batch stays, later
 * samples are skipped, not dumped over it (samples stays 1).
 */
static void test_skipped_while_held(void)
{
	struct fake f = {.nsocks = 2};
	struct ts_sampler *s;
	struct ts_err err;
	struct got g = {0};

	TSU_EQ(ts_sampler_start(&s, fake_dump, &f, ts_clock_now(), TS_NSEC_PER_MSEC, 8, NULL, &err),
	       0);
	CU_ASSERT_TRUE(wait_samples(s, 1, 3));
	ts_sampler_stop(s);
	TSU_EQ(ts_sampler_counts(s).samples, 1);
	CU_ASSERT_TRUE(ts_sampler_counts(s).skipped >= 3);
	CU_ASSERT_TRUE(ts_sampler_take(s, take_fn, &g));
	TSU_EQ(g.n, 2);
	ts_sampler_free(s);
}

/* A failing dump: the batch carries the error, the counts keep the first one. */
static void test_dump_error(void)
{
	struct fake f = {.ret = -EIO};
	struct ts_sampler *s;
	struct ts_err err;
	struct got g = {0};

	TSU_EQ(ts_sampler_start(&s, fake_dump, &f, ts_clock_now(), HOUR, 8, NULL, &err), 0);
	CU_ASSERT_TRUE(wait_samples(s, 1, 0));
	ts_sampler_stop(s);
	CU_ASSERT_TRUE(ts_sampler_take(s, take_fn, &g));
	TSU_EQ(g.ret, -EIO);
	TSU_EQ(g.n, 0);
	TSU_EQ(ts_sampler_counts(s).err, -EIO);
	ts_sampler_free(s);
}

/* Never due before the stop: no dump at all, nothing to take. */
static void test_stop_before_first(void)
{
	struct fake f = {.nsocks = 1};
	struct ts_sampler *s;
	struct ts_err err;
	struct got g = {0};

	TSU_EQ(ts_sampler_start(&s, fake_dump, &f, ts_clock_now() + HOUR, HOUR, 8, NULL, &err), 0);
	ts_sampler_stop(s);
	ts_sampler_stop(s); /* idempotent */
	CU_ASSERT_FALSE(ts_sampler_take(s, take_fn, &g));
	TSU_EQ(ts_sampler_counts(s).samples, 0);
	ts_sampler_free(s);
	ts_sampler_free(NULL);
}

static const struct tsu_test tests[] = {
	{"one batch, taken once", test_one_batch},
	{"capacity bound", test_capacity},
	{"skipped while the loop holds a batch", test_skipped_while_held},
	{"dump error", test_dump_error},
	{"stop before the first sample", test_stop_before_first},
};

TSU_MAIN("sampler", tests)

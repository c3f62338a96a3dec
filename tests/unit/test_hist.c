/* SPDX-License-Identifier: MIT */
/* Delay histogram (hist.c) and descriptor pool (pkt.c). */
#include "tasshape/hist.h"
#include "tasshape/pkt.h"
#include "tsu.h"

/* Values below 128 ns are exact: 1..100, p50 = 50, p99 = 99. */
static void test_exact_small(void)
{
	struct ts_hist h;
	int v;

	ts_hist_init(&h);
	for (v = 1; v <= 100; v++)
		ts_hist_add(&h, v);
	TSU_EQ(h.count, 100);
	TSU_EQ(ts_hist_quantile(&h, 0.5), 50);
	TSU_EQ(ts_hist_quantile(&h, 0.99), 99);
	TSU_EQ(ts_hist_quantile(&h, 1.0), 100);
	TSU_EQ(ts_hist_quantile(&h, 0.0), 1);
	CU_ASSERT_DOUBLE_EQUAL(ts_hist_mean(&h), 50.5, 1e-9);
}

/*
 * Larger values land in buckets 1/64 of their power of two wide: 20 ms
 * (2e7 ns, between 2^24 and 2^25) is in a bucket 2^(24-6) = 262144 ns wide,
 * whose lower bound is floor(2e7 / 262144) * 262144 = 76 * 262144 = 19922944.
 */
static void test_log_buckets(void)
{
	struct ts_hist h;
	int i;

	ts_hist_init(&h);
	for (i = 0; i < 10; i++)
		ts_hist_add(&h, 20000000);
	TSU_EQ(ts_hist_quantile(&h, 0.5), 20000000); /* clamped to min: all samples equal */
	ts_hist_add(&h, 10000000);
	ts_hist_add(&h, 40000000);
	/* 12 samples: rank ceil(0.5 * 12) = 6 falls in the 20 ms bucket. */
	TSU_EQ(ts_hist_quantile(&h, 0.5), 19922944);
	TSU_EQ(ts_hist_quantile(&h, 1.0), 40000000);
	TSU_EQ(ts_hist_quantile(&h, 0.01), 10000000);
	/* The largest representable value does not overflow the table. */
	ts_hist_add(&h, TS_NEVER);
	TSU_EQ(ts_hist_quantile(&h, 1.0), TS_NEVER);
}

static void test_pool(void)
{
	struct ts_pool pool;
	struct ts_pkt *a, *b, *c;

	CU_ASSERT_EQUAL_FATAL(ts_pool_init(&pool, 2), 0);
	a = ts_pool_get(&pool);
	b = ts_pool_get(&pool);
	c = ts_pool_get(&pool);
	CU_ASSERT_PTR_NOT_NULL(a);
	CU_ASSERT_PTR_NOT_NULL(b);
	CU_ASSERT_PTR_NULL(c); /* exhausted: the caller must drop and count */
	TSU_EQ(pool.used, 2);
	ts_pool_put(&pool, a);
	CU_ASSERT_PTR_EQUAL(ts_pool_get(&pool), a);
	ts_pool_put(&pool, a);
	ts_pool_put(&pool, b);
	TSU_EQ(pool.used, 0);
	ts_pool_fini(&pool);
}

static const struct tsu_test tests[] = {
	{"exact below 128 ns", test_exact_small},
	{"log-linear buckets", test_log_buckets},
	{"descriptor pool", test_pool},
};

TSU_MAIN("hist", tests)

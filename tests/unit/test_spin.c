/* SPDX-License-Identifier: MIT */
/* The poll spin's CPU bound (run/spin.c): a quarter of one CPU, 1 ms of burst. */
#include "run/spin.h"
#include "tsu.h"

#define US 1000LL

/* A full bucket holds 1 ms of polling: 33 spins of 30 us (990 us), not 34. */
static void test_burst(void)
{
	struct ts_spin s;
	int i;

	ts_spin_init(&s, 0);
	for (i = 0; i < 33; i++)
		CU_ASSERT_TRUE(ts_spin_take(&s, 0, 30 * US));
	CU_ASSERT_FALSE(ts_spin_take(&s, 0, 30 * US)); /* 10 us left */
	CU_ASSERT_TRUE(ts_spin_take(&s, 0, 10 * US));
	CU_ASSERT_FALSE(ts_spin_take(&s, 0, 1)); /* empty */
	TSU_EQ(s.credit, 0);
}

/*
 * Empty, a quarter of the time that passes comes back: 120 us buy 30 us,
 * and a spin of 30 us every 120 us is sustained forever; every 119.999 us
 * is not (the first one already fails).
 */
static void test_share(void)
{
	struct ts_spin s;
	ts_ns_t t = 0;
	int i, ok = 0;

	ts_spin_init(&s, 0);
	CU_ASSERT_TRUE(ts_spin_take(&s, 0, 1000 * US)); /* the whole burst */
	for (i = 0; i < 1000; i++) {
		t += 120 * US;
		ok += ts_spin_take(&s, t, 30 * US);
	}
	TSU_EQ(ok, 1000);
	TSU_EQ(s.credit, 0);
	t += 120 * US - 1;
	CU_ASSERT_FALSE(ts_spin_take(&s, t, 30 * US));
	TSU_EQ(s.credit, 120 * US - 1);
	/* Polling 10 s flat out: at most the burst plus a quarter, 1 ms + 2.5 s. */
	ts_spin_init(&s, 0);
	for (t = 0, ok = 0; t < 10000000 * US; t += US)
		ok += ts_spin_take(&s, t, US);
	TSU_EQ(ok, 1000 + 2500000 - 1); /* the last quarter-step's credit is still accruing */
}

/* A long idle gap fills the bucket to 1 ms, not more, and does not overflow. */
static void test_cap(void)
{
	struct ts_spin s;
	int i;

	ts_spin_init(&s, 0);
	CU_ASSERT_TRUE(ts_spin_take(&s, 0, 1000 * US));
	for (i = 0; i < 33; i++)
		CU_ASSERT_TRUE(ts_spin_take(&s, INT64_MAX / 2, 30 * US));
	CU_ASSERT_FALSE(ts_spin_take(&s, INT64_MAX / 2, 30 * US));
}

/* Time going backwards earns nothing; a wait beyond the burst or below zero. */
static void test_edges(void)
{
	struct ts_spin s;

	ts_spin_init(&s, 5000 * US);
	CU_ASSERT_TRUE(ts_spin_take(&s, 5000 * US, 1000 * US));
	CU_ASSERT_FALSE(ts_spin_take(&s, 0, 1));
	TSU_EQ(s.last, 5000 * US);
	CU_ASSERT_TRUE(ts_spin_take(&s, 5000 * US, -5)); /* a deadline already past: free */
	ts_spin_init(&s, 0);
	CU_ASSERT_FALSE(ts_spin_take(&s, 0, 1000 * US + 1));
	TSU_EQ(s.credit, 4000 * US);
}

static const struct tsu_test tests[] = {
	{"a full bucket holds 1 ms of polling", test_burst},
	{"a quarter of elapsed time comes back", test_share},
	{"idle fills the bucket to 1 ms at most", test_cap},
	{"time backwards, waits beyond the burst or past", test_edges},
};

TSU_MAIN("spin", tests)

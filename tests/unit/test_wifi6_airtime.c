/* SPDX-License-Identifier: MIT */
/*
 * mac80211's airtime deficit round robin and AQL as the Wi-Fi model's
 * access point uses them (wifi6_airtime.c), with made-up airtimes and
 * every deficit worked out by hand in the comments.
 */
#include <stdlib.h>

#include "tasshape/wifi6_airtime.h"
#include "tsu.h"

#define US TS_NSEC_PER_USEC
#define MS TS_NSEC_PER_MSEC

static void init(struct ts_airtime *a, unsigned int n, uint32_t flags, bool aql)
{
	struct ts_airtime_conf c;

	ts_airtime_conf_init(&c);
	c.flags = flags;
	c.aql = aql;
	ts_airtime_init(a, n, &c);
}

/* The kernel's constants (include/net/cfg80211.h) are the defaults. */
static void test_defaults(void)
{
	struct ts_airtime a;

	init(&a, 2, TS_AIRTIME_USE_TX | TS_AIRTIME_USE_RX, false);
	TSU_EQ(a.conf.weight_us, 256);
	TSU_EQ(a.conf.aql_low_us, 5000);
	TSU_EQ(a.conf.aql_high_us, 12000);
	TSU_EQ(a.conf.aql_threshold_us, 24000);
	TSU_EQ(a.sta[0].deficit, 256 * US);
	TSU_EQ(a.sta[1].deficit, 256 * US);
	CU_ASSERT_EQUAL(ts_airtime_next(&a), -1); /* nobody queued */
}

/*
 * Without airtime fairness, a plain round robin: stations join at the
 * back and go back to the back, whatever airtime they used.
 */
static void test_round_robin(void)
{
	struct ts_airtime a;
	int order[6], i;

	init(&a, 2, 0, false);
	ts_airtime_schedule(&a, 0, 0);
	ts_airtime_schedule(&a, 1, 0);
	for (i = 0; i < 6; i++) {
		order[i] = ts_airtime_next(&a);
		ts_airtime_register(&a, (unsigned int)order[i], (order[i] ? 4000 : 100) * US, 0,
				    i * MS);
		ts_airtime_return(&a, (unsigned int)order[i], true, i * MS);
	}
	TSU_EQ(order[0], 0);
	TSU_EQ(order[1], 1);
	TSU_EQ(order[2], 0);
	TSU_EQ(order[3], 1);
	TSU_EQ(order[4], 0);
	TSU_EQ(order[5], 1);
	TSU_EQ(a.sta[1].deficit, 256 * US); /* no flags: never charged */
	TSU_EQ(a.sta[1].tx_airtime, 12000 * US);
}

/*
 * Airtime fairness (AIRTIME_USE_TX), weight 256 us, both stations with
 * frames. Joining with flags puts a station at the front: list [1, 0].
 * 1. next: 1 (deficit 256 >= 0); it used 1000 us: 256 - 1000 = -744;
 *    back at the front: [1, 0].
 * 2. next: 1 is negative: +256 -> -488, to the back; 0 (256): served.
 *    It used 1000 us too: -744. List [0, 1].
 * 3. next: 0: -744 + 256 = -488, back; 1: -488 + 256 = -232, back; 0
 *    again (the head, someone was eligible): -232; 1: -232 + 256 = 24,
 *    back; 0: -232 + 256 = 24, back; 1: 24 >= 0: served.
 */
static void test_drr_by_hand(void)
{
	struct ts_airtime a;

	init(&a, 2, TS_AIRTIME_USE_TX, false);
	ts_airtime_schedule(&a, 0, 0);
	ts_airtime_schedule(&a, 1, 0);
	TSU_EQ(a.list[0], 1);
	TSU_EQ(ts_airtime_next(&a), 1);
	ts_airtime_return(&a, 1, true, 0);
	ts_airtime_register(&a, 1, 1000 * US, 0, 1 * MS);
	TSU_EQ(a.sta[1].deficit, -744 * US);
	TSU_EQ(ts_airtime_next(&a), 0);
	TSU_EQ(a.sta[1].deficit, -488 * US);
	ts_airtime_return(&a, 0, true, 1 * MS);
	ts_airtime_register(&a, 0, 1000 * US, 0, 2 * MS);
	TSU_EQ(a.sta[0].deficit, -744 * US);
	TSU_EQ(ts_airtime_next(&a), 1);
	TSU_EQ(a.sta[0].deficit, 24 * US);
	TSU_EQ(a.sta[1].deficit, 24 * US);
	TSU_EQ(a.nlist, 1);
	TSU_EQ(a.list[0], 0);
}

/*
 * A station served and still owed airtime stays at the front: with 100 us
 * A-MPDUs, 256 us lasts three of them (256, 156, 56, then -44).
 */
static void test_drr_quantum(void)
{
	struct ts_airtime a;
	int order[5], i;

	init(&a, 2, TS_AIRTIME_USE_TX, false);
	ts_airtime_schedule(&a, 1, 0);
	ts_airtime_schedule(&a, 0, 0);
	for (i = 0; i < 5; i++) {
		order[i] = ts_airtime_next(&a);
		ts_airtime_return(&a, (unsigned int)order[i], true, 0);
		ts_airtime_register(&a, (unsigned int)order[i], 100 * US, 0, 0);
	}
	TSU_EQ(order[0], 0);
	TSU_EQ(order[1], 0);
	TSU_EQ(order[2], 0);
	TSU_EQ(order[3], 1); /* 0 at -44: +256 = 212, to the back */
	TSU_EQ(order[4], 1);
	TSU_EQ(a.sta[0].deficit, 212 * US);
	TSU_EQ(a.sta[1].deficit, 56 * US);
}

/*
 * Unequal A-MPDUs (250 us and 1000 us): over 2000 grants each station gets
 * the same airtime within one A-MPDU plus one quantum (1256 us), and the
 * deficit is what was granted minus what was used.
 */
static void test_drr_long_run(void)
{
	ts_ns_t cost[2] = {250 * US, 1000 * US}, used[2] = {0, 0};
	struct ts_airtime a;
	int i, served[2] = {0, 0};

	init(&a, 2, TS_AIRTIME_USE_TX, false);
	ts_airtime_schedule(&a, 0, 0);
	ts_airtime_schedule(&a, 1, 0);
	for (i = 0; i < 2000; i++) {
		int k = ts_airtime_next(&a);

		CU_ASSERT_FATAL(k == 0 || k == 1);
		ts_airtime_return(&a, (unsigned int)k, true, 0);
		ts_airtime_register(&a, (unsigned int)k, cost[k], 0, 0);
		used[k] += cost[k];
		served[k]++;
	}
	CU_ASSERT(llabs(used[0] - used[1]) <= 1256 * US);
	CU_ASSERT(served[0] > 3 * served[1]);
	TSU_EQ(a.sta[0].tx_airtime, used[0]);
	TSU_EQ((a.sta[0].deficit + used[0] - 256 * US) % (256 * US), 0);
}

/* AIRTIME_USE_RX charges what a station sent, AIRTIME_USE_TX what it was sent. */
static void test_register_flags(void)
{
	struct ts_airtime a;

	init(&a, 1, TS_AIRTIME_USE_RX, false);
	ts_airtime_schedule(&a, 0, 0);
	ts_airtime_register(&a, 0, 1000 * US, 0, 0);
	TSU_EQ(a.sta[0].deficit, 256 * US);
	ts_airtime_register(&a, 0, 0, 500 * US, 0);
	TSU_EQ(a.sta[0].deficit, -244 * US);
	TSU_EQ(a.sta[0].tx_airtime, 1000 * US);
	TSU_EQ(a.sta[0].rx_airtime, 500 * US);
	init(&a, 1, TS_AIRTIME_USE_TX | TS_AIRTIME_USE_RX, false);
	ts_airtime_schedule(&a, 0, 0);
	ts_airtime_register(&a, 0, 100 * US, 50 * US, 0);
	TSU_EQ(a.sta[0].deficit, 106 * US);
}

/* Charged only while active: within 100 ms (inclusive) of having frames queued. */
static void test_keep_active(void)
{
	struct ts_airtime a;

	init(&a, 1, TS_AIRTIME_USE_TX, false);
	ts_airtime_register(&a, 0, 100 * US, 0, 0); /* never active */
	TSU_EQ(a.sta[0].deficit, 256 * US);
	ts_airtime_schedule(&a, 0, 10 * MS);
	ts_airtime_register(&a, 0, 100 * US, 0, 110 * MS);
	TSU_EQ(a.sta[0].deficit, 156 * US);
	ts_airtime_register(&a, 0, 100 * US, 0, 110 * MS + 1);
	TSU_EQ(a.sta[0].deficit, 156 * US);
	/* Returned empty with a negative deficit while active: kept listed to be refilled. */
	TSU_EQ(ts_airtime_next(&a), 0);
	ts_airtime_register(&a, 0, 300 * US, 0, 20 * MS);
	ts_airtime_return(&a, 0, false, 20 * MS);
	TSU_EQ(a.nlist, 1);
	TSU_EQ(ts_airtime_next(&a), 0); /* -144 + 256 = 112 */
	TSU_EQ(a.sta[0].deficit, 112 * US);
	ts_airtime_return(&a, 0, false, 20 * MS);
	TSU_EQ(a.nlist, 0); /* not owed anything: off the list */
}

/*
 * AQL: below 5000 us pending always; up to 12000 us while all stations
 * together are below 24000 us.
 */
static void test_aql(void)
{
	struct ts_airtime a;

	init(&a, 3, 0, true);
	ts_airtime_pending(&a, 0, 4999 * US);
	CU_ASSERT(ts_airtime_aql_ok(&a, 0));
	ts_airtime_pending(&a, 0, 6000 * US);
	CU_ASSERT(ts_airtime_aql_ok(&a, 0)); /* 10999 < 12000, total 10999 < 24000 */
	ts_airtime_pending(&a, 0, 1001 * US);
	CU_ASSERT(!ts_airtime_aql_ok(&a, 0)); /* 12000 */
	ts_airtime_pending(&a, 0, -1000 * US);
	ts_airtime_pending(&a, 1, 13000 * US);
	TSU_EQ(a.total_pending, 24000 * US);
	CU_ASSERT(!ts_airtime_aql_ok(&a, 0)); /* 11000, but the total is at the threshold */
	CU_ASSERT(ts_airtime_aql_ok(&a, 2));  /* 0 < 5000 */
	ts_airtime_pending(&a, 1, -1 * US);
	CU_ASSERT(ts_airtime_aql_ok(&a, 0));
	init(&a, 1, 0, false);
	ts_airtime_pending(&a, 0, 50000 * US);
	CU_ASSERT(ts_airtime_aql_ok(&a, 0)); /* AQL off */
}

/*
 * The scheduler skips a station AQL holds (to the back) and returns -1
 * when it holds them all; the deficit it compares is deficit - pending.
 */
static void test_next_aql(void)
{
	struct ts_airtime a;

	init(&a, 2, TS_AIRTIME_USE_TX, true);
	ts_airtime_schedule(&a, 1, 0);
	ts_airtime_schedule(&a, 0, 0); /* [0, 1] */
	ts_airtime_pending(&a, 0, 12000 * US);
	TSU_EQ(ts_airtime_next(&a), 1);
	TSU_EQ(a.sta[0].deficit, 512 * US); /* 256 - 12000 < 0 compared: +256 */
	ts_airtime_return(&a, 1, true, 0);
	ts_airtime_pending(&a, 1, 12000 * US);
	TSU_EQ(ts_airtime_next(&a), -1);
	TSU_EQ(a.nlist, 2);
}

static const struct tsu_test tests[] = {
	{"the kernel's constants", test_defaults},
	{"round robin without airtime_flags", test_round_robin},
	{"deficit round robin by hand", test_drr_by_hand},
	{"a quantum lasts several A-MPDUs", test_drr_quantum},
	{"equal airtime over a long run", test_drr_long_run},
	{"AIRTIME_USE_TX and AIRTIME_USE_RX", test_register_flags},
	{"charged only while active", test_keep_active},
	{"aql_txq_limit and aql_threshold", test_aql},
	{"the scheduler and AQL", test_next_aql},
};

TSU_MAIN("wifi6_airtime", tests)

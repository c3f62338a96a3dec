/* SPDX-License-Identifier: MIT */
/* The real-time priority a thread without CAP_SYS_NICE asks for (run/rt.h). */
#include "run/rt.h"
#include "tsu.h"

/* A limit at or above the priority wanted: the priority wanted. */
static void test_enough(void)
{
	TSU_EQ(ts_rt_within(10, 10), 10);
	TSU_EQ(ts_rt_within(10, 99), 10);
	TSU_EQ(ts_rt_within(1, 1), 1);
	TSU_EQ(ts_rt_within(10, ~0ULL), 10); /* RLIM_INFINITY */
}

/* A lower limit: the limit, the highest priority the kernel grants without CAP_SYS_NICE. */
static void test_below(void)
{
	TSU_EQ(ts_rt_within(10, 5), 5);
	TSU_EQ(ts_rt_within(10, 9), 9);
	TSU_EQ(ts_rt_within(99, 1), 1);
}

/* RLIMIT_RTPRIO 0, or nothing wanted: no real-time priority at all. */
static void test_none(void)
{
	TSU_EQ(ts_rt_within(10, 0), 0);
	TSU_EQ(ts_rt_within(0, 10), 0);
	TSU_EQ(ts_rt_within(-1, 10), 0);
}

static const struct tsu_test tests[] = {
	{"limit enough", test_enough},
	{"limit below", test_below},
	{"limit 0", test_none},
};

TSU_MAIN("rt", tests)

/* SPDX-License-Identifier: MIT */
/* The CPUs' idle share from /proc/stat (run/cpustat.c), on made-up counters. */
#include <errno.h>

#include "run/cpustat.h"
#include "tsu.h"

/*
 * Linux 6.1's first line: user nice system idle iowait irq softirq steal guest guest_nice.
 * idle = 9000 + 100 = 9100; total = 500 + 20 + 300 + 9000 + 100 + 30 + 50 + 0 = 10000
 * (guest time is inside user and nice already).
 */
static void test_parse(void)
{
	struct ts_cpustat c;

	TSU_EQ(ts_cpustat_parse("cpu  500 20 300 9000 100 30 50 0 7 0\ncpu0 1 2 3\n", &c), 0);
	TSU_EQ(c.idle, 9100);
	TSU_EQ(c.total, 10000);
	/* Eight fields are enough (old kernels); fewer, a per-CPU line or text are not. */
	TSU_EQ(ts_cpustat_parse("cpu 1 2 3 4 5 6 7 8", &c), 0);
	TSU_EQ(c.idle, 9);
	TSU_EQ(c.total, 36);
	TSU_EQ(ts_cpustat_parse("cpu 1 2 3 4 5 6 7", &c), -EINVAL);
	TSU_EQ(ts_cpustat_parse("cpu0 1 2 3 4 5 6 7 8", &c), -EINVAL);
	TSU_EQ(ts_cpustat_parse("cpu 1 2 x 4 5 6 7 8", &c), -EINVAL);
	TSU_EQ(ts_cpustat_parse("", &c), -EINVAL);
	TSU_EQ(ts_cpustat_parse("cpu 99999999999999999999999 2 3 4 5 6 7 8", &c), -EINVAL);
}

/* 100 ticks of which 39 idle: 390 permille; 1 of 101 rounds down to 9; no tick: -1. */
static void test_permille(void)
{
	struct ts_cpustat a = {.idle = 1000, .total = 5000}, b = {.idle = 1039, .total = 5100};

	TSU_EQ(ts_cpustat_idle_permille(&a, &b), 390);
	b = (struct ts_cpustat){.idle = 1001, .total = 5101};
	TSU_EQ(ts_cpustat_idle_permille(&a, &b), 9);
	TSU_EQ(ts_cpustat_idle_permille(&a, &a), -1);
	b = (struct ts_cpustat){.idle = 999, .total = 5100};
	TSU_EQ(ts_cpustat_idle_permille(&a, &b), -1);
	b = (struct ts_cpustat){.idle = 1200, .total = 5100};
	TSU_EQ(ts_cpustat_idle_permille(&a, &b), -1);
}

static const struct tsu_test tests[] = {
	{"the aggregate line of /proc/stat", test_parse},
	{"idle share of an interval", test_permille},
};

TSU_MAIN("cpustat", tests)

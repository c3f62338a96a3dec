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
	TSU_EQ(c.steal, 0);
	TSU_EQ(ts_cpustat_parse("cpu  500 20 300 9000 100 30 50 25 7 0\n", &c), 0);
	TSU_EQ(c.steal, 25);
	TSU_EQ(c.total, 10025);
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
	/*
	 * The idler's ticks (precise) against /proc/stat's (sampled) can put idle a tick or two
	 * above the total: up to 2% over is all idle, 101 of 100 here.
	 */
	b = (struct ts_cpustat){.idle = 1101, .total = 5100};
	TSU_EQ(ts_cpustat_idle_permille(&a, &b), 1000);
	b = (struct ts_cpustat){.idle = 1103, .total = 5100};
	TSU_EQ(ts_cpustat_idle_permille(&a, &b), -1);
}

/*
 * Steal at 100 ticks per second: 31 ticks are 310 ms, 1 tick 10 ms; at 250, 31 ticks are 124
 * ms; a counter that went backwards or no tick rate: -1.
 */
static void test_steal_ms(void)
{
	struct ts_cpustat a = {.steal = 1000}, b = {.steal = 1031};

	TSU_EQ(ts_cpustat_steal_ms(&a, &b, 100), 310);
	TSU_EQ(ts_cpustat_steal_ms(&a, &b, 250), 124);
	TSU_EQ(ts_cpustat_steal_ms(&a, &a, 100), 0);
	b.steal = 1001;
	TSU_EQ(ts_cpustat_steal_ms(&a, &b, 100), 10);
	TSU_EQ(ts_cpustat_steal_ms(&b, &a, 100), -1);
	TSU_EQ(ts_cpustat_steal_ms(&a, &b, 0), -1);
}

/*
 * /proc/PID/stat: utime (field 14) 250 + stime (15) 3 = 253 ticks, counted from the name's
 * last ')', which may itself hold spaces and parentheses.
 */
static void test_pid_ticks(void)
{
	uint64_t t = 0;

	TSU_EQ(ts_cpustat_pid_ticks("123 (tasshape-idle) R 1 1 1 0 -1 4194304 100 0 0 0 250 3 0 0 "
				    "39 19 1 0 64 0\n",
				    &t),
	       0);
	TSU_EQ(t, 253);
	TSU_EQ(ts_cpustat_pid_ticks("7 (a) b (c)) S 1 1 1 0 -1 0 0 0 0 0 11 22 0 0 20 0 1 0", &t),
	       0);
	TSU_EQ(t, 33);
	TSU_EQ(ts_cpustat_pid_ticks("7 (a) S 1 1 1 0 -1 0 0 0 0 0 11", &t), -EINVAL);
	TSU_EQ(ts_cpustat_pid_ticks("7 a S 1 1 1 0 -1 0 0 0 0 0 11 22", &t), -EINVAL);
	TSU_EQ(ts_cpustat_pid_ticks("7 (a) S 1 1 1 0 -1 0 0 0 0 0 x 22", &t), -EINVAL);
}

static const struct tsu_test tests[] = {
	{"the aggregate line of /proc/stat", test_parse},
	{"idle share of an interval", test_permille},
	{"steal time of an interval, in milliseconds", test_steal_ms},
	{"a process's CPU ticks from /proc/PID/stat", test_pid_ticks},
};

TSU_MAIN("cpustat", tests)

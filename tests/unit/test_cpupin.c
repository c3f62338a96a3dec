/* SPDX-License-Identifier: MIT */
/* The loop's CPU and the deliveries' mask (run/cpupin.c), with made-up CPU sets. */
#include <errno.h>
#include <string.h>

#include "run/cpupin.h"
#include "tsu.h"

static void set_of(cpu_set_t *s, const int *cpus, int n)
{
	int i;

	CPU_ZERO(s);
	for (i = 0; i < n; i++)
		CPU_SET(cpus[i], s);
}

/* The highest allowed CPU for the loop, the rest for the deliveries; fewer than two: no pin. */
static void test_choose(void)
{
	static const int two[] = {0, 1}, gaps[] = {1, 4, 6}, one[] = {3};
	cpu_set_t a, o;

	set_of(&a, two, 2);
	TSU_EQ(ts_cpupin_choose(&a, -1, &o), 1);
	TSU_EQ(CPU_COUNT(&o), 1);
	CU_ASSERT_TRUE(CPU_ISSET(0, &o));
	/* A cpuset of 1, 4 and 6 (taskset, a container): 6 for the loop, 1 and 4 the others. */
	set_of(&a, gaps, 3);
	TSU_EQ(ts_cpupin_choose(&a, -1, &o), 6);
	TSU_EQ(CPU_COUNT(&o), 2);
	CU_ASSERT_TRUE(CPU_ISSET(1, &o) && CPU_ISSET(4, &o));
	set_of(&a, one, 1);
	TSU_EQ(ts_cpupin_choose(&a, -1, &o), -ERANGE);
	TSU_EQ(CPU_COUNT(&o), 0);
	TSU_EQ(ts_cpupin_choose(&a, 3, &o), -ERANGE);
	CPU_ZERO(&a);
	TSU_EQ(ts_cpupin_choose(&a, -1, &o), -ERANGE);
}

/* --shaper-cpu N: that CPU, the others around it; one the process may not use is refused. */
static void test_choose_asked(void)
{
	static const int gaps[] = {1, 4, 6};
	cpu_set_t a, o;

	set_of(&a, gaps, 3);
	TSU_EQ(ts_cpupin_choose(&a, 4, &o), 4);
	TSU_EQ(CPU_COUNT(&o), 2);
	CU_ASSERT_TRUE(CPU_ISSET(1, &o) && CPU_ISSET(6, &o));
	TSU_EQ(ts_cpupin_choose(&a, 1, &o), 1);
	CU_ASSERT_TRUE(CPU_ISSET(4, &o) && CPU_ISSET(6, &o) && !CPU_ISSET(1, &o));
	TSU_EQ(ts_cpupin_choose(&a, 5, &o), -ENOENT);
	TSU_EQ(CPU_COUNT(&o), 0);
	TSU_EQ(ts_cpupin_choose(&a, CPU_SETSIZE, &o), -ENOENT);
}

/* The bitmap text the kernel parses for rps_cpus: hex, 32-bit groups, highest first. */
static void test_hex(void)
{
	static const int cpu0[] = {0}, lo[] = {0, 1, 2, 3, 4}, wide[] = {0, 33}, high[] = {40};
	cpu_set_t s;
	char buf[64];

	set_of(&s, cpu0, 1);
	TSU_EQ(ts_cpumask_hex(&s, buf, sizeof(buf)), 1);
	CU_ASSERT_STRING_EQUAL(buf, "1");
	set_of(&s, lo, 5);
	TSU_EQ(ts_cpumask_hex(&s, buf, sizeof(buf)), 2);
	CU_ASSERT_STRING_EQUAL(buf, "1f");
	/* CPUs 0 and 33: group 1 is 0x2, group 0 is 0x1, padded to 8 digits after the comma. */
	set_of(&s, wide, 2);
	TSU_EQ(ts_cpumask_hex(&s, buf, sizeof(buf)), 10);
	CU_ASSERT_STRING_EQUAL(buf, "2,00000001");
	set_of(&s, high, 1);
	TSU_EQ(ts_cpumask_hex(&s, buf, sizeof(buf)), 12);
	CU_ASSERT_STRING_EQUAL(buf, "100,00000000");
	CPU_ZERO(&s);
	TSU_EQ(ts_cpumask_hex(&s, buf, sizeof(buf)), 1);
	CU_ASSERT_STRING_EQUAL(buf, "0");
	/* Too small a buffer: an error and an empty string, never a cut mask. */
	set_of(&s, wide, 2);
	TSU_EQ(ts_cpumask_hex(&s, buf, 10), -ENOSPC);
	CU_ASSERT_STRING_EQUAL(buf, "");
	TSU_EQ(ts_cpumask_hex(&s, buf, 0), -ENOSPC);
}

/* The list people read: single CPUs and ranges, as taskset -c takes them. */
static void test_list(void)
{
	static const int gaps[] = {0, 1, 2, 3, 6, 8, 9}, one[] = {0};
	cpu_set_t s;
	char buf[32];

	set_of(&s, gaps, 7);
	TSU_EQ(ts_cpulist(&s, buf, sizeof(buf)), 9);
	CU_ASSERT_STRING_EQUAL(buf, "0-3,6,8-9");
	set_of(&s, one, 1);
	TSU_EQ(ts_cpulist(&s, buf, sizeof(buf)), 1);
	CU_ASSERT_STRING_EQUAL(buf, "0");
	CPU_ZERO(&s);
	TSU_EQ(ts_cpulist(&s, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "");
	set_of(&s, gaps, 7);
	TSU_EQ(ts_cpulist(&s, buf, 9), -ENOSPC);
	CU_ASSERT_STRING_EQUAL(buf, "");
}

static const struct tsu_test tests[] = {
	{"the loop's CPU and the others", test_choose},
	{"the CPU --shaper-cpu asks for", test_choose_asked},
	{"rps_cpus bitmap text", test_hex},
	{"CPU lists", test_list},
};

TSU_MAIN("cpupin", tests)

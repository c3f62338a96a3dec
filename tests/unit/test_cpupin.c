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

/* A set of CPUs and its two texts: the kernel's bitmap for rps_cpus, and the list people read. */
struct text_case {
	int cpus[8], n;
	const char *hex, *list;
};

static const struct text_case texts[] = {
	{{0}, 1, "1", "0"},
	{{0, 1, 2, 3, 4}, 5, "1f", "0-4"},
	/* CPUs 0 and 33: group 1 is 0x2, group 0 is 0x1, padded to 8 digits after the comma. */
	{{0, 33}, 2, "2,00000001", "0,33"},
	{{40}, 1, "100,00000000", "40"},
	{{0, 1, 2, 3, 6, 8, 9}, 7, "34f", "0-3,6,8-9"},
	{{0}, 0, "0", ""},
};

/* Each case's two texts, their lengths, and a buffer one byte short: an error, never a cut text. */
static void test_texts(void)
{
	cpu_set_t s;
	char buf[64];
	size_t i, n;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		set_of(&s, texts[i].cpus, texts[i].n);
		n = strlen(texts[i].hex);
		TSU_EQ(ts_cpumask_hex(&s, buf, sizeof(buf)), (int)n);
		CU_ASSERT_STRING_EQUAL(buf, texts[i].hex);
		TSU_EQ(ts_cpumask_hex(&s, buf, n), -ENOSPC);
		CU_ASSERT_STRING_EQUAL(buf, "");
		n = strlen(texts[i].list);
		TSU_EQ(ts_cpulist(&s, buf, sizeof(buf)), (int)n);
		CU_ASSERT_STRING_EQUAL(buf, texts[i].list);
		if (n)
			TSU_EQ(ts_cpulist(&s, buf, n), -ENOSPC);
	}
	TSU_EQ(ts_cpumask_hex(&s, buf, 0), -ENOSPC);
	TSU_EQ(ts_cpulist(&s, buf, 0), -ENOSPC);
	/* Every CPU there can be fits TS_CPUMASK_HEX_MAX exactly, its NUL included. */
	for (i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &s);
	{
		char all[TS_CPUMASK_HEX_MAX];

		TSU_EQ(ts_cpumask_hex(&s, all, sizeof(all)), TS_CPUMASK_HEX_MAX - 1);
		TSU_EQ(ts_cpumask_hex(&s, all, sizeof(all) - 1), -ENOSPC);
	}
}

static const struct tsu_test tests[] = {
	{"the loop's CPU and the others", test_choose},
	{"the CPU --shaper-cpu asks for", test_choose_asked},
	{"rps_cpus bitmap text and CPU lists", test_texts},
};

TSU_MAIN("cpupin", tests)

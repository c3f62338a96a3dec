/* SPDX-License-Identifier: MIT */
/* The kernel's preemption model (run/preempt.c), from made-up version, command line, debugfs and configuration texts. */
#include <stddef.h>

#include "run/preempt.h"
#include "tsu.h"

#define DYN "#1 SMP PREEMPT_DYNAMIC Debian 6.12.57-1 (2025-11-05)"
#define CFG_NONE                                                                                   \
	"CONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT_NONE=y\n# CONFIG_PREEMPT is not "                  \
	"set\nCONFIG_PREEMPT_DYNAMIC=y\n"

static const struct {
	struct ts_preempt_src src;
	enum ts_preempt want;
	const char *from;
} cases[] = {
	/* debugfs names the model in force, whatever the rest says. */
	{{DYN, "preempt=none", "none voluntary (full) lazy\n", CFG_NONE},
	 TS_PREEMPT_FULL,
	 "debugfs"},
	{{DYN, NULL, "(none) voluntary full lazy\n", NULL}, TS_PREEMPT_NONE, "debugfs"},
	/* Not readable (locked down, not mounted): the boot parameter, the last one. */
	{{DYN, "ro quiet preempt=voluntary preempt=full", "", CFG_NONE},
	 TS_PREEMPT_FULL,
	 "preempt= on the kernel's command line"},
	/* An unknown value is ignored, and so is what follows "--" (init's arguments). */
	{{DYN, "preempt=fastest", NULL, CFG_NONE},
	 TS_PREEMPT_NONE,
	 "the kernel's configuration, its default"},
	{{DYN, "quiet -- preempt=full", NULL, CFG_NONE},
	 TS_PREEMPT_NONE,
	 "the kernel's configuration, its default"},
	/* A kernel that is not dynamic takes no preempt=. */
	{{"#1 SMP Debian 5.10.0", "preempt=full", NULL, "CONFIG_PREEMPT_VOLUNTARY=y\n"},
	 TS_PREEMPT_VOLUNTARY,
	 "the kernel's configuration"},
	{{DYN, "", NULL, "CONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT=y\nCONFIG_PREEMPT_COUNT=y\n"},
	 TS_PREEMPT_FULL,
	 "the kernel's configuration, its default"},
	{{DYN, "", NULL, "CONFIG_ARCH_HAS_PREEMPT_LAZY=y\nCONFIG_PREEMPT_LAZY=y\n"},
	 TS_PREEMPT_LAZY,
	 "the kernel's configuration, its default"},
	/* PREEMPT_RT in the version wins; PREEMPT alone there means full; nothing: unknown. */
	{{"#1 SMP PREEMPT_RT Debian 6.12", NULL, "(none) voluntary full lazy", NULL},
	 TS_PREEMPT_RT,
	 "the kernel's version"},
	{{"#1 SMP PREEMPT Thu Jan 1", NULL, NULL, NULL}, TS_PREEMPT_FULL, "the kernel's version"},
	{{"#1 SMP PREEMPTX", NULL, NULL, "# CONFIG_PREEMPT_NONE is not set\n"},
	 TS_PREEMPT_UNKNOWN,
	 "nothing recognised"},
	{{NULL, NULL, NULL, NULL}, TS_PREEMPT_UNKNOWN, "nothing recognised"},
	/* A value in parentheses that is no model, and a half-open one: not debugfs's. */
	{{"#1 SMP", NULL, "none (fast", "CONFIG_PREEMPT_NONE=y"},
	 TS_PREEMPT_NONE,
	 "the kernel's configuration"},
	{{"#1 SMP", NULL, "none (fast) lazy", "CONFIG_PREEMPT_VOLUNTARY=y"},
	 TS_PREEMPT_VOLUNTARY,
	 "the kernel's configuration"},
};

static void test_parse(void)
{
	const char *from;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		from = NULL;
		TSU_EQ(ts_preempt_parse(&cases[i].src, &from), cases[i].want);
		CU_ASSERT_STRING_EQUAL(from, cases[i].from);
	}
	TSU_EQ(ts_preempt_parse(&cases[0].src, NULL), TS_PREEMPT_FULL);
}

static void test_names(void)
{
	CU_ASSERT_STRING_EQUAL(ts_preempt_name(TS_PREEMPT_NONE), "none");
	CU_ASSERT_STRING_EQUAL(ts_preempt_name(TS_PREEMPT_LAZY), "lazy");
	CU_ASSERT_STRING_EQUAL(ts_preempt_name(TS_PREEMPT_RT), "rt");
	CU_ASSERT_STRING_EQUAL(ts_preempt_name((enum ts_preempt)42), "unknown");
	CU_ASSERT_FALSE(ts_preempt_is_full(TS_PREEMPT_NONE));
	CU_ASSERT_FALSE(ts_preempt_is_full(TS_PREEMPT_VOLUNTARY));
	CU_ASSERT_FALSE(ts_preempt_is_full(TS_PREEMPT_UNKNOWN));
	CU_ASSERT_TRUE(ts_preempt_is_full(TS_PREEMPT_FULL));
	CU_ASSERT_TRUE(ts_preempt_is_full(TS_PREEMPT_LAZY));
	CU_ASSERT_TRUE(ts_preempt_is_full(TS_PREEMPT_RT));
	CU_ASSERT_TRUE(ts_preempt_is_dynamic(DYN));
	CU_ASSERT_FALSE(ts_preempt_is_dynamic("#1 SMP PREEMPT_DYNAMICX"));
	CU_ASSERT_FALSE(ts_preempt_is_dynamic(NULL));
}

static const struct tsu_test tests[] = {
	{"the model and what told it", test_parse},
	{"names and which models preempt kernel work", test_names},
};

TSU_MAIN("preempt", tests)

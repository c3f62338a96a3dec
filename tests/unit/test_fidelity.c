/* SPDX-License-Identifier: MIT */
/* The one fell-behind rule (run/fidelity.c) at its boundary, with made-up release errors. */
#include <stdio.h>
#include <string.h>

#include "run/fidelity.h"
#include "tsu.h"

static bool judge(uint64_t p99, uint64_t unexplained, uint64_t kernel, char *why, size_t len)
{
	struct ts_err e = {""};
	bool behind;
	struct ts_fidelity f = {.have_release_err = true,
				.release_err_p99_ns = p99,
				.unexplained = unexplained,
				.kernel_drops = kernel};

	behind = ts_fell_behind(&f, &e);
	snprintf(why, len, "%s", e.msg);
	return behind;
}

/* 200 us passes, 200.001 us fails, whatever link it was (the rule takes no link). */
static void test_boundary(void)
{
	char why[96];

	CU_ASSERT_FALSE(judge(199999, 0, 0, why, sizeof(why)));
	CU_ASSERT_FALSE(judge(200000, 0, 0, why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, ""); /* untouched when it passes */
	CU_ASSERT_TRUE(judge(200001, 0, 0, why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "release timing error p99 200.001 us > 200 us");
	/* The measurements: 231-249 us on a quiet host, 4.16 ms loaded, 188 us under FIFO. */
	CU_ASSERT_TRUE(judge(231000, 0, 0, why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "release timing error p99 231.000 us > 200 us");
	CU_ASSERT_TRUE(judge(4160000, 0, 0, why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "release timing error p99 4160.000 us > 200 us");
	CU_ASSERT_FALSE(judge(188000, 0, 0, why, sizeof(why)));
}

/* One lost packet fails a run with perfect timing; unexplained drops are named first. */
static void test_losses(void)
{
	char why[96];

	CU_ASSERT_TRUE(judge(0, 0, 1, why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "1 packets dropped by the kernel");
	CU_ASSERT_TRUE(judge(0, 3, 7, why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "3 unexplained drops");
	CU_ASSERT_TRUE(judge(500000, 0, 2, why, sizeof(why)));
	CU_ASSERT_STRING_EQUAL(why, "2 packets dropped by the kernel");
}

/* No released packet: no timing to judge; NULL is allowed. */
static void test_edges(void)
{
	struct ts_fidelity f = {.have_release_err = false, .release_err_p99_ns = 900000};
	struct ts_err why;

	CU_ASSERT_FALSE(ts_fell_behind(&f, NULL));
	f.have_release_err = true;
	CU_ASSERT_TRUE(ts_fell_behind(&f, NULL));
	CU_ASSERT_TRUE(ts_fell_behind(&f, &why));
	CU_ASSERT_STRING_EQUAL(why.msg, "release timing error p99 900.000 us > 200 us");
	TSU_EQ(TS_FELL_BEHIND_LIMIT_NS, 200000);
}

static const struct tsu_test tests[] = {
	{"p99 at 200 us passes, above fails", test_boundary},
	{"packets lost outside the model", test_losses},
	{"nothing released, short buffers", test_edges},
};

TSU_MAIN("fidelity", tests)

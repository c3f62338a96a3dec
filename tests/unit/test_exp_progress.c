/* SPDX-License-Identifier: MIT */
/* exp run's progress: the time-left estimate and the line formats, with made-up times. */
#include <string.h>

#include "campaign/progress.h"
#include "tsu.h"

#define S(x) ((ts_ns_t)(x)*TS_NSEC_PER_SEC)

static void test_eta(void)
{
	/* 2 of 5 done in 100 s, the third 10 s in: (100 - 10) / 2 = 45 s a run, 3 left -> 135 - 10 */
	TSU_EQ(ts_exp_eta(2, 5, S(100), S(10), S(20)), S(125));
	/* none done: the planned 20 s a run, 4 left, 5 s into the first -> 80 - 5 */
	TSU_EQ(ts_exp_eta(0, 4, S(5), S(5), S(20)), S(75));
	/* a run longer than planned never gives a negative estimate */
	TSU_EQ(ts_exp_eta(0, 1, S(30), S(30), S(20)), 0);
	TSU_EQ(ts_exp_eta(5, 5, S(100), 0, S(20)), 0);
}

static void test_lines(void)
{
	struct ts_exp_run run = {.config_id = "cca=bbr,link=a,test=rrul", .rep = 2, .index = 9};
	char buf[256];

	CU_ASSERT_STRING_EQUAL(ts_exp_fmt_clock(buf, sizeof(buf), S(3723)), "1:02:03");
	CU_ASSERT_STRING_EQUAL(ts_exp_fmt_clock(buf, sizeof(buf), S(123) + 999999999), "2:03");
	CU_ASSERT_STRING_EQUAL(ts_exp_fmt_clock(buf, sizeof(buf), S(5)), "0:05");
	ts_exp_progress_live(buf, sizeof(buf), 3, 48, &run, S(123), S(1870));
	CU_ASSERT_STRING_EQUAL(
		buf, "exp 3/48 cca=bbr,link=a,test=rrul rep 2  elapsed 2:03  left ~31:10");
}

static const struct tsu_test tests[] = {
	{"time left", test_eta},
	{"clock and live line", test_lines},
};

TSU_MAIN("exp progress", tests)

/* SPDX-License-Identifier: MIT */
/* exp run's progress: the time-left estimate and the line formats, with made-up times. */
#include <string.h>

#include "campaign/live.h"
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

/* The line of a finished run: ok with its numbers, failed with its reason, or no result. */
static void test_done_line(void)
{
	struct ts_exp_run run = {.config_id = "cca=bbr,test=rrul", .rep = 1};
	struct ts_exp_flow_res flow = {.up = true, .throughput_mbps = 19.25};
	struct ts_exp_result r = {.ok = true, .nflows = 1, .flows = &flow};
	char buf[256];

	CU_ASSERT(ts_exp_progress_done(buf, sizeof(buf), 3, 4, &run, &r, NULL, S(12) + S(1) / 2));
	CU_ASSERT_STRING_EQUAL(buf,
			       "exp 3/4 cca=bbr,test=rrul rep 1: ok in 12.5 s, up 19.25 Mbit/s");
	r.ok = false;
	r.error = (char *)"iperf3 did not start";
	CU_ASSERT(!ts_exp_progress_done(buf, sizeof(buf), 3, 4, &run, &r, NULL, S(2)));
	CU_ASSERT_STRING_EQUAL(buf, "exp 3/4 cca=bbr,test=rrul rep 1: FAILED in 2.0 s, up 19.25 "
				    "Mbit/s: iperf3 did not start");
	CU_ASSERT(!ts_exp_progress_done(buf, sizeof(buf), 3, 4, &run, NULL, "x: does not exist",
					S(2)));
	CU_ASSERT_STRING_EQUAL(buf,
			       "exp 3/4 cca=bbr,test=rrul rep 1: no result: x: does not exist");
}

/* A run's expected time, for the estimate before the first run ends: length, 2 delays, 3 s. */
static void test_planned(void)
{
	struct ts_exp_run run = {.length = S(30), .delay = S(5)};

	TSU_EQ(ts_exp_live_planned(&run), S(43));
}

static const struct tsu_test tests[] = {
	{"time left", test_eta},
	{"clock and live line", test_lines},
	{"finished run's line", test_done_line},
	{"planned run time", test_planned},
};

TSU_MAIN("exp progress", tests)

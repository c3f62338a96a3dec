/* SPDX-License-Identifier: MIT */
/*
 * The Q-Q data of exp report (results/report.c): the reference
 * configuration found by its axes, and nearest-rank percentiles worked
 * out by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/report.h"
#include "tsu.h"

static double ref_ms[100], fast_ms[100], few_ms[3] = {10, 20, 30};
static struct ts_rep_config confs[4];
static struct ts_rep_test test = {.test = "rrul", .n = 4, .cap = 4, .c = confs};

static void setup(void)
{
	size_t i;

	for (i = 0; i < 100; i++) {
		ref_ms[i] = (double)(i + 1);	    /* 1 .. 100 ms */
		fast_ms[i] = 2.0 * (double)(i + 1); /* 2 .. 200 ms */
	}
	memset(confs, 0, sizeof(confs));
	confs[0] =
		(struct ts_rep_config){.id = "cca=cubic,test=rrul", .icmp = fast_ms, .nicmp = 100};
	confs[1] = (struct ts_rep_config){.id = "cca=bbr3,test=rrul", .icmp = ref_ms, .nicmp = 100};
	confs[2] = (struct ts_rep_config){
		.id = "cca=tas,tas_shift=8-8,test=rrul", .icmp = few_ms, .nicmp = 3};
	confs[3] = (struct ts_rep_config){.id = "cca=tas,tas_shift=9-10,test=rrul"};
}

static void test_ref(void)
{
	setup();
	TSU_EQ(ts_rep_qq_ref(&test, NULL), 0);
	TSU_EQ(ts_rep_qq_ref(&test, ""), 0);
	TSU_EQ(ts_rep_qq_ref(&test, "cca=bbr3"), 1);
	TSU_EQ(ts_rep_qq_ref(&test, "tas_shift=8-8,cca=tas"), 2);
	TSU_EQ(ts_rep_qq_ref(&test, "cca=tas"), 2);
	/* Whole tokens only: bbr is not bbr3, and every pair must match. */
	TSU_EQ(ts_rep_qq_ref(&test, "cca=bbr"), -1);
	TSU_EQ(ts_rep_qq_ref(&test, "cca=cubic,tas_shift=8-8"), -1);
}

/*
 * Against bbr3 (1..100 ms): cubic's percentile p is 2p; the three samples
 * 10, 20, 30 give rank ceil(3p/100): 10 up to p = 33, 20 to 66, 30 above;
 * the configuration without samples is an empty block. 2 of 3 have points.
 */
static void test_write(void)
{
	char buf[16384], line[128];
	size_t n = 0, have;
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	setup();
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	have = ts_rep_write_qq(f, &test, 1);
	fclose(f);
	TSU_EQ(have, 2);
	f = fmemopen(buf, strlen(buf), "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (n == 1)
			CU_ASSERT_STRING_EQUAL(line,
					       "# cca=cubic,test=rrul against cca=bbr3,test=rrul: "
					       "ICMP latency percentiles 1-99 under load, ms\n");
		if (n == 2)
			CU_ASSERT_STRING_EQUAL(line, "1.000000 2.000000\n");
		if (n == 51)
			CU_ASSERT_STRING_EQUAL(line, "50.000000 100.000000\n");
		if (n == 100)
			CU_ASSERT_STRING_EQUAL(line, "99.000000 198.000000\n");
		/* Block 2 starts after a blank pair: its header on line 103. */
		if (n == 104)
			CU_ASSERT_STRING_EQUAL(line, "1.000000 10.000000\n");
		if (n == 104 + 32)
			CU_ASSERT_STRING_EQUAL(line, "33.000000 10.000000\n");
		if (n == 104 + 33)
			CU_ASSERT_STRING_EQUAL(line, "34.000000 20.000000\n");
		if (n == 104 + 65)
			CU_ASSERT_STRING_EQUAL(line, "66.000000 20.000000\n");
		if (n == 104 + 66)
			CU_ASSERT_STRING_EQUAL(line, "67.000000 30.000000\n");
		if (n == 205)
			CU_ASSERT_STRING_EQUAL(line, "# cca=tas,tas_shift=9-10,test=rrul against "
						     "cca=bbr3,test=rrul: ICMP latency percentiles "
						     "1-99 under load, ms\n");
		if (n == 206)
			CU_ASSERT_STRING_EQUAL(line, "NaN NaN\n");
	}
	fclose(f);
	TSU_EQ(n, 206);
}

static const struct tsu_test tests[] = {
	{"the Q-Q reference found by its axes", test_ref},
	{"Q-Q percentiles, nearest rank", test_write},
};

TSU_MAIN("report qq", tests)

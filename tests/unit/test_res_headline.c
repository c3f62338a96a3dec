/* SPDX-License-Identifier: MIT */
/* exp run's line for a finished run: its headline numbers (results/result.h). */
#include <math.h>
#include <string.h>

#include "results/result.h"
#include "tsu.h"

/* Two upload flows (one not measured), one download, ICMP samples unsorted, two flags. */
static void test_all(void)
{
	struct ts_exp_flow_res flows[] = {{1, 10.5, 0}, {1, NAN, 0}, {1, 2.25, 0}, {0, 30, 0}};
	double icmp[20];
	char buf[256];
	struct ts_exp_result r;
	size_t i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < 20; i++)
		icmp[i] = (double)(20 - i); /* 20 .. 1 ms: p95 (type 7) is 19.05 */
	r.flows = flows;
	r.nflows = 4;
	r.icmp_ms = icmp;
	r.nicmp = 20;
	r.flags[0] = (char *)"fell_behind:up";
	r.flags[1] = (char *)"tcg";
	r.nflags = 2;
	ts_exp_result_headline(&r, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, ", up 12.75 Mbit/s, down 30.00 Mbit/s, ICMP p95 19.1 ms; "
				    "fell_behind:up tcg");
}

/* Nothing measured: nothing to say; a short buffer is cut, not overrun. */
static void test_empty_and_short(void)
{
	struct ts_exp_flow_res flows[] = {{1, 8, 0}, {0, 4, 0}};
	struct ts_exp_result r;
	char buf[12];

	memset(&r, 0, sizeof(r));
	memset(buf, 'x', sizeof(buf));
	ts_exp_result_headline(&r, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "");
	r.flows = flows;
	r.nflows = 2;
	ts_exp_result_headline(&r, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, ", up 8.00 M");
}

static const struct tsu_test tests[] = {
	{"throughput, ICMP p95 and flags", test_all},
	{"nothing measured, a short buffer", test_empty_and_short},
};

TSU_MAIN("res_headline", tests)

/* SPDX-License-Identifier: MIT */
/* The live status line's text (run/status_line.c). */
#include <string.h>

#include "run/status_line.h"
#include "tsu.h"

/*
 * 12.34 s into a 60 s trace: the downlink delivered 11.94 Mbit/s of 12,
 * its largest link delay 35.4 ms, 3 drops; the uplink 0.4 of an unlimited
 * link. Rates in Mbit/s with one decimal, delay in whole ms.
 */
static void test_format(void)
{
	struct ts_progress_dir d[2] = {
		{.present = true, .cap_bps = -1, .tput_bps = 400000, .qdelay_ms = 0.2, .drops = 0},
		{.present = true,
		 .cap_bps = 12e6,
		 .tput_bps = 11.94e6,
		 .qdelay_ms = 35.4,
		 .drops = 3},
	};
	char buf[256];

	ts_progress_format(buf, sizeof(buf), 12340000000LL, 60 * TS_NSEC_PER_SEC, d);
	CU_ASSERT_STRING_EQUAL(buf, "tasshape 12.3/60.0s  down 11.9/12.0 Mbit/s q 35ms drop 3  "
				    "up 0.4/inf Mbit/s q 0ms drop 0");
	/* No known length, only the downlink shaped. */
	d[0].present = false;
	ts_progress_format(buf, sizeof(buf), 500000000, 0, d);
	CU_ASSERT_STRING_EQUAL(buf, "tasshape 0.5s  down 11.9/12.0 Mbit/s q 35ms drop 3");
	/* A short buffer is cut, never overrun. */
	ts_progress_format(buf, 12, 500000000, 0, d);
	CU_ASSERT_STRING_EQUAL(buf, "tasshape 0.");
}

static const struct tsu_test tests[] = {
	{"status line", test_format},
};

TSU_MAIN("progress", tests)

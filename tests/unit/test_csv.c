/* SPDX-License-Identifier: MIT */
/* The CSV helpers every comma-separated reader shares (src/model/csv.c). */
#include <errno.h>
#include <string.h>

#include "model/csv.h"
#include "tsu.h"

static void test_field_and_trim(void)
{
	const char *line = " time_s , \"Down_Mbps\" ,up_mbps\r";
	const char *f;
	size_t flen;

	TSU_EQ(ts_csv_count_fields(line, strlen(line)), 3);
	CU_ASSERT_TRUE(ts_csv_field(line, strlen(line), 0, &f, &flen));
	TSU_EQ(flen, 6);
	CU_ASSERT_EQUAL(memcmp(f, "time_s", 6), 0);
	/* blanks first, then one pair of quotes: the quotes go, the case stays */
	CU_ASSERT_TRUE(ts_csv_field(line, strlen(line), 1, &f, &flen));
	TSU_EQ(flen, 9);
	CU_ASSERT_TRUE(ts_csv_ieq(f, flen, "down_mbps"));
	/* the CR at the end of the line is trimmed as a blank */
	CU_ASSERT_TRUE(ts_csv_field(line, strlen(line), 2, &f, &flen));
	TSU_EQ(flen, 7);
	CU_ASSERT_FALSE(ts_csv_field(line, strlen(line), 3, &f, &flen));
	TSU_EQ(flen, 7); /* untouched */
}

static void test_quotes_only_in_pairs(void)
{
	const char *s = "\"abc";
	size_t len = strlen(s);

	ts_csv_trim(&s, &len);
	TSU_EQ(len, 4); /* an unmatched quote is data, as in every reader */
	s = "\"\"";
	len = 2;
	ts_csv_trim(&s, &len);
	TSU_EQ(len, 0);
}

static void test_ieq_contains(void)
{
	CU_ASSERT_TRUE(ts_csv_ieq("MbPs", 4, "mbps"));
	CU_ASSERT_FALSE(ts_csv_ieq("Mbp", 3, "mbps"));
	CU_ASSERT_FALSE(ts_csv_ieq("Mbpss", 5, "mbps"));
	CU_ASSERT_TRUE(ts_csv_icontains("down_KBPS_x", 11, "kbps"));
	CU_ASSERT_FALSE(ts_csv_icontains("down_kbp", 8, "kbps"));
	TSU_EQ(ts_csv_lower('Q'), 'q');
	TSU_EQ(ts_csv_lower('7'), '7');
}

struct row {
	int pad;
	ts_ns_t t;
	int more;
};

/* Intervals 10, 10, 30, 1000, 10 (ms): sorted 10 10 10 30 1000, lower median 10. */
static void test_median_gap(void)
{
	struct row r[6] = {{0, 0, 0},  {0, 10, 0},   {0, 20, 0},
			   {0, 50, 0}, {0, 1050, 0}, {0, 1060, 0}};
	ts_ns_t gap = -1;

	TSU_EQ(TS_MEDIAN_GAP(r, 6, &gap), 0);
	TSU_EQ(gap, 10);
	/* Two intervals 5 and 7: the lower median is 5, one that occurs. */
	r[0].t = 0;
	r[1].t = 7;
	r[2].t = 12;
	TSU_EQ(TS_MEDIAN_GAP(r, 3, &gap), 0);
	TSU_EQ(gap, 5);
	TSU_EQ(TS_MEDIAN_GAP(r, 1, &gap), -EINVAL);
}

static const struct tsu_test tests[] = {
	{"field and trim", test_field_and_trim},
	{"quotes only in pairs", test_quotes_only_in_pairs},
	{"ieq and contains", test_ieq_contains},
	{"median gap", test_median_gap},
};

TSU_MAIN("csv", tests)

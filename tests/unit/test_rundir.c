/* SPDX-License-Identifier: MIT */
/* The one spelling of a run's directory (results/rundir.h). */
#include <errno.h>
#include <string.h>

#include "results/rundir.h"
#include "tsu.h"

static void test_path(void)
{
	char buf[64];

	TSU_EQ(ts_rundir_path(buf, sizeof(buf), "out", "cca=bbr,test=rrul", 10), 0);
	CU_ASSERT_STRING_EQUAL(buf, "out/cca=bbr,test=rrul/rep-10");
	TSU_EQ(ts_rundir_path(buf, sizeof(buf), NULL, "a", 1), 0);
	CU_ASSERT_STRING_EQUAL(buf, "a/rep-1");
	TSU_EQ(ts_rundir_name(buf, sizeof(buf), 4294967295u), 0);
	CU_ASSERT_STRING_EQUAL(buf, "rep-4294967295");
}

/* A path that does not fit is an error, never a shorter path used as if it were the run's. */
static void test_too_long(void)
{
	char buf[12];

	/* "out/a/rep-1" is 11 bytes and its NUL the 12th: fits exactly. */
	TSU_EQ(ts_rundir_path(buf, sizeof(buf), "out", "a", 1), 0);
	CU_ASSERT_STRING_EQUAL(buf, "out/a/rep-1");
	TSU_EQ(ts_rundir_path(buf, sizeof(buf), "out", "a", 10), -ENAMETOOLONG);
	TSU_EQ(strlen(buf), sizeof(buf) - 1);
	TSU_EQ(ts_rundir_path(buf, sizeof(buf), NULL, "abcdef", 10), -ENAMETOOLONG);
	TSU_EQ(ts_rundir_name(buf, 5, 1), -ENAMETOOLONG);
	TSU_EQ(ts_rundir_name(buf, 6, 1), 0);
}

static const struct tsu_test tests[] = {
	{"paths", test_path},
	{"too long", test_too_long},
};

TSU_MAIN("run directory", tests)

/* SPDX-License-Identifier: MIT */
/*
 * Congestion-control set-up of the executor (src/exec/exec_cca.c) that
 * needs no root: BBR-TAS's shift parameters written and read back in a
 * directory laid out as /sys/module/tcp_bbr_tas/parameters, and the
 * refusals of ts_exp_cca_probe with their reasons.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/exec.h"
#include "exec/exec_cca.h"
#include "tsu.h"

static char dir[64];

static void put(const char *name, const char *val)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(val, f);
	fclose(f);
}

static void test_tas_shifts(void)
{
	char su[16], st[16], path[128];
	struct ts_err why = {""};

	snprintf(dir, sizeof(dir), "/tmp/tsu-tas.XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	put("tas_pacing_shift_startup", "9\n"); /* the module's defaults */
	put("tas_pacing_shift_steady", "10\n");
	TSU_EQ(ts_exp_tas_shifts(dir, -1, -1, su, st, &why), 0);
	CU_ASSERT_STRING_EQUAL(su, "9");
	CU_ASSERT_STRING_EQUAL(st, "10");
	TSU_EQ(ts_exp_tas_shifts(dir, 8, 8, su, st, &why), 0); /* the paper's best pair */
	CU_ASSERT_STRING_EQUAL(su, "8");
	CU_ASSERT_STRING_EQUAL(st, "8");
	TSU_EQ(ts_exp_tas_shifts(dir, 7, -1, su, st, &why), 0);
	CU_ASSERT_STRING_EQUAL(su, "7");
	CU_ASSERT_STRING_EQUAL(st, "8");

	/* A parameter that cannot be written (here: a directory in its place). */
	snprintf(path, sizeof(path), "%s/tas_pacing_shift_steady", dir);
	unlink(path);
	CU_ASSERT_EQUAL_FATAL(mkdir(path, 0700), 0);
	TSU_EQ(ts_exp_tas_shifts(dir, 8, 10, su, st, &why), -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "tas: cannot write "));
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "tas_pacing_shift_steady"));
	rmdir(path);
	snprintf(path, sizeof(path), "%s/tas_pacing_shift_startup", dir);
	unlink(path);
	rmdir(dir);

	TSU_EQ(ts_exp_tas_shifts(dir, 8, 8, su, st, &why), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "tas: module tcp_bbr_tas not loaded"));
}

static void test_probe_refusals(void)
{
	struct ts_err why = {""};

	TSU_EQ(ts_exp_cca_probe("no_such_cca", &why), -ENOENT);
	CU_ASSERT_STRING_EQUAL(
		why.msg, "no_such_cca: not in this kernel's tcp_available_congestion_control");
	TSU_EQ(ts_exp_cca_probe("", &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why.msg, "no congestion control given");
	TSU_EQ(ts_exp_cca_probe("bpf:/nonexistent/x.bpf.o", &why), -ENOENT);
	CU_ASSERT_STRING_EQUAL(why.msg,
			       "bpf:/nonexistent/x.bpf.o: cannot read: No such file or directory");
	/* A file that is not a BPF object. */
	TSU_EQ(ts_exp_cca_probe("bpf:" TS_TEST_DATA "/exp/ping.txt", &why) < 0, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "not a BPF object"));
	/* reno is built into every kernel with TCP. */
	TSU_EQ(ts_exp_cca_available("reno"), 1);
	TSU_EQ(ts_exp_cca_available("ren"), 0);
}

static const struct tsu_test tests[] = {
	{"tas shifts written and read back", test_tas_shifts},
	{"probe refusals", test_probe_refusals},
};

TSU_MAIN("exec_cca", tests)

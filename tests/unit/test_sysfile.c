/* SPDX-License-Identifier: MIT */
/*
 * Writing a kernel setting (io/sysfile.c), against stand-ins in a private
 * directory: the value arrives whole, nothing is created, no link is
 * followed and nothing outside the directory is reached, a FIFO does not
 * block, and every error names the file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/sysfile.h"
#include "tsu.h"
#include "tsu_tmp.h"

static char dir[64];

static const char *at(const char *name)
{
	static char p[2][256];
	static int k;

	k ^= 1;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void put(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static const char *get(const char *name)
{
	static char buf[64];
	FILE *f = fopen(at(name), "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static void test_write(void)
{
	struct ts_err err;

	TSU_EQ(mkdir(at("net"), 0755), 0);
	put("net/ip_forward", "10\n");
	TSU_EQ(ts_sysfile_write(dir, "net/ip_forward", "1\n", &err), 0);
	CU_ASSERT_STRING_EQUAL(get("net/ip_forward"), "1\n"); /* replaced, not overwritten */
}

static void test_refused(void)
{
	struct ts_err err;
	char want[300];

	put("target", "keep\n");
	TSU_EQ(symlink("target", at("link")), 0);
	TSU_EQ(ts_sysfile_write(dir, "link", "8\n", &err), -ELOOP);
	snprintf(want, sizeof(want), "cannot write '8' to %s/link: a symbolic link on the way",
		 dir);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	TSU_EQ(ts_sysfile_write(dir, "../x", "8\n", &err), -EXDEV);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "it leads out of its directory"));
	CU_ASSERT_STRING_EQUAL(get("target"), "keep\n");
	/* A setting that is not there is not created. */
	TSU_EQ(ts_sysfile_write(dir, "absent", "8\n", &err), -ENOENT);
	TSU_EQ(access(at("absent"), F_OK), -1);
	snprintf(want, sizeof(want), "cannot write '8' to %s/absent: %s", dir, strerror(ENOENT));
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	/* A FIFO with no reader: refused at once rather than waited on. */
	TSU_EQ(mkfifo(at("fifo"), 0600), 0);
	TSU_EQ(ts_sysfile_write(dir, "fifo", "8\n", &err), -ENXIO);
	TSU_EQ(mkdir(at("adir"), 0755), 0);
	TSU_EQ(ts_sysfile_write(dir, "adir", "8\n", &err), -EISDIR);
	TSU_EQ(ts_sysfile_write(at("missing"), "x", "8\n", &err), -ENOENT);
}

static int setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/ts-sysfile-XXXXXX");
	return tsu_tmp_make(dir);
}

static int teardown(void)
{
	return tsu_tmp_remove(dir);
}

static const struct tsu_test tests[] = {
	{"a setting written whole", test_write},
	{"links, escapes, absent files, FIFOs refused", test_refused},
};

TSU_MAIN_FIXTURE("kernel settings", tests, setup, teardown)

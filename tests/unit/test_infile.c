/* SPDX-License-Identifier: MIT */
/*
 * The one way to read a file of a results directory (io/infile.c): a
 * regular file only, never waiting on a FIFO, and a whole read bounded
 * before memory is requested; in a private temporary directory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/infile.h"
#include "tsu.h"

static char dir[64];

static const char *at(const char *name)
{
	static char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s/tsu-infile-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
}

/* A regular file of 10 bytes is read whole, NUL-terminated, at a limit of exactly 10. */
static void test_read_at_limit(void)
{
	struct ts_err err;
	char *text = NULL;
	size_t len = 99;
	FILE *f;

	setup();
	f = fopen(at("ten"), "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("0123456789", f);
	fclose(f);
	TSU_EQ(ts_in_read(at("ten"), 10, &text, &len, &err), 0);
	TSU_EQ(len, 10);
	CU_ASSERT_STRING_EQUAL(text, "0123456789");
	free(text);
	/* One byte over: refused before any buffer, with the limit in the message. */
	text = (char *)1;
	TSU_EQ(ts_in_read(at("ten"), 9, &text, &len, &err), -EFBIG);
	CU_ASSERT_PTR_NULL(text);
	TSU_EQ(len, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "ten: larger than 9 bytes, the limit"));
	unlink(at("ten"));
}

/* An empty file reads as "", a missing one as -ENOENT naming it. */
static void test_empty_missing(void)
{
	struct ts_err err;
	char *text = NULL;
	size_t len = 99;
	FILE *f = fopen(at("empty"), "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);
	TSU_EQ(ts_in_read(at("empty"), 10, &text, &len, &err), 0);
	TSU_EQ(len, 0);
	CU_ASSERT_STRING_EQUAL(text, "");
	free(text);
	unlink(at("empty"));
	TSU_EQ(ts_in_read(at("none"), 10, &text, &len, &err), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "none: cannot open"));
}

/*
 * A FIFO with no writer: a plain open would wait forever (the test would
 * hit its timeout); it is refused at once, as are a directory and a device.
 */
static void test_not_regular(void)
{
	struct ts_err err;
	char *text = NULL;
	size_t len;

	CU_ASSERT_EQUAL_FATAL(mkfifo(at("fifo"), 0600), 0);
	TSU_EQ(ts_in_open(at("fifo"), &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "fifo: expected a regular file"));
	TSU_EQ(ts_in_read(at("fifo"), 10, &text, &len, &err), -EINVAL);
	unlink(at("fifo"));
	TSU_EQ(ts_in_read(dir, 10, &text, &len, &err), -EINVAL);
	/* /dev/zero never ends: a bounded read of it must not be tried. */
	TSU_EQ(ts_in_read("/dev/zero", 10, &text, &len, &err), -EINVAL);
	CU_ASSERT_PTR_NULL(text);
	rmdir(dir);
}

static const struct tsu_test tests[] = {
	{"a regular file read whole at its limit, refused one byte over", test_read_at_limit},
	{"an empty file, a missing file", test_empty_missing},
	{"a FIFO, a directory, a device refused without waiting", test_not_regular},
};

TSU_MAIN("infile", tests)

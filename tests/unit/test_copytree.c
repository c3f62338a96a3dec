/* SPDX-License-Identifier: MIT */
/* Copying a directory tree (io/copytree.c): what is copied, what is skipped, new or replaced. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/copytree.h"
#include "tsu.h"
#include "tsu_tmp.h"

static char root[] = "/tmp/test_copytree.XXXXXX";

static void put(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* The contents of @rel under root, "" when it cannot be read. */
static const char *get(const char *rel)
{
	static char buf[256];
	char p[512];
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	buf[0] = '\0';
	f = fopen(p, "r");
	if (!f)
		return buf;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int exists(const char *rel)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return lstat(p, &st) == 0;
}

static void path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", root, rel);
}

/*
 * A source tree of its own for each test, @rel under the suite's
 * directory: a.txt, d/b.txt, a link to /etc/passwd, a FIFO and a chain
 * of directories l1/l2/.../l10.
 */
static void source(const char *rel)
{
	char p[512], sub[128];
	int i;

	path(p, sizeof(p), rel);
	TSU_EQ(mkdir(p, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/a.txt", rel);
	put(sub, "alpha");
	snprintf(sub, sizeof(sub), "%s/d", rel);
	path(p, sizeof(p), sub);
	TSU_EQ(mkdir(p, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/d/b.txt", rel);
	put(sub, "beta");
	snprintf(sub, sizeof(sub), "%s/link", rel);
	path(p, sizeof(p), sub);
	TSU_EQ(symlink("/etc/passwd", p), 0);
	snprintf(sub, sizeof(sub), "%s/fifo", rel);
	path(p, sizeof(p), sub);
	TSU_EQ(mkfifo(p, 0600), 0);
	snprintf(sub, sizeof(sub), "%s", rel);
	for (i = 1; i <= 10; i++) {
		snprintf(sub + strlen(sub), sizeof(sub) - strlen(sub), "/l%d", i);
		path(p, sizeof(p), sub);
		TSU_EQ(mkdir(p, 0755), 0);
	}
}

/*
 * The copy has the files, no link, no FIFO, and the chain cut after
 * TS_COPY_MAX_DEPTH (8) levels below the top.
 */
static void test_tree(void)
{
	char src[512], dst[512];
	struct ts_err err;

	source("src");
	path(src, sizeof(src), "src");
	path(dst, sizeof(dst), "dst");
	TSU_EQ(ts_copy_tree(src, dst, TS_COPY_NEW, &err), 0);
	CU_ASSERT_STRING_EQUAL(get("dst/a.txt"), "alpha");
	CU_ASSERT_STRING_EQUAL(get("dst/d/b.txt"), "beta");
	CU_ASSERT_FALSE(exists("dst/link"));
	CU_ASSERT_FALSE(exists("dst/fifo"));
	CU_ASSERT_TRUE(exists("dst/l1/l2/l3/l4/l5/l6/l7/l8"));
	CU_ASSERT_FALSE(exists("dst/l1/l2/l3/l4/l5/l6/l7/l8/l9"));

	/* New: an existing destination is refused, and named. */
	TSU_EQ(ts_copy_tree(src, dst, TS_COPY_NEW, &err), -EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "dst"));

	/* Not new: into the existing directory, a file of the same name replaced. */
	put("dst/a.txt", "old and longer");
	put("src/a.txt", "new");
	TSU_EQ(ts_copy_tree(src, dst, 0, &err), 0);
	CU_ASSERT_STRING_EQUAL(get("dst/a.txt"), "new");
}

/*
 * Copies, never hard links (exp merge hands what it copies to the invoker): another inode,
 * and a change to the source afterwards leaves the copy as it was.
 */
static void test_copy_not_link(void)
{
	char src[512], dst[512], a[512], b[512];
	struct ts_err err;
	struct stat sa, sb;

	source("src-own");
	path(src, sizeof(src), "src-own");
	path(dst, sizeof(dst), "copied");
	TSU_EQ(ts_copy_tree(src, dst, TS_COPY_NEW | TS_COPY_OWN, &err), 0);
	path(a, sizeof(a), "src-own/d/b.txt");
	path(b, sizeof(b), "copied/d/b.txt");
	TSU_EQ(stat(a, &sa), 0);
	TSU_EQ(stat(b, &sb), 0);
	CU_ASSERT_NOT_EQUAL(sa.st_ino, sb.st_ino);
	TSU_EQ(sb.st_nlink, 1);
	put("src-own/d/b.txt", "changed by its author");
	CU_ASSERT_STRING_EQUAL(get("copied/d/b.txt"), "beta");
}

/* One file: a link is refused, not followed; a regular file copied. */
static void test_file(void)
{
	char from[512], to[512];
	struct ts_err err;

	source("src-one");
	path(from, sizeof(from), "src-one/link");
	path(to, sizeof(to), "one.txt");
	TSU_EQ(ts_copy_file(from, to, TS_COPY_NEW, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not a regular file"));
	CU_ASSERT_FALSE(exists("one.txt"));
	path(from, sizeof(from), "src-one/a.txt");
	TSU_EQ(ts_copy_file(from, to, TS_COPY_NEW, &err), 0);
	CU_ASSERT_STRING_EQUAL(get("one.txt"), "alpha");
	TSU_EQ(ts_copy_file(from, to, TS_COPY_NEW, &err), -EEXIST);
}

/* The suite's fixture: a private directory, each test's files under names of its own. */
static int setup(void)
{
	return tsu_tmp_make(root);
}

static int teardown(void)
{
	return tsu_tmp_remove(root);
}

static const struct tsu_test tests[] = {
	{"files and directories, no links, no FIFOs, 8 levels", test_tree},
	{"copies, not hard links", test_copy_not_link},
	{"one file", test_file},
};

TSU_MAIN_FIXTURE("copytree", tests, setup, teardown)

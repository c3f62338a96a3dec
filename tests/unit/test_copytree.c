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
 * src/ holds a.txt, d/b.txt, a link to /etc/passwd, a FIFO and a chain of
 * directories 10 deep: the copy has the files, no link, no FIFO, and the
 * chain cut after TS_COPY_MAX_DEPTH (8) levels below the top.
 */
static void test_tree(void)
{
	char src[512], dst[512], err[256], p[512], deep[512] = "src";
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
	path(src, sizeof(src), "src");
	path(dst, sizeof(dst), "dst");
	TSU_EQ(mkdir(src, 0755), 0);
	put("src/a.txt", "alpha");
	path(p, sizeof(p), "src/d");
	TSU_EQ(mkdir(p, 0755), 0);
	put("src/d/b.txt", "beta");
	path(p, sizeof(p), "src/link");
	TSU_EQ(symlink("/etc/passwd", p), 0);
	path(p, sizeof(p), "src/fifo");
	TSU_EQ(mkfifo(p, 0600), 0);
	for (i = 1; i <= 10; i++) {
		snprintf(deep + strlen(deep), sizeof(deep) - strlen(deep), "/l%d", i);
		path(p, sizeof(p), deep);
		TSU_EQ(mkdir(p, 0755), 0);
	}
	TSU_EQ(ts_copy_tree(src, dst, TS_COPY_NEW, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(get("dst/a.txt"), "alpha");
	CU_ASSERT_STRING_EQUAL(get("dst/d/b.txt"), "beta");
	CU_ASSERT_FALSE(exists("dst/link"));
	CU_ASSERT_FALSE(exists("dst/fifo"));
	CU_ASSERT_TRUE(exists("dst/l1/l2/l3/l4/l5/l6/l7/l8"));
	CU_ASSERT_FALSE(exists("dst/l1/l2/l3/l4/l5/l6/l7/l8/l9"));

	/* New: an existing destination is refused, and named. */
	TSU_EQ(ts_copy_tree(src, dst, TS_COPY_NEW, err, sizeof(err)), -EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "dst"));

	/* Not new: into the existing directory, a file of the same name replaced. */
	put("dst/a.txt", "old and longer");
	put("src/a.txt", "new");
	TSU_EQ(ts_copy_tree(src, dst, 0, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(get("dst/a.txt"), "new");
}

/*
 * Copies, never hard links (exp merge hands what it copies to the invoker): another inode,
 * and a change to the source afterwards leaves the copy as it was.
 */
static void test_copy_not_link(void)
{
	char src[512], dst[512], err[256], a[512], b[512];
	struct stat sa, sb;

	path(src, sizeof(src), "src");
	path(dst, sizeof(dst), "copied");
	TSU_EQ(ts_copy_tree(src, dst, TS_COPY_NEW | TS_COPY_OWN, err, sizeof(err)), 0);
	path(a, sizeof(a), "src/d/b.txt");
	path(b, sizeof(b), "copied/d/b.txt");
	TSU_EQ(stat(a, &sa), 0);
	TSU_EQ(stat(b, &sb), 0);
	CU_ASSERT_NOT_EQUAL(sa.st_ino, sb.st_ino);
	TSU_EQ(sb.st_nlink, 1);
	put("src/d/b.txt", "changed by its author");
	CU_ASSERT_STRING_EQUAL(get("copied/d/b.txt"), "beta");
}

/* One file: a link is refused, not followed; a regular file copied. */
static void test_file(void)
{
	char from[512], to[512], err[256];

	path(from, sizeof(from), "src/link");
	path(to, sizeof(to), "one.txt");
	TSU_EQ(ts_copy_file(from, to, TS_COPY_NEW, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a regular file"));
	CU_ASSERT_FALSE(exists("one.txt"));
	path(from, sizeof(from), "src/a.txt");
	TSU_EQ(ts_copy_file(from, to, TS_COPY_NEW, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(get("one.txt"), "new");
	TSU_EQ(ts_copy_file(from, to, TS_COPY_NEW, err, sizeof(err)), -EEXIST);
}

static void test_cleanup(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	TSU_EQ(system(cmd), 0);
}

static const struct tsu_test tests[] = {
	{"files and directories, no links, no FIFOs, 8 levels", test_tree},
	{"copies, not hard links", test_copy_not_link},
	{"one file", test_file},
	{"cleanup", test_cleanup},
};

TSU_MAIN("copytree", tests)

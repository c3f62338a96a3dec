/* SPDX-License-Identifier: MIT */
/*
 * Removing a directory tree through descriptors (io/rmtree.c): links
 * inside are removed as links and their targets survive, a link where a
 * directory was is not followed, a FIFO is unlinked without being opened,
 * and a tree deeper than the limit gives an error, not a stack overflow.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/rmtree.h"
#include "tsu.h"

static char root[PATH_MAX];

static void setup_root(void)
{
	snprintf(root, sizeof(root), "/tmp/ts-test-rmtree-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
}

static void teardown_root(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* @rel under root into @out (PATH_MAX). */
static void at(char *out, const char *rel)
{
	if (snprintf(out, PATH_MAX, "%s/%s", root, rel) >= PATH_MAX)
		CU_FAIL("path too long");
}

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	at(p, rel);
	f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static void dir(const char *rel)
{
	char p[PATH_MAX];

	at(p, rel);
	CU_ASSERT_EQUAL_FATAL(mkdir(p, 0755), 0);
}

/* Link @rel under root to @target. */
static void link_to(const char *target, const char *rel)
{
	char p[PATH_MAX];

	at(p, rel);
	CU_ASSERT_EQUAL_FATAL(symlink(target, p), 0);
}

static int exists(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	at(p, rel);
	return lstat(p, &st) == 0;
}

/* The first line of file @rel under root, "" when it cannot be read. */
static const char *get(const char *rel)
{
	static char buf[128];
	char p[PATH_MAX];
	FILE *f;

	at(p, rel);
	buf[0] = '\0';
	f = fopen(p, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	return buf;
}

static void test_links_removed_as_links(void)
{
	char tree[PATH_MAX], target[PATH_MAX];
	struct ts_err err;

	setup_root();
	dir("outside");
	put("outside/keep", "root's file\n");
	dir("tree");
	dir("tree/a");
	put("tree/a/file", "x");
	at(target, "outside");
	link_to(target, "tree/dirlink");
	at(target, "outside/keep");
	link_to(target, "tree/a/filelink");
	link_to("../../outside", "tree/a/rellink");
	at(tree, "tree/a/fifo");
	/* A FIFO is unlinked, never opened: opening it would wait for a writer. */
	CU_ASSERT_EQUAL_FATAL(mkfifo(tree, 0600), 0);
	at(tree, "tree");
	TSU_EQ(ts_rmtree(tree, &err), 0);
	CU_ASSERT(!exists("tree"));
	/* The targets of the links survive, with their bytes. */
	CU_ASSERT(exists("outside/keep"));
	CU_ASSERT_STRING_EQUAL(get("outside/keep"), "root's file\n");
	/* Nothing that does not exist: nothing to do. */
	TSU_EQ(ts_rmtree(tree, &err), 0);
	teardown_root();
}

static void test_swapped_link_not_followed(void)
{
	char cfg[PATH_MAX], target[PATH_MAX];
	struct ts_err err;
	int fd;

	setup_root();
	dir("secret");
	dir("secret/rep-1");
	put("secret/rep-1/f", "0600 file\n");
	dir("results");
	dir("results/cfg");
	/* Where a run directory was checked, a link to a directory outside is found. */
	at(target, "secret/rep-1");
	link_to(target, "results/cfg/rep-1");
	at(cfg, "results/cfg");
	fd = open(cfg, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(fd >= 0);
	TSU_EQ(ts_rmtree_at(fd, "rep-1", "results/cfg/rep-1", &err), 0);
	close(fd);
	CU_ASSERT(!exists("results/cfg/rep-1"));
	CU_ASSERT_STRING_EQUAL(get("secret/rep-1/f"), "0600 file\n");
	/* The same, given as a path: its last component is not followed either. */
	at(target, "secret");
	link_to(target, "results/cfg/rep-2");
	at(cfg, "results/cfg/rep-2");
	TSU_EQ(ts_rmtree(cfg, &err), 0);
	CU_ASSERT(!exists("results/cfg/rep-2"));
	CU_ASSERT_STRING_EQUAL(get("secret/rep-1/f"), "0600 file\n");
	/* A name that is not one entry is refused. */
	fd = open(root, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(fd >= 0);
	TSU_EQ(ts_rmtree_at(fd, "results/cfg", "x", &err), -EINVAL);
	TSU_EQ(ts_rmtree_at(fd, "..", "x", &err), -EINVAL);
	close(fd);
	CU_ASSERT(exists("results/cfg"));
	teardown_root();
}

/* A chain of @n directories "d/d/..." under root/@top; the last one holds a file. */
static void deep(const char *top, int n)
{
	int fd, i, next;
	char p[PATH_MAX];

	dir(top);
	at(p, top);
	fd = open(p, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(fd >= 0);
	for (i = 0; i < n; i++) {
		CU_ASSERT_EQUAL_FATAL(mkdirat(fd, "d", 0755), 0);
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		close(fd);
		CU_ASSERT_FATAL(next >= 0);
		fd = next;
	}
	close(openat(fd, "f", O_WRONLY | O_CREAT, 0644));
	close(fd);
}

static void test_depth_limit(void)
{
	char p[PATH_MAX];
	struct ts_err err;

	setup_root();
	/* The limit counts the directory given: it and 31 below it are removed. */
	deep("ok", TS_RMTREE_MAX_DEPTH - 1);
	at(p, "ok");
	TSU_EQ(ts_rmtree(p, &err), 0);
	CU_ASSERT(!exists("ok"));
	/* 1000 levels: an error naming the limit, no stack overflow. */
	deep("deep", 1000);
	at(p, "deep");
	TSU_EQ(ts_rmtree(p, &err), -ELOOP);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "deeper than 32 levels"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/deep/d/d/"));
	teardown_root();
}

static const struct tsu_test tests[] = {
	{"links inside are removed as links, their targets survive", test_links_removed_as_links},
	{"a link where a run directory was is not followed", test_swapped_link_not_followed},
	{"a tree deeper than the limit: an error, not a crash", test_depth_limit},
};

TSU_MAIN("rmtree", tests)

/* SPDX-License-Identifier: MIT */
/*
 * exp merge (results/merge.c) writes all or nothing, and what it writes is its own: a shard
 * whose run does not read (a -Infinity throughput, named with its file and field) leaves OUT
 * as it was, absent or empty, with nothing beside it, and the merge runs again once the shard
 * is mended; the merged files are copies, which a later change in the shard does not reach.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/done.h"
#include "results/expdir.h"
#include "results/merge.h"
#include "tsu.h"
#include "tsu_tmp.h"

static char top[] = "/tmp/test_exp_merge.XXXXXX";
static char root[PATH_MAX]; /* the current test's directory, below top */

/* Make TOP/@name the current test's directory: each test starts from nothing. */
static void use(const char *name)
{
	CU_ASSERT_FATAL(snprintf(root, sizeof(root), "%s/%s", top, name) < (int)sizeof(root));
	TSU_EQ(mkdir(root, 0755), 0);
}

static void path(char *out, const char *rel)
{
	if (snprintf(out, PATH_MAX, "%s/%s", root, rel) >= PATH_MAX)
		CU_FAIL("path too long");
}

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	path(p, rel);
	f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* The contents of @rel ("" when it cannot be read). */
static const char *get(const char *rel)
{
	static char buf[512];
	char p[PATH_MAX];
	size_t n = 0;
	FILE *f;

	path(p, rel);
	f = fopen(p, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Run @id/rep-@rep of shard directory @dir: a result.json of throughput @thr, done. */
static void run(const char *dir, const char *id, unsigned rep, unsigned index, const char *thr)
{
	char rel[128], p[PATH_MAX], text[256];
	struct ts_err err;

	snprintf(rel, sizeof(rel), "%s/%s", dir, id);
	path(p, rel);
	mkdir(p, 0755);
	snprintf(rel, sizeof(rel), "%s/%s/rep-%u", dir, id, rep);
	path(p, rel);
	mkdir(p, 0755);
	snprintf(text, sizeof(text),
		 "{\"version\":1,\"id\":\"%s\",\"rep\":%u,\"index\":%u,\"axes\":{\"test\":"
		 "\"tcp_upload\"},\"ok\":true,\"flows\":[{\"dir\":\"up\",\"throughput_mbps\":%s}]}",
		 id, rep, index, thr);
	snprintf(rel, sizeof(rel), "%s/%s/rep-%u/result.json", dir, id, rep);
	put(rel, text);
	TSU_EQ(ts_done_write(p, id, rep, &err), 0);
}

/* Shard @i of 2 in @dir: configurations a and b, one repetition; shard 1 runs a, 2 runs b. */
static void shard(const char *dir, unsigned i, const char *thr)
{
	struct ts_expdir p = {0};
	char d[PATH_MAX];
	struct ts_err err;

	path(d, dir);
	mkdir(d, 0755);
	p.spec_sha256 = strdup("abc");
	p.spec = strdup("x.ini");
	p.shard.i = i;
	p.shard.n = 2;
	ts_expdir_add(&p, "a", 1, 1);
	ts_expdir_add(&p, "b", 1, 2);
	TSU_EQ(ts_expdir_write(d, &p, &err), 0);
	ts_expdir_free(&p);
	run(dir, i == 1 ? "a" : "b", 1, i, thr);
}

/* Entries of @root other than s1, s2 and @keep: what a merge left behind. */
static int leftovers(const char *keep)
{
	struct dirent *e;
	DIR *d = opendir(root);
	int n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "s1") &&
		    strcmp(e->d_name, "s2") && (!keep || strcmp(e->d_name, keep))) {
			fprintf(stderr, "\n  left behind: %s\n", e->d_name);
			n++;
		}
	closedir(d);
	return n;
}

static int merge(const char *out, struct ts_err *err)
{
	char o[PATH_MAX], s1[PATH_MAX], s2[PATH_MAX];
	const char *dirs[2] = {s1, s2};

	path(o, out);
	path(s1, "s1");
	path(s2, "s2");
	err->msg[0] = '\0';
	return ts_exp_merge(o, dirs, 2, stderr, err);
}

static void test_all_or_nothing(void)
{
	char p[PATH_MAX];
	struct ts_err err;
	struct stat st;

	use("all-or-nothing");
	shard("s1", 1, "9.5");
	shard("s2", 2, "-Infinity");
	/* The second shard's run does not read: named, and nothing is written. */
	TSU_EQ(merge("out", &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg,
				      "s2/b/rep-1/result.json: flows[0]: \"throughput_mbps\": "
				      "expected a finite number, got -Infinity"));
	path(p, "out");
	CU_ASSERT_NOT_EQUAL(lstat(p, &st), 0);
	TSU_EQ(leftovers(NULL), 0);
	/* Into an empty directory: it stays empty. */
	TSU_EQ(mkdir(p, 0755), 0);
	TSU_EQ(merge("out", &err), -EINVAL);
	TSU_EQ(leftovers("out"), 0);
	TSU_EQ(rmdir(p), 0); /* empty, or this fails */
	/* Mended: the same merge goes through. */
	run("s2", "b", 1, 2, "7.25");
	TSU_EQ(merge("out", &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(get("out/summary.json"), "\"configs\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(get("out/b/rep-1/result.json"), "7.25"));
	TSU_EQ(leftovers("out"), 0);
}

/* The merged files are copies: one link each, and the shard's later edits do not reach them. */
static void test_copies(void)
{
	char p[PATH_MAX], q[PATH_MAX];
	struct ts_err err;
	struct stat a, b;

	use("copies");
	shard("s1", 1, "9.5");
	shard("s2", 2, "7.25");
	TSU_EQ(merge("out", &err), 0);
	path(p, "s1/a/rep-1/result.json");
	path(q, "out/a/rep-1/result.json");
	TSU_EQ(stat(p, &a), 0);
	TSU_EQ(stat(q, &b), 0);
	CU_ASSERT_NOT_EQUAL(a.st_ino, b.st_ino);
	TSU_EQ(b.st_nlink, 1);
	put("s1/a/rep-1/result.json", "{\"changed\": 999.5}");
	CU_ASSERT_PTR_NOT_NULL(strstr(get("out/a/rep-1/result.json"), "9.5"));
	CU_ASSERT_PTR_NULL(strstr(get("out/a/rep-1/result.json"), "999.5"));
}

static int setup(void)
{
	return tsu_tmp_make(top);
}

static int teardown(void)
{
	return tsu_tmp_remove(top);
}

static const struct tsu_test tests[] = {
	{"a refused merge writes nothing; mended, it goes through", test_all_or_nothing},
	{"merged files are copies", test_copies},
};

TSU_MAIN_FIXTURE("exp merge", tests, setup, teardown)

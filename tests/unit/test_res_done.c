/* SPDX-License-Identifier: MIT */
/*
 * Resume and merge bookkeeping (results/done.c, results/expdir.c, results/merge.c) on
 * made-up experiment directories in a temporary directory: done records,
 * what resume keeps and redoes, --shard parsing, and merge refusing
 * overlapping and missing runs and otherwise giving one whole directory.
 */
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

static char root[PATH_MAX];

/* @a/@b into @out (PATH_MAX). */
static void join(char *out, const char *a, const char *b)
{
	if (snprintf(out, PATH_MAX, "%s/%s", a, b) >= PATH_MAX)
		CU_FAIL("path too long");
}

static void put(const char *dir, const char *name, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	join(p, dir, name);
	f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static void mk(const char *a, char *out)
{
	char cmd[PATH_MAX + 16];

	join(out, root, a);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", out);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
}

static void setup_root(void)
{
	snprintf(root, sizeof(root), "/tmp/ts-test-done-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
}

static void test_done_record(void)
{
	char run[PATH_MAX], why[1024], sub[PATH_MAX];

	setup_root();
	mk("a/rep-1", run);
	/* No record: not done. */
	TSU_EQ(ts_done_check(run, why, sizeof(why)), TS_DONE_NONE);
	put(run, "result.json", "{\"ok\": true}\n");
	join(sub, run, "raw");
	mkdir(sub, 0755);
	put(sub, "iperf3.json", "{}");
	TSU_EQ(ts_done_write(run, "a", 1, why, sizeof(why)), 0);
	TSU_EQ(ts_done_check(run, why, sizeof(why)), TS_DONE_OK);
	/* A changed byte breaks it, and the message names the file. */
	put(run, "result.json", "{\"ok\": false}\n");
	TSU_EQ(ts_done_check(run, why, sizeof(why)), TS_DONE_BROKEN);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "result.json: changed since the run was done"));
	put(run, "result.json", "{\"ok\": true}\n");
	TSU_EQ(ts_done_check(run, why, sizeof(why)), TS_DONE_OK);
	/* A file added afterwards, and a listed file removed. */
	put(run, "extra.txt", "x");
	TSU_EQ(ts_done_check(run, why, sizeof(why)), TS_DONE_BROKEN);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "extra.txt: not listed in done"));
	join(sub, run, "extra.txt");
	unlink(sub);
	join(sub, run, "raw/iperf3.json");
	unlink(sub);
	TSU_EQ(ts_done_check(run, why, sizeof(why)), TS_DONE_BROKEN);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "raw/iperf3.json: listed in done but missing"));
	/* Resume: a broken or unrecorded run is removed and redone, an intact one kept. */
	TSU_EQ(ts_expdir_prepare_run(run, why, sizeof(why)), TS_RESUME_RUN);
	CU_ASSERT_NOT_EQUAL(access(run, F_OK), 0);
	mk("a/rep-1", run);
	put(run, "result.json", "{}");
	TSU_EQ(ts_done_write(run, "a", 1, why, sizeof(why)), 0);
	TSU_EQ(ts_expdir_prepare_run(run, why, sizeof(why)), TS_RESUME_KEEP);
	TSU_EQ(access(run, F_OK), 0);
	TSU_EQ(ts_rm_tree(root), 0);
}

static void test_shard_parse(void)
{
	struct ts_exp_shard s;
	char err[256];

	TSU_EQ(ts_exp_shard_parse("2/4", &s, err, sizeof(err)), 0);
	TSU_EQ(s.i, 2);
	TSU_EQ(s.n, 4);
	TSU_EQ(ts_exp_shard_parse("1/1", &s, err, sizeof(err)), 0);
	TSU_EQ(ts_exp_shard_parse("0/4", &s, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "expected i/N with 1 <= i <= N"));
	TSU_EQ(ts_exp_shard_parse("5/4", &s, err, sizeof(err)), -EINVAL);
	TSU_EQ(ts_exp_shard_parse("1/4x", &s, err, sizeof(err)), -EINVAL);
	TSU_EQ(ts_exp_shard_parse("/4", &s, err, sizeof(err)), -EINVAL);
	TSU_EQ(ts_exp_shard_parse("1/", &s, err, sizeof(err)), -EINVAL);
	TSU_EQ(ts_exp_shard_parse("-1/4", &s, err, sizeof(err)), -EINVAL);
}

/* A plan of 4 runs: configurations a and b, two repetitions, interleaved. */
static void plan4(struct ts_expdir *p, unsigned i, unsigned n)
{
	memset(p, 0, sizeof(*p));
	p->spec_sha256 = strdup("abc123");
	p->spec = strdup("x.ini");
	p->shard.i = i;
	p->shard.n = n;
	ts_expdir_add(p, "a", 1, 1);
	ts_expdir_add(p, "b", 1, 2);
	ts_expdir_add(p, "a", 2, 3);
	ts_expdir_add(p, "b", 2, 4);
}

/* Shard @i of 2 in @dir: runs i and i + 2 done. */
static void shard_dir(const char *dir, unsigned i)
{
	struct ts_expdir p;
	char err[512], run[PATH_MAX];
	size_t k;

	plan4(&p, i, 2);
	mkdir(dir, 0755);
	TSU_EQ(ts_expdir_write(dir, &p, err, sizeof(err)), 0);
	for (k = i - 1; k < p.n; k += 2) {
		char cmd[PATH_MAX + 16], text[160];

		ts_expdir_rundir(dir, &p.runs[k], run, sizeof(run));
		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", run);
		CU_ASSERT_EQUAL(system(cmd), 0);
		/* A result.json merge reads as the summary does (it summarises what it merged). */
		snprintf(text, sizeof(text),
			 "{\"version\": 1, \"id\": \"%s\", \"rep\": %u, \"index\": %u, \"axes\": "
			 "{}, \"ok\": true, \"flows\": []}",
			 p.runs[k].id, p.runs[k].rep, p.runs[k].index);
		put(run, "result.json", text);
		TSU_EQ(ts_done_write(run, p.runs[k].id, p.runs[k].rep, err, sizeof(err)), 0);
	}
	ts_expdir_free(&p);
}

static void test_expdir_roundtrip(void)
{
	struct ts_expdir p, q;
	char err[512], dir[PATH_MAX];

	setup_root();
	join(dir, root, "x");
	plan4(&p, 2, 3);
	TSU_EQ(ts_expdir_check_fresh(dir, err, sizeof(err)), 0);
	mkdir(dir, 0755);
	TSU_EQ(ts_expdir_write(dir, &p, err, sizeof(err)), 0);
	TSU_EQ(ts_expdir_check_fresh(dir, err, sizeof(err)), -EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "tasshape exp resume"));
	TSU_EQ(ts_expdir_read(dir, &q, err, sizeof(err)), 0);
	CU_ASSERT(ts_expdir_same_runs(&p, &q));
	TSU_EQ(q.shard.i, 2);
	TSU_EQ(q.shard.n, 3);
	CU_ASSERT_STRING_EQUAL(q.spec_sha256, "abc123");
	CU_ASSERT_STRING_EQUAL(q.runs[2].id, "a");
	TSU_EQ(q.runs[2].rep, 2);
	ts_expdir_free(&q);
	ts_expdir_free(&p);
	TSU_EQ(ts_rm_tree(root), 0);
}

static void test_merge(void)
{
	char s1[PATH_MAX], s2[PATH_MAX], out[PATH_MAX], err[1024], run[PATH_MAX], *buf = NULL;
	const char *dirs[2];
	struct ts_expdir m;
	size_t len = 0;
	FILE *msg;

	setup_root();
	join(s1, root, "s1");
	join(s2, root, "s2");
	join(out, root, "out");
	shard_dir(s1, 1);
	shard_dir(s2, 2);
	dirs[0] = s1;
	dirs[1] = s2;

	/* Only shard 1: runs 2 and 4 are missing, named one a line. */
	msg = open_memstream(&buf, &len);
	TSU_EQ(ts_exp_merge(out, dirs, 1, msg, err, sizeof(err)), -EINVAL);
	fclose(msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "missing: run 2 b/rep-1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "missing: run 4 b/rep-2"));
	CU_ASSERT_PTR_NULL(strstr(buf, "run 1 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "0 run(s) overlap and 2 are missing"));
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
	free(buf);

	/* The same shard twice: every run of it overlaps (and the other two are missing). */
	dirs[1] = s1;
	msg = open_memstream(&buf, &len);
	TSU_EQ(ts_exp_merge(out, dirs, 2, msg, err, sizeof(err)), -EINVAL);
	fclose(msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "overlap: run 1 a/rep-1 is done in"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "overlap: run 3 a/rep-2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "2 run(s) overlap and 2 are missing"));
	free(buf);

	/* Run 4 of shard 2 partial (its done record gone): missing, and said why. */
	dirs[1] = s2;
	join(run, s2, "b/rep-2/done");
	{
		char keep[PATH_MAX + 8];

		if (snprintf(keep, sizeof(keep), "%s.away", run) >= (int)sizeof(keep))
			CU_FAIL("path too long");
		rename(run, keep);
		msg = open_memstream(&buf, &len);
		TSU_EQ(ts_exp_merge(out, dirs, 2, msg, err, sizeof(err)), -EINVAL);
		fclose(msg);
		CU_ASSERT_PTR_NOT_NULL(strstr(buf, "missing: run 4 b/rep-2"));
		CU_ASSERT_PTR_NOT_NULL(strstr(buf, "not done (no done record)"));
		free(buf);
		rename(keep, run);
	}

	/* Both shards: one whole directory, shard 1/1, every run checked against its record. */
	msg = open_memstream(&buf, &len);
	TSU_EQ(ts_exp_merge(out, dirs, 2, msg, err, sizeof(err)), 0);
	fclose(msg);
	TSU_EQ(len, 0);
	free(buf);
	TSU_EQ(ts_expdir_read(out, &m, err, sizeof(err)), 0);
	TSU_EQ(m.n, 4);
	TSU_EQ(m.shard.i, 1);
	TSU_EQ(m.shard.n, 1);
	ts_expdir_rundir(out, &m.runs[3], run, sizeof(run));
	TSU_EQ(ts_done_check(run, err, sizeof(err)), TS_DONE_OK);
	ts_expdir_free(&m);
	/* Never into a non-empty directory. */
	TSU_EQ(ts_exp_merge(out, dirs, 2, stderr, err, sizeof(err)), -EEXIST);
	TSU_EQ(ts_rm_tree(root), 0);
}

static const struct tsu_test tests[] = {
	{"done record: intact, changed, added, missing; resume keeps or redoes", test_done_record},
	{"--shard i/N parsing", test_shard_parse},
	{"experiment.json round trip and fresh-directory check", test_expdir_roundtrip},
	{"merge: missing, overlap, partial, whole", test_merge},
};

TSU_MAIN("results bookkeeping", tests)

/* SPDX-License-Identifier: MIT */
/*
 * Resume and merge bookkeeping (results/done.c, results/expdir.c, results/merge.c) on
 * made-up experiment directories in a temporary directory: done records,
 * what resume keeps and redoes, --shard parsing, and merge refusing
 * overlapping and missing runs and otherwise giving one whole directory.
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
#include "results/done.h"
#include "results/expdir.h"
#include "results/merge.h"
#include "results/rundir.h"
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

static void setup_root_in(const char *base)
{
	snprintf(root, sizeof(root), "%s/ts-test-done-XXXXXX", base);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
}

static void setup_root(void)
{
	setup_root_in("/tmp");
}

static void test_done_record(void)
{
	struct ts_expdir_run a1 = {(char *)"a", 1, 1};
	char run[PATH_MAX], sub[PATH_MAX];
	struct ts_err why;
	struct ts_err we;

	setup_root();
	mk("a/rep-1", run);
	/* No record: not done. */
	TSU_EQ(ts_done_check(run, &why), TS_DONE_NONE);
	put(run, "result.json", "{\"ok\": true}\n");
	join(sub, run, "raw");
	mkdir(sub, 0755);
	put(sub, "iperf3.json", "{}");
	TSU_EQ(ts_done_write(run, "a", 1, &we), 0);
	TSU_EQ(ts_done_check(run, &why), TS_DONE_OK);
	/* A changed byte breaks it, and the message names the file. */
	put(run, "result.json", "{\"ok\": false}\n");
	TSU_EQ(ts_done_check(run, &why), TS_DONE_BROKEN);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "result.json: changed since the run was done"));
	put(run, "result.json", "{\"ok\": true}\n");
	TSU_EQ(ts_done_check(run, &why), TS_DONE_OK);
	/* A file added afterwards, and a listed file removed. */
	put(run, "extra.txt", "x");
	TSU_EQ(ts_done_check(run, &why), TS_DONE_BROKEN);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "extra.txt: not listed in done"));
	join(sub, run, "extra.txt");
	unlink(sub);
	join(sub, run, "raw/iperf3.json");
	unlink(sub);
	TSU_EQ(ts_done_check(run, &why), TS_DONE_BROKEN);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "raw/iperf3.json: listed in done but missing"));
	/* Resume: a broken or unrecorded run is removed and redone, an intact one kept. */
	TSU_EQ(ts_expdir_prepare_run(root, &a1, &why), TS_RESUME_RUN);
	CU_ASSERT_NOT_EQUAL(access(run, F_OK), 0);
	mk("a/rep-1", run);
	put(run, "result.json", "{}");
	TSU_EQ(ts_done_write(run, "a", 1, &we), 0);
	TSU_EQ(ts_expdir_prepare_run(root, &a1, &why), TS_RESUME_KEEP);
	TSU_EQ(access(run, F_OK), 0);
	TSU_EQ(ts_rmtree(root, NULL), 0);
}

/* ts_done_check of @run with an alarm: a read that waits forever ends the test as a failure. */
static int check_soon(const char *run, struct ts_err *why)
{
	int ret;

	why->msg[0] = '\0';
	alarm(10);
	ret = ts_done_check(run, why);
	alarm(0);
	return ret;
}

static void test_done_refuses_special(void)
{
	char run[PATH_MAX], p[PATH_MAX];
	struct ts_err why;
	struct ts_err we;

	setup_root();
	mk("a/rep-1", run);
	put(run, "result.json", "{}");
	TSU_EQ(ts_done_write(run, "a", 1, &we), 0);
	/* The listed result.json is now a FIFO: refused at once, named (a read would wait). */
	join(p, run, "result.json");
	unlink(p);
	CU_ASSERT_EQUAL_FATAL(mkfifo(p, 0600), 0);
	CU_ASSERT(check_soon(run, &why) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "rep-1/result.json: a FIFO"));
	/* A link to /dev/zero (a read would never end). */
	unlink(p);
	CU_ASSERT_EQUAL_FATAL(symlink("/dev/zero", p), 0);
	CU_ASSERT(check_soon(run, &why) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "rep-1/result.json: a symbolic link"));
	/* The record itself a FIFO. */
	unlink(p);
	put(run, "result.json", "{}");
	join(p, run, "done");
	unlink(p);
	CU_ASSERT_EQUAL_FATAL(mkfifo(p, 0600), 0);
	CU_ASSERT(check_soon(run, &why) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "rep-1/done: a FIFO"));
	TSU_EQ(ts_rmtree(root, NULL), 0);
}

/* Empty files f0 ... f<n-1> in @run. */
static void many_files(const char *run, int n)
{
	char name[32];
	int i, fd = open(run, O_RDONLY | O_DIRECTORY);

	CU_ASSERT_FATAL(fd >= 0);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		close(openat(fd, name, O_WRONLY | O_CREAT | O_EXCL, 0644));
	}
	close(fd);
}

static void test_done_file_limit(void)
{
	char run[PATH_MAX], p[PATH_MAX];
	struct ts_err why;
	struct ts_err we;
	FILE *f;
	int i;

	/* tmpfs where there is one: ten thousand files are made faster there. */
	setup_root_in(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	/* 10,000 files per run directory at most, found or listed. */
	mk("a/rep-1", run);
	many_files(run, 10001);
	TSU_EQ(ts_done_write(run, "a", 1, &we), -E2BIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(we.msg, "more than 10000 files"));
	put(run, "done", "{\"files\": []}");
	CU_ASSERT(check_soon(run, &why) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "more than 10000 files"));
	/* A record listing 10,001 files is refused before they are looked for. */
	mk("b/rep-1", run);
	put(run, "result.json", "");
	join(p, run, "done");
	f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("{\"files\": [", f);
	for (i = 0; i < 10001; i++)
		fprintf(f, "%s{\"path\": \"result.json\", \"bytes\": 0}", i ? ", " : "");
	fputs("]}", f);
	fclose(f);
	CU_ASSERT(check_soon(run, &why) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "lists 10001 files, more than 10000"));
	TSU_EQ(ts_rmtree(root, NULL), 0);
}

static void test_done_depth_limit(void)
{
	char run[PATH_MAX], cmd[PATH_MAX + 16];
	struct ts_err why;
	struct ts_err we;
	int fd, next, i;

	setup_root();
	mk("a/rep-1", run);
	put(run, "result.json", "{}");
	TSU_EQ(ts_done_write(run, "a", 1, &we), 0);
	/* 1000 nested directories: an error naming the limit (it overflowed the stack). */
	fd = open(run, O_RDONLY | O_DIRECTORY);
	CU_ASSERT_FATAL(fd >= 0);
	for (i = 0; i < 1000; i++) {
		CU_ASSERT_EQUAL_FATAL(mkdirat(fd, "d", 0755), 0);
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		close(fd);
		CU_ASSERT_FATAL(next >= 0);
		fd = next;
	}
	close(fd);
	CU_ASSERT(check_soon(run, &why) < 0);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(why.msg, "rep-1/d/d/d/d/d/d/d/d/d: directories nested deeper than 8"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static void test_resume_refuses_config_link(void)
{
	struct ts_expdir_run a1 = {(char *)"a", 1, 1};
	char out[PATH_MAX], secret[PATH_MAX], p[PATH_MAX];
	struct ts_err why;

	setup_root();
	mk("secret/rep-1", secret);
	put(secret, "f", "keep");
	join(secret, root, "secret");
	mk("out", out);
	join(p, out, "a");
	CU_ASSERT_EQUAL_FATAL(symlink(secret, p), 0);
	/* A partial run behind a configuration directory that is a link: nothing is removed. */
	TSU_EQ(ts_expdir_prepare_run(out, &a1, &why), -ELOOP);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "out/a: a symbolic link"));
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "nothing removed"));
	join(p, secret, "rep-1/f");
	TSU_EQ(access(p, F_OK), 0);
	/* A run directory that is a link is removed as a link: its target stays. */
	unlink(secret);
	join(p, out, "a");
	unlink(p);
	mk("out/a", p);
	join(p, out, "a/rep-1");
	join(secret, root, "secret/rep-1");
	CU_ASSERT_EQUAL_FATAL(symlink(secret, p), 0);
	TSU_EQ(ts_expdir_prepare_run(out, &a1, &why), TS_RESUME_RUN);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "a symbolic link, not a run directory"));
	CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
	join(p, secret, "f");
	TSU_EQ(access(p, F_OK), 0);
	TSU_EQ(ts_rmtree(root, NULL), 0);
}

static void test_shard_parse(void)
{
	struct ts_exp_shard s;
	struct ts_err err;

	TSU_EQ(ts_exp_shard_parse("2/4", &s, &err), 0);
	TSU_EQ(s.i, 2);
	TSU_EQ(s.n, 4);
	TSU_EQ(ts_exp_shard_parse("1/1", &s, &err), 0);
	TSU_EQ(ts_exp_shard_parse("0/4", &s, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "expected i/N with 1 <= i <= N"));
	TSU_EQ(ts_exp_shard_parse("5/4", &s, &err), -EINVAL);
	TSU_EQ(ts_exp_shard_parse("1/4x", &s, &err), -EINVAL);
	TSU_EQ(ts_exp_shard_parse("/4", &s, &err), -EINVAL);
	TSU_EQ(ts_exp_shard_parse("1/", &s, &err), -EINVAL);
	TSU_EQ(ts_exp_shard_parse("-1/4", &s, &err), -EINVAL);
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
	char run[PATH_MAX];
	struct ts_err err;
	size_t k;

	plan4(&p, i, 2);
	mkdir(dir, 0755);
	TSU_EQ(ts_expdir_write(dir, &p, &err), 0);
	for (k = i - 1; k < p.n; k += 2) {
		char cmd[PATH_MAX + 16], text[160];

		TSU_EQ(ts_rundir_path(run, sizeof(run), dir, p.runs[k].id, p.runs[k].rep), 0);
		snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", run);
		CU_ASSERT_EQUAL(system(cmd), 0);
		/* A result.json merge reads as the summary does (it summarises what it merged). */
		snprintf(text, sizeof(text),
			 "{\"version\": 1, \"id\": \"%s\", \"rep\": %u, \"index\": %u, \"axes\": "
			 "{}, \"ok\": true, \"flows\": []}",
			 p.runs[k].id, p.runs[k].rep, p.runs[k].index);
		put(run, "result.json", text);
		TSU_EQ(ts_done_write(run, p.runs[k].id, p.runs[k].rep, &err), 0);
	}
	ts_expdir_free(&p);
}

static void test_expdir_roundtrip(void)
{
	struct ts_expdir p, q;
	char dir[PATH_MAX];
	struct ts_err err;

	setup_root();
	join(dir, root, "x");
	plan4(&p, 2, 3);
	TSU_EQ(ts_expdir_check_fresh(dir, &err), 0);
	mkdir(dir, 0755);
	TSU_EQ(ts_expdir_write(dir, &p, &err), 0);
	TSU_EQ(ts_expdir_check_fresh(dir, &err), -EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "tasshape exp resume"));
	TSU_EQ(ts_expdir_read(dir, &q, &err), 0);
	CU_ASSERT(ts_expdir_same_runs(&p, &q));
	TSU_EQ(q.shard.i, 2);
	TSU_EQ(q.shard.n, 3);
	CU_ASSERT_STRING_EQUAL(q.spec_sha256, "abc123");
	CU_ASSERT_STRING_EQUAL(q.runs[2].id, "a");
	TSU_EQ(q.runs[2].rep, 2);
	ts_expdir_free(&q);
	ts_expdir_free(&p);
	TSU_EQ(ts_rmtree(root, NULL), 0);
}

static void test_merge(void)
{
	char s1[PATH_MAX], s2[PATH_MAX], out[PATH_MAX], run[PATH_MAX], *buf = NULL;
	struct ts_err err;
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
	TSU_EQ(ts_exp_merge(out, dirs, 1, msg, &err), -EINVAL);
	fclose(msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "missing: run 2 b/rep-1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "missing: run 4 b/rep-2"));
	CU_ASSERT_PTR_NULL(strstr(buf, "run 1 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "0 run(s) overlap and 2 are missing"));
	CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0);
	free(buf);

	/* The same shard twice: every run of it overlaps (and the other two are missing). */
	dirs[1] = s1;
	msg = open_memstream(&buf, &len);
	TSU_EQ(ts_exp_merge(out, dirs, 2, msg, &err), -EINVAL);
	fclose(msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "overlap: run 1 a/rep-1 is done in"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "overlap: run 3 a/rep-2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "2 run(s) overlap and 2 are missing"));
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
		TSU_EQ(ts_exp_merge(out, dirs, 2, msg, &err), -EINVAL);
		fclose(msg);
		CU_ASSERT_PTR_NOT_NULL(strstr(buf, "missing: run 4 b/rep-2"));
		CU_ASSERT_PTR_NOT_NULL(strstr(buf, "not done (no done record)"));
		free(buf);
		rename(keep, run);
	}

	/* Both shards: one whole directory, shard 1/1, every run checked against its record. */
	msg = open_memstream(&buf, &len);
	TSU_EQ(ts_exp_merge(out, dirs, 2, msg, &err), 0);
	fclose(msg);
	TSU_EQ(len, 0);
	free(buf);
	TSU_EQ(ts_expdir_read(out, &m, &err), 0);
	TSU_EQ(m.n, 4);
	TSU_EQ(m.shard.i, 1);
	TSU_EQ(m.shard.n, 1);
	TSU_EQ(ts_rundir_path(run, sizeof(run), out, m.runs[3].id, m.runs[3].rep), 0);
	TSU_EQ(ts_done_check(run, &err), TS_DONE_OK);
	ts_expdir_free(&m);
	/* Never into a non-empty directory. */
	TSU_EQ(ts_exp_merge(out, dirs, 2, stderr, &err), -EEXIST);
	TSU_EQ(ts_rmtree(root, NULL), 0);
}

/* exp resume without a SPEC reads DIR/spec.ini: its path, or why it cannot be read. */
static void test_expdir_spec(void)
{
	char path[PATH_MAX], want[PATH_MAX], msg[PATH_MAX + 64], tiny[8];
	struct ts_err err;

	setup_root();
	join(want, root, TS_EXPDIR_SPEC);
	TSU_EQ(ts_expdir_spec(root, path, sizeof(path), &err), -ENOENT);
	snprintf(msg, sizeof(msg), "%s: No such file or directory", want);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
	put(root, TS_EXPDIR_SPEC, "[experiment]\n");
	TSU_EQ(ts_expdir_spec(root, path, sizeof(path), &err), 0);
	CU_ASSERT_STRING_EQUAL(path, want);
	TSU_EQ(ts_expdir_spec(root, tiny, sizeof(tiny), &err), -ENAMETOOLONG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/spec.ini: File name too long"));
	TSU_EQ(ts_rmtree(root, NULL), 0);
}

static const struct tsu_test tests[] = {
	{"done record: intact, changed, added, missing; resume keeps or redoes", test_done_record},
	{"done record: a FIFO, a link to /dev/zero refused at once", test_done_refuses_special},
	{"done record: at most 10000 files, found or listed", test_done_file_limit},
	{"done record: 1000 nested directories refused, no crash", test_done_depth_limit},
	{"resume: a configuration directory that is a link, a run directory that is one",
	 test_resume_refuses_config_link},
	{"--shard i/N parsing", test_shard_parse},
	{"experiment.json round trip and fresh-directory check", test_expdir_roundtrip},
	{"merge: missing, overlap, partial, whole", test_merge},
	{"exp resume's default spec, DIR/spec.ini", test_expdir_spec},
};

TSU_MAIN("results bookkeeping", tests)

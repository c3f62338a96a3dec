/* SPDX-License-Identifier: MIT */
/*
 * The host files a run in a sealed guest reads (src/exec/exec_seal.c), from
 * a spec written here: the spec itself, each trace its links name (beside
 * the spec, below it, named twice, or a generator that is no file), a
 * bpf: congestion control's object, and nothing else.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exec/exec_seal.h"
#include "tsu.h"

static char dir[] = "/tmp/tsu-exec-seal.XXXXXX";

static void put(const char *name, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static bool listed(const struct ts_exp_seal_files *f, const char *name)
{
	char p[PATH_MAX];
	size_t i;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	for (i = 0; i < f->n; i++)
		if (!strcmp(f->path[i], p))
			return true;
	return false;
}

static void test_seal_files(void)
{
	struct ts_exp_seal_files f;
	struct ts_exp_run run;
	char spec[PATH_MAX], cca[PATH_MAX + 8];
	struct ts_err err = {""};

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(spec, sizeof(spec), "%s/sub", dir);
	CU_ASSERT_FATAL(mkdir(spec, 0755) == 0);
	put("up.csv", "time_s,up_mbps,down_mbps\n0,10,10\n");
	put("sub/down.csv", "time_s,down_mbps\n0,10\n");
	put("cc.bpf.o", "not really BPF");
	put("unused.csv", "time_s,up_mbps\n0,1\n");
	put("s.ini", "[experiment]\nname = s\n[matrix]\ncca = cubic\nlink = a, b, c\n"
		     "test = tcp_upload\n"
		     "[link a]\ntrace = up.csv\ndelay = 10ms\n"
		     "[link b]\ntrace = const:10mbit\n"
		     "[link c]\nuplink-trace = up.csv\ndownlink-trace = sub/down.csv\n");
	snprintf(spec, sizeof(spec), "%s/s.ini", dir);
	memset(&run, 0, sizeof(run));
	run.cca = "cubic";
	TSU_EQ(ts_exp_seal_files(&run, spec, &f, &err), 0);
	/* The spec, up.csv once though named twice, sub/down.csv; not const:, not unused.csv. */
	TSU_EQ(f.n, 3);
	CU_ASSERT(listed(&f, "s.ini"));
	CU_ASSERT(listed(&f, "up.csv"));
	CU_ASSERT(listed(&f, "sub/down.csv"));
	CU_ASSERT_PTR_NULL(f.path[f.n]);
	ts_exp_seal_files_free(&f);

	snprintf(cca, sizeof(cca), "bpf:%s/cc.bpf.o", dir);
	run.cca = cca;
	TSU_EQ(ts_exp_seal_files(&run, spec, &f, &err), 0);
	TSU_EQ(f.n, 4);
	CU_ASSERT(listed(&f, "cc.bpf.o"));
	ts_exp_seal_files_free(&f);

	/* A spec that cannot be read: its error, nothing listed. */
	snprintf(spec, sizeof(spec), "%s/none.ini", dir);
	CU_ASSERT(ts_exp_seal_files(&run, spec, &f, &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "none.ini"));
	TSU_EQ(f.n, 0);
	/* Only the mkdtemp directory this test made. */
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static const struct tsu_test tests[] = {
	{"a sealed run's host files from its spec", test_seal_files},
};

TSU_MAIN("exec_seal", tests)

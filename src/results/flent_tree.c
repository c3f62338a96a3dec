/* SPDX-License-Identifier: MIT */
/*
 * Flent data files for every run under a directory (exp flent): an
 * experiment's directory, or one run directory <config-id>/rep-<k>.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "results/done.h"
#include "results/flent.h"
#include "results/rundir.h"

static int is_file(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Every directory holding a result.json at most two levels below @dir (or @dir itself). */
static int for_each_run(const char *dir, int depth, int (*fn)(const char *, void *), void *arg)
{
	struct dirent *e;
	DIR *d;
	int ret = 0;

	if (is_file(dir, "result.json"))
		return fn(dir, arg);
	if (depth == 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d)) && ret >= 0) {
		char p[PATH_MAX];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			ret = for_each_run(p, depth - 1, fn, arg);
	}
	closedir(d);
	return ret;
}

/* What export_one needs besides the run's directory. */
struct tree_ctx {
	const char *version;
	struct ts_flent_count *c;
	void (*say)(void *ctx, const char *msg);
	void *ctx;
};

static int export_one(const char *rundir, void *arg)
{
	struct tree_ctx *t = arg;
	struct ts_err err;
	/* A done run stays done: its record is written again to list the new file. */
	int was_done = ts_done_check(rundir, &err) == TS_DONE_OK;
	int ret = ts_flent_export_run(rundir, t->version, &err);

	if (ret == 0 && was_done) {
		const char *rep = strrchr(rundir, '/');
		char id[PATH_MAX];
		unsigned k = 0;

		snprintf(id, sizeof(id), "%.*s", rep ? (int)(rep - rundir) : 0, rundir);
		if (rep)
			sscanf(rep, "/" TS_RUNDIR_PREFIX "%u", &k);
		if (ts_done_write(rundir, strrchr(id, '/') ? strrchr(id, '/') + 1 : id, k, &err) <
		    0)
			ret = -EIO;
	}

	if (ret < 0) {
		t->say(t->ctx, err.msg);
		t->c->failed++;
	} else if (ret == 1) {
		t->c->skipped++;
	} else {
		t->c->written++;
	}
	return 0;
}

int ts_flent_export_tree(const char *dir, const char *tool_version, struct ts_flent_count *c,
			 void (*say)(void *ctx, const char *msg), void *ctx)
{
	struct tree_ctx t = {tool_version, c, say, ctx};

	return for_each_run(dir, 2, export_one, &t);
}

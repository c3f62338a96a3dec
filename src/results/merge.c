/* SPDX-License-Identifier: MIT */
/* Shard directories into one experiment directory (see merge.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/copytree.h"
#include "io/infile.h"
#include "io/json.h"
#include "io/outfile.h"
#include "io/rmtree.h"
#include "results/done.h"
#include "results/expdir.h"
#include "results/merge.h"
#include "results/result.h"
#include "results/rjson.h"
#include "results/rundir.h"
#include "results/summary.h"

#include <json-c/json.h>

static int is_empty_or_absent(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int empty = 1;

	if (!d)
		return errno == ENOENT;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}

/* Which of @dirs holds run @r done; *@count how many do; the last partial one's reason. */
static int find_done(const struct ts_expdir_run *r, const char *const *dirs, size_t ndirs,
		     int *first, int *second, char *partial, size_t plen)
{
	size_t k;
	int count = 0;

	*first = *second = -1;
	partial[0] = '\0';
	for (k = 0; k < ndirs; k++) {
		char rundir[PATH_MAX];
		struct ts_err why;
		struct stat st;
		int st_done;

		if (ts_rundir_path(rundir, sizeof(rundir), dirs[k], r->id, r->rep) ||
		    stat(rundir, &st) != 0)
			continue;
		why.msg[0] = '\0';
		st_done = ts_done_check(rundir, &why);
		if (st_done == TS_DONE_OK) {
			if (count == 0)
				*first = (int)k;
			else if (count == 1)
				*second = (int)k;
			count++;
		} else {
			snprintf(partial, plen, "%s: %s", rundir,
				 st_done == TS_DONE_NONE ? "not done (no done record)" : why.msg);
		}
	}
	return count;
}

/* Does configuration @id have cca=@cca among its comma-separated axis values? */
static bool id_has_cca(const char *id, const char *cca)
{
	size_t len = strlen(cca);
	const char *p = id;

	while (p) {
		if (!strncmp(p, "cca=", 4) && !strncmp(p + 4, cca, len) &&
		    (p[4 + len] == ',' || !p[4 + len]))
			return true;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return false;
}

/* The skipped congestion control (of any directory's experiment.json) run @r is of, or NULL. */
static const char *skipped_cca(const struct ts_expdir *plans, size_t ndirs,
			       const struct ts_expdir_run *r)
{
	size_t k, i, n;

	for (k = 0; k < ndirs; k++) {
		struct json_object *sk = ts_rj_arr(plans[k].doc, "skipped", &n);

		for (i = 0; sk && i < n; i++) {
			const char *cca = ts_rj_str(json_object_array_get_idx(sk, i), "cca", NULL);

			if (cca && id_has_cca(r->id, cca))
				return cca;
		}
	}
	return NULL;
}

/*
 * Every directory's skipped congestion controls into the first one's record
 * (which the merged experiment.json is written from), each once.
 */
static int union_skipped(struct ts_expdir *plans, size_t ndirs)
{
	struct json_object *all = ts_rj_arr(plans[0].doc, "skipped", NULL);
	size_t k, i, j, n, m;

	if (!plans[0].doc)
		return 0;
	if (!all) {
		bool nomem = false;

		all = json_object_new_array();
		ts_json_put(plans[0].doc, "skipped", all, &nomem);
		if (nomem)
			return -ENOMEM;
	}
	for (k = 1; k < ndirs; k++) {
		struct json_object *sk = ts_rj_arr(plans[k].doc, "skipped", &n);

		for (i = 0; sk && i < n; i++) {
			struct json_object *e = json_object_array_get_idx(sk, i);
			const char *cca = ts_rj_str(e, "cca", NULL);
			bool seen = false;

			m = json_object_array_length(all);
			for (j = 0; cca && j < m && !seen; j++)
				seen = !strcmp(cca, ts_rj_str(json_object_array_get_idx(all, j),
							      "cca", ""));
			if (!cca || seen)
				continue;
			if (json_object_array_add(all, json_object_get(e)))
				return -ENOMEM;
		}
	}
	return 0;
}

static int check_dirs(const char *const *dirs, size_t ndirs, struct ts_expdir *plans,
		      struct ts_err *err)
{
	size_t k;
	int ret;

	for (k = 0; k < ndirs; k++) {
		size_t nskipped;

		ret = ts_expdir_read(dirs[k], &plans[k], err);
		if (ret)
			return ret;
		/* Each skipped control is compared with every run and every other directory's. */
		ts_rj_arr(plans[k].doc, "skipped", &nskipped);
		if (nskipped > TS_EXP_SUM_MAX_SKIPPED || plans[k].n > TS_EXP_MAX_RUNS) {
			ts_err_set(
				err,
				"%s/%s: %zu runs and %zu skipped congestion controls: at most %d "
				"runs (the largest matrix exp run plans) and %d skipped controls "
				"(the "
				"values of a spec's cca axis)",
				dirs[k], TS_EXPDIR_FILE, plans[k].n, nskipped, TS_EXP_MAX_RUNS,
				TS_EXP_SUM_MAX_SKIPPED);
			return -E2BIG;
		}
		if (k == 0)
			continue;
		if (strcmp(plans[k].spec_sha256, plans[0].spec_sha256)) {
			ts_err_set(err,
				   "%s and %s ran different specs (SHA-256 %.12s... and %.12s...): "
				   "only shards of one spec merge",
				   dirs[0], dirs[k], plans[0].spec_sha256, plans[k].spec_sha256);
			return -EINVAL;
		}
		if (!ts_expdir_same_runs(&plans[0], &plans[k])) {
			ts_err_set(
				err,
				"%s and %s planned different runs from the same spec (other "
				"--only, --repetitions or seed): only shards of one matrix merge",
				dirs[0], dirs[k]);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Which directory each run of the matrix is copied from (@src[i]; -1: a
 * skipped control's run), listing on @msg the runs done in two directories
 * and the runs done in none. 0, or -EINVAL when any overlap or is missing.
 */
static int find_sources(const struct ts_expdir *plans, const char *const *dirs, size_t ndirs,
			int *src, FILE *msg, struct ts_err *err)
{
	unsigned overlap = 0, missing = 0;
	size_t i;

	for (i = 0; i < plans[0].n; i++) {
		const struct ts_expdir_run *r = &plans[0].runs[i];
		char partial[PATH_MAX + 600], name[PATH_MAX];
		int a, b, c = find_done(r, dirs, ndirs, &a, &b, partial, sizeof(partial));
		const char *cca;

		src[i] = a;
		ts_rundir_path(name, sizeof(name), NULL, r->id, r->rep);
		if (c > 1) {
			fprintf(msg, "overlap: run %u %s is done in %s and in %s\n", r->index, name,
				dirs[a], dirs[b]);
			overlap++;
		} else if (c == 0 && (cca = skipped_cca(plans, ndirs, r))) {
			/* As exp run does: a run of a skipped control is not missing. */
			fprintf(msg, "skipped: run %u %s (cca=%s was skipped)\n", r->index, name,
				cca);
		} else if (c == 0) {
			fprintf(msg, "missing: run %u %s is done in none of the directories%s%s\n",
				r->index, name, partial[0] ? "; " : "", partial);
			missing++;
		}
	}
	if (!overlap && !missing)
		return 0;
	ts_err_set(err,
		   "refusing to merge: %u run(s) overlap and %u are missing (listed above); "
		   "nothing was written",
		   overlap, missing);
	return -EINVAL;
}

/* "@a/@b" into @buf; -ENAMETOOLONG (with @err) when it does not fit. */
static int join(char *buf, size_t len, const char *a, const char *b, struct ts_err *err)
{
	if ((size_t)snprintf(buf, len, "%s/%s", a, b) < len)
		return 0;
	ts_err_set(err, "%s/%s: path too long", a, b);
	return -ENAMETOOLONG;
}

/*
 * The copy's result.json, read as the summary will read it: a value it
 * refuses (a missing field, -Infinity) is named in @from's file, the one
 * whose author can mend it. 0 when it parses or there is none.
 */
static int check_result(const char *to, const char *from, struct ts_err *err)
{
	struct ts_exp_result res;
	char path[PATH_MAX], name[PATH_MAX];
	struct ts_err e;
	char *text = NULL;
	size_t len;
	int ret;

	ret = join(path, sizeof(path), to, "result.json", err);
	if (!ret)
		ret = join(name, sizeof(name), from, "result.json", err);
	if (ret)
		return ret;
	ret = ts_in_read(path, TS_IN_JSON_MAX, &text, &len, &e);
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		ts_err_set(err, "%s: %s", name, strerror(-ret));
		return ret;
	}
	ret = ts_exp_result_parse(&res, name, text, err);
	if (!ret)
		ts_exp_result_free(&res);
	free(text);
	return ret;
}

/*
 * Run @r of directory @dir into the staging directory @stage: copied (the
 * invoker's files, not links to the author's), checked against its done
 * record and its result.json read. 0 or -errno with @err.
 */
static int copy_run(const char *stage, const char *dir, const struct ts_expdir_run *r,
		    struct ts_err *err)
{
	char from[PATH_MAX], to[PATH_MAX], parent[PATH_MAX];
	struct ts_err why;
	struct ts_err cerr;
	int ret;

	if (ts_rundir_path(from, sizeof(from), dir, r->id, r->rep) ||
	    ts_rundir_path(to, sizeof(to), stage, r->id, r->rep)) {
		ts_err_set(err, "%.300s: path too long", from);
		return -ENAMETOOLONG;
	}
	ret = join(parent, sizeof(parent), stage, r->id, err);
	if (ret)
		return ret;
	ret = ts_expdir_mkdirs(parent);
	if (ret) {
		ts_err_set(err, "%s: %s", parent, strerror(-ret));
		return ret;
	}
	ret = ts_copy_tree(from, to, TS_COPY_NEW | TS_COPY_OWN, &cerr);
	if (ret) {
		ts_err_set(err, "%s -> %s: %s", from, to, cerr.msg);
		return ret;
	}
	if (ts_done_check(to, &why) != TS_DONE_OK) {
		ts_err_set(err, "%s: the copy does not match its done record: %s", from, why.msg);
		return -EIO;
	}
	return check_result(to, from, err);
}

/* The first directory's spec.ini (that has one) into @stage. */
static int copy_spec(const char *stage, const char *const *dirs, size_t ndirs, struct ts_err *err)
{
	char from[PATH_MAX], to[PATH_MAX];
	struct ts_err why;
	size_t k;
	int ret;

	ret = join(to, sizeof(to), stage, TS_EXPDIR_SPEC, err);
	for (k = 0; k < ndirs && !ret; k++) {
		ret = join(from, sizeof(from), dirs[k], TS_EXPDIR_SPEC, err);
		if (ret || access(from, R_OK) != 0)
			continue;
		ret = ts_copy_file(from, to, TS_COPY_NEW | TS_COPY_OWN, &why);
		if (ret)
			ts_err_set(err, "%s: %s", from, why.msg);
		return ret;
	}
	return ret;
}

/* Everything of the merged directory into @stage: runs, spec, experiment.json, summaries. */
static int fill_stage(const char *stage, struct ts_expdir *plans, const char *const *dirs,
		      size_t ndirs, const int *src, struct ts_err *err)
{
	struct ts_exp_summary s;
	struct ts_expdir merged;
	size_t i;
	int ret = 0;

	for (i = 0; i < plans[0].n && !ret; i++)
		if (src[i] >= 0) /* else skipped */
			ret = copy_run(stage, dirs[src[i]], &plans[0].runs[i], err);
	if (!ret)
		ret = copy_spec(stage, dirs, ndirs, err);
	if (!ret && union_skipped(plans, ndirs)) {
		ts_err_set(err, "out of memory");
		ret = -ENOMEM;
	}
	if (ret)
		return ret;
	/* The merged directory is the whole matrix: shard 1/1 of the same spec and runs. */
	merged = plans[0];
	merged.shard.i = merged.shard.n = 1;
	ret = ts_expdir_write(stage, &merged, err);
	if (ret)
		return ret;
	/* Summarised here, as exp run summarises (campaign/summarise.c): a refusal writes nothing. */
	ts_exp_summary_init(&s, NULL);
	ret = ts_exp_summary_from_dir(&s, stage, err);
	if (!ret)
		ret = ts_exp_summary_write_all(&s, stage, err);
	ts_exp_summary_free(&s);
	return ret;
}

/* Merge into a private directory beside @out, renamed to @out when all of it is written. */
static int write_out(const char *out, struct ts_expdir *plans, const char *const *dirs,
		     size_t ndirs, const int *src, struct ts_err *err)
{
	struct ts_out_stage st;
	int ret;

	ret = ts_out_stage_begin(&st, out, err);
	if (ret)
		return ret;
	ret = fill_stage(st.path, plans, dirs, ndirs, src, err);
	if (!ret)
		ret = ts_out_stage_commit(&st, err);
	if (ret) {
		struct ts_err rm;

		/* The staging directory is ours (0700, made by ts_out_stage_begin). */
		ts_rmtree(st.path, &rm);
		if (err) {
			char first[TS_ERR_MAX];

			snprintf(first, sizeof(first), "%s", err->msg);
			ts_err_set(err, "%s; %s was not written", first, out);
		}
	}
	ts_out_stage_end(&st);
	return ret;
}

int ts_exp_merge(const char *out, const char *const *dirs, size_t ndirs, FILE *msg,
		 struct ts_err *err)
{
	struct ts_expdir *plans;
	int *src = NULL;
	size_t k;
	int ret;

	if (ndirs == 0) {
		ts_err_set(err, "no directories to merge");
		return -EINVAL;
	}
	/* Checked again, through descriptors, when the merged directory is moved there. */
	if (!is_empty_or_absent(out)) {
		ts_err_set(err, "%s exists and is not empty: merge into a new directory", out);
		return -EEXIST;
	}
	plans = calloc(ndirs, sizeof(*plans));
	if (!plans)
		return -ENOMEM;
	ret = check_dirs(dirs, ndirs, plans, err);
	if (ret)
		goto out;
	ret = -ENOMEM;
	src = calloc(plans[0].n ? plans[0].n : 1, sizeof(*src));
	if (!src)
		goto out;
	ret = find_sources(plans, dirs, ndirs, src, msg, err);
	if (!ret)
		ret = write_out(out, plans, dirs, ndirs, src, err);
out:
	for (k = 0; k < ndirs; k++)
		ts_expdir_free(&plans[k]);
	free(plans);
	free(src);
	return ret;
}

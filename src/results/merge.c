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
#include "results/done.h"
#include "results/expdir.h"
#include "results/merge.h"
#include "results/rjson.h"

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
		char rundir[PATH_MAX], why[512];
		struct stat st;
		int st_done;

		ts_expdir_rundir(dirs[k], r, rundir, sizeof(rundir));
		if (stat(rundir, &st) != 0)
			continue;
		why[0] = '\0';
		st_done = ts_done_check(rundir, why, sizeof(why));
		if (st_done == TS_DONE_OK) {
			if (count == 0)
				*first = (int)k;
			else if (count == 1)
				*second = (int)k;
			count++;
		} else {
			snprintf(partial, plen, "%s: %s", rundir,
				 st_done == TS_DONE_NONE ? "not done (no done record)" : why);
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
		all = json_object_new_array();
		if (!all || json_object_object_add(plans[0].doc, "skipped", all)) {
			json_object_put(all);
			return -ENOMEM;
		}
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

static int check_dirs(const char *const *dirs, size_t ndirs, struct ts_expdir *plans, char *err,
		      size_t errlen)
{
	size_t k;
	int ret;

	for (k = 0; k < ndirs; k++) {
		ret = ts_expdir_read(dirs[k], &plans[k], err, errlen);
		if (ret)
			return ret;
		if (k == 0)
			continue;
		if (strcmp(plans[k].spec_sha256, plans[0].spec_sha256)) {
			snprintf(err, errlen,
				 "%s and %s ran different specs (SHA-256 %.12s... and %.12s...): "
				 "only shards of one spec merge",
				 dirs[0], dirs[k], plans[0].spec_sha256, plans[k].spec_sha256);
			return -EINVAL;
		}
		if (!ts_expdir_same_runs(&plans[0], &plans[k])) {
			snprintf(err, errlen,
				 "%s and %s planned different runs from the same spec (other "
				 "--only, --repetitions or seed): only shards of one matrix merge",
				 dirs[0], dirs[k]);
			return -EINVAL;
		}
	}
	return 0;
}

int ts_exp_merge(const char *out, const char *const *dirs, size_t ndirs, FILE *msg, char *err,
		 size_t errlen)
{
	struct ts_expdir *plans, merged;
	unsigned overlap = 0, missing = 0;
	int *src = NULL;
	size_t i, k;
	int ret;

	if (ndirs == 0) {
		snprintf(err, errlen, "no directories to merge");
		return -EINVAL;
	}
	if (!is_empty_or_absent(out)) {
		snprintf(err, errlen, "%s exists and is not empty: merge into a new directory",
			 out);
		return -EEXIST;
	}
	plans = calloc(ndirs, sizeof(*plans));
	if (!plans)
		return -ENOMEM;
	ret = check_dirs(dirs, ndirs, plans, err, errlen);
	if (ret)
		goto out;
	ret = -ENOMEM;
	src = calloc(plans[0].n ? plans[0].n : 1, sizeof(*src));
	if (!src)
		goto out;
	for (i = 0; i < plans[0].n; i++) {
		const struct ts_expdir_run *r = &plans[0].runs[i];
		char partial[PATH_MAX + 600];
		int a, b, c = find_done(r, dirs, ndirs, &a, &b, partial, sizeof(partial));
		const char *cca;

		src[i] = a;
		if (c > 1) {
			fprintf(msg, "overlap: run %u %s/rep-%u is done in %s and in %s\n",
				r->index, r->id, r->rep, dirs[a], dirs[b]);
			overlap++;
		} else if (c == 0 && (cca = skipped_cca(plans, ndirs, r))) {
			/* As exp run does: a run of a skipped control is not missing. */
			fprintf(msg, "skipped: run %u %s/rep-%u (cca=%s was skipped)\n", r->index,
				r->id, r->rep, cca);
		} else if (c == 0) {
			fprintf(msg,
				"missing: run %u %s/rep-%u is done in none of the "
				"directories%s%s\n",
				r->index, r->id, r->rep, partial[0] ? "; " : "", partial);
			missing++;
		}
	}
	if (overlap || missing) {
		snprintf(err, errlen,
			 "refusing to merge: %u run(s) overlap and %u are missing (listed above); "
			 "nothing was written",
			 overlap, missing);
		ret = -EINVAL;
		goto out;
	}
	ret = ts_expdir_mkdirs(out);
	if (ret) {
		snprintf(err, errlen, "%s: %s", out, strerror(-ret));
		goto out;
	}
	for (i = 0; i < plans[0].n; i++) {
		const struct ts_expdir_run *r = &plans[0].runs[i];
		char from[PATH_MAX], to[PATH_MAX], parent[PATH_MAX], why[512];

		if (src[i] < 0)
			continue; /* skipped */
		ts_expdir_rundir(dirs[src[i]], r, from, sizeof(from));
		ts_expdir_rundir(out, r, to, sizeof(to));
		snprintf(parent, sizeof(parent), "%s/%s", out, r->id);
		ret = ts_expdir_mkdirs(parent);
		if (ret) {
			snprintf(err, errlen, "%s: %s", parent, strerror(-ret));
			goto out;
		}
		ret = ts_copy_tree(from, to, TS_COPY_NEW | TS_COPY_LINK, why, sizeof(why));
		if (ret) {
			snprintf(err, errlen, "%s -> %s: %s", from, to, why);
			goto out;
		}
		if (ts_done_check(to, why, sizeof(why)) != TS_DONE_OK) {
			snprintf(err, errlen, "%s: the copy does not match its done record: %s", to,
				 why);
			ret = -EIO;
			goto out;
		}
	}
	/* The merged directory is the whole matrix: shard 1/1 of the same spec and runs. */
	for (k = 0; k < ndirs; k++) {
		char from[PATH_MAX], to[PATH_MAX];

		snprintf(from, sizeof(from), "%s/%s", dirs[k], TS_EXPDIR_SPEC);
		snprintf(to, sizeof(to), "%s/%s", out, TS_EXPDIR_SPEC);
		if (access(from, R_OK) == 0) {
			char why[512];

			ret = ts_copy_file(from, to, TS_COPY_NEW, why, sizeof(why));
			if (ret) {
				snprintf(err, errlen, "%s: %s", to, why);
				goto out;
			}
			break;
		}
	}
	ret = union_skipped(plans, ndirs);
	if (ret) {
		snprintf(err, errlen, "%s: out of memory", out);
		goto out;
	}
	merged = plans[0];
	merged.shard.i = merged.shard.n = 1;
	ret = ts_expdir_write(out, &merged, err, errlen);
out:
	for (k = 0; k < ndirs; k++)
		ts_expdir_free(&plans[k]);
	free(plans);
	free(src);
	return ret;
}

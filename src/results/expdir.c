/* SPDX-License-Identifier: MIT */
/* An experiment directory's record (experiment.json) and shards of the run order (expdir.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "results/done.h"
#include "results/expdir.h"
#include "results/rjson.h"
#include "results/rundir.h"
#include "io/json.h"
#include "io/invoker.h"
#include "io/outfile.h"
#include "io/rmtree.h"

static int parse_uint(const char *s, const char **end, unsigned *v)
{
	unsigned long x = 0;
	const char *p = s;

	while (*p >= '0' && *p <= '9' && p - s < 7)
		x = x * 10 + (unsigned long)(*p++ - '0');
	if (p == s || (*p >= '0' && *p <= '9'))
		return -EINVAL;
	*v = (unsigned)x;
	*end = p;
	return 0;
}

int ts_exp_shard_parse(const char *s, struct ts_exp_shard *sh, struct ts_err *err)
{
	const char *p;
	unsigned i, n;

	if (parse_uint(s, &p, &i) || *p != '/' || parse_uint(p + 1, &p, &n) || *p || i < 1 ||
	    n < 1 || i > n || n > 100000) {
		ts_err_set(
			err,
			"--shard: expected i/N with 1 <= i <= N <= 100000 (\"2/4\": the second of "
			"four slices), got '%s'",
			s);
		return -EINVAL;
	}
	sh->i = i;
	sh->n = n;
	return 0;
}

int ts_expdir_add(struct ts_expdir *p, const char *id, unsigned rep, unsigned index)
{
	struct ts_expdir_run *r = realloc(p->runs, (p->n + 1) * sizeof(*r));

	if (!r)
		return -ENOMEM;
	p->runs = r;
	r[p->n].id = strdup(id);
	if (!r[p->n].id)
		return -ENOMEM;
	r[p->n].rep = rep;
	r[p->n].index = index;
	p->n++;
	return 0;
}

void ts_expdir_free(struct ts_expdir *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->runs[i].id);
	free(p->runs);
	free(p->spec_sha256);
	free(p->spec);
	json_object_put(p->doc);
	memset(p, 0, sizeof(*p));
}

static struct json_object *build_doc(const struct ts_expdir *p, bool *nomem)
{
	struct json_object *doc = json_object_new_object(), *runs = json_object_new_array();
	size_t i;

	ts_json_put(doc, "version", json_object_new_int(1), nomem);
	ts_json_put(doc, "spec_sha256",
		    json_object_new_string(p->spec_sha256 ? p->spec_sha256 : ""), nomem);
	ts_json_put(doc, "spec", json_object_new_string(p->spec ? p->spec : ""), nomem);
	for (i = 0; i < p->n; i++) {
		struct json_object *r = json_object_new_object();

		ts_json_put(r, "index", json_object_new_int((int)p->runs[i].index), nomem);
		ts_json_put(r, "rep", json_object_new_int((int)p->runs[i].rep), nomem);
		ts_json_put(r, "id", json_object_new_string(p->runs[i].id), nomem);
		ts_json_append(runs, r, nomem);
	}
	ts_json_put(doc, "runs", runs, nomem);
	return doc;
}

/* @doc into @path, whole or not at all (a temporary name renamed over it). 0 or -errno. */
static int write_whole(const char *path, struct json_object *doc, struct ts_err *err)
{
	const char *text = json_object_to_json_string_ext(doc, TS_JSON_PRETTY);
	int ret;

	if (!text)
		return -ENOMEM;
	ret = ts_out_write_whole(path, text, strlen(text), err);
	return ret;
}

int ts_expdir_write(const char *dir, const struct ts_expdir *p, struct ts_err *err)
{
	struct json_object *doc = NULL;
	char path[PATH_MAX], shard[32];
	bool nomem = false;
	int ret = 0;

	if (p->doc) {
		if (json_object_deep_copy(p->doc, &doc, NULL) != 0)
			return -ENOMEM;
	} else {
		doc = build_doc(p, &nomem);
	}
	snprintf(shard, sizeof(shard), "%u/%u", p->shard.i, p->shard.n);
	json_object_object_del(doc, "shard");
	if (p->shard.n > 1)
		ts_json_put(doc, "shard", json_object_new_string(shard), &nomem);
	if (snprintf(path, sizeof(path), "%s/%s", dir, TS_EXPDIR_FILE) >= (int)sizeof(path)) {
		ret = -ENAMETOOLONG;
		ts_err_set(err, "%s: path too long", dir);
	} else if (nomem) {
		ret = -ENOMEM;
	} else {
		ret = write_whole(path, doc, err);
	}
	json_object_put(doc);
	return ret;
}

int ts_expdir_read(const char *dir, struct ts_expdir *p, struct ts_err *err)
{
	struct json_object *doc = NULL, *runs;
	char path[PATH_MAX];
	struct ts_err why;
	const char *shard;
	size_t n, i;
	int ret;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "%s/%s", dir, TS_EXPDIR_FILE);
	ret = ts_rj_load(path, &doc, err);
	if (ret == -ENOENT)
		ts_err_set(err, "%s: no %s (not a directory written by tasshape exp run)", dir,
			   TS_EXPDIR_FILE);
	if (ret)
		return ret;
	ret = -EINVAL;
	shard = ts_rj_str(doc, "shard", "1/1");
	if (ts_exp_shard_parse(shard, &p->shard, &why)) {
		ts_err_set(err, "%s: \"shard\": expected i/N, got '%s'", path, shard);
		goto out;
	}
	/* A spec read without its hash has "spec_sha256": null: it compares as unknown (""). */
	p->spec_sha256 = strdup(ts_rj_str(doc, "spec_sha256", ""));
	p->spec = strdup(ts_rj_str(doc, "spec", ""));
	runs = ts_rj_arr(doc, "runs", &n);
	if (!runs || !p->spec_sha256 || !p->spec) {
		ts_err_set(err, "%s: expected \"runs\", a list of {id, rep, index}", path);
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct json_object *r = json_object_array_get_idx(runs, i);
		const char *id = ts_rj_str(r, "id", NULL);
		double rep = ts_rj_num(r, "rep", 0), index = ts_rj_num(r, "index", 0);

		if (!id || !*id || strchr(id, '/') || strstr(id, "..") || rep < 1 || index < 1 ||
		    (i > 0 && index <= p->runs[i - 1].index)) {
			ts_err_set(
				err,
				"%s: runs[%zu]: expected {\"id\": a directory name, \"rep\" >= 1, "
				"\"index\" after the previous run's}",
				path, i);
			goto out;
		}
		if (ts_expdir_add(p, id, (unsigned)rep, (unsigned)index)) {
			ret = -ENOMEM;
			goto out;
		}
	}
	p->doc = doc;
	doc = NULL;
	ret = 0;
out:
	if (ret)
		ts_expdir_free(p);
	json_object_put(doc);
	return ret;
}

bool ts_expdir_same_runs(const struct ts_expdir *a, const struct ts_expdir *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->runs[i].id, b->runs[i].id) || a->runs[i].rep != b->runs[i].rep ||
		    a->runs[i].index != b->runs[i].index)
			return false;
	return true;
}

int ts_expdir_check_fresh(const char *dir, struct ts_err *err)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			ret = -EEXIST;
			break;
		}
	closedir(d);
	if (ret)
		ts_err_set(err,
			   "%s is not empty: it may hold results of an earlier run; to finish that "
			   "experiment use 'tasshape exp resume %s', or choose a new --out DIR",
			   dir, dir);
	return ret;
}

int ts_expdir_mkdirs(const char *path)
{
	struct ts_err e;
	int fd = ts_out_mkdir(path, &e);

	if (fd < 0)
		fprintf(stderr, "tasshape: %s\n", e.msg);
	else
		close(fd);
	return fd < 0 ? fd : 0;
}

int ts_expdir_copy_spec(const char *dir, const char *spec_path, struct ts_err *err)
{
	struct stat a, b;
	char to[PATH_MAX];
	FILE *in = NULL, *out = NULL;
	char buf[8192];
	size_t n;
	int ret = ts_expdir_mkdirs(dir);

	if (ret) {
		ts_err_set(err, "%s: %s", dir, strerror(-ret));
		return ret;
	}
	snprintf(to, sizeof(to), "%s/%s", dir, TS_EXPDIR_SPEC);
	/* exp resume DIR reads DIR/spec.ini itself: nothing to copy. */
	if (stat(spec_path, &a) == 0 && stat(to, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		return 0;
	in = fopen(spec_path, "rb");
	if (!in) {
		ret = -errno;
		ts_err_set(err, "%s: %s", spec_path, strerror(errno));
		return ret;
	}
	out = ts_out_fopen(to, err);
	if (!out) {
		ret = -errno;
		fclose(in);
		return ret;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			break;
	if (ferror(in) || ferror(out))
		ret = -EIO;
	fclose(in);
	if (fclose(out) != 0 && !ret)
		ret = -EIO;
	if (ret) {
		ts_err_set(err, "%s: cannot copy the spec", to);
		return ret;
	}
	return 0;
}

int ts_expdir_spec(const char *dir, char *path, size_t len, struct ts_err *err)
{
	int n = snprintf(path, len, "%s/%s", dir, TS_EXPDIR_SPEC), ret;

	if (n < 0 || (size_t)n >= len) {
		ts_err_set(err, "%s/%s: %s", dir, TS_EXPDIR_SPEC, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	if (access(path, R_OK) != 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", path, strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * Configuration directory @id of the results directory @dir, opened to
 * remove a partial run from it: a directory of root or the invoking user
 * (as io/outfile.h would write into), never a link. Returns its fd,
 * -ENOENT when there is none, or -errno with @why; nothing is removed
 * before this said yes.
 */
static int open_config(const char *dir, const char *id, struct ts_err *why)
{
	struct ts_invoker inv;
	struct ts_err e;
	struct stat st;
	int out, fd, ret;

	out = ts_out_mkdir(dir, &e);
	if (out < 0) {
		ts_err_set(why, "%s", e.msg);
		return out;
	}
	ret = ts_invoker_get(&inv, &e);
	if (ret < 0) {
		ts_err_set(why, "%s/%s: nothing removed: %s", dir, id, e.msg);
		goto out;
	}
	fd = openat(out, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			goto out;
		if (fstatat(out, id, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			ret = -ELOOP;
			ts_err_set(why,
				   "%s/%s: a symbolic link (owned by uid %u), not a configuration "
				   "directory: not followed, nothing removed",
				   dir, id, (unsigned)st.st_uid);
		} else {
			ts_err_set(why, "%s/%s: %s: nothing removed", dir, id, strerror(-ret));
		}
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		ts_err_set(why, "%s/%s: %s: nothing removed", dir, id, strerror(errno));
	} else if (!ts_invoker_trusts(&inv, st.st_uid)) {
		ret = -EPERM;
		ts_err_set(why,
			   "%s/%s: belongs to uid %u, neither root nor the invoking user (uid %u): "
			   "nothing removed from it",
			   dir, id, (unsigned)st.st_uid, (unsigned)inv.uid);
	} else {
		ret = fd;
		goto out;
	}
	close(fd);
out:
	close(out);
	return ret;
}

/* The state of run @rep of configuration @cfg (@rundir): a ts_done_state, or -errno. */
static int run_state(int cfg, const char *rep, const char *rundir, struct ts_err *why)
{
	struct stat st;
	int state;

	if (fstatat(cfg, rep, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return TS_DONE_NONE;
		ts_err_set(why, "%s: %s", rundir, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		/* Not something exp run made: removed as it is (a link as a link), then redone. */
		ts_err_set(why, "%s: %s, not a run directory", rundir,
			   S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
		return TS_DONE_BROKEN;
	}
	state = ts_done_check(rundir, why);
	if (state == TS_DONE_NONE)
		ts_err_set(why, "%s: partial (no done record)", rundir);
	return state;
}

int ts_expdir_prepare_run(const char *dir, const struct ts_expdir_run *r, struct ts_err *why)
{
	char rundir[PATH_MAX], rep[32];
	struct ts_err e;
	int cfg, state, ret;

	why->msg[0] = '\0';
	if (ts_rundir_path(rundir, sizeof(rundir), dir, r->id, r->rep) ||
	    ts_rundir_name(rep, sizeof(rep), r->rep)) {
		ts_err_set(why, "%.200s: path too long", rundir);
		return -ENAMETOOLONG;
	}
	cfg = open_config(dir, r->id, why);
	if (cfg == -ENOENT)
		return TS_RESUME_RUN;
	if (cfg < 0)
		return cfg;
	ret = state = run_state(cfg, rep, rundir, why);
	if (state == TS_DONE_OK)
		ret = TS_RESUME_KEEP;
	/* Nothing there, or a directory resume refuses to read (a FIFO, a link, too deep). */
	if (state == TS_DONE_OK || state < 0 || (state == TS_DONE_NONE && !why->msg[0]))
		goto out;
	/* Partial, or broken (a record that does not parse too): removed and redone. */
	ret = ts_rmtree_at(cfg, rep, rundir, &e);
	if (ret) {
		ts_err_set(why, "cannot remove the partial run: %s", e.msg);
		goto out;
	}
	ret = TS_RESUME_RUN;
out:
	close(cfg);
	return ret;
}

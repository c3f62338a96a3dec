/* SPDX-License-Identifier: MIT */
/* The done record of a run: every file with its SHA-256, written last (see done.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "results/done.h"
#include "results/rjson.h"
#include "io/json.h"
#include "io/sha256.h"
#include "io/outfile.h"

struct file_list {
	char **path;
	size_t n, cap;
};

static void list_free(struct file_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->path[i]);
	free(l->path);
	l->path = NULL;
	l->n = l->cap = 0;
}

static int list_add(struct file_list *l, const char *rel)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		char **p = realloc(l->path, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->path = p;
		l->cap = cap;
	}
	l->path[l->n] = strdup(rel);
	if (!l->path[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

/* Regular files under @root/@rel, paths relative to @root; the record itself excluded. */
static int walk(const char *root, const char *rel, struct file_list *l)
{
	char dir[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int ret = 0;

	snprintf(dir, sizeof(dir), "%s%s%s", root, *rel ? "/" : "", rel);
	d = opendir(dir);
	if (!d)
		return -errno;
	while (!ret && (e = readdir(d))) {
		char sub[PATH_MAX], full[PATH_MAX];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!*rel && (!strcmp(e->d_name, TS_DONE_FILE) || !strcmp(e->d_name, "done.tmp")))
			continue;
		if (snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", e->d_name) >=
			    (int)sizeof(sub) ||
		    snprintf(full, sizeof(full), "%s/%s", root, sub) >= (int)sizeof(full)) {
			ret = -ENAMETOOLONG;
			break;
		}
		if (lstat(full, &st) != 0) {
			ret = -errno;
			break;
		}
		if (S_ISDIR(st.st_mode))
			ret = walk(root, sub, l);
		else if (S_ISREG(st.st_mode))
			ret = list_add(l, sub);
	}
	closedir(d);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_files(const char *rundir, struct file_list *l)
{
	int ret = walk(rundir, "", l);

	if (ret)
		list_free(l);
	else if (l->n)
		qsort(l->path, l->n, sizeof(*l->path), cmp_str);
	return ret;
}

static int file_facts(const char *rundir, const char *rel, char hex[65], long long *bytes)
{
	char full[PATH_MAX];
	struct stat st;
	int ret;

	snprintf(full, sizeof(full), "%s/%s", rundir, rel);
	if (stat(full, &st) != 0)
		return -errno;
	*bytes = (long long)st.st_size;
	ret = ts_sha256_file(full, hex);
	return ret;
}

int ts_done_write(const char *rundir, const char *id, unsigned rep, char *err, size_t errlen)
{
	struct file_list l = {NULL, 0, 0};
	struct json_object *doc = json_object_new_object(), *files = json_object_new_array();
	char path[PATH_MAX];
	const char *text;
	struct ts_err e;
	bool nomem = false;
	size_t i;
	int ret;

	ret = list_files(rundir, &l);
	if (ret) {
		snprintf(err, errlen, "%s: %s", rundir, strerror(-ret));
		goto out;
	}
	ts_json_put(doc, "version", json_object_new_int(1), &nomem);
	ts_json_put(doc, "id", json_object_new_string(id ? id : ""), &nomem);
	ts_json_put(doc, "rep", json_object_new_int((int)rep), &nomem);
	for (i = 0; i < l.n; i++) {
		struct json_object *f = json_object_new_object();
		long long bytes = 0;
		char hex[65];

		ret = file_facts(rundir, l.path[i], hex, &bytes);
		if (ret) {
			json_object_put(f);
			snprintf(err, errlen, "%s/%s: %s", rundir, l.path[i], strerror(-ret));
			goto out;
		}
		ts_json_put(f, "path", json_object_new_string(l.path[i]), &nomem);
		ts_json_put(f, "bytes", json_object_new_int64(bytes), &nomem);
		ts_json_put(f, "sha256", json_object_new_string(hex), &nomem);
		ts_json_append(files, f, &nomem);
	}
	json_object_get(files);
	ts_json_put(doc, "files", files, &nomem);
	ret = -ENOMEM;
	if (nomem)
		goto out;
	snprintf(path, sizeof(path), "%s/%s", rundir, TS_DONE_FILE);
	text = json_object_to_json_string_ext(doc, TS_JSON_PRETTY);
	if (!text)
		goto out;
	/* The record appears whole or not at all: a kill here leaves a run that is not done. */
	ret = ts_out_write_whole(path, text, strlen(text), &e);
	if (ret)
		snprintf(err, errlen, "%s", e.msg);
out:
	json_object_put(files);
	json_object_put(doc);
	list_free(&l);
	return ret;
}

int ts_done_check(const char *rundir, char *why, size_t whylen)
{
	struct file_list l = {NULL, 0, 0};
	struct json_object *doc = NULL, *files;
	char path[PATH_MAX];
	size_t n, i;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", rundir, TS_DONE_FILE);
	ret = ts_rj_load(path, &doc, why, whylen);
	if (ret == -ENOENT)
		return TS_DONE_NONE;
	if (ret)
		return ret;
	files = ts_rj_arr(doc, "files", &n);
	ret = -EINVAL;
	if (!files) {
		snprintf(why, whylen, "%s: no \"files\" list", path);
		goto out;
	}
	ret = list_files(rundir, &l);
	if (ret) {
		snprintf(why, whylen, "%s: %s", rundir, strerror(-ret));
		goto out;
	}
	ret = TS_DONE_BROKEN;
	for (i = 0; i < n; i++) {
		struct json_object *f = json_object_array_get_idx(files, i);
		const char *rel = ts_rj_str(f, "path", ""), *want = ts_rj_str(f, "sha256", "");
		long long bytes = 0;
		char hex[65];

		if (!*rel || strstr(rel, "..")) {
			snprintf(why, whylen, "%s: files[%zu] has no usable path", path, i);
			goto out;
		}
		if (file_facts(rundir, rel, hex, &bytes) != 0) {
			snprintf(why, whylen, "%s/%s: listed in done but missing", rundir, rel);
			goto out;
		}
		if (bytes != (long long)ts_rj_num(f, "bytes", -1) || strcmp(hex, want)) {
			snprintf(why, whylen,
				 "%s/%s: changed since the run was done (SHA-256 %s, "
				 "recorded %s)",
				 rundir, rel, hex, want);
			goto out;
		}
	}
	if (l.n != n) {
		/* Same files listed and found means equal counts; more found: name the first extra. */
		for (i = 0; i < l.n; i++) {
			size_t j;

			for (j = 0; j < n; j++)
				if (!strcmp(ts_rj_str(json_object_array_get_idx(files, j), "path",
						      ""),
					    l.path[i]))
					break;
			if (j == n)
				break;
		}
		snprintf(why, whylen, "%s/%s: not listed in done (added after the run)", rundir,
			 i < l.n ? l.path[i] : "?");
		goto out;
	}
	ret = TS_DONE_OK;
out:
	list_free(&l);
	json_object_put(doc);
	return ret;
}

int ts_rm_tree(const char *path)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int ret = 0;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) == 0 ? 0 : -errno;
	d = opendir(path);
	if (!d)
		return -errno;
	while (!ret && (e = readdir(d))) {
		char sub[PATH_MAX];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		ret = ts_rm_tree(sub);
	}
	closedir(d);
	if (!ret && rmdir(path) != 0)
		ret = -errno;
	return ret;
}

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
#include "io/infile.h"
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

/* A walk of a run directory: its regular files, relative paths, within the limits. */
struct walk {
	struct file_list *l;
	const char *rundir; /* for messages */
	char rel[PATH_MAX]; /* the entry at hand, relative to the run directory */
	size_t len;
	struct ts_err *why;
};

/* What a file of mode @m is, for a message refusing it. */
static const char *kind(mode_t m)
{
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

static int walk_dir(struct walk *w, int fd, unsigned depth);

/* @ret (a negative errno) for the entry at hand, with its message. */
static int walk_errno(struct walk *w, int ret)
{
	ts_err_set(w->why, "%s/%s: %s", w->rundir, w->rel, strerror(-ret));
	return ret;
}

/*
 * Entry w->rel (@name of @at, @depth directories below the run directory):
 * a regular file is listed, a directory walked; anything else is refused.
 * tasshape writes only files and directories into a run, so a link, FIFO
 * or device there was put by someone else, and reading it could leave the
 * directory or never end.
 */
static int walk_entry(struct walk *w, int at, const char *name, unsigned depth)
{
	struct stat st;
	int fd;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return walk_errno(w, -errno);
	if (S_ISREG(st.st_mode)) {
		if (w->l->n < TS_DONE_MAX_FILES)
			return list_add(w->l, w->rel);
		ts_err_set(w->why,
			   "%s: more than %d files (the limit for a run directory): not read",
			   w->rundir, TS_DONE_MAX_FILES);
		return -E2BIG;
	}
	if (!S_ISDIR(st.st_mode)) {
		ts_err_set(w->why,
			   "%s/%s: %s, where a run holds only regular files and directories: not "
			   "read",
			   w->rundir, w->rel, kind(st.st_mode));
		return -EINVAL;
	}
	if (depth + 1 > TS_DONE_MAX_DEPTH) {
		ts_err_set(w->why,
			   "%s/%s: directories nested deeper than %d levels (the limit for a run "
			   "directory): not read",
			   w->rundir, w->rel, TS_DONE_MAX_DEPTH);
		return -ELOOP;
	}
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return walk_errno(w, -errno);
	return walk_dir(w, fd, depth + 1);
}

/* The entries of directory @fd (w->rel, @depth below the run directory); takes @fd. */
static int walk_dir(struct walk *w, int fd, unsigned depth)
{
	size_t len = w->len;
	struct dirent *e;
	DIR *d = fdopendir(fd);
	int ret = 0;

	if (!d) {
		ret = walk_errno(w, -errno);
		close(fd);
		return ret;
	}
	while (!ret && (e = readdir(d))) {
		int n;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!depth && (!strcmp(e->d_name, TS_DONE_FILE) || !strcmp(e->d_name, "done.tmp")))
			continue;
		n = snprintf(w->rel + len, sizeof(w->rel) - len, "%s%s", len ? "/" : "", e->d_name);
		if (n < 0 || (size_t)n >= sizeof(w->rel) - len) {
			w->rel[len] = '\0';
			ts_err_set(w->why, "%s/%s: path too long", w->rundir, w->rel);
			ret = -ENAMETOOLONG;
			break;
		}
		w->len = len + (size_t)n;
		ret = walk_entry(w, dirfd(d), e->d_name, depth);
		w->len = len;
		w->rel[len] = '\0';
	}
	closedir(d);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files under @rundir (open as @fd, taken), sorted; 0 or -errno with @why. */
static int list_files(int fd, const char *rundir, struct file_list *l, struct ts_err *why)
{
	struct walk w = {.l = l, .rundir = rundir, .why = why};
	int ret = walk_dir(&w, fd, 0);

	if (ret)
		list_free(l);
	else if (l->n)
		qsort(l->path, l->n, sizeof(*l->path), cmp_str);
	return ret;
}

/*
 * The size and SHA-256 of @rundir/@rel, read through the safe reader:
 * whatever a listed name has become since the walk, a FIFO or a device is
 * refused at once. 0 or -errno with @why.
 */
static int file_facts(const char *rundir, const char *rel, char hex[65], long long *bytes,
		      struct ts_err *why)
{
	char full[PATH_MAX];
	struct ts_err e;
	struct stat st;
	int fd, ret;

	if (snprintf(full, sizeof(full), "%s/%s", rundir, rel) >= (int)sizeof(full)) {
		ts_err_set(why, "%s/%s: path too long", rundir, rel);
		return -ENAMETOOLONG;
	}
	fd = ts_in_open(full, &e);
	if (fd < 0) {
		ts_err_set(why, "%s", e.msg);
		return fd;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
	} else {
		*bytes = (long long)st.st_size;
		ret = ts_sha256_fd(fd, hex);
	}
	if (ret)
		ts_err_set(why, "%s: read error: %s", full, strerror(-ret));
	close(fd);
	return ret;
}

/*
 * @rundir as a directory fd: -ENOENT when it does not exist, else -errno
 * with @why. Its last component is not followed: a run directory is one
 * that exp run made, never a link to one.
 */
static int open_rundir(const char *rundir, struct ts_err *why)
{
	int fd = open(rundir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), ret;

	if (fd >= 0 || errno == ENOENT)
		return fd >= 0 ? fd : -ENOENT;
	ret = -errno;
	if (ret == -ELOOP)
		ts_err_set(why, "%s: a symbolic link, not a run directory: not read", rundir);
	else
		ts_err_set(why, "%s: %s", rundir, strerror(errno));
	return ret;
}

int ts_done_write(const char *rundir, const char *id, unsigned rep, struct ts_err *err)
{
	struct file_list l = {NULL, 0, 0};
	struct json_object *doc = json_object_new_object(), *files = json_object_new_array();
	char path[PATH_MAX];
	const char *text;
	bool nomem = false;
	size_t i;
	int ret;

	ret = open_rundir(rundir, err);
	if (ret == -ENOENT)
		ts_err_set(err, "%s: %s", rundir, strerror(ENOENT));
	if (ret >= 0)
		ret = list_files(ret, rundir, &l, err);
	if (ret)
		goto out;
	ts_json_put(doc, "version", json_object_new_int(1), &nomem);
	ts_json_put(doc, "id", json_object_new_string(id ? id : ""), &nomem);
	ts_json_put(doc, "rep", json_object_new_int((int)rep), &nomem);
	for (i = 0; i < l.n; i++) {
		struct json_object *f = json_object_new_object();
		long long bytes = 0;
		char hex[65];

		ret = file_facts(rundir, l.path[i], hex, &bytes, err);
		if (ret) {
			json_object_put(f);
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
	ret = ts_out_write_whole(path, text, strlen(text), err);
out:
	json_object_put(files);
	json_object_put(doc);
	list_free(&l);
	return ret;
}

/*
 * Is there a record in @rundir? TS_DONE_NONE when neither the directory
 * nor its record exists; 1 (with the walked files in @l) when there is
 * one, a regular file; or -errno with @why.
 */
static int walk_recorded(const char *rundir, struct file_list *l, struct ts_err *why)
{
	struct stat st;
	int fd = open_rundir(rundir, why), ret;

	if (fd == -ENOENT)
		return TS_DONE_NONE;
	if (fd < 0)
		return fd;
	if (fstatat(fd, TS_DONE_FILE, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		ret = errno == ENOENT ? TS_DONE_NONE : -errno;
		if (ret)
			ts_err_set(why, "%s/%s: %s", rundir, TS_DONE_FILE, strerror(errno));
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		ts_err_set(why, "%s/%s: %s, not a done record: not read", rundir, TS_DONE_FILE,
			   kind(st.st_mode));
		close(fd);
		return -EINVAL;
	}
	ret = list_files(fd, rundir, l, why);
	return ret ? ret : 1;
}

static int cmp_key(const void *key, const void *elem)
{
	return strcmp(key, *(char *const *)elem);
}

/*
 * Every file listed in @files (@n of them) against the walked @l: there,
 * with the recorded size and SHA-256; @seen marks the files of @l that
 * are listed. TS_DONE_OK, TS_DONE_BROKEN, or -errno, each with @why.
 */
static int check_listed(const char *rundir, struct json_object *files, size_t n,
			const struct file_list *l, bool *seen, struct ts_err *why)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		struct json_object *f = json_object_array_get_idx(files, i);
		const char *rel = ts_rj_str(f, "path", ""), *want = ts_rj_str(f, "sha256", "");
		char **at = NULL;
		long long bytes = 0;
		char hex[65];

		if (!*rel || strstr(rel, "..")) {
			ts_err_set(why, "%s/%s: files[%zu] has no usable path", rundir,
				   TS_DONE_FILE, i);
			return TS_DONE_BROKEN;
		}
		/* Only what the walk found, a regular file reached without a link, is read. */
		if (l->n)
			at = bsearch(rel, l->path, l->n, sizeof(*l->path), cmp_key);
		if (!at) {
			ts_err_set(why, "%s/%s: listed in done but missing", rundir, rel);
			return TS_DONE_BROKEN;
		}
		seen[at - l->path] = true;
		ret = file_facts(rundir, rel, hex, &bytes, why);
		if (ret)
			return ret;
		if (bytes != (long long)ts_rj_num(f, "bytes", -1) || strcmp(hex, want)) {
			ts_err_set(why,
				   "%s/%s: changed since the run was done (SHA-256 %s, "
				   "recorded %s)",
				   rundir, rel, hex, want);
			return TS_DONE_BROKEN;
		}
	}
	return TS_DONE_OK;
}

/* The record of @rundir (@path) against the walked @l. A state, or -errno with @why. */
static int check_record(const char *rundir, const char *path, const struct file_list *l,
			struct ts_err *why)
{
	struct json_object *doc = NULL, *files;
	struct ts_err e;
	bool *seen = NULL;
	size_t n, i;
	int ret;

	ret = ts_rj_load(path, &doc, &e);
	if (ret)
		ts_err_set(why, "%s", e.msg);
	if (ret)
		/* A record that does not parse is broken: the run is redone. */
		return ret == -ENOMEM ? ret : TS_DONE_BROKEN;
	files = ts_rj_arr(doc, "files", &n);
	ret = TS_DONE_BROKEN;
	if (!files) {
		ts_err_set(why, "%s: no \"files\" list", path);
		goto out;
	}
	if (n > TS_DONE_MAX_FILES) {
		ts_err_set(why,
			   "%s: lists %zu files, more than %d (the limit for a run directory): not "
			   "read",
			   path, n, TS_DONE_MAX_FILES);
		ret = -E2BIG;
		goto out;
	}
	seen = calloc(l->n ? l->n : 1, sizeof(*seen));
	ret = seen ? check_listed(rundir, files, n, l, seen, why) : -ENOMEM;
	for (i = 0; ret == TS_DONE_OK && i < l->n; i++)
		if (!seen[i]) {
			ts_err_set(why, "%s/%s: not listed in done (added after the run)", rundir,
				   l->path[i]);
			ret = TS_DONE_BROKEN;
		}
out:
	free(seen);
	json_object_put(doc);
	return ret;
}

int ts_done_check(const char *rundir, struct ts_err *why)
{
	struct file_list l = {NULL, 0, 0};
	char path[PATH_MAX];
	int ret;

	if (snprintf(path, sizeof(path), "%s/%s", rundir, TS_DONE_FILE) >= (int)sizeof(path)) {
		ts_err_set(why, "%s: path too long", rundir);
		return -ENAMETOOLONG;
	}
	ret = walk_recorded(rundir, &l, why);
	if (ret == 1)
		ret = check_record(rundir, path, &l, why);
	list_free(&l);
	return ret;
}

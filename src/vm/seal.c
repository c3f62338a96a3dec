/* SPDX-License-Identifier: MIT */
/* The file set of a sealed guest and its reproducible archive (seal.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/infile.h"
#include "vm/cpio.h"
#include "vm/elfdeps.h"
#include "vm/seal.h"

#define MAX_LINKS 40 /* as the kernel's path walk (ELOOP) */

void ts_seal_init(struct ts_seal *s, const char *root)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->root, sizeof(s->root), "%s", root);
	s->max = TS_SEAL_MAX;
}

void ts_seal_free(struct ts_seal *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->e[i].path);
		free(s->e[i].src);
		free(s->e[i].data);
	}
	free(s->e);
	s->e = NULL;
	s->n = s->cap = 0;
}

static struct ts_seal_entry *find(const struct ts_seal *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->e[i].path, path))
			return &s->e[i];
	return NULL;
}

/*
 * Adds an entry for @path (no leading '/'), or checks that the one there is of the same kind.
 * Takes @data (malloc'ed or NULL) in every case. Returns the entry or NULL with @ret set.
 */
static struct ts_seal_entry *add(struct ts_seal *s, const char *path, enum ts_seal_kind kind,
				 uint32_t mode, uint64_t len, char *data, int *ret,
				 struct ts_err *err)
{
	struct ts_seal_entry *e = find(s, path);

	*ret = 0;
	if (e) {
		free(data);
		if (e->kind != kind) {
			ts_err_set(err, "/%s: packed twice, as two different kinds of file", path);
			*ret = -EEXIST;
			return NULL;
		}
		return e;
	}
	if (s->n >= TS_SEAL_ENTRIES_MAX) {
		ts_err_set(err, "/%s: the sealed image would hold more than %u files", path,
			   TS_SEAL_ENTRIES_MAX);
		*ret = -E2BIG;
	} else if (len > TS_SEAL_FILE_MAX) {
		ts_err_set(err,
			   "/%s: %" PRIu64 " bytes, more than the %u MiB a file of the "
			   "sealed image may have",
			   path, len, TS_SEAL_FILE_MAX >> 20);
		*ret = -EFBIG;
	} else if (s->bytes + len > s->max) {
		ts_err_set(err, "/%s: the sealed image would exceed %" PRIu64 " MiB", path,
			   s->max >> 20);
		*ret = -EFBIG;
	}
	if (!*ret && s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct ts_seal_entry *ne = realloc(s->e, cap * sizeof(*ne));

		if (ne) {
			s->e = ne;
			s->cap = cap;
		} else {
			*ret = -ENOMEM;
		}
	}
	if (!*ret) {
		e = &s->e[s->n];
		memset(e, 0, sizeof(*e));
		e->path = strdup(path);
		if (!e->path)
			*ret = -ENOMEM;
	}
	if (*ret) {
		if (*ret == -ENOMEM)
			ts_err_set(err, "/%s: out of memory", path);
		free(data);
		return NULL;
	}
	e->kind = kind;
	e->mode = mode & 0777;
	e->len = len;
	e->data = data;
	s->bytes += len;
	s->n++;
	return e;
}

/* Appends "/@comp" (@n bytes) to @cur. */
static int join(char *cur, size_t len, const char *comp, size_t n)
{
	size_t l = strlen(cur);

	if (l + 1 + n >= len)
		return -ENAMETOOLONG;
	cur[l] = '/';
	memcpy(cur + l + 1, comp, n);
	cur[l + 1 + n] = '\0';
	return 0;
}

static int walk(struct ts_seal *s, const char *path, int depth, char *real, size_t reallen,
		struct ts_err *err);

/* The next component of *@p, slashes before it skipped: at @c, of the length returned (0: none). */
static size_t next_comp(const char **p, const char **c)
{
	size_t n;

	while (**p == '/')
		(*p)++;
	*c = *p;
	n = strcspn(*p, "/");
	*p += n;
	return n;
}

/*
 * @cur (at @host on the host) is a link: packed as one, then the walk goes on from its target
 * with @rest, the components after it. A relative target is relative to the link's
 * directory, resolved already.
 */
static int follow_link(struct ts_seal *s, char *cur, const char *host, const char *rest, int depth,
		       char *real, size_t reallen, struct ts_err *err)
{
	char t[PATH_MAX], next[2 * PATH_MAX + 2], *slash;
	ssize_t tl = readlink(host, t, sizeof(t) - 1);
	int ret;

	if (tl <= 0) {
		ret = tl < 0 ? -errno : -EINVAL;
		ts_err_set(err, "%s: cannot read the link", cur);
		return ret;
	}
	t[tl] = '\0';
	if (!add(s, cur + 1, TS_SEAL_LINK, 0777, 0, strdup(t), &ret, err))
		return ret;
	slash = strrchr(cur, '/');
	*slash = '\0';
	if (t[0] == '/')
		snprintf(next, sizeof(next), "%s%s", t, rest);
	else
		snprintf(next, sizeof(next), "%s/%s%s", cur, t, rest);
	return walk(s, next, depth + 1, real, reallen, err);
}

/* A regular file at @path (no leading '/'), its bytes those of @src under the root (@st). */
static int add_file(struct ts_seal *s, const char *path, const struct stat *st, const char *src,
		    struct ts_err *err)
{
	struct ts_seal_entry *e;
	int ret;

	e = add(s, path, TS_SEAL_FILE, st->st_mode, (uint64_t)st->st_size, NULL, &ret, err);
	if (!e)
		return ret;
	if (!e->src && !(e->src = strdup(src))) {
		ts_err_set(err, "%s: out of memory", src);
		return -ENOMEM;
	}
	return 0;
}

/* @cur (@st) packed: a directory, or a regular file when it is the path's @last component. */
static int add_node(struct ts_seal *s, const char *cur, const struct stat *st, bool last,
		    struct ts_err *err)
{
	int ret;

	if (S_ISDIR(st->st_mode))
		return add(s, cur + 1, TS_SEAL_DIR, st->st_mode, 0, NULL, &ret, err) ? 0 : ret;
	if (!S_ISREG(st->st_mode) || !last) {
		ts_err_set(err, "%s: %s", cur,
			   !last ? "not a directory" : "not a regular file, directory or link");
		return -EINVAL;
	}
	return add_file(s, cur + 1, st, cur, err);
}

/*
 * @path resolved component by component under @s->root as the guest will see it, each
 * directory, link (followed, at most MAX_LINKS deep) and the file packed; @real: where it led.
 */
static int walk(struct ts_seal *s, const char *path, int depth, char *real, size_t reallen,
		struct ts_err *err)
{
	char cur[PATH_MAX] = "", host[PATH_MAX + 4096];
	const char *p = path, *c;
	struct stat st;
	size_t n;
	int ret;

	if (path[0] != '/') {
		ts_err_set(err, "%s: expected an absolute path", path);
		return -EINVAL;
	}
	if (depth > MAX_LINKS) {
		ts_err_set(err, "%s: more than %d symbolic links", path, MAX_LINKS);
		return -ELOOP;
	}
	while ((n = next_comp(&p, &c))) {
		if (n == 1 && c[0] == '.')
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			char *slash = strrchr(cur, '/');

			if (slash)
				*slash = '\0';
			continue;
		}
		if (join(cur, sizeof(cur), c, n) < 0) {
			ts_err_set(err, "%s: path too long", path);
			return -ENAMETOOLONG;
		}
		snprintf(host, sizeof(host), "%s%s", s->root, cur);
		if (lstat(host, &st) < 0) {
			ret = -errno;
			ts_err_set(err, "%s: %s", cur, strerror(errno));
			return ret;
		}
		if (S_ISLNK(st.st_mode))
			return follow_link(s, cur, host, p, depth, real, reallen, err);
		ret = add_node(s, cur, &st, !*p, err);
		if (ret < 0)
			return ret;
	}
	if (real)
		snprintf(real, reallen, "%s", cur[0] ? cur : "/");
	return 0;
}

int ts_seal_add_path(struct ts_seal *s, const char *path, char *real, size_t reallen,
		     struct ts_err *err)
{
	return walk(s, path, 0, real, reallen, err);
}

static int add_elf(struct ts_seal *s, const char *path, int depth, struct ts_err *err)
{
	struct ts_elf_deps *d = NULL;
	struct ts_seal_entry *e;
	char real[PATH_MAX], host[PATH_MAX + 4096], origin[PATH_MAX], *img = NULL;
	struct ts_err perr;
	size_t len, i;
	int ret;

	ret = walk(s, path, 0, real, sizeof(real), err);
	if (ret < 0)
		return ret;
	e = find(s, real + 1);
	if (!e || e->kind != TS_SEAL_FILE || e->elf_done)
		return 0;
	e->elf_done = true;
	if (depth > 16) {
		ts_err_set(err, "%s: libraries nested more than 16 deep", path);
		return -ELOOP;
	}
	snprintf(host, sizeof(host), "%s%s", s->root, real);
	ret = ts_in_read(host, TS_SEAL_FILE_MAX, &img, &len, err);
	if (ret < 0)
		return ret;
	d = malloc(sizeof(*d));
	ret = d ? ts_elf_deps_parse((unsigned char *)img, len, d, &perr) : -ENOMEM;
	if (ret == -ENOEXEC) {
		ret = 0; /* a script, a data file: nothing to load */
		goto out;
	}
	if (ret < 0) {
		ts_err_set(err, "%s: %s", real, d ? perr.msg : "out of memory");
		goto out;
	}
	if (d->interp[0]) {
		ret = add_elf(s, d->interp, depth + 1, err);
		if (ret < 0)
			goto out;
	}
	snprintf(origin, sizeof(origin), "%s", real);
	*strrchr(origin, '/') = '\0';
	for (i = 0; i < d->nneeded; i++) {
		char lib[PATH_MAX];

		ret = ts_elf_lib_find(s->root, d->needed[i], d->runpath, origin, lib, sizeof(lib));
		if (ret < 0) {
			ts_err_set(err,
				   "%s needs %s, which is in none of the loader's directories "
				   "(its run path '%s', %s, ...)",
				   real, d->needed[i], d->runpath, ts_elf_lib_dirs[0]);
			goto out;
		}
		ret = add_elf(s, lib, depth + 1, err);
		if (ret < 0)
			goto out;
	}
out:
	free(d);
	free(img);
	return ret;
}

int ts_seal_add_elf(struct ts_seal *s, const char *path, struct ts_err *err)
{
	return add_elf(s, path, 0, err);
}

/* The directories above @dst (no leading '/'), each added unless there. */
static int add_parents(struct ts_seal *s, const char *dst, struct ts_err *err)
{
	char p[PATH_MAX];
	char *slash;
	int ret = 0;

	if (strlen(dst) >= sizeof(p)) {
		ts_err_set(err, "/%s: path too long", dst);
		return -ENAMETOOLONG;
	}
	strcpy(p, dst);
	for (slash = strchr(p, '/'); slash && !ret; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (!add(s, p, TS_SEAL_DIR, 0755, 0, NULL, &ret, err))
			return ret;
		*slash = '/';
	}
	return ret;
}

int ts_seal_add_file_as(struct ts_seal *s, const char *dst, const char *src, struct ts_err *err)
{
	char host[PATH_MAX + 4096];
	struct stat st;
	int ret;

	while (*dst == '/')
		dst++;
	snprintf(host, sizeof(host), "%s%s", s->root, src);
	if (stat(host, &st) < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", src, strerror(errno));
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		ts_err_set(err, "%s: not a regular file", src);
		return -EINVAL;
	}
	ret = add_parents(s, dst, err);
	if (ret < 0)
		return ret;
	return add_file(s, dst, &st, src, err);
}

int ts_seal_add_data(struct ts_seal *s, const char *dst, uint32_t mode, const void *data,
		     size_t len, struct ts_err *err)
{
	char *copy;
	int ret;

	while (*dst == '/')
		dst++;
	ret = add_parents(s, dst, err);
	if (ret < 0)
		return ret;
	if (find(s, dst)) {
		ts_err_set(err, "/%s: packed twice", dst);
		return -EEXIST;
	}
	copy = malloc(len + 1);
	if (!copy) {
		ts_err_set(err, "/%s: out of memory", dst);
		return -ENOMEM;
	}
	memcpy(copy, data, len);
	return add(s, dst, TS_SEAL_DATA, mode, len, copy, &ret, err) ? 0 : ret;
}

int ts_seal_add_chr(struct ts_seal *s, const char *dst, uint32_t rdev, struct ts_err *err)
{
	struct ts_seal_entry *e;
	int ret;

	while (*dst == '/')
		dst++;
	ret = add_parents(s, dst, err);
	if (ret < 0)
		return ret;
	e = add(s, dst, TS_SEAL_CHR, 0600, 0, NULL, &ret, err);
	if (e)
		e->rdev = rdev;
	return e ? 0 : ret;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct ts_seal_entry *)a)->path,
		      ((const struct ts_seal_entry *)b)->path);
}

int ts_seal_write(struct ts_seal *s, FILE *f, struct ts_err *err)
{
	struct ts_cpio c;
	size_t i;
	int ret = 0;

	/* A parent is a prefix of its children's paths, so it sorts before them. */
	qsort(s->e, s->n, sizeof(*s->e), by_path);
	ts_cpio_init(&c, f);
	for (i = 0; i < s->n && !ret; i++) {
		const struct ts_seal_entry *e = &s->e[i];
		char host[PATH_MAX + 4096], *img = NULL;
		size_t len = 0;

		switch (e->kind) {
		case TS_SEAL_DIR:
			ret = ts_cpio_add(&c, e->path, S_IFDIR | e->mode, 0, NULL, 0);
			break;
		case TS_SEAL_LINK:
			ret = ts_cpio_add(&c, e->path, S_IFLNK | 0777, 0, e->data, strlen(e->data));
			break;
		case TS_SEAL_CHR:
			ret = ts_cpio_add(&c, e->path, S_IFCHR | e->mode, e->rdev, NULL, 0);
			break;
		case TS_SEAL_DATA:
			ret = ts_cpio_add(&c, e->path, S_IFREG | e->mode, 0, e->data,
					  (size_t)e->len);
			break;
		case TS_SEAL_FILE:
			snprintf(host, sizeof(host), "%s%s", s->root, e->src);
			ret = ts_in_read(host, TS_SEAL_FILE_MAX, &img, &len, err);
			if (ret < 0)
				return ret;
			if (len != e->len) {
				free(img);
				ts_err_set(err, "%s: its size changed while it was packed", e->src);
				return -EIO;
			}
			ret = ts_cpio_add(&c, e->path, S_IFREG | e->mode, 0, img, len);
			free(img);
			break;
		}
	}
	if (!ret)
		ret = ts_cpio_finish(&c);
	if (ret < 0)
		ts_err_set(err, "the sealed image: write error");
	return ret;
}

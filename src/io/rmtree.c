/* SPDX-License-Identifier: MIT */
/* Removing a directory tree through descriptors only (rmtree.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/rmtree.h"

/* One open directory of the walk: its stream, and where its name starts in rm.rel. */
struct level {
	DIR *d;
	size_t off; /* rm.rel's length before this directory's name was appended */
};

/*
 * A removal in progress. rel is the path of the innermost open directory
 * below the one given, for messages and for the name rmdir needs once a
 * directory is empty: at most TS_RMTREE_MAX_DEPTH names, so it never
 * overflows.
 */
struct rm {
	struct level lv[TS_RMTREE_MAX_DEPTH];
	int n;
	int top_at;	      /* the directory holding the tree */
	const char *top_name; /* the tree's name in it */
	dev_t dev;	      /* the tree's file system */
	char rel[TS_RMTREE_MAX_DEPTH * (NAME_MAX + 1) + 1];
	size_t len;
	const char *what;
	struct ts_err *err;
};

/*
 * The message for entry @name of the innermost directory (NULL: that
 * directory; before any is open, @name is the tree itself, r->what);
 * returns @ret.
 */
static int fail(struct rm *r, const char *name, int ret, const char *why)
{
	bool inner = name && r->n > 0;

	ts_err_set(r->err, "%s%s%s%s%s: cannot remove: %s", r->what, r->len ? "/" : "", r->rel,
		   inner ? "/" : "", inner ? name : "", why);
	return ret;
}

/* Make directory @fd (entry @name of the innermost one) the innermost; takes @fd. */
static int enter(struct rm *r, int fd, const char *name)
{
	struct stat st;
	int ret;
	DIR *d;

	if (fstat(fd, &st) < 0) {
		ret = fail(r, name, -errno, strerror(errno));
		close(fd);
		return ret;
	}
	if (r->n == 0)
		r->dev = st.st_dev;
	if (st.st_dev != r->dev) {
		close(fd);
		return fail(r, name, -EXDEV, "a mount point (another file system): not entered");
	}
	d = fdopendir(fd);
	if (!d) {
		ret = fail(r, name, -errno, strerror(errno));
		close(fd);
		return ret;
	}
	r->lv[r->n].d = d;
	r->lv[r->n].off = r->len;
	if (r->n > 0)
		r->len += (size_t)sprintf(r->rel + r->len, "%s%s", r->len ? "/" : "", name);
	r->n++;
	return 0;
}

/* The innermost directory is read to its end: close it and remove it from its parent. */
static int pop(struct rm *r)
{
	struct level *lv = &r->lv[--r->n];
	const char *name = r->n ? r->rel + lv->off + (lv->off ? 1 : 0) : r->top_name;
	int at = r->n ? dirfd(r->lv[r->n - 1].d) : r->top_at, ret = 0;

	closedir(lv->d);
	if (unlinkat(at, name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
		ret = -errno;
		/* Name the directory itself: the path up to it, as the user would write it. */
		ts_err_set(r->err, "%s%s%s: cannot remove: %s", r->what, r->n ? "/" : "",
			   r->n ? r->rel : "", strerror(-ret));
	}
	r->len = lv->off;
	r->rel[r->len] = '\0';
	return ret;
}

/*
 * Remove entry @name of @at: anything but a directory (a link too) is
 * unlinked as it is; a directory is opened to be emptied first. A
 * directory swapped for a link between the two steps is unlinked then, as
 * the link it has become.
 */
static int remove_entry(struct rm *r, int at, const char *name)
{
	char why[64];
	int fd;

	if (unlinkat(at, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR)
		return fail(r, name, -errno, strerror(errno));
	if (r->n == TS_RMTREE_MAX_DEPTH) {
		snprintf(why, sizeof(why), "directories nested deeper than %d levels",
			 TS_RMTREE_MAX_DEPTH);
		return fail(r, name, -ELOOP, why);
	}
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		return enter(r, fd, name);
	if (errno != ELOOP && errno != ENOTDIR)
		return fail(r, name, -errno, strerror(errno));
	if (unlinkat(at, name, 0) == 0 || errno == ENOENT)
		return 0;
	return fail(r, name, -errno, "changed while it was removed");
}

/* One entry of the innermost directory, or the end of it. */
static int step(struct rm *r)
{
	struct dirent *e;

	errno = 0;
	e = readdir(r->lv[r->n - 1].d);
	if (!e)
		return errno ? fail(r, NULL, -errno, strerror(errno)) : pop(r);
	if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
		return 0;
	return remove_entry(r, dirfd(r->lv[r->n - 1].d), e->d_name);
}

int ts_rmtree_at(int dirfd, const char *name, const char *what, struct ts_err *err)
{
	struct ts_err dummy;
	struct rm r;
	int ret;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		ts_err_set(err, "%s: cannot remove: expected one directory entry's name", what);
		return -EINVAL;
	}
	memset(&r, 0, sizeof(r));
	r.top_at = dirfd;
	r.top_name = name;
	r.what = what;
	r.err = err ? err : &dummy;
	ret = remove_entry(&r, dirfd, name);
	while (!ret && r.n > 0)
		ret = step(&r);
	while (r.n > 0)
		closedir(r.lv[--r.n].d);
	return ret;
}

int ts_rmtree(const char *path, struct ts_err *err)
{
	char buf[PATH_MAX];
	const char *dir, *name;
	size_t n = strlen(path);
	char *slash;
	int fd, ret;

	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n >= sizeof(buf)) {
		ts_err_set(err, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	memcpy(buf, path, n);
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	dir = !slash ? "." : slash == buf ? "/" : buf;
	name = slash ? slash + 1 : buf;
	if (slash)
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			return 0;
		ts_err_set(err, "%s: cannot remove: %s: %s", path, dir, strerror(errno));
		return ret;
	}
	ret = ts_rmtree_at(fd, name, path, err);
	close(fd);
	return ret;
}

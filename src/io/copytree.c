/* SPDX-License-Identifier: MIT */
/* Copying a directory tree (copytree.h). */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/copytree.h"
#include "io/invoker.h"
#include "io/outfile.h"

/* One copy: its flags, the user what it creates is handed to (TS_COPY_OWN), the message. */
struct copy {
	unsigned flags;
	struct ts_invoker inv;
	struct ts_err *err;
};

/* Hand @fd, made by this copy, to the invoking user when asked to (TS_COPY_OWN). */
static int own(const struct copy *cp, int fd)
{
	return cp->flags & TS_COPY_OWN ? ts_out_hand_over(fd, &cp->inv) : 0;
}

int ts_copy_fd(int in, int out, uint64_t max)
{
	char buf[65536];
	ssize_t n = 0;

	while (max && (n = read(in, buf, max < sizeof(buf) ? (size_t)max : sizeof(buf))) > 0) {
		char *p = buf;

		max -= (uint64_t)n;
		while (n > 0) {
			ssize_t w = write(out, p, (size_t)n);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return w < 0 ? -errno : -EIO;
			p += w;
			n -= w;
		}
	}
	return n < 0 ? -errno : 0;
}

/*
 * A copy, never a link: a hard link would leave the file its author's, who
 * could change it afterwards in the copy too. The source is opened without
 * waiting and must still be a regular file (a FIFO swapped in since the
 * directory was read would block the open or the read forever).
 */
static int copy_file(const struct copy *cp, int sdir, const char *sname, int ddir,
		     const char *dname, mode_t mode)
{
	int in = -1, out = -1, ret = 0;
	int excl = cp->flags & TS_COPY_NEW ? O_EXCL : O_TRUNC;
	struct stat st;

	in = openat(sdir, sname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) < 0) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto out;
	}
	out = openat(ddir, dname, O_WRONLY | O_CREAT | excl | O_NOFOLLOW | O_CLOEXEC, mode & 0755);
	if (out < 0) {
		ret = -errno;
		goto out;
	}
	ret = own(cp, out);
	if (!ret)
		ret = ts_copy_fd(in, out, UINT64_MAX);
out:
	if (out >= 0 && close(out) < 0 && !ret)
		ret = -errno;
	if (in >= 0)
		close(in);
	if (ret)
		ts_err_set(cp->err, "copying %s: %s", sname,
			   ret == -EINVAL ? "not a regular file" : strerror(-ret));
	return ret;
}

static int copy_dir(const struct copy *cp, int sdir, int ddir, int depth);

/* Subdirectory @name of @sdir into @ddir, one level deeper. */
static int copy_subdir(const struct copy *cp, int sdir, int ddir, const char *name, int depth)
{
	int s, t, ret = 0;

	if (mkdirat(ddir, name, 0755) < 0 && ((cp->flags & TS_COPY_NEW) || errno != EEXIST)) {
		ret = -errno;
		ts_err_set(cp->err, "mkdir %s: %s", name, strerror(errno));
		return ret;
	}
	s = openat(sdir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	t = openat(ddir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s < 0 || t < 0)
		ret = -errno;
	else
		ret = own(cp, t);
	if (ret) {
		ts_err_set(cp->err, "%s: %s", name, strerror(-ret));
		if (s >= 0)
			close(s);
		if (t >= 0)
			close(t);
		return ret;
	}
	return copy_dir(cp, s, t, depth + 1);
}

/* Takes ownership of @sdir and @ddir (both closed here). */
static int copy_dir(const struct copy *cp, int sdir, int ddir, int depth)
{
	DIR *d = fdopendir(sdir);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		ret = -errno;
		ts_err_set(cp->err, "opendir: %s", strerror(errno));
		close(sdir);
		goto out;
	}
	while (!ret && (de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			ret = -errno;
			ts_err_set(cp->err, "%s: %s", de->d_name, strerror(errno));
		} else if (S_ISREG(st.st_mode)) {
			ret = copy_file(cp, dirfd(d), de->d_name, ddir, de->d_name, st.st_mode);
		} else if (S_ISDIR(st.st_mode) && depth < TS_COPY_MAX_DEPTH) {
			ret = copy_subdir(cp, dirfd(d), ddir, de->d_name, depth);
		}
	}
	closedir(d);
out:
	close(ddir);
	return ret;
}

/* The copy's context; with TS_COPY_OWN the invoking user must be known (else -EINVAL). */
static int copy_init(struct copy *cp, unsigned flags, struct ts_err *err)
{
	memset(cp, 0, sizeof(*cp));
	cp->flags = flags;
	cp->err = err;
	if ((flags & TS_COPY_OWN) && ts_invoker_get(&cp->inv, err) < 0)
		return -EINVAL;
	return 0;
}

int ts_copy_tree(const char *src, const char *dst, unsigned flags, struct ts_err *err)
{
	struct copy cp;
	int s, t, ret;

	ret = copy_init(&cp, flags, err);
	if (ret)
		return ret;
	s = open(src, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", src, strerror(errno));
		return ret;
	}
	if ((flags & TS_COPY_NEW) && mkdir(dst, 0755) < 0) {
		ret = -errno;
		ts_err_set(err, "mkdir %s: %s", dst, strerror(errno));
		close(s);
		return ret;
	}
	t = open(dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ret = t < 0 ? -errno : (flags & TS_COPY_NEW) ? own(&cp, t) : 0;
	if (ret) {
		ts_err_set(err, "%s: %s", dst, strerror(-ret));
		if (t >= 0)
			close(t);
		close(s);
		return ret;
	}
	return copy_dir(&cp, s, t, 0);
}

int ts_copy_file(const char *src, const char *dst, unsigned flags, struct ts_err *err)
{
	struct copy cp;
	struct stat st;
	int ret;

	ret = copy_init(&cp, flags, err);
	if (ret)
		return ret;
	if (lstat(src, &st) < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", src, strerror(errno));
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		ts_err_set(err, "%s: not a regular file", src);
		return -EINVAL;
	}
	return copy_file(&cp, AT_FDCWD, src, AT_FDCWD, dst, st.st_mode);
}

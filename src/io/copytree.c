/* SPDX-License-Identifier: MIT */
/* Copying a directory tree (copytree.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/copytree.h"

static int copy_file(int sdir, const char *sname, int ddir, const char *dname, mode_t mode,
		     unsigned flags, char *err, size_t errlen)
{
	char buf[65536];
	int in = -1, out = -1, ret = 0;
	int excl = flags & TS_COPY_NEW ? O_EXCL : O_TRUNC;
	ssize_t n;

	if ((flags & TS_COPY_LINK) && linkat(sdir, sname, ddir, dname, 0) == 0)
		return 0;
	in = openat(sdir, sname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in >= 0)
		out = openat(ddir, dname, O_WRONLY | O_CREAT | excl | O_NOFOLLOW | O_CLOEXEC,
			     mode & 0755);
	if (in < 0 || out < 0) {
		ret = -errno;
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		char *p = buf;

		while (n > 0) {
			ssize_t w = write(out, p, (size_t)n);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				ret = w < 0 ? -errno : -EIO;
				goto out;
			}
			p += w;
			n -= w;
		}
	}
	if (n < 0)
		ret = -errno;
out:
	if (out >= 0 && close(out) < 0 && !ret)
		ret = -errno;
	if (in >= 0)
		close(in);
	if (ret)
		snprintf(err, errlen, "copying %s: %s", sname, strerror(-ret));
	return ret;
}

/* Takes ownership of @sdir and @ddir (both closed here). */
static int copy_dir(int sdir, int ddir, int depth, unsigned flags, char *err, size_t errlen)
{
	DIR *d = fdopendir(sdir);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		ret = -errno;
		snprintf(err, errlen, "opendir: %s", strerror(errno));
		close(sdir);
		goto out;
	}
	while (!ret && (de = readdir(d))) {
		struct stat st;
		int s, t;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", de->d_name, strerror(errno));
			continue;
		}
		if (S_ISREG(st.st_mode)) {
			ret = copy_file(dirfd(d), de->d_name, ddir, de->d_name, st.st_mode, flags,
					err, errlen);
			continue;
		}
		if (!S_ISDIR(st.st_mode) || depth >= TS_COPY_MAX_DEPTH)
			continue;
		if (mkdirat(ddir, de->d_name, 0755) < 0 &&
		    ((flags & TS_COPY_NEW) || errno != EEXIST)) {
			ret = -errno;
			snprintf(err, errlen, "mkdir %s: %s", de->d_name, strerror(errno));
			continue;
		}
		s = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		t = openat(ddir, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (s < 0 || t < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", de->d_name, strerror(errno));
			if (s >= 0)
				close(s);
			if (t >= 0)
				close(t);
			continue;
		}
		ret = copy_dir(s, t, depth + 1, flags, err, errlen);
	}
	closedir(d);
out:
	close(ddir);
	return ret;
}

int ts_copy_tree(const char *src, const char *dst, unsigned flags, char *err, size_t errlen)
{
	int s, t, ret;

	s = open(src, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", src, strerror(errno));
		return ret;
	}
	if ((flags & TS_COPY_NEW) && mkdir(dst, 0755) < 0) {
		ret = -errno;
		snprintf(err, errlen, "mkdir %s: %s", dst, strerror(errno));
		close(s);
		return ret;
	}
	t = open(dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", dst, strerror(errno));
		close(s);
		return ret;
	}
	return copy_dir(s, t, 0, flags, err, errlen);
}

int ts_copy_file(const char *src, const char *dst, unsigned flags, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	if (lstat(src, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", src, strerror(errno));
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", src);
		return -EINVAL;
	}
	return copy_file(AT_FDCWD, src, AT_FDCWD, dst, st.st_mode, flags, err, errlen);
}

/* SPDX-License-Identifier: MIT */
/* Copying a run's directory out of the guest's tmpfs (copytree.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/copytree.h"

#define MAX_DEPTH 8

static int copy_file(int sdir, int ddir, const char *name, char *err, size_t errlen)
{
	char buf[65536];
	int in, out = -1, ret = 0;
	ssize_t n;

	in = openat(sdir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in >= 0)
		out = openat(ddir, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			     0644);
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
		snprintf(err, errlen, "copying %s: %s", name, strerror(-ret));
	return ret;
}

/* Takes ownership of @sdir and @ddir (both closed here). */
static int copy_dir(int sdir, int ddir, int depth, char *err, size_t errlen)
{
	DIR *d = fdopendir(sdir);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		ret = -errno;
		close(sdir);
		goto out;
	}
	while (!ret && (de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", de->d_name, strerror(errno));
		} else if (S_ISREG(st.st_mode)) {
			ret = copy_file(dirfd(d), ddir, de->d_name, err, errlen);
		} else if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH) {
			int s, t;

			if (mkdirat(ddir, de->d_name, 0755) < 0 && errno != EEXIST) {
				ret = -errno;
				snprintf(err, errlen, "mkdir %s: %s", de->d_name, strerror(errno));
				continue;
			}
			s = openat(dirfd(d), de->d_name,
				   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			t = openat(ddir, de->d_name,
				   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (s < 0 || t < 0) {
				ret = -errno;
				snprintf(err, errlen, "%s: %s", de->d_name, strerror(errno));
				if (s >= 0)
					close(s);
				if (t >= 0)
					close(t);
				continue;
			}
			ret = copy_dir(s, t, depth + 1, err, errlen);
		}
	}
	closedir(d);
out:
	close(ddir);
	return ret;
}

int ts_exp_copy_tree(const char *src, const char *dst, char *err, size_t errlen)
{
	int s = open(src, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), t, ret;

	if (s < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", src, strerror(errno));
		return ret;
	}
	t = open(dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", dst, strerror(errno));
		close(s);
		return ret;
	}
	return copy_dir(s, t, 0, err, errlen);
}

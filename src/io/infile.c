/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "io/infile.h"

/* The flags of every open here. O_NONBLOCK: a FIFO must not wait for a writer before it is refused. */
#define IN_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/* @fd (opened with IN_FLAGS) if it is a regular file, made blocking; else closed and -errno. */
static int regular_only(int fd, const char *path, struct ts_err *err)
{
	struct stat st;
	int ret;

	if (fstat(fd, &st) < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		ts_err_set(err, "%s: expected a regular file (not a FIFO, device or directory)",
			   path);
	} else if (fcntl(fd, F_SETFL, 0) < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", path, strerror(errno));
	} else {
		return fd;
	}
	close(fd);
	return ret;
}

int ts_in_open(const char *path, struct ts_err *err)
{
	int fd = open(path, IN_FLAGS), ret;

	if (fd < 0) {
		ret = -errno;
		ts_err_set(err, "%s: cannot open: %s", path, strerror(errno));
		return ret;
	}
	return regular_only(fd, path, err);
}

int ts_in_open_at(int dirfd, const char *dir, const char *rel, uint64_t resolve, struct ts_err *err)
{
	struct open_how how = {.flags = IN_FLAGS, .resolve = resolve};
	char path[4352];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	if (fd < 0) {
		ret = -errno;
		/* EXDEV: the lookup would have left @dir (a "..", an absolute path or link). */
		ts_err_set(err, "%s: cannot open: %s", path,
			   errno == EXDEV   ? "it leads out of its directory"
			   : errno == ELOOP ? "a symbolic link on the way"
					    : strerror(errno));
		return ret;
	}
	return regular_only(fd, path, err);
}

int ts_in_dir_open(const char *path, struct ts_err *err)
{
	/* O_DIRECTORY is checked before a FIFO's open could wait, O_NONBLOCK as well. */
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC), ret;

	if (fd >= 0)
		return fd;
	ret = -errno;
	ts_err_set(err, "%s: %s", path,
		   errno == ENOTDIR ? "expected a directory" : strerror(errno));
	return ret;
}

/* The whole of @fd (a regular file, named @path in messages) if at most @limit bytes; closes it. */
static int read_fd(int fd, const char *path, size_t limit, char **out, size_t *len,
		   struct ts_err *err)
{
	size_t got = 0, cap;
	char *buf = NULL;
	struct stat st;
	ssize_t n;
	int ret = 0;

	*out = NULL;
	*len = 0;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", path, strerror(errno));
		goto out;
	}
	/* The size said now; a file that grows while read is stopped at the limit below. */
	if ((unsigned long long)st.st_size > limit)
		goto big;
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap + 1);
	if (!buf) {
		ret = -ENOMEM;
		ts_err_set(err, "%s: out of memory", path);
		goto out;
	}
	/* Read one byte more than the size said, to see a file that grew. */
	while (got < cap && (n = read(fd, buf + got, cap - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			ts_err_set(err, "%s: read error: %s", path, strerror(errno));
			goto out;
		}
		got += (size_t)n;
	}
	if (got > limit)
		goto big;
	buf[got] = '\0';
	*out = buf;
	*len = got;
	buf = NULL;
	goto out;
big:
	ret = -EFBIG;
	ts_err_set(err, "%s: larger than %zu bytes, the limit for this file", path, limit);
out:
	free(buf);
	close(fd);
	return ret;
}

int ts_in_read(const char *path, size_t limit, char **out, size_t *len, struct ts_err *err)
{
	int fd = ts_in_open(path, err);

	*out = NULL;
	*len = 0;
	return fd < 0 ? fd : read_fd(fd, path, limit, out, len, err);
}

int ts_in_read_at(int dirfd, const char *dir, const char *rel, uint64_t resolve, size_t limit,
		  char **out, size_t *len, struct ts_err *err)
{
	int fd = ts_in_open_at(dirfd, dir, rel, resolve, err);
	char path[4352];

	*out = NULL;
	*len = 0;
	if (fd < 0)
		return fd;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return read_fd(fd, path, limit, out, len, err);
}

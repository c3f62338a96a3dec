/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/infile.h"

int ts_in_open(const char *path, struct ts_err *err)
{
	struct stat st;
	int fd, ret;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer before it is refused. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		ts_err_set(err, "%s: cannot open: %s", path, strerror(errno));
		return ret;
	}
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

int ts_in_read(const char *path, size_t limit, char **out, size_t *len, struct ts_err *err)
{
	size_t got = 0, cap;
	char *buf = NULL;
	struct stat st;
	ssize_t n;
	int fd, ret = 0;

	*out = NULL;
	*len = 0;
	fd = ts_in_open(path, err);
	if (fd < 0)
		return fd;
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

/* SPDX-License-Identifier: MIT */
/* Process and file helpers of the VM runner (see capture.h). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/proc.h"
#include "vm/capture.h"

static int append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t c = *cap ? *cap : 4096;
		char *b;

		while (*len + n + 1 > c)
			c *= 2;
		b = realloc(*buf, c);
		if (!b)
			return -ENOMEM;
		*buf = b;
		*cap = c;
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

int ts_vm_capture(char *const argv[], const char *cwd, int quiet_stderr, char **out, size_t *len,
		  struct ts_err *err)
{
	struct ts_proc p;
	int ret;

	*out = NULL;
	*len = 0;
	ts_proc_init(&p, argv);
	p.cwd = cwd;
	p.out.how = TS_PROC_CAPTURE;
	p.out.max = TS_VM_CAPTURE_MAX;
	p.err.how = quiet_stderr ? TS_PROC_NULL : TS_PROC_INHERIT;
	ret = ts_proc_run(&p, -1, err);
	if (ret >= 0 && p.out.truncated) {
		ts_err_set(err, "%s: more than %u MiB of output", argv[0], TS_VM_CAPTURE_MAX >> 20);
		ret = -EFBIG;
	}
	if (ret >= 0) {
		*out = p.out.buf.data;
		*len = p.out.buf.len;
		p.out.buf = (struct ts_buf){0};
	}
	ts_proc_release(&p);
	return ret;
}

int ts_vm_read_file(const char *path, char **out, size_t *len)
{
	char *buf = NULL, chunk[65536];
	size_t n = 0, cap = 0;
	int fd, ret = 0;
	ssize_t r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((r = read(fd, chunk, sizeof(chunk))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		ret = append(&buf, &n, &cap, chunk, (size_t)r);
		if (ret)
			break;
	}
	close(fd);
	if (!ret && !buf)
		ret = append(&buf, &n, &cap, "", 0);
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	*len = n;
	return 0;
}

int ts_vm_mkdir_p(const char *path, unsigned mode)
{
	char p[4096];
	size_t i, n = strlen(path);

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -errno;
		p[i] = i < n ? '/' : '\0';
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void ts_vm_rm_rf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

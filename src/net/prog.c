/* SPDX-License-Identifier: MIT */
/*
 * Finding iptables and friends, and running them through io/proc.h
 * (which tells "could not start" apart from "exited 127").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/prog.h"

static int is_exec(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static int try_dir(const char *dir, size_t dlen, const char *name, char *path, size_t len)
{
	int n;

	if (dlen == 0)
		return -ENOENT; /* an empty PATH element means ".": not for root tools */
	n = snprintf(path, len, "%.*s/%s", (int)dlen, dir, name);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return is_exec(path) ? 0 : -ENOENT;
}

int ts_prog_find(const char *name, char *path, size_t len)
{
	static const char *const fallback[] = {"/usr/sbin", "/sbin", "/usr/bin", "/bin"};
	const char *env = getenv("PATH"), *p, *end;
	size_t i;
	int ret = -ENOENT, r;

	if (strchr(name, '/'))
		return -ENOENT;
	for (p = env; p && *p; p = end + (*end ? 1 : 0)) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		r = try_dir(p, (size_t)(end - p), name, path, len);
		if (r == 0)
			return 0;
		if (r == -ENAMETOOLONG)
			ret = r;
	}
	for (i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++) {
		r = try_dir(fallback[i], strlen(fallback[i]), name, path, len);
		if (r == 0)
			return 0;
		if (r == -ENAMETOOLONG)
			ret = r;
	}
	return ret;
}

/* @src's text into @errtxt: trailing newlines dropped, the others folded to ';'. */
static void fold_errtxt(const struct ts_buf *src, char *errtxt, size_t errlen)
{
	size_t i, n = src->len;

	if (errlen == 0)
		return;
	if (n > errlen - 1)
		n = errlen - 1;
	memcpy(errtxt, src->data ? src->data : "", n);
	while (n > 0 && (errtxt[n - 1] == '\n' || errtxt[n - 1] == ' '))
		n--;
	errtxt[n] = '\0';
	for (i = 0; i < n; i++)
		if (errtxt[i] == '\n')
			errtxt[i] = ';';
}

int ts_prog_run(int netns_fd, const char *path, char *const argv[], struct ts_buf *out,
		char *errtxt, size_t errlen)
{
	struct ts_proc p;
	struct ts_err err;
	int ret;

	if (errlen)
		errtxt[0] = '\0';
	ts_proc_init(&p, argv);
	p.file = path;
	p.netns_fd = netns_fd;
	p.new_pgroup = true;
	p.err.how = TS_PROC_CAPTURE;
	p.err.max = errlen;
	if (out) {
		p.out.how = TS_PROC_CAPTURE;
		p.out.max = TS_PROG_OUT_MAX;
		/* Appended to what @out holds: the capture starts from the caller's buffer. */
		p.out.buf = *out;
	}
	ret = ts_proc_run(&p, -1, &err);
	if (out) {
		*out = p.out.buf;
		p.out.buf = (struct ts_buf){0};
		if (ret >= 0 && p.out.truncated)
			ret = -EFBIG;
	}
	if (ret >= 0)
		fold_errtxt(&p.err.buf, errtxt, errlen);
	ts_proc_release(&p);
	return ret;
}

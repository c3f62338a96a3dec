/* SPDX-License-Identifier: MIT */
/*
 * Running iptables and friends through io/proc.h (which tells "could not
 * start" apart from "exited 127" and finds the program with io/which.h).
 */
#include <errno.h>
#include <string.h>

#include "net/prog.h"
#include "io/which.h"

int ts_prog_find(const char *name, char *path, size_t len)
{
	struct ts_which w;
	int ret = ts_which(name, &w);

	if (ret < 0)
		return ret;
	if (strlen(w.path) >= len)
		return -ENAMETOOLONG;
	memcpy(path, w.path, strlen(w.path) + 1);
	return 0;
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

/* SPDX-License-Identifier: MIT */
/* A program's output captured for the VM runner (see capture.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/proc.h"
#include "vm/capture.h"
#include "vm/qemuuser.h"

/* ts_vm_capture with stdin @in (NULL: /dev/null). */
static int capture(char *const argv[], const char *cwd, const struct ts_proc_stream *in,
		   int quiet_stderr, const struct ts_vm_user *as, char **out, size_t *len,
		   struct ts_err *err)
{
	struct ts_proc p;
	int ret;

	*out = NULL;
	*len = 0;
	ts_proc_init(&p, argv);
	p.cwd = cwd;
	if (as)
		ts_vm_user_apply(as, &p);
	/* Field by field: ts_proc_init set the stream's private ones (its pipe, -1). */
	if (in) {
		p.in.how = in->how;
		p.in.fd = in->fd;
		p.in.data = in->data;
		p.in.len = in->len;
	}
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

int ts_vm_capture(char *const argv[], const char *cwd, int in_fd, int quiet_stderr,
		  const struct ts_vm_user *as, char **out, size_t *len, struct ts_err *err)
{
	struct ts_proc_stream in = {.how = TS_PROC_FD, .fd = in_fd};

	return capture(argv, cwd, in_fd >= 0 ? &in : NULL, quiet_stderr, as, out, len, err);
}

int ts_vm_capture_data(char *const argv[], const void *data, size_t n, const struct ts_vm_user *as,
		       char **out, size_t *len, struct ts_err *err)
{
	struct ts_proc_stream in = {.how = TS_PROC_DATA, .data = data, .len = n};

	return capture(argv, NULL, &in, 1, as, out, len, err);
}

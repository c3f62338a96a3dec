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

int ts_vm_capture(char *const argv[], const char *cwd, int in_fd, int quiet_stderr,
		  const struct ts_vm_user *as, char **out, size_t *len, struct ts_err *err)
{
	struct ts_proc p;
	int ret;

	*out = NULL;
	*len = 0;
	ts_proc_init(&p, argv);
	p.cwd = cwd;
	if (as)
		ts_vm_user_apply(as, &p);
	if (in_fd >= 0) {
		p.in.how = TS_PROC_FD;
		p.in.fd = in_fd;
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

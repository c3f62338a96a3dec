/* SPDX-License-Identifier: MIT */
/* A program's output captured, for the VM runner (host side). */
#ifndef TS_VM_CAPTURE_H
#define TS_VM_CAPTURE_H

#include <stddef.h>

#include "tasshape/err.h"

struct ts_vm_user;

#define TS_VM_CAPTURE_MAX (512u << 20) /* the largest decompressed module is far smaller */

/*
 * ts_vm_capture - run @argv (argv[0] looked up in PATH) with stdin from
 * @in_fd (-1: /dev/null; the caller keeps and closes it), stdout captured into a malloc'ed NUL-terminated *@out
 * (*@len bytes), stderr passed through unless @quiet_stderr, in @cwd (NULL:
 * unchanged), as @as (NULL: as this process; vm/qemuuser.h), through
 * io/proc.h. Returns the exit status (>= 0) or a
 * negative errno with @err set when it could not be run (-ENOENT: not
 * found) or wrote more than TS_VM_CAPTURE_MAX (-EFBIG).
 */
int ts_vm_capture(char *const argv[], const char *cwd, int in_fd, int quiet_stderr,
		  const struct ts_vm_user *as, char **out, size_t *len, struct ts_err *err);

/* ts_vm_capture with @n bytes of @data as stdin (io/proc.h's memfd), stderr discarded. */
int ts_vm_capture_data(char *const argv[], const void *data, size_t n, const struct ts_vm_user *as,
		       char **out, size_t *len, struct ts_err *err);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Running an external program (iptables, iptables-save, ip) from the
 * kernel-facing layer through io/proc.h: argv only, never a shell,
 * optionally inside a network namespace, with its output captured for
 * parsing and its error text captured for the message shown to the user.
 */
#ifndef TS_NET_PROG_H
#define TS_NET_PROG_H

#include <stddef.h>

#include "io/proc.h"

#define TS_PROG_OUT_MAX (256u << 20) /* an iptables-save of a crowded host stays far below */

/*
 * ts_prog_find - ts_which (io/which.h: absolute $PATH entries, then the
 * system's sbin and bin, and only programs no other user can change) for
 * a caller that wants the path alone, into @path of size @len. Returns 0,
 * -ENOENT (not found, or only refused candidates), -ENAMETOOLONG.
 */
int ts_prog_find(const char *name, char *path, size_t len);

/*
 * ts_prog_run - run @path with @argv (argv[0] included, NULL-terminated)
 * and wait for it. @path NULL: argv[0] as ts_which (io/which.h) finds it.
 * @netns_fd: network namespace to run it in (setns in the child before
 *            exec), or -1 for the caller's namespace. The caller keeps
 *            ownership of the fd.
 * @out:      if not NULL, the program's stdout is appended to it; else
 *            stdout goes to /dev/null. stdin is always /dev/null.
 * @errtxt:   receives the program's stderr (newlines folded to "; ",
 *            truncated to @errlen - 1); may be NULL when @errlen is 0.
 *            A text buffer, not a struct ts_err (err.h): it holds what the
 *            program said, which callers quote inside their own message.
 * The child starts with an empty signal mask and SIGPIPE at its default,
 * so a caller that blocks signals for a signalfd does not leak that.
 * The program runs in a process group of its own, so that a Ctrl-C meant
 * for tasshape does not stop an `iptables -D` half-way through a teardown.
 * Returns the exit status (0..255, or 128 + signal number when killed by
 * a signal), or a negative errno when the program could not be started:
 * the exec or setns error as seen in the child (e.g. -ENOENT), -ENOMEM
 * when @out cannot grow, -EFBIG when the output passes TS_PROG_OUT_MAX,
 * or the error of fork/pipe.
 */
int ts_prog_run(int netns_fd, const char *path, char *const argv[], struct ts_buf *out,
		char *errtxt, size_t errlen);

#endif

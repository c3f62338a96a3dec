/* SPDX-License-Identifier: MIT */
/*
 * Finding a program by name: the one resolver for every program tasshape
 * runs (iptables, iptables-save, ip, iperf3, irtt, ping, modprobe, flent,
 * qemu-system-x86_64, gnuplot, ...) and for CMD. tasshape runs as root and
 * is often started in a directory someone else wrote (a results directory,
 * /tmp), so a name is looked up only where no other local user can have
 * put a program:
 *
 *   - the absolute directories of $PATH, in order. An empty entry, ".",
 *     "bin" or "./x" names a place under the current directory: never
 *     searched;
 *   - then the system's sbin directories, TS_WHICH_SBIN: root tools live
 *     there, and a $PATH inherited through cron or `sudo -E` may lack them.
 *     Only those: a program of bin that $PATH leaves out is not found, as
 *     a shell would not find it (a user who narrows $PATH to hide gnuplot
 *     or iperf3 gets "not found", not the system's copy);
 *   - with no $PATH at all, TS_WHICH_SYSTEM (as execvp has a default);
 *   - a candidate is taken only when it is a regular executable file that
 *     nobody but root or the invoking user (io/invoker.h) can change: the
 *     file, the directory it was found in and, when the name is a symbolic
 *     link, the directory of the file it leads to are owned by root or the
 *     invoking user; the file is neither group- nor world-writable; a
 *     directory is neither unless it is sticky (as /tmp: others cannot
 *     replace there what they do not own).
 *
 * Every candidate refused by these rules is remembered, so that the error
 * (or `tasshape doctor`) can say "found ./ip but it is in a relative $PATH
 * entry" rather than only "not found".
 *
 * A name with a '/' is taken as given: whoever wrote it (CMD's
 * "./run.sh", --qemu PATH) named that file, as a shell runs ./run.sh; it
 * is neither searched for nor checked. CMD goes through the same rules as
 * every other program, whether it keeps root (--as-root) or runs as the
 * invoking user: the rules admit nothing that user could not run anyway.
 */
#ifndef TS_IO_WHICH_H
#define TS_IO_WHICH_H

#include <limits.h>

#include "io/invoker.h"
#include "tasshape/err.h"

/* Searched after $PATH, in this order. */
#define TS_WHICH_SBIN "/usr/local/sbin:/usr/sbin:/sbin"
/* Searched when there is no $PATH (the guest's init uses the same list as its $PATH). */
#define TS_WHICH_SYSTEM "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

struct ts_which {
	char path[PATH_MAX]; /* the program found: an absolute path, or the name as given */
	char skipped[1024];  /* the candidates refused and why, "; " between; "" when none */
};

/*
 * ts_which_in - find @name in the $PATH value @path_env, then in
 * TS_WHICH_SBIN (@path_env NULL: in TS_WHICH_SYSTEM alone), trusting the owners root and @inv->uid. Fills @w
 * (both fields, whatever the result). Returns 0 with @w->path set, -ENOENT
 * when no acceptable candidate exists (@w->skipped says which were
 * refused), -ENAMETOOLONG when a name with a '/' does not fit. Reads the
 * file system only (stat, access, realpath); no environment.
 */
int ts_which_in(const char *name, const char *path_env, const struct ts_invoker *inv,
		struct ts_which *w);

/*
 * ts_which_env - ts_which_in with the PATH of the environment @envp. The
 * invoking user, as root: the one its SUDO_UID and SUDO_GID name (neither:
 * the real user; malformed: none, root alone is trusted, failing closed).
 * Not root: this process's own user, who gains nothing by what it runs.
 */
int ts_which_env(const char *name, char *const envp[], struct ts_which *w);

/* ts_which - ts_which_env of this process's own environment. */
int ts_which(const char *name, struct ts_which *w);

/*
 * ts_which_error - the message for a failed ts_which*: "NAME: command not
 * found", followed by " (found ./ip but it is in a relative $PATH entry)"
 * when candidates were refused. @err may be NULL.
 */
void ts_which_error(const char *name, const struct ts_which *w, struct ts_err *err);

#endif

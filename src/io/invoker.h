/* SPDX-License-Identifier: MIT */
/*
 * The invoking user: who tasshape works for. Through sudo that is the
 * user in SUDO_UID/SUDO_GID (CMD runs as them, the files tasshape creates
 * are handed to them); otherwise it is the real user id. The one parser of
 * those variables: the privilege drop (run/child.c) and the output files
 * (io/outfile.c) both use it, so they cannot disagree about who that is.
 */
#ifndef TS_IO_INVOKER_H
#define TS_IO_INVOKER_H

#include <stdbool.h>
#include <sys/types.h>

#include "tasshape/err.h"

struct ts_invoker {
	uid_t uid;
	gid_t gid;
	bool sudo; /* uid/gid came from SUDO_UID/SUDO_GID */
};

/*
 * ts_invoker_parse - the invoking user from the values of SUDO_UID (@uid)
 * and SUDO_GID (@gid), NULL when a variable is not set. Both unset: not
 * started through sudo, @inv->sudo is false (the caller fills in the real
 * ids). Otherwise both must be a decimal id and nothing else (no sign, no
 * blank, no trailing junk; at most 4294967294, since -1 means "no id" to
 * the kernel). Returns 0, or -EINVAL with @err naming the variable, its
 * value and what was expected. Pure: no environment, no syscall.
 */
int ts_invoker_parse(const char *uid, const char *gid, struct ts_invoker *inv, struct ts_err *err);

/*
 * ts_invoker_get - ts_invoker_parse of this process's environment; when
 * not started through sudo, the real uid and gid. Returns 0 or -EINVAL
 * with @err set: the caller refuses to go on (never falls back to root).
 */
int ts_invoker_get(struct ts_invoker *inv, struct ts_err *err);

/* ts_invoker_trusts - whether a file owned by @owner may be used: root's or the invoker's. */
bool ts_invoker_trusts(const struct ts_invoker *inv, uid_t owner);

/*
 * ts_invoker_umask_harden - once, at start: keep the user's umask (for
 * CMD) and add 022 to it, so that nothing any command writes is group- or
 * world-writable, whatever the umask it was started with.
 * ts_invoker_umask - the umask the user started tasshape with.
 */
void ts_invoker_umask_harden(void);
mode_t ts_invoker_umask(void);

#endif

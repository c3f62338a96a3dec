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

/* Most supplementary groups a program run as the invoking user gets. */
#define TS_INVOKER_MAX_GROUPS 256

/*
 * Who a program started for the invoking user runs as: resolved in the
 * parent, before fork, so that the child only makes system calls (a forked
 * child of a threaded process must not take the locks of getpwuid or
 * initgroups, which another thread may have held at the fork).
 */
struct ts_invoker_creds {
	bool drop; /* false: stay as this process is (not through sudo, or sudo from root) */
	uid_t uid;
	gid_t gid;
	size_t ngroups;
	gid_t groups[TS_INVOKER_MAX_GROUPS]; /* the user's groups (as initgroups), then @extra */
	bool named;			     /* a passwd entry: the three below are set */
	char user[64], home[1024];
};

/*
 * ts_invoker_creds - the credentials a program dropped to the invoking user
 * @inv gets: @inv's ids and the groups of its passwd entry (none without
 * one), plus @extra when it is not (gid_t)-1 and not 0 (a device's group,
 * /dev/kvm's). @c->drop is false when @inv is not from sudo or is root.
 * Returns 0, or -E2BIG / -ENAMETOOLONG with @err set.
 */
int ts_invoker_creds(const struct ts_invoker *inv, gid_t extra, struct ts_invoker_creds *c,
		     struct ts_err *err);

/*
 * ts_invoker_become - in a child before exec: become @c (setgroups,
 * setgid, setuid), and check that root cannot be regained (OpenSSH's
 * permanently_set_uid does the same). System calls only. 0 or -errno.
 */
int ts_invoker_become(const struct ts_invoker_creds *c);

/*
 * ts_invoker_trusts - whether a file owned by @owner may be used: root's or
 * the invoker's; after ts_invoker_set_rootless also the overflow uid.
 */
bool ts_invoker_trusts(const struct ts_invoker *inv, uid_t owner);

/*
 * ts_invoker_set_rootless - once, in a rootless run's user namespace
 * (net/userns.h), where root is the user and every file of an owner not
 * mapped there (the system's own, root's, outside) shows as the overflow
 * uid (/proc/sys/kernel/overflowuid, 65534 when unreadable): such files
 * are trusted too. That admits nothing the user could not run anyway: a
 * rootless tasshape has no right outside its namespaces beyond the user's.
 */
void ts_invoker_set_rootless(void);

/*
 * ts_invoker_umask_harden - once, at start: keep the user's umask (for
 * CMD) and add 022 to it, so that nothing any command writes is group- or
 * world-writable, whatever the umask it was started with.
 * ts_invoker_umask - the umask the user started tasshape with.
 */
void ts_invoker_umask_harden(void);
mode_t ts_invoker_umask(void);

#endif

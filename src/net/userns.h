/* SPDX-License-Identifier: MIT */
/*
 * Rootless runs: a user namespace that holds the wrapper's network
 * namespaces (docs/rootless.md). A user who is not root (and did not come
 * through sudo) gets a new user namespace, a new network namespace (the
 * "outer" one of net/topo.h, private to the run) and a new mount
 * namespace, in one unshare. Inside, id 0 is the user's own uid and gid
 * (user_namespaces(7): a process that creates a user namespace has every
 * capability in it, so tasshape can build its namespaces, links and
 * NFQUEUE rules there), and what it creates outside (output files) is the
 * user's. When /etc/subuid and /etc/subgid grant the user subordinate
 * ranges and newuidmap/newgidmap (Debian: uidmap) are installed, those
 * ranges are mapped from id 1 on, by the setuid helpers; otherwise the map
 * is the single line a process may write for itself (setgroups denied).
 *
 * The wrapped command does not keep that root: it runs in a second user
 * namespace, nested in the first, where it is the user's own uid and gid
 * again (mapped onto the first namespace's 0, that is onto the user), with
 * no capability anywhere. Only --as-root keeps it at id 0 of the first.
 *
 * The map is built by a pure function (unit-tested); entering is a few
 * system calls and, with subordinate ranges, two helper programs.
 */
#ifndef TS_NET_USERNS_H
#define TS_NET_USERNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tasshape/err.h"

#define TS_SUBUID_FILE "/etc/subuid"
#define TS_SUBGID_FILE "/etc/subgid"

/*
 * Lines of a map: the kernel takes 340 since Linux 4.15; far more than a
 * subordinate-id file grants one user in practice.
 */
#define TS_IDMAP_MAX 32

struct ts_idmap_range {
	uint32_t inside, outside, count;
};

struct ts_idmap {
	size_t n;
	struct ts_idmap_range r[TS_IDMAP_MAX];
};

/*
 * ts_idmap_build - the map of a rootless run's user namespace: first
 * "0 @id 1" (the user is root inside), then each range that @text (the
 * contents, @len bytes, of the subordinate-id file named @path in
 * messages: lines "OWNER:START:COUNT") grants to @name (may be NULL) or to
 * the decimal @id, in file order, placed from inside id 1 on. Empty lines
 * and lines starting with '#' are skipped; lines of other owners are not
 * parsed further (a broken line of someone else's does not stop this
 * user). Returns the number of lines (>= 1), or -EINVAL with @err naming
 * @path, the line and what was expected: a line of this user's that is
 * not three fields of decimal numbers, a count of 0, a range past
 * 4294967294, a range that holds @id itself or overlaps an earlier one
 * (the kernel refuses both), more than TS_IDMAP_MAX - 1 ranges. Pure.
 */
int ts_idmap_build(const char *text, size_t len, const char *path, const char *name, uint32_t id,
		   struct ts_idmap *m, struct ts_err *err);

/*
 * ts_idmap_format - @m as the text /proc/PID/uid_map takes ("IN OUT
 * COUNT\n" a line) into @buf of @size. Returns the length, or -ENOSPC.
 * Pure.
 */
int ts_idmap_format(const struct ts_idmap *m, char *buf, size_t size);

/*
 * Set by ts_userns_enter for everything the run starts: "UID:GID", the
 * user's ids outside. A tasshape started inside the run's user namespace
 * as its root (a nested run under --as-root, exp's wrappers) reads it to
 * know that it is rootless too (ts_userns_inherited).
 */
#define TS_ROOTLESS_ENV "TASSHAPE_ROOTLESS"

/*
 * ts_userns_env_parse - TS_ROOTLESS_ENV's value @v: two decimal ids
 * separated by ':', each below 4294967295, nothing else. Returns 0 with
 * *@uid and *@gid set, or -EINVAL with @err naming the variable, its value
 * and what was expected. Pure.
 */
int ts_userns_env_parse(const char *v, uid_t *uid, gid_t *gid, struct ts_err *err);

/* What ts_userns_enter did, for messages, doctor and the summary. */
struct ts_userns {
	uid_t uid; /* the user's ids, outside */
	gid_t gid;
	bool helpers;	   /* newuidmap/newgidmap mapped subordinate ranges */
	uint32_t sub_uids; /* ids mapped besides the user's own */
	uint32_t sub_gids;
	bool pasta;	      /* pasta attached the run's outer namespace to the host's network */
	int life;	      /* with pasta: the pipe whose end stops it (net/pasta.h); -1 */
	char note[256];	      /* why the map is a single id, "" when it is not */
	bool pidns;	      /* the run is the init of a PID namespace of its own */
	char pidns_note[160]; /* why not, "" when it is */
};

/*
 * ts_userns_wanted - whether this process should enter a user namespace
 * for a wrapper run: its effective uid is not 0 (a user without root or
 * sudo). Through sudo it is root and nothing changes.
 */
bool ts_userns_wanted(void);

/*
 * ts_userns_enter - unshare a new user, network and mount namespace and
 * map the caller's ids as described above. The process must be
 * single-threaded (unshare(CLONE_NEWUSER) refuses otherwise). On success
 * the process is uid and gid 0 in the new namespace with every capability
 * there, in a fresh network namespace with only lo (down), and @u says
 * how it was mapped. With @pasta, the helper process then runs pasta(1)
 * on the new namespaces (docs/rootless.md, "The outside world"): a tap
 * interface with the host's addresses and routes is up in the new network
 * namespace when this returns, and pasta is stopped by ts_userns_leave or
 * when this process ends, however it ends.
 * Last, the caller becomes the init of a new PID namespace
 * (ts_userns_pidns): it returns in a child process, and the process that
 * called it waits outside and never returns.
 * Returns 0, or a negative errno with @err saying what was refused and the
 * usual cause (user.max_user_namespaces at 0, an AppArmor or seccomp
 * policy, newuidmap refusing the ranges, pasta missing or failing).
 */
int ts_userns_enter(struct ts_userns *u, bool pasta, struct ts_err *err);

/*
 * ts_userns_pidns - in the new user namespace, before anything else is
 * forked: the run goes on as the init of a new PID namespace, in a child
 * whose /proc is mounted for it, so that when the run dies, however it
 * dies, the kernel kills every process it started and all they started
 * (root's runs have a guard for that; docs/rootless.md). The calling
 * process stays outside: it passes on the signals kill(1) sends it (not a
 * terminal's, which reach the run directly), the child gets SIGKILL if it
 * dies, and it ends as the child ends (its exit status, or killed by the
 * same signal); it never returns. Returns 0 in the child with @u->pidns
 * set; 0 in the caller itself with @u->pidns_note saying why when a user
 * cannot make a PID namespace or mount /proc here (tried first in a
 * throwaway child); or a negative errno with @err.
 */
int ts_userns_pidns(struct ts_userns *u, struct ts_err *err);

/*
 * ts_userns_inherited - whether this process is already inside a rootless
 * run's user namespace: TS_ROOTLESS_ENV is set and the process is not in
 * the initial user namespace (so a variable left in a real root's
 * environment changes nothing). Returns 1 with @u's ids set from the
 * variable (nothing else of @u), 0 when not, or -EINVAL with @err set when
 * the variable does not parse.
 */
int ts_userns_inherited(struct ts_userns *u, struct ts_err *err);

/* ts_userns_rootless - ts_userns_inherited, as a yes or no (a bad variable: no). */
bool ts_userns_rootless(void);

/*
 * ts_userns_leave - after the run: stop what ts_userns_enter started
 * beside it (pasta, through its keeper). The process's end does the same.
 */
void ts_userns_leave(struct ts_userns *u);

/*
 * ts_userns_nest - in a child before exec: a new user namespace nested in
 * the caller's, where the caller's id 0 is seen as @uid and @gid (a rootless
 * run's user, outside), setgroups denied. The program then runs as that
 * user, with no capability in any namespace. System calls and snprintf
 * only. Returns 0 or a negative errno.
 */
int ts_userns_nest(uid_t uid, gid_t gid);

/*
 * ts_userns_join - for `attach` without root (net/userns_join.c): join the
 * user namespace that owns network namespace @netns_fd (named @name in
 * messages), then enter network namespace @peer_fd (@peer), the other
 * end's, so that the run is made from there as root's runs are made from
 * the namespace they start in. Refused (-EPERM, @err naming the owner and
 * sudo) unless that user namespace's owner is the caller's real uid and it
 * is not the caller's own; refused too when @peer_fd is owned by another
 * user namespace (rules are made in both ends), and when the caller's uid
 * is not mapped to 0 there (what the run writes outside must be the
 * caller's). The process must be single-threaded. Returns 0, the process
 * then root of that user namespace, with its capabilities there and none
 * outside; or a negative errno with @err set (the process may have joined
 * the user namespace already: it must not go on).
 */
int ts_userns_join(int netns_fd, const char *name, int peer_fd, const char *peer,
		   struct ts_err *err);

#endif

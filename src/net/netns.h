/* SPDX-License-Identifier: MIT */
/*
 * Network namespaces without leaving the caller's: a namespace is created
 * by one thread unsharing and switching straight back, and is pinned by a
 * bind mount under /run/netns (as `ip netns add` does) so `ip netns exec`
 * finds it and `tasshape cleanup` can remove it after a crash.
 *
 * setns() and unshare() act on the calling thread only; every function
 * here that switches namespace switches the calling thread back before it
 * returns.
 */
#ifndef TS_NET_NETNS_H
#define TS_NET_NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tasshape/err.h"

#define TS_NETNS_DIR	  "/run/netns"
#define TS_NETNS_NAME_MAX 64

struct ts_netns {
	int fd;	    /* O_RDONLY|O_CLOEXEC fd of the namespace, -1 when none */
	bool owned; /* created here: destroy removes the bind mount and file */
	char name[TS_NETNS_NAME_MAX];
	char path[sizeof(TS_NETNS_DIR) + TS_NETNS_NAME_MAX];
};

/* ts_netns_init - mark @ns empty (fd -1), so destroy is safe on it. */
void ts_netns_init(struct ts_netns *ns);

/*
 * ts_netns_create - create a new network namespace named @name (a plain
 * file name: no '/', not "." or "..") pinned at /run/netns/@name, without
 * moving the calling thread into it.
 * Creates /run/netns (shared mount propagation, as iproute2 does, so the
 * namespace is visible in and removable from other mount namespaces).
 * The name is reserved atomically (O_EXCL): returns -EEXIST if taken, so a
 * caller can try the next name. On success @ns holds an fd to the new
 * namespace, owned = true, and 0 is returned. On error nothing is left
 * behind and a negative errno is returned with @err set.
 */
int ts_netns_create(struct ts_netns *ns, const char *name, struct ts_err *err);

/*
 * ts_netns_create_anon - create a new network namespace that is not pinned
 * under /run/netns: only the fd in @ns (and the processes that enter it)
 * keep it, so it goes when they do. For rootless runs (net/userns.h),
 * which cannot write /run/netns and whose namespaces are private to the
 * run anyway. @name is kept for messages only. owned = true; destroy
 * closes the fd. Returns 0 or a negative errno with @err set.
 */
int ts_netns_create_anon(struct ts_netns *ns, const char *name, struct ts_err *err);

/*
 * A namespace named by a process in it: "pid:PID" (`attach --netns
 * pid:PID`), for namespaces pinned nowhere, as a user's made with
 * `unshare -Urn` are.
 */
#define TS_NETNS_PID_PREFIX "pid:"

/*
 * ts_netns_open - open the existing namespace /run/netns/@name (for
 * `attach --netns NAME`), or, when @name is "pid:PID", the network
 * namespace of process PID (ts_netns_open_pid). owned = false: destroy
 * only closes the fd. Returns 0, or negative errno (-ENOENT when no such
 * namespace) with @err set.
 */
int ts_netns_open(struct ts_netns *ns, const char *name, struct ts_err *err);

/*
 * ts_netns_open_pid - open the network namespace of the process @spec
 * names ("pid:PID", a decimal pid above 0, nothing else: -EINVAL). The
 * process must be one this process may inspect (the kernel's ptrace read
 * check: the caller's own, for a user) and must not end while it is
 * opened (-ESRCH: its pid could have been reused). owned = false, path
 * empty. Returns 0 or a negative errno with @err set.
 */
int ts_netns_open_pid(struct ts_netns *ns, const char *spec, struct ts_err *err);

/*
 * ts_netns_destroy - close @ns's fd and, if owned, detach the bind mount
 * and unlink the file; the kernel frees the namespace (and the interfaces
 * in it) once no process or fd uses it. Idempotent; @ns is left empty.
 * Returns 0, or the first negative errno (cleanup still continues) with
 * @err set.
 */
int ts_netns_destroy(struct ts_netns *ns, struct ts_err *err);

/*
 * ts_netns_unpin - detach the mount at @path and unlink it. Used by
 * destroy and by cleanup of leftovers. A file that is not a mount point
 * (a crash between reserving the name and mounting) is just unlinked.
 * Returns 0, or a negative errno (-ENOENT when @path does not exist).
 */
int ts_netns_unpin(const char *path);

/*
 * ts_netns_current - open the calling thread's network namespace.
 * Returns a new O_CLOEXEC fd (the caller closes it) or a negative errno
 * with @err set.
 */
int ts_netns_current(struct ts_err *err);

/*
 * ts_netns_enter - move the calling thread into namespace @fd (setns).
 * Returns 0 or a negative errno with @err set. To come back, keep a
 * ts_netns_current() fd from before, or use ts_netns_run().
 */
int ts_netns_enter(int fd, struct ts_err *err);

/*
 * ts_netns_run - call @fn(@arg) with the calling thread inside namespace
 * @fd, then switch back. Sockets @fn opens stay bound to namespace @fd
 * after the return (that is how a netlink socket for another namespace is
 * made). Returns @fn's return value, or a negative errno with @err set when
 * switching failed. If switching back fails the thread is left in @fd
 * and -ENOTRECOVERABLE is returned: the caller must not go on.
 */
int ts_netns_run(int fd, int (*fn)(void *arg), void *arg, struct ts_err *err);

/*
 * ts_sysctl_write - write @value to /proc/sys/@key (e.g.
 * "net/ipv4/ip_forward") in the calling thread's network namespace.
 * Returns 0 or a negative errno with @err set.
 */
int ts_sysctl_write(const char *key, const char *value, struct ts_err *err);

/*
 * ts_netns_is_host - true when namespace @fd is the host's own (the
 * kernel's initial one): known by its fixed inode number on Linux >= 6.18,
 * else by comparing with pid 1's. False when it cannot be told.
 */
bool ts_netns_is_host(int fd);

/*
 * ts_netns_owner - who may change namespace @fd: the user namespace that
 * owns it (ioctl_ns(2) NS_GET_USERNS), its owner's uid as this process
 * sees it into *@uid (0 for the initial one; (uid_t)-1 when the owner is
 * an ancestor of this process's user namespace, which the kernel does not
 * show), and in *@ours whether it is this process's own user namespace. 0,
 * or a negative errno (a kernel before 4.11: -ENOTTY).
 */
int ts_netns_owner(int fd, uid_t *uid, bool *ours);

/*
 * ts_netns_kill_all - send @sig to every process whose network namespace
 * is @fd (what `ip netns pids` lists), except the caller. Used before a
 * run removes its namespace, so nothing CMD started outlives the link.
 * Returns how many were signalled, or a negative errno.
 */
int ts_netns_kill_all(int fd, int sig);

/*
 * ts_netns_pids - the processes whose network namespace is @fd, except the
 * caller: up to @max of them into @pids. Returns how many there are (may
 * be more than @max), or a negative errno.
 */
int ts_netns_pids(int fd, pid_t *pids, size_t max);

#endif

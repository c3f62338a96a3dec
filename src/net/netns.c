/* SPDX-License-Identifier: MIT */
/*
 * Network namespace create/open/enter/destroy. The creating thread
 * unshares, bind-mounts its own namespace file onto /run/netns/NAME and
 * immediately returns to the namespace it came from; the mount (and the
 * fd kept in struct ts_netns) keep the new namespace alive.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/sysfile.h"
#include "net/netns.h"

/* /proc/self is the thread-group leader; setns/unshare act per thread. */
#define THREAD_NETNS "/proc/thread-self/ns/net"

void ts_netns_init(struct ts_netns *ns)
{
	memset(ns, 0, sizeof(*ns));
	ns->fd = -1;
}

static int check_name(const char *name, struct ts_err *err)
{
	size_t len = strlen(name);

	if (len == 0 || len >= TS_NETNS_NAME_MAX || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..")) {
		ts_err_set(err, "invalid namespace name '%s': use 1-%d characters without '/'",
			   name, TS_NETNS_NAME_MAX - 1);
		return -EINVAL;
	}
	return 0;
}

/*
 * Same arrangement as `ip netns add`: /run/netns is a mount point with
 * shared propagation, so a namespace mounted (or unmounted) later shows
 * up (or goes away) in mount namespaces that were copied from this one.
 */
static int prepare_dir(struct ts_err *err)
{
	int e;

	if (mkdir(TS_NETNS_DIR, 0755) < 0 && errno != EEXIST) {
		e = errno;
		ts_err_set(err, "cannot create %s: %s (needs root)", TS_NETNS_DIR, strerror(e));
		return -e;
	}
	if (mount("", TS_NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) == 0)
		return 0;
	if (errno != EINVAL) {
		e = errno;
		ts_err_set(err, "cannot make %s a shared mount: %s (needs root/CAP_SYS_ADMIN)",
			   TS_NETNS_DIR, strerror(e));
		return -e;
	}
	/* EINVAL: not a mount point yet; bind it onto itself first. */
	if (mount(TS_NETNS_DIR, TS_NETNS_DIR, "none", MS_BIND | MS_REC, NULL) < 0 ||
	    mount("", TS_NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) < 0) {
		e = errno;
		ts_err_set(err, "cannot bind-mount %s onto itself: %s", TS_NETNS_DIR, strerror(e));
		return -e;
	}
	return 0;
}

int ts_netns_current(struct ts_err *err)
{
	int fd = open(THREAD_NETNS, O_RDONLY | O_CLOEXEC), e;

	if (fd < 0) {
		e = errno;
		ts_err_set(err, "cannot open %s: %s (is /proc mounted?)", THREAD_NETNS,
			   strerror(e));
		return -e;
	}
	return fd;
}

int ts_netns_enter(int fd, struct ts_err *err)
{
	int e;

	if (setns(fd, CLONE_NEWNET) < 0) {
		e = errno;
		ts_err_set(err, "setns(CLONE_NEWNET) failed: %s (needs root/CAP_SYS_ADMIN)",
			   strerror(e));
		return -e;
	}
	return 0;
}

int ts_netns_unpin(const char *path)
{
	/* MNT_DETACH: a process still inside keeps the namespace, not the path. */
	if (umount2(path, MNT_DETACH) < 0 && errno != EINVAL)
		return -errno;
	if (unlink(path) < 0)
		return -errno;
	return 0;
}

int ts_netns_create(struct ts_netns *ns, const char *name, struct ts_err *err)
{
	int ret, self = -1, fd = -1, file;
	int made = 0, mounted = 0;

	ts_netns_init(ns);
	ret = check_name(name, err);
	if (ret < 0)
		goto out;
	ret = prepare_dir(err);
	if (ret < 0)
		goto out;
	snprintf(ns->path, sizeof(ns->path), "%s/%s", TS_NETNS_DIR, name);
	file = open(ns->path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (file < 0) {
		ret = -errno;
		ts_err_set(err, "cannot create %s: %s", ns->path, strerror(errno));
		goto out;
	}
	close(file);
	made = 1;
	self = ts_netns_current(err);
	if (self < 0) {
		ret = self;
		goto out;
	}
	if (unshare(CLONE_NEWNET) < 0) {
		ret = -errno;
		ts_err_set(err, "unshare(CLONE_NEWNET) failed: %s (needs root/CAP_SYS_ADMIN)",
			   strerror(errno));
		goto out;
	}
	ret = 0;
	if (mount(THREAD_NETNS, ns->path, "none", MS_BIND, NULL) < 0) {
		ret = -errno;
		ts_err_set(err, "cannot bind-mount the new namespace on %s: %s", ns->path,
			   strerror(errno));
	} else {
		mounted = 1;
	}
	if (setns(self, CLONE_NEWNET) < 0) {
		ret = -ENOTRECOVERABLE;
		ts_err_set(err, "cannot return to the original network namespace: %s",
			   strerror(errno));
		goto out;
	}
	if (ret < 0)
		goto out;
	fd = open(ns->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		ts_err_set(err, "cannot open %s: %s", ns->path, strerror(errno));
		goto out;
	}
	ns->fd = fd;
	ns->owned = true;
	snprintf(ns->name, sizeof(ns->name), "%s", name);
out:
	if (ret < 0 && made) {
		if (mounted)
			umount2(ns->path, MNT_DETACH);
		unlink(ns->path);
	}
	if (ret < 0)
		ts_netns_init(ns);
	if (self >= 0)
		close(self);
	return ret;
}

int ts_netns_create_anon(struct ts_netns *ns, const char *name, struct ts_err *err)
{
	int ret, self;

	ts_netns_init(ns);
	ret = check_name(name, err);
	if (ret < 0)
		return ret;
	self = ts_netns_current(err);
	if (self < 0)
		return self;
	if (unshare(CLONE_NEWNET) < 0) {
		ret = -errno;
		ts_err_set(err, "unshare(CLONE_NEWNET) failed: %s", strerror(errno));
		goto out;
	}
	/* Opened before returning: this fd is now all that keeps the namespace. */
	ret = ts_netns_current(err);
	if (setns(self, CLONE_NEWNET) < 0) {
		if (ret >= 0)
			close(ret);
		ret = -ENOTRECOVERABLE;
		ts_err_set(err, "cannot return to the original network namespace: %s",
			   strerror(errno));
		goto out;
	}
	if (ret < 0)
		goto out;
	ns->fd = ret;
	ns->owned = true;
	snprintf(ns->name, sizeof(ns->name), "%s", name);
	ret = 0;
out:
	close(self);
	return ret;
}

int ts_netns_open(struct ts_netns *ns, const char *name, struct ts_err *err)
{
	int ret;

	if (!strncmp(name, TS_NETNS_PID_PREFIX, strlen(TS_NETNS_PID_PREFIX)))
		return ts_netns_open_pid(ns, name, err);
	ts_netns_init(ns);
	ret = check_name(name, err);
	if (ret < 0)
		return ret;
	snprintf(ns->path, sizeof(ns->path), "%s/%s", TS_NETNS_DIR, name);
	ns->fd = open(ns->path, O_RDONLY | O_CLOEXEC);
	if (ns->fd < 0) {
		ret = -errno;
		ts_err_set(err, "cannot open network namespace %s: %s (list them with `ip netns`)",
			   ns->path, strerror(errno));
		ts_netns_init(ns);
		return ret;
	}
	snprintf(ns->name, sizeof(ns->name), "%s", name);
	return 0;
}

int ts_netns_destroy(struct ts_netns *ns, struct ts_err *err)
{
	int ret = 0;

	if (ns->fd >= 0)
		close(ns->fd);
	if (ns->owned && ns->path[0]) {
		ret = ts_netns_unpin(ns->path);
		if (ret == -ENOENT)
			ret = 0;
		if (ret < 0)
			ts_err_set(err, "cannot remove %s: %s (try `ip netns delete %s`)", ns->path,
				   strerror(-ret), ns->name);
	}
	ts_netns_init(ns);
	return ret;
}

int ts_netns_run(int fd, int (*fn)(void *arg), void *arg, struct ts_err *err)
{
	int self, ret;

	self = ts_netns_current(err);
	if (self < 0)
		return self;
	ret = ts_netns_enter(fd, err);
	if (ret < 0)
		goto out;
	ret = fn(arg);
	if (setns(self, CLONE_NEWNET) < 0) {
		ts_err_set(err, "cannot return to the original network namespace: %s",
			   strerror(errno));
		ret = -ENOTRECOVERABLE;
	}
out:
	close(self);
	return ret;
}

int ts_sysctl_write(const char *key, const char *value, struct ts_err *err)
{
	/* The one writer of kernel settings: never a link, never a file it creates. */
	return ts_sysfile_write("/proc/sys", key, value, err);
}

/*
 * The initial network namespace's inode number, fixed since Linux 6.18
 * (NET_NS_INIT_INO, uapi/linux/nsfs.h). Earlier kernels number every
 * namespace from 0xF0000000 up, so no other namespace can have it.
 */
#define NETNS_INIT_INO 0xEFFFFFF9u

bool ts_netns_is_host(int fd)
{
	struct stat a, b;

	if (fd < 0 || fstat(fd, &a) < 0)
		return false;
	if (a.st_ino == NETNS_INIT_INO)
		return true;
	/* Older kernels: compare with pid 1's (not readable in every container). */
	if (stat("/proc/1/ns/net", &b) < 0)
		return false;
	return a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

int ts_netns_owner(int fd, uid_t *uid, bool *ours)
{
	struct stat a, b;
	int us, ret = 0;

	us = ioctl(fd, NS_GET_USERNS);
	if (us < 0 && errno == EPERM) {
		/* Owned by an ancestor of this process's user namespace: not ours, owner unseen. */
		*uid = (uid_t)-1;
		*ours = false;
		return 0;
	}
	if (us < 0)
		return -errno;
	if (ioctl(us, NS_GET_OWNER_UID, uid) < 0 || fstat(us, &a) < 0 ||
	    stat("/proc/self/ns/user", &b) < 0)
		ret = -errno;
	else
		*ours = a.st_ino == b.st_ino && a.st_dev == b.st_dev;
	close(us);
	return ret;
}

/* Call @fn(pid, arg) for every process in namespace @fd but the caller; returns how many. */
static int each_pid(int fd, void (*fn)(pid_t pid, void *arg), void *arg)
{
	struct stat ns, st;
	struct dirent *de;
	char path[64];
	DIR *d;
	int n = 0;

	if (fd < 0 || fstat(fd, &ns) < 0)
		return -errno;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 1 || pid == (long)getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/ns/net", pid);
		if (stat(path, &st) < 0 || st.st_ino != ns.st_ino || st.st_dev != ns.st_dev)
			continue;
		fn((pid_t)pid, arg);
		n++;
	}
	closedir(d);
	return n;
}

struct kill_ctx {
	int sig, sent;
};

static void kill_one(pid_t pid, void *arg)
{
	struct kill_ctx *k = arg;

	if (kill(pid, k->sig) == 0)
		k->sent++;
}

int ts_netns_kill_all(int fd, int sig)
{
	struct kill_ctx k = {sig, 0};
	int ret = each_pid(fd, kill_one, &k);

	return ret < 0 ? ret : k.sent;
}

struct pids_ctx {
	pid_t *pids;
	size_t n, max;
};

static void note_pid(pid_t pid, void *arg)
{
	struct pids_ctx *p = arg;

	if (p->n < p->max)
		p->pids[p->n++] = pid;
}

int ts_netns_pids(int fd, pid_t *pids, size_t max)
{
	struct pids_ctx p = {pids, 0, max};

	return each_pid(fd, note_pid, &p);
}

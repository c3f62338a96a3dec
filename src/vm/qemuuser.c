/* SPDX-License-Identifier: MIT */
/* The user QEMU runs as (qemuuser.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "vm/qemuuser.h"

#define KVM_DEV "/dev/kvm"

int ts_vm_user_get(bool kvm, struct ts_vm_user *u, struct ts_err *err)
{
	struct ts_invoker inv;
	gid_t extra = (gid_t)-1;
	struct ts_err e;
	struct stat st;

	if (ts_invoker_get(&inv, &e) < 0) {
		ts_err_set(err, "QEMU is not started: the invoking user is unknown: %s", e.msg);
		return -EINVAL;
	}
	if (kvm && stat(KVM_DEV, &st) == 0 && (st.st_mode & 0060) == 0060)
		extra = st.st_gid;
	return ts_invoker_creds(&inv, extra, &u->creds, err);
}

/* Read and write bits of @st for @c, as the kernel picks them: owner, else group, else other. */
static bool may_rw(const struct stat *st, const struct ts_invoker_creds *c)
{
	size_t i;

	if (st->st_uid == c->uid)
		return (st->st_mode & 0600) == 0600;
	if (st->st_gid == c->gid)
		return (st->st_mode & 0060) == 0060;
	for (i = 0; i < c->ngroups; i++)
		if (st->st_gid == c->groups[i])
			return (st->st_mode & 0060) == 0060;
	return (st->st_mode & 0006) == 0006;
}

int ts_vm_user_kvm_check(const struct ts_vm_user *u, struct ts_err *why)
{
	struct stat st;
	int ret;

	if (stat(KVM_DEV, &st) < 0) {
		ret = -errno;
		ts_err_set(why, KVM_DEV ": %s", strerror(errno));
		return ret;
	}
	if (!u->creds.drop || may_rw(&st, &u->creds))
		return 0;
	ts_err_set(why,
		   KVM_DEV " (mode %04o, owner %u, group %u) cannot be opened by uid %u, the "
			   "invoking user QEMU runs as (never as root for a user): give " KVM_DEV
			   " a group of its own with read and write (udev's kvm group, mode 0660)",
		   (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)st.st_gid,
		   (unsigned)u->creds.uid);
	return -EACCES;
}

int ts_vm_user_give(const struct ts_vm_user *u, int dirfd, const char *name, const char *path,
		    struct ts_err *err)
{
	int ret;

	if (!u->creds.drop)
		return 0;
	if (fchownat(dirfd, name, u->creds.uid, u->creds.gid, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	ret = -errno;
	ts_err_set(err, "%s: cannot hand it to uid %u, whom QEMU runs as: %s", path,
		   (unsigned)u->creds.uid, strerror(errno));
	return ret;
}

/*
 * In the child, as QEMU's user: @mode on @path, and read and search on each directory on the way
 * (QEMU's 9p server opens the directory of a name it looks up for reading, not only searches
 * it). Writes the name that failed to @fd; returns the errno, or 0.
 */
static int reach(const char *path, int mode, int fd)
{
	char p[4096];
	size_t i, n = strlen(path);

	if (n >= sizeof(p))
		return ENAMETOOLONG;
	memcpy(p, path, n + 1);
	for (i = 1; i <= n; i++) {
		int m = i == n ? mode : R_OK | X_OK;

		if (i < n && p[i] != '/')
			continue;
		p[i] = '\0';
		if (access(p, m) < 0) {
			int e = errno;

			if (write(fd, p, i) < 0)
				e = EIO;
			return e;
		}
		p[i] = i < n ? '/' : '\0';
	}
	return 0;
}

int ts_vm_user_access(const struct ts_vm_user *u, const char *what, const char *path, int mode,
		      struct ts_err *err)
{
	char failed[4096] = "";
	int st = 0, ret, pfd[2];
	ssize_t n;
	pid_t pid;

	if (!u->creds.drop)
		return 0;
	/* Not io/proc.c: no program runs; the child drops to the user and tries the access. */
	if (pipe2(pfd, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		ret = -errno;
		ts_err_set(err, "pipe or fork: %s", strerror(errno));
		return ret;
	}
	if (pid == 0) {
		/* System calls only: this process may have threads (exp run's jobs). */
		close(pfd[0]);
		_exit(ts_invoker_become(&u->creds) < 0 ? EPERM : reach(path, mode, pfd[1]) & 0xff);
	}
	close(pfd[1]);
	n = read(pfd[0], failed, sizeof(failed) - 1);
	failed[n > 0 ? n : 0] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	ret = WIFEXITED(st) ? -WEXITSTATUS(st) : -EIO;
	ts_err_set(err,
		   "%s %s: uid %u, the invoking user QEMU runs as (never as root for a user), "
		   "cannot %s %s (%s)",
		   what, path, (unsigned)u->creds.uid,
		   strcmp(failed, path) ? "read the directory"
		   : mode & W_OK	? "write in"
					: "read",
		   failed[0] ? failed : path, strerror(-ret));
	return ret;
}

int ts_vm_share_xattrs(const char *what, const char *path, struct ts_err *err)
{
	/* Absent on a file system with user attributes (ENODATA); refused on one without. */
	if (getxattr(path, "user.tasshape.probe", NULL, 0) >= 0 || errno != EOPNOTSUPP)
		return 0;
	ts_err_set(err,
		   "%s %s is on a file system without user extended attributes, in which the "
		   "guest's owners and modes are kept (QEMU's security_model=mapped-xattr, so "
		   "that nothing the guest makes is set-id on the host): use a directory on "
		   "ext4, xfs, btrfs or tmpfs (Linux 6.6 or later)",
		   what, path);
	return -EOPNOTSUPP;
}

static int become(void *arg)
{
	return ts_invoker_become(arg);
}

void ts_vm_user_apply(const struct ts_vm_user *u, struct ts_proc *p)
{
	p->child_fn = become;
	p->child_arg = (void *)&u->creds;
}

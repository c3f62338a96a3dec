/* SPDX-License-Identifier: MIT */
/*
 * A network namespace named by a process in it ("pid:PID", netns.h): for
 * namespaces that are pinned nowhere, as a user's are (`unshare -Urn`
 * holds its namespace only by the processes in it), so `attach` can name
 * them without /run/netns, which only root can write.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "net/netns.h"

/* The decimal pid after "pid:", above 0, nothing else; -EINVAL with @err otherwise. */
static int parse_pid(const char *spec, pid_t *pid, struct ts_err *err)
{
	const char *s = spec + strlen(TS_NETNS_PID_PREFIX);
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || errno || v <= 0 || v > INT_MAX) {
		ts_err_set(err, "invalid namespace '%s': expected %sPID, a process id above 0",
			   spec, TS_NETNS_PID_PREFIX);
		return -EINVAL;
	}
	*pid = (pid_t)v;
	return 0;
}

/* 1 when the process behind @pidfd has ended (a pidfd polls readable then), else 0. */
static int ended(int pidfd)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};

	return poll(&p, 1, 0) > 0;
}

/*
 * /proc/PID/ns/net is the kernel's own link to the process's namespace,
 * not a file anyone could plant. A pidfd taken first tells whether PID
 * still names the same process after the open: if it ended in between,
 * the pid may have been reused and the namespace opened is not its.
 */
int ts_netns_open_pid(struct ts_netns *ns, const char *spec, struct ts_err *err)
{
	char path[64];
	pid_t pid;
	int pidfd, fd = -1, ret;

	ts_netns_init(ns);
	ret = parse_pid(spec, &pid, err);
	if (ret < 0)
		return ret;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		ret = -errno;
		ts_err_set(err, "namespace %s: no process %ld: %s", spec, (long)pid,
			   strerror(errno));
		return ret;
	}
	snprintf(path, sizeof(path), "/proc/%ld/ns/net", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		ts_err_set(err, "cannot open %s (namespace %s): %s%s", path, spec, strerror(errno),
			   errno == EACCES || errno == EPERM ? " (a process of another user?)"
							     : "");
		goto out;
	}
	if (ended(pidfd) || ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET) {
		ret = -ESRCH;
		ts_err_set(err, "namespace %s: process %ld ended while its namespace was opened",
			   spec, (long)pid);
		goto out;
	}
	ns->fd = fd;
	fd = -1;
	snprintf(ns->name, sizeof(ns->name), "%s", spec);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	close(pidfd);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/* The wrapper's namespace's ip_forward: raised for runs, restored after the last (fwd.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/fwd.h"
#include "net/netns.h"
#include "net/rtnl.h"
#include "net/topo.h"

#define FWD_KEY "/proc/sys/net/ipv4/ip_forward"

/* The marker of the calling thread's network namespace, by its inode. */
static int marker_path(char *buf, size_t len)
{
	struct stat st;

	if (stat("/proc/thread-self/ns/net", &st) < 0)
		return -errno;
	snprintf(buf, len, "%s/fwd-%llu", TS_FWD_DIR, (unsigned long long)st.st_ino);
	return 0;
}

/* The lock shared by every instance; its fd (close to unlock) or -errno. */
static int lock_fwd(void)
{
	int fd;

	if (mkdir(TS_FWD_DIR, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = open(TS_FWD_DIR "/fwd.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			int ret = -errno;

			close(fd);
			return ret;
		}
	}
	return fd;
}

/* The first byte of @path ('0', '1', ...) into *@c; -errno. */
static int read_char(const char *path, char *c)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, c, 1);
	if (n != 1)
		ret = n < 0 ? -errno : -EINVAL;
	close(fd);
	return ret;
}

int ts_fwd_raise(struct ts_err *err)
{
	char path[128], c;
	int lock, fd, ret;

	ret = marker_path(path, sizeof(path));
	if (ret < 0) {
		ts_err_set(err, "ip_forward: the namespace's inode: %s", strerror(-ret));
		return ret;
	}
	lock = lock_fwd();
	if (lock < 0) {
		ts_err_set(err, "ip_forward: %s/fwd.lock: %s", TS_FWD_DIR, strerror(-lock));
		return lock;
	}
	ret = read_char(FWD_KEY, &c);
	if (ret == 0 && c == '0') {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			if (write(fd, "0\n", 2) != 2)
				ret = -EIO;
			close(fd);
		} else if (errno != EEXIST) {
			ret = -errno;
		}
		if (ret < 0)
			ts_err_set(err, "ip_forward: %s: %s", path, strerror(-ret));
	} else if (ret < 0) {
		ts_err_set(err, "ip_forward: %s: %s", FWD_KEY, strerror(-ret));
	}
	if (ret == 0)
		ret = ts_sysctl_write("net/ipv4/ip_forward", "1", err);
	close(lock);
	return ret;
}

static int any_live_outer(void *arg, int ifindex, const char *name, int peer)
{
	bool *live = arg;
	size_t len = strlen(name);
	pid_t pid;

	(void)ifindex;
	(void)peer;
	if (len && name[len - 1] == 'o' && ts_topo_link_pid(name, &pid) == 0 &&
	    (kill(pid, 0) == 0 || errno == EPERM))
		*live = true;
	return 0;
}

int ts_fwd_restore(void)
{
	struct ts_rtnl r = {0};
	struct ts_err e;
	char path[128], c;
	bool live = false;
	int lock, ret;

	ret = marker_path(path, sizeof(path));
	if (ret < 0)
		return ret;
	if (access(path, F_OK) < 0)
		return 0; /* nothing recorded: forwarding was on before any run */
	lock = lock_fwd();
	if (lock < 0)
		return lock;
	ret = read_char(path, &c);
	if (ret == -ENOENT) {
		ret = 0; /* another instance restored it meanwhile */
		goto out;
	}
	if (ret == 0 && c != '0' && c != '1')
		ret = -EINVAL;
	if (ret == 0)
		ret = ts_rtnl_open(&r, -1, &e);
	if (ret < 0)
		goto out;
	ret = ts_rtnl_link_list(&r, any_live_outer, &live, &e);
	ts_rtnl_close(&r);
	if (ret < 0 || live)
		goto out;
	ret = ts_sysctl_write("net/ipv4/ip_forward", c == '0' ? "0" : "1", &e);
	if (ret == 0)
		ret = unlink(path) < 0 ? -errno : 1;
out:
	close(lock);
	return ret;
}

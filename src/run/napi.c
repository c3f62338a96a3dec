/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/napi.h"

#define TS_PF_KTHREAD 0x00200000ul /* include/linux/sched.h: I am a kernel thread */
#define COMM_MAX      15	   /* TASK_COMM_LEN - 1 */

unsigned int ts_napi_dirs(bool gso, bool wifi6, bool down_hook)
{
	unsigned int dirs = 0;

	if ((gso || wifi6) && down_hook)
		dirs |= TS_NAPI_DOWN;
	if (wifi6)
		dirs |= TS_NAPI_UP;
	return dirs;
}

const char *ts_napi_label(unsigned int dirs)
{
	static const char *const label[] = {"", "up", "down", "both"};

	return label[dirs & (TS_NAPI_UP | TS_NAPI_DOWN)];
}

int ts_napi_thread_of(const char *comm, unsigned long flags, const char *dev)
{
	char want[64];
	size_t n;

	if (!(flags & TS_PF_KTHREAD))
		return 0;
	snprintf(want, sizeof(want), "napi/%s-", dev);
	n = strlen(want) < COMM_MAX ? strlen(want) : COMM_MAX;
	return strlen(comm) >= n && !strncmp(comm, want, n);
}

/* Up to @len - 1 bytes of /proc/@pid/@name, NUL-terminated; 0 or a negative errno. */
static int proc_read(long pid, const char *name, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

/* The flags field of /proc/@pid/stat (the ninth, the seventh after the command's ')'). */
static int proc_flags(long pid, unsigned long *flags)
{
	char buf[512], *p, *end;
	int i, ret = proc_read(pid, "stat", buf, sizeof(buf));

	if (ret < 0)
		return ret;
	p = strrchr(buf, ')');
	for (i = 0; p && i < 7; i++)
		p = strchr(p + 1, ' ');
	if (!p)
		return -EINVAL;
	errno = 0;
	*flags = strtoul(p + 1, &end, 10);
	return errno || end == p + 1 ? -EINVAL : 0;
}

/* Whether task @pid is the NAPI thread of one of @devs. */
static int napi_of_any(long pid, const char *const *devs, size_t n)
{
	char comm[32];
	unsigned long flags;
	size_t i;

	if (proc_read(pid, "comm", comm, sizeof(comm)) < 0 || proc_flags(pid, &flags) < 0)
		return 0;
	comm[strcspn(comm, "\n")] = 0;
	for (i = 0; i < n; i++)
		if (ts_napi_thread_of(comm, flags, devs[i]))
			return 1;
	return 0;
}

int ts_napi_rt(const char *const *devs, size_t n, int prio, struct ts_err *why)
{
	struct sched_param sp = {.sched_priority = prio};
	struct dirent *de;
	int count = 0, ret = 0;
	DIR *d;

	d = opendir("/proc");
	if (!d) {
		ret = -errno;
		ts_err_set(why, "/proc: %s", strerror(errno));
		return ret;
	}
	while ((de = readdir(d)) && ret == 0) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 2 || !napi_of_any(pid, devs, n))
			continue;
		if (sched_setscheduler((pid_t)pid, SCHED_FIFO, &sp) < 0) {
			ret = -errno;
			ts_err_set(why, "SCHED_FIFO %d for NAPI thread %ld: %s", prio, pid,
				   strerror(errno));
		} else {
			count++;
		}
	}
	closedir(d);
	return ret < 0 ? ret : count;
}

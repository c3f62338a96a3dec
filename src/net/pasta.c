/* SPDX-License-Identifier: MIT */
/* pasta for a rootless run's way out, and the keeper that stops it (pasta.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "io/infile.h"
#include "io/proc.h"
#include "io/rmtree.h"
#include "net/pasta.h"

/* Options: set up the interface, be quiet, forward no port either way. */
static const char *const pasta_opts[] = {"--config-net", "--quiet", "-t",   "none", "-u",
					 "none",	 "-T",	    "none", "-U",   "none"};

#define PASTA_ARGC (sizeof(pasta_opts) / sizeof(pasta_opts[0]) + 6)

/* The pid pasta wrote to @path: decimal, one line. Returns it or a negative errno. */
static pid_t read_pid(const char *path, struct ts_err *err)
{
	char *text = NULL, *end;
	size_t len;
	long v;
	int ret;

	ret = ts_in_read(path, 64, &text, &len, err);
	if (ret < 0)
		return ret;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || (*end && *end != '\n') || v <= 1 || v > 4194304) {
		ts_err_set(err, "%s: expected pasta's process id, got '%.20s'", path, text);
		v = -EINVAL;
	}
	free(text);
	return (pid_t)v;
}

/* Run pasta on @target's namespaces, writing its daemon's pid to @pidfile; its pid or -errno. */
static pid_t run_pasta(const char *prog, pid_t target, const char *pidfile, struct ts_err *err)
{
	char *argv[PASTA_ARGC + 1], num[16];
	struct ts_proc p;
	size_t i, k = 0;
	int st;

	argv[k++] = (char *)prog;
	for (i = 0; i < sizeof(pasta_opts) / sizeof(pasta_opts[0]); i++)
		argv[k++] = (char *)pasta_opts[i];
	/* A resolver on the host's loopback is reached at this address (ts_pasta_resolv_mount). */
	argv[k++] = "--dns-forward";
	argv[k++] = TS_PASTA_DNS;
	argv[k++] = "--pid";
	argv[k++] = (char *)pidfile;
	snprintf(num, sizeof(num), "%ld", (long)target);
	argv[k++] = num;
	argv[k] = NULL;
	ts_proc_init(&p, argv);
	p.file = prog;
	p.err.how = TS_PROC_INHERIT; /* its own message says what failed */
	p.normal_sched = true;
	st = ts_proc_run(&p, 10000, err);
	ts_proc_release(&p);
	if (st > 0)
		ts_err_set(err, "pasta exited with status %d", st);
	if (st != 0)
		return st < 0 ? st : -EIO;
	return read_pid(pidfile, err);
}

/* The keeper: wait for the run's end on @life, then stop pasta (@pidfd). Never returns. */
static void keeper(int life, int pidfd)
{
	ssize_t n;
	char c;
	int fd;

	/* A terminal's signals are the run's to handle; the keeper only waits. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	/* Nor does it hold the run's output open: a reader of it sees its end with the run's. */
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	do
		n = read(life, &c, 1);
	while (n > 0 || (n < 0 && errno == EINTR));
	pidfd_send_signal(pidfd, SIGTERM, NULL, 0);
	_exit(0);
}

int ts_pasta_start(const char *prog, pid_t target, int life, struct ts_err *err)
{
	char dir[] = "/tmp/tasshape-pasta.XXXXXX", pidfile[sizeof(dir) + 4];
	int pidfd = -1, ret;
	pid_t pid;

	if (!mkdtemp(dir)) {
		ts_err_set(err, "pasta: cannot make a directory for its pid file: %s",
			   strerror(errno));
		return -errno;
	}
	snprintf(pidfile, sizeof(pidfile), "%s/pid", dir);
	pid = run_pasta(prog, target, pidfile, err);
	ts_rmtree(dir, NULL);
	if (pid < 0)
		return pid;
	pidfd = pidfd_open(pid, 0);
	if (pidfd < 0) {
		ret = -errno;
		ts_err_set(err, "pasta (pid %ld) is gone already: %s", (long)pid, strerror(errno));
		return ret;
	}
	/* Not io/proc.c: the child runs no program, it is this process waiting on @life. */
	ret = fork();
	if (ret == 0)
		keeper(life, pidfd);
	if (ret < 0) {
		ret = -errno;
		ts_err_set(err, "fork: %s", strerror(errno));
		pidfd_send_signal(pidfd, SIGTERM, NULL, 0);
	} else {
		ret = 0;
	}
	close(pidfd);
	return ret;
}

/* @text (@len bytes) as the file @dir/resolv.conf, new. Returns 0 or -errno with @err. */
static int write_resolv(const char *dir, const char *text, size_t len, char *path, size_t plen,
			struct ts_err *err)
{
	ssize_t n;
	int fd, ret = 0;

	snprintf(path, plen, "%s/resolv.conf", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		ts_err_set(err, "%s: %s", path, strerror(errno));
		return ret;
	}
	n = write(fd, text, len);
	if (n < 0 || (size_t)n != len) {
		ret = n < 0 ? -errno : -EIO;
		ts_err_set(err, "%s: %s", path, strerror(-ret));
	}
	close(fd);
	return ret;
}

int ts_pasta_resolv_mount(struct ts_err *err)
{
	char dir[] = "/tmp/tasshape-resolv.XXXXXX", path[sizeof(dir) + 16], out[16384];
	char *text = NULL;
	size_t len = 0;
	int n, ret;

	ret = ts_in_read("/etc/resolv.conf", sizeof(out) / 2, &text, &len, err);
	if (ret == -ENOENT)
		return 0; /* no resolver configured: nothing to map */
	if (ret < 0)
		return ret;
	n = ts_pasta_resolv(text, len, TS_PASTA_DNS, out, sizeof(out));
	free(text);
	if (n <= 0) {
		if (n < 0)
			ts_err_set(err, "/etc/resolv.conf: more than %zu bytes once rewritten",
				   sizeof(out) - 1);
		return n;
	}
	if (!mkdtemp(dir)) {
		ts_err_set(err, "resolv.conf for pasta: %s", strerror(errno));
		return -errno;
	}
	ret = write_resolv(dir, out, (size_t)n, path, sizeof(path), err);
	/* The mount follows a link (/etc/resolv.conf -> ../run/...): the file it leads to. */
	if (ret == 0 && mount(path, "/etc/resolv.conf", NULL, MS_BIND, NULL) < 0) {
		ret = -errno;
		ts_err_set(err, "cannot mount a resolv.conf for pasta over /etc/resolv.conf: %s",
			   strerror(errno));
	}
	ts_rmtree(dir, NULL); /* the mount keeps the file */
	return ret < 0 ? ret : 1;
}

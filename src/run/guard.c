/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/netns.h"
#include "net/topo.h"
#include "run/guard.h"

void ts_guard_init(struct ts_guard *g)
{
	g->pid = 0;
	g->fd = -1;
}

static int sweep(void *arg)
{
	const struct ts_cleanup_opts *o = arg;

	return ts_topo_cleanup(o, NULL, NULL);
}

/* The owner is gone: remove what it made, in its namespace and the ones it put rules in. */
static void guard_cleanup(pid_t owner, char netns[][TS_NETNS_NAME_MAX], int n)
{
	struct ts_cleanup_opts o = {.force = true, .only_pid = owner};
	struct ts_netns ns;
	int i;

	/* force: a killed owner stays a zombie until its parent reaps it, and looks alive. */
	ts_topo_cleanup(&o, NULL, NULL);
	for (i = 0; i < n; i++) {
		ts_netns_init(&ns);
		if (ts_netns_open(&ns, netns[i], NULL) < 0)
			continue;
		ts_netns_run(ns.fd, sweep, &o, NULL);
		ts_netns_destroy(&ns, NULL);
	}
}

static void guard_main(int rfd, pid_t owner, char netns[][TS_NETNS_NAME_MAX], int n)
{
	static const int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP};
	sigset_t none;
	ssize_t r, w;
	char c;
	int fd;
	size_t i;

	for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_NAME, "tasshape-guard", 0, 0, 0);
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		w = write(fd, "-1000", 5); /* refused without CAP_SYS_RESOURCE: still tiny */
		(void)w;
		close(fd);
	}
	/*
	 * Nothing of the owner's stays open here but the pipe: not even its
	 * stdout and stderr, which a caller reading them to the end (`$(tasshape
	 * ...)`) would otherwise wait on until the guard exits.
	 */
	if (rfd != 3) {
		dup2(rfd, 3);
		close(rfd);
	}
	close_range(4, ~0U, 0);
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	do
		r = read(3, &c, 1);
	while (r < 0 && errno == EINTR);
	if (r == 1)
		_exit(0);
	guard_cleanup(owner, netns, n);
	_exit(0);
}

int ts_guard_start(struct ts_guard *g, const char *const *netns, struct ts_err *err)
{
	char names[TS_GUARD_NETNS_MAX][TS_NETNS_NAME_MAX];
	pid_t owner = getpid(), pid;
	int pfd[2], n = 0;

	for (; netns && netns[n] && n < TS_GUARD_NETNS_MAX; n++)
		snprintf(names[n], sizeof(names[n]), "%s", netns[n]);
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		ts_err_set(err, "guard: pipe: %s", strerror(errno));
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		ts_err_set(err, "guard: fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid == 0) {
		close(pfd[1]);
		guard_main(pfd[0], owner, names, n);
	}
	close(pfd[0]);
	g->pid = pid;
	g->fd = pfd[1];
	return 0;
}

void ts_guard_stop(struct ts_guard *g)
{
	ssize_t w;

	if (g->fd >= 0) {
		w = write(g->fd, "q", 1); /* fails only if the guard is gone: nothing to do then */
		(void)w;
		close(g->fd);
		g->fd = -1;
	}
	if (g->pid > 0) {
		while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
			;
		g->pid = 0;
	}
}

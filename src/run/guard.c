/* SPDX-License-Identifier: MIT */
#include <dirent.h>
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

/* Owners whose objects go with the owner's: processes in its namespaces, transitively. */
#define GUARD_OWNERS_MAX 256

static void add_owner(pid_t *owners, size_t *n, pid_t pid)
{
	size_t i;

	for (i = 0; i < *n && owners[i] != pid; i++)
		;
	if (i == *n && *n < GUARD_OWNERS_MAX)
		owners[(*n)++] = pid;
}

/* Add the processes running in the namespaces (tas-@pid-*) of owner @pid. */
static void add_inside(pid_t *owners, size_t *n, pid_t pid)
{
	char path[sizeof(TS_NETNS_DIR) + 256];
	pid_t inside[GUARD_OWNERS_MAX], p;
	struct dirent *de;
	int fd, k, i;
	DIR *d;

	d = opendir(TS_NETNS_DIR);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		if (ts_topo_netns_pid(de->d_name, &p) < 0 || p != pid)
			continue;
		snprintf(path, sizeof(path), "%s/%s", TS_NETNS_DIR, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		k = ts_netns_pids(fd, inside, GUARD_OWNERS_MAX);
		close(fd);
		for (i = 0; i < k && i < GUARD_OWNERS_MAX; i++)
			add_owner(owners, n, inside[i]);
	}
	closedir(d);
}

/*
 * The owner is gone: remove what it made, in its namespace and the ones it
 * put rules in. A process running in one of its namespaces may own a run
 * of its own (exp's hub holds the wrappers of its runs; a CMD may be a
 * nested wrapper) whose guard is killed with it below: its objects go
 * too, so the list of owners is taken (transitively) before anything is
 * killed.
 */
static void guard_cleanup(pid_t owner, struct ts_netns *ns, int n)
{
	pid_t owners[GUARD_OWNERS_MAX];
	size_t nowners = 1, i;
	struct ts_cleanup_opts o = {.force = true, .only_pid = owner};
	int k;

	owners[0] = owner;
	for (i = 0; i < nowners; i++)
		add_inside(owners, &nowners, owners[i]);
	o.pids = owners + 1;
	o.npids = nowners - 1;
	/* force: a killed owner stays a zombie until its parent reaps it, and looks alive. */
	ts_topo_cleanup(&o, NULL, NULL);
	for (k = 0; k < n; k++)
		if (ns[k].fd >= 0)
			ts_netns_run(ns[k].fd, sweep, &o, NULL);
}

/*
 * The namespaces the owner puts rules in, opened now, while they are
 * surely the ones it named: a namespace named by a process (pid:PID,
 * attach without root) could name another after that process ends. They
 * are the user's, alive anyway while the run holds them.
 */
static void open_watched(char netns[][TS_NETNS_NAME_MAX], struct ts_netns *ns, int n)
{
	int k;

	for (k = 0; k < n; k++)
		if (ts_netns_open(&ns[k], netns[k], NULL) < 0)
			ts_netns_init(&ns[k]);
}

static void guard_main(int rfd, pid_t owner, char netns[][TS_NETNS_NAME_MAX], int n)
{
	static const int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP};
	struct ts_netns ns[TS_GUARD_NETNS_MAX];
	sigset_t none;
	ssize_t r, w;
	char c;
	int fd;
	size_t i;

	/* Out of the run's process group (ts_guard_start sets it too, whichever comes first). */
	setpgid(0, 0);
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
	open_watched(netns, ns, n);
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
	guard_cleanup(owner, ns, n);
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
	/* Not io/proc.c: the guard is code of this process, which must outlive a SIGKILL of it. */
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
	/*
	 * A process group of its own, set here as well as in the guard so that
	 * it holds before the run makes anything: a SIGKILL to the run's whole
	 * group (a job killed by its shell, a supervisor that kills the group)
	 * must not take the guard with it, or the run's namespaces stay behind.
	 */
	setpgid(pid, pid);
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

/* SPDX-License-Identifier: MIT */
/*
 * A rootless run's PID namespace (net/userns.h, docs/rootless.md). Root's
 * runs have a guard that kills every process in the run's namespaces when
 * tasshape dies without cleaning up; a rootless run has no guard, so the
 * kernel does it: the run continues as the init of a new PID namespace,
 * and when a namespace's init dies the kernel kills every process in it
 * (pid_namespaces(7)), CMD and whatever CMD left in the background
 * included. The process the user started stays outside, as the init's
 * parent: it passes on the signals sent to it and ends as the init ends,
 * and the init gets SIGKILL when it dies (its parent-death signal).
 *
 * /proc is mounted again in the run's mount namespace, for the new PID
 * namespace: tasshape and everything it starts see their own pids there,
 * as they see them from getpid(), so /proc/PID and kill(PID) name the same
 * process. A host whose /proc cannot be mounted again by a user (a
 * container that masks parts of it) is tried first in a throwaway child:
 * there the run goes on without a PID namespace, as before, and says why.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/userns.h"

#define PROC_FLAGS (MS_NOSUID | MS_NODEV | MS_NOEXEC)

/* The run's init, for the outer process's signal handler. */
static volatile pid_t init_pid;

/* The signals the outer process passes on, which would end tasshape. */
static const int passed[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

/* Wait for @pid; its wait status, or -errno. */
static int wait_for(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return st;
}

/*
 * Can a PID namespace be made here, and /proc mounted for it? Tried in a
 * child with a mount namespace of its own (its mount goes with it) whose
 * own child mounts it. 0, or the errno of what was refused.
 */
static int pidns_try(void)
{
	pid_t pid, in;
	int st;

	/* Not io/proc.c: no program runs, the children only unshare and mount. */
	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		if (unshare(CLONE_NEWNS | CLONE_NEWPID) < 0)
			_exit(errno & 0xff);
		in = fork();
		if (in < 0)
			_exit(errno & 0xff);
		if (in == 0)
			_exit(mount("proc", "/proc", "proc", PROC_FLAGS, NULL) < 0 ? errno & 0xff
										   : 0);
		st = wait_for(in);
		_exit(st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : EIO);
	}
	st = wait_for(pid);
	if (st < 0)
		return -st;
	return WIFEXITED(st) ? WEXITSTATUS(st) : EIO;
}

/*
 * A signal sent to the outer process by kill(1) or a supervisor: passed on
 * to the run. One from the terminal (SI_KERNEL: Ctrl-C, Ctrl-\) reached the
 * run already, which is in the same process group; passing it on would make
 * it count twice.
 */
static void pass_on(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si->si_code != SI_KERNEL && init_pid > 0)
		kill(init_pid, sig);
}

/* The outer process: pass signals on, then end as the run ended. Never returns. */
static void outer_main(pid_t init)
{
	struct sigaction sa;
	sigset_t none;
	size_t i;
	int st;

	init_pid = init;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = pass_on;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(passed) / sizeof(passed[0]); i++)
		sigaction(passed[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	st = wait_for(init);
	if (st < 0)
		_exit(125);
	if (WIFEXITED(st))
		_exit(WEXITSTATUS(st));
	/* Killed: by the same signal, as the shell would report the run itself. */
	signal(WTERMSIG(st), SIG_DFL);
	raise(WTERMSIG(st));
	_exit(128 + WTERMSIG(st));
}

/*
 * The run's init ignores a signal it has no handler for (pid_namespaces(7)),
 * where tasshape would have died of it, until the run blocks the signals it
 * reads (before, it is still reading its trace). So it gets this handler,
 * which ends it as the signal would have (with 128 + the signal: a process
 * 1 cannot be killed by its own raise). A child forked from it that did
 * not exec inherits the handler: there the signal does what it did before.
 */
static void init_signal(int sig)
{
	if (getpid() != 1) {
		signal(sig, SIG_DFL);
		raise(sig); /* delivered when the handler returns */
		return;
	}
	_exit(128 + sig);
}

/*
 * The run's init, just forked: die with the outer process (@alive's other
 * end closes when it does, however it ends), then mount /proc for the new
 * namespace. 0, or -errno.
 */
static int init_begin(int alive)
{
	struct pollfd pf = {alive, POLLIN, 0};
	size_t i;
	int ret = 0;

	for (i = 0; i < sizeof(passed) / sizeof(passed[0]); i++)
		signal(passed[i], init_signal);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		ret = -errno;
	/* Gone between the fork and the prctl: the signal would never come. */
	else if (poll(&pf, 1, 0) != 0)
		ret = -ESRCH;
	else if (mount("proc", "/proc", "proc", PROC_FLAGS, NULL) < 0)
		ret = -errno;
	close(alive);
	return ret;
}

int ts_userns_pidns(struct ts_userns *u, struct ts_err *err)
{
	int e, fds[2];
	pid_t pid;

	e = pidns_try();
	if (e) {
		snprintf(u->pidns_note, sizeof(u->pidns_note),
			 "no PID namespace (%s): processes CMD leaves in the background outlive "
			 "a killed run",
			 strerror(e));
		return 0;
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		e = errno;
		ts_err_set(err, "pipe: %s", strerror(e));
		return -e;
	}
	if (unshare(CLONE_NEWPID) < 0) {
		e = errno;
		ts_err_set(err, "cannot make the run's PID namespace: %s", strerror(e));
		close(fds[0]);
		close(fds[1]);
		return -e;
	}
	fflush(NULL); /* nothing buffered is written twice */
	/* Not io/proc.c: the child is this process going on as PID 1 of the new namespace. */
	pid = fork();
	if (pid < 0) {
		e = errno;
		ts_err_set(err, "fork: %s", strerror(e));
		return -e;
	}
	if (pid > 0) {
		close(fds[0]);
		outer_main(pid);
	}
	close(fds[1]);
	e = init_begin(fds[0]);
	if (e < 0) {
		ts_err_set(err, "the run's PID namespace: cannot mount /proc: %s", strerror(-e));
		return e;
	}
	u->pidns = true;
	return 0;
}

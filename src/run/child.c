/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/child.h"
#include "io/invoker.h"

/* In the child: become the user who ran sudo (@inv, parsed before the fork). 0 or -errno. */
static int drop_to_sudo_user(const struct ts_invoker *inv)
{
	struct passwd *pw;

	if (!inv->sudo || inv->uid == 0)
		return 0; /* not started through sudo, or sudo from root: stay */
	pw = getpwuid(inv->uid);
	if (pw) {
		if (initgroups(pw->pw_name, inv->gid) < 0)
			return -errno;
		setenv("HOME", pw->pw_dir, 1);
		setenv("USER", pw->pw_name, 1);
		setenv("LOGNAME", pw->pw_name, 1);
	} else if (setgroups(0, NULL) < 0) {
		return -errno;
	}
	if (setgid(inv->gid) < 0 || setuid(inv->uid) < 0)
		return -errno;
	return 0;
}

static void child_env(const struct ts_child_conf *c, bool shell)
{
	char ps1[512];
	const char *old;

	/* Nested runs keep the outermost address, as mahimahi's MAHIMAHI_BASE does. */
	if (!getenv("TASSHAPE_BASE"))
		setenv("TASSHAPE_BASE", c->base, 1);
	setenv("MAHIMAHI_BASE", getenv("TASSHAPE_BASE"), 1);
	if (c->base6 && !getenv("TASSHAPE_BASE6"))
		setenv("TASSHAPE_BASE6", c->base6, 1);
	if (shell && c->prompt) {
		old = getenv("PS1");
		snprintf(ps1, sizeof(ps1), "%s%s", c->prompt, old ? old : "\\u@\\h:\\w\\$ ");
		setenv("PS1", ps1, 1);
	}
}

static void report_and_exit(int fd, int e)
{
	/* The parent reads the errno; nothing else is safe to do here. */
	if (write(fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

pid_t ts_child_spawn(const struct ts_child_conf *c, struct ts_err *err)
{
	char *shell_argv[3] = {NULL, NULL, NULL};
	char *const *argv = c->argv;
	struct ts_invoker inv = {0};
	struct ts_err e_id;
	bool shell = false;
	int pfd[2], e = 0;
	sigset_t empty;
	ssize_t n;
	pid_t pid;

	/* Fail closed: when the invoking user is not known exactly, CMD does not run as root. */
	if (!c->as_root && ts_invoker_get(&inv, &e_id) < 0) {
		ts_err_set(err, "refusing to run the command: %s; --as-root runs it as root",
			   e_id.msg);
		return -EINVAL;
	}
	if (!argv || !argv[0]) {
		const char *sh = getenv("SHELL");

		shell_argv[0] = (char *)(sh && *sh ? sh : "/bin/sh");
		argv = shell_argv;
		shell = true;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		e = errno;
		ts_err_set(err, "pipe: %s", strerror(e));
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(pfd[0]);
		close(pfd[1]);
		ts_err_set(err, "fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0) {
		close(pfd[0]);
		if (setns(c->netns_fd, CLONE_NEWNET) < 0)
			report_and_exit(pfd[1], errno);
		if (!c->as_root && (e = drop_to_sudo_user(&inv)) < 0)
			report_and_exit(pfd[1], -e);
		child_env(c, shell);
		if (c->set_umask)
			umask(c->umask);
		sigemptyset(&empty);
		sigprocmask(SIG_SETMASK, &empty, NULL);
		signal(SIGPIPE, SIG_DFL); /* tasshape ignores it; CMD gets the default */
		execvp(argv[0], argv);
		report_and_exit(pfd[1], errno);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n == (ssize_t)sizeof(e)) {
		/* exec failed: reap the child, it has exited with 127. */
		waitpid(pid, NULL, 0);
		ts_err_set(err, "%s: %s", argv[0], e == ENOENT ? "command not found" : strerror(e));
		return -e;
	}
	return pid;
}

int ts_child_exit_code(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

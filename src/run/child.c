/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/child.h"
#include "io/invoker.h"
#include "io/proc.h"

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

/* What the child does between entering the namespace and exec (io/proc.h's child_fn). */
struct child_setup {
	const struct ts_child_conf *c;
	const struct ts_invoker *inv;
	bool shell;
};

static int child_setup(void *arg)
{
	const struct child_setup *cs = arg;
	int e;

	if (!cs->c->as_root && (e = drop_to_sudo_user(cs->inv)) < 0)
		return e;
	child_env(cs->c, cs->shell);
	if (cs->c->set_umask)
		umask(cs->c->umask);
	return 0;
}

pid_t ts_child_spawn(const struct ts_child_conf *c, struct ts_err *err)
{
	char *shell_argv[3] = {NULL, NULL, NULL};
	char *const *argv = c->argv;
	struct ts_invoker inv = {0};
	struct child_setup cs = {c, &inv, false};
	struct ts_err e_id;
	struct ts_proc p;
	int ret;

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
		cs.shell = true;
	}
	/*
	 * The terminal stays CMD's (its streams are ours, it stays in our
	 * process group); signals arrive unblocked and SIGPIPE at its default.
	 */
	ts_proc_init(&p, argv);
	p.netns_fd = c->netns_fd;
	p.in.how = p.out.how = p.err.how = TS_PROC_INHERIT;
	p.child_fn = child_setup;
	p.child_arg = &cs;
	ret = ts_proc_start(&p, err);
	return ret < 0 ? ret : p.pid;
}

int ts_child_exit_code(int wstatus)
{
	return ts_proc_status(wstatus);
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/child.h"
#include "io/invoker.h"
#include "io/proc.h"
#include "net/userns.h"

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
	if (c->has_station) {
		char k[16];

		snprintf(k, sizeof(k), "%u", c->station);
		setenv("TASSHAPE_STATION", k, 1);
	}
	if (shell && c->prompt) {
		old = getenv("PS1");
		snprintf(ps1, sizeof(ps1), "%s%s", c->prompt, old ? old : "\\u@\\h:\\w\\$ ");
		setenv("PS1", ps1, 1);
	}
}

/* What the child does between entering the namespace and exec (io/proc.h's child_fn). */
struct child_setup {
	const struct ts_child_conf *c;
	const struct ts_invoker_creds *creds; /* who CMD runs as (resolved before the fork) */
	bool shell;
};

static int child_setup(void *arg)
{
	const struct child_setup *cs = arg;
	int e;

	/* Rootless, unless --as-root: the user again, without the wrapper's capabilities. */
	if (cs->c->rootless && !cs->c->as_root &&
	    (e = ts_userns_nest(cs->c->user_uid, cs->c->user_gid)) < 0)
		return e;
	/* Through sudo, unless --as-root: the user who ran sudo, with their groups and home. */
	if ((e = ts_invoker_become(cs->creds)) < 0)
		return e;
	if (cs->creds->named) {
		setenv("HOME", cs->creds->home, 1);
		setenv("USER", cs->creds->user, 1);
		setenv("LOGNAME", cs->creds->user, 1);
	}
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
	struct ts_invoker_creds creds;
	struct child_setup cs = {c, &creds, false};
	struct ts_err e_id;
	struct ts_proc p;
	int ret;

	/* Fail closed: when the invoking user is not known exactly, CMD does not run as root. */
	if (!c->as_root && !c->rootless && ts_invoker_get(&inv, &e_id) < 0) {
		ts_err_set(err, "refusing to run the command: %s; --as-root runs it as root",
			   e_id.msg);
		return -EINVAL;
	}
	/* --as-root or rootless: inv stays zeroed (not through sudo), so creds say stay. */
	ret = ts_invoker_creds(&inv, (gid_t)-1, &creds, err);
	if (ret < 0)
		return ret;
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
	p.normal_sched = true;
	p.child_arg = &cs;
	/*
	 * Rootless runs have no guard (docs/rootless.md): should tasshape be
	 * killed, the kernel ends CMD with it rather than leave it running in a
	 * namespace whose link is gone.
	 */
	if (c->rootless)
		p.pdeathsig = SIGKILL;
	ret = ts_proc_start(&p, err);
	return ret < 0 ? ret : p.pid;
}

int ts_child_exit_code(int wstatus)
{
	return ts_proc_status(wstatus);
}

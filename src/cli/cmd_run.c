/* SPDX-License-Identifier: MIT */
/*
 * tasshape [LINK OPTIONS] [-- CMD ARGS]: run CMD (default: the user's
 * shell) in a fresh network namespace whose only way out is the emulated
 * link, as mahimahi's mm-link does, and exit with CMD's status. Unlike
 * mahimahi it needs no setuid binary: run it as root or through sudo, and
 * CMD runs as the invoking user unless --as-root; or as a user, in a user
 * namespace of its own (net/userns.h, docs/rootless.md).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "net/ipt.h"
#include "net/topo.h"
#include "net/userns.h"
#include "run/child.h"
#include "io/clock.h"
#include "io/invoker.h"
#include "run/shaper.h"
#include "tasshape/units.h"

struct run_args {
	struct ts_linkcfg link;
	struct ts_run_common common;
	bool as_root;
	bool pasta; /* --outside pasta */
	char **cmd;
};

enum { OPT_AS_ROOT = 0x300, OPT_OUTSIDE };

static const struct argp_option run_options[] = {
	{"as-root", OPT_AS_ROOT, NULL, 0,
	 "Run CMD as root even when tasshape was started through sudo (rootless: as root of "
	 "the run's user namespace)",
	 0},
	{"outside", OPT_OUTSIDE, "MODE", 0,
	 "Without root or sudo: how the run's private outer namespace reaches the host's network. "
	 "none (the default): it does not; pasta: through pasta(1), with NAT, the host's own "
	 "services at its default gateway's address (docs/rootless.md)",
	 0},
	{0}};

static error_t run_parse(int key, char *arg, struct argp_state *state)
{
	struct run_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->link;
		state->child_inputs[1] = &a->common;
		break;
	case OPT_AS_ROOT:
		a->as_root = true;
		break;
	case OPT_OUTSIDE:
		if (strcmp(arg, "none") != 0 && strcmp(arg, "pasta") != 0)
			argp_error(state, "--outside '%s': expected none or pasta", arg);
		a->pasta = !strcmp(arg, "pasta");
		break;
	case ARGP_KEY_ARG:
		/* Everything from the first non-option on is the command. */
		a->cmd = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	(void)arg;
	return 0;
}

/* Before the examples, the subcommands, from main.c's table. */
static char *run_help(int key, const char *text, void *input)
{
	struct ts_text b;

	(void)input;
	if (key != ARGP_KEY_HELP_POST_DOC || !text)
		return (char *)text;
	ts_text_init(&b);
	ts_cli_commands(&b);
	ts_text_printf(&b, "\n%s", text);
	return b.p ? b.p : (char *)text;
}

static const struct argp_child run_children[] = {
	{&ts_link_argp, 0, NULL, 0}, {&ts_common_argp, 0, NULL, 0}, {0}};

static const struct argp run_argp = {
	run_options,
	run_parse,
	"[-- CMD [ARGS...]]",
	"Run CMD (default: your shell) in a new network namespace whose only way out is the "
	"emulated link, and exit with its status. The outside is reachable at $TASSHAPE_BASE "
	"(also $MAHIMAHI_BASE). Through sudo, CMD runs as you. Without root or sudo, the run "
	"gets a user namespace of its own and the outside is a private namespace "
	"(docs/rootless.md). TRACE names a file or a bundled trace ('tasshape trace list').\v"
	"Examples:\n"
	"  # A shell behind a 5G mmWave drive, 10 ms each way:\n"
	"  sudo tasshape --trace 5g-mmwave-driving --delay 10ms\n"
	"  # CI: iperf3 over Starlink; the exit status is iperf3's (124 if --duration\n"
	"  # ended it first):\n"
	"  iperf3 -s -D -1\n"
	"  sudo tasshape --trace starlink --duration 60s -- \\\n"
	"      sh -c 'iperf3 -c $TASSHAPE_BASE -t 20'; echo \"exit status $?\"\n"
	"  # A Wi-Fi 6 station behind a 25 Mbit/s ISP link:\n"
	"  sudo tasshape --mac wifi6:phy=1201mbit --uplink-trace const:25mbit \\\n"
	"      --downlink-trace const:25mbit\n"
	"  # Compare congestion controls; a failed --check fails the CI job:\n"
	"  sudo tasshape exp run cca.ini --out res \\\n"
	"      --check 'tcp_upload[cca=bbr].throughput_up_mbps.mean >= 18'",
	run_children,
	run_help,
	NULL};

/*
 * Not root: the run gets a user namespace of its own (docs/rootless.md).
 * Root inside a rootless run's namespace (a nested run under --as-root)
 * is rootless too, in the namespace it is in. Returns 0 (a->common.rootless
 * says which; @uns holds the user's ids) or a negative errno with @err.
 */
static int rootless_begin(struct run_args *a, struct ts_userns *uns, struct ts_err *err)
{
	bool rootless = true;
	int ret;

	memset(uns, 0, sizeof(*uns));
	uns->life = -1;
	if (ts_userns_wanted()) {
		ret = ts_userns_enter(uns, a->pasta, err);
	} else {
		ret = ts_userns_inherited(uns, err);
		rootless = ret > 0;
		if (ret >= 0 && a->pasta) {
			ts_err_set(err,
				   rootless
					   ? "--outside pasta: this run is inside another "
					     "rootless run's namespace, where pasta cannot be "
					     "started; give it to the outermost run"
					   : "--outside pasta is for runs without root or sudo: as "
					     "root, the outside is this host's network already");
			ret = -EINVAL;
		}
	}
	if (ret < 0)
		return ret;
	if (rootless) {
		ts_invoker_set_rootless();
		a->common.rootless = true;
		/* Inside another run, the outer namespace is its CMD's: it leads out through that link. */
		a->common.outside = a->pasta || !ts_userns_wanted();
	}
	return 0;
}

/* End and reap the other stations' CMD that the run did not reap. */
static void stop_stations(struct ts_shaper *sh)
{
	unsigned int k;

	for (k = 0; k < sh->nmore; k++) {
		if (sh->more_done[k])
			continue;
		kill(sh->more[k], SIGKILL);
		waitpid(sh->more[k], NULL, 0);
		sh->more_done[k] = true;
	}
}

/*
 * With real Wi-Fi stations (wifi6 real=N), CMD runs once in each station's
 * namespace, told which by TASSHAPE_STATION: stations 1 .. N-1 here, the
 * caller starts station 0 (CMD's own namespace); an interactive shell
 * cannot be run N times. Returns 0, or -1 with what was started killed
 * and reaped and the error printed.
 */
static int spawn_stations(struct ts_session *s, struct ts_child_conf *cc, bool interactive)
{
	unsigned int k, n = ts_session_stations(s->link);
	struct ts_err err = {{0}};
	pid_t pid;

	if (n <= 1)
		return 0;
	if (interactive) {
		ts_cli_error("--mac wifi6:...,real=N runs CMD once per station: give a CMD "
			     "(TASSHAPE_STATION tells each which station it is)");
		return -1;
	}
	cc->has_station = true;
	for (k = 1; k < n; k++) {
		cc->netns_fd = s->topo.sta[k - 1].ns.fd;
		cc->station = k;
		pid = ts_child_spawn(cc, &err);
		if (pid < 0) {
			ts_cli_error("station %u: %s", k, err.msg);
			stop_stations(&s->shaper);
			return -1;
		}
		s->shaper.more[s->shaper.nmore++] = pid;
	}
	cc->station = 0;
	cc->netns_fd = s->topo.inner.fd;
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_args a = {0};
	struct ts_child_conf cc = {0};
	struct ts_invoker inv;
	struct ts_userns uns;
	struct ts_session s;
	char prompt[128];
	struct ts_err err = {{0}};
	pid_t child;
	int ret, code = 1;

	ts_linkcfg_init(&a.link);
	ts_run_common_init(&a.common);
	argp_parse(&run_argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	a.common.argc = argc;
	a.common.argv = argv;
	a.common.interactive = !a.cmd || !a.cmd[0];
	/* A user namespace made here is the process's own: nothing outlives an error below. */
	if (rootless_begin(&a, &uns, &err) < 0) {
		ts_cli_error("%s", err.msg);
		goto out;
	}
	/* Before the run is set up: CMD would not run (ts_child_spawn refuses it too). */
	if (!a.common.rootless && !a.as_root && ts_invoker_get(&inv, &err) < 0) {
		ts_cli_error("refusing to run the command: %s; --as-root runs it as root", err.msg);
		goto out;
	}
	cc.rootless = a.common.rootless;
	cc.user_uid = uns.uid;
	cc.user_gid = uns.gid;

	ret = ts_session_open(&s, &a.link, &a.common, &err);
	if (ret < 0) {
		ts_cli_error("%s", err.msg);
		goto out;
	}
	snprintf(prompt, sizeof(prompt), "[tasshape %s] ", a.link.trace ? a.link.trace : "link");
	cc.netns_fd = s.topo.inner.fd;
	cc.argv = a.cmd;
	cc.as_root = a.as_root;
	cc.base = s.base;
	cc.base6 = s.topo.v6 ? s.base6 : NULL;
	cc.prompt = prompt;
	cc.set_umask = true;
	cc.umask = ts_invoker_umask(); /* the caller's, before main tightened it */
	if (spawn_stations(&s, &cc, a.common.interactive) < 0) {
		code = 127;
		ts_session_close(&s, NULL);
		goto out;
	}
	child = ts_child_spawn(&cc, &err);
	if (child < 0) {
		ts_cli_error("%s", err.msg);
		code = 127;
		stop_stations(&s.shaper);
		ts_session_close(&s, NULL);
		goto out;
	}
	ret = ts_session_run(&s, child, &err);
	if (ret < 0) {
		ts_cli_error("%s", err.msg);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		stop_stations(&s.shaper);
		code = 1;
	} else if (ret == TS_STOP_DURATION || ret == TS_STOP_TRACE) {
		/* The run ended CMD, as timeout(1) does, and says so the same way. */
		code = 124;
	} else {
		code = ts_child_exit_code(s.shaper.child_status);
	}
	if (ts_session_close(&s, &err) < 0 && code == 0)
		code = 1;
out:
	if (a.common.rootless)
		ts_userns_leave(&uns); /* uns.life is -1 unless this run started pasta */
	ts_linkcfg_free(&a.link);
	return code;
}

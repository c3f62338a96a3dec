/* SPDX-License-Identifier: MIT */
/*
 * tasshape cleanup: remove what a run that was killed (kill -9, a crash,
 * a power cut of the session) left behind: its namespaces, veth pairs and
 * iptables rules, all recognisable by their tas name or "tas:<pid>"
 * comment. Objects whose owner is still running are kept unless --force.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"
#include "net/topo.h"
#include "tasshape/units.h"

struct cleanup_args {
	bool force, verbose;
	pid_t pid;
};

static const struct argp_option cleanup_options[] = {
	{"force", 'f', NULL, 0, "Also remove objects whose owning tasshape is still running", 0},
	{"verbose", 'v', NULL, 0, "Say what was removed or kept", 0},
	{"pid", 'p', "PID", 0, "Only objects of the run with this process id", 0},
	{0}};

static error_t cleanup_parse(int key, char *arg, struct argp_state *state)
{
	struct cleanup_args *a = state->input;
	struct ts_err err;
	uint64_t pid;

	switch (key) {
	case 'f':
		a->force = true;
		break;
	case 'v':
		a->verbose = true;
		break;
	case 'p':
		if (ts_parse_u64(arg, &pid, &err) < 0 || !pid || pid > INT32_MAX)
			argp_error(state, "--pid: expected a process id, got '%s'", arg);
		a->pid = (pid_t)pid;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp cleanup_argp = {
	cleanup_options,
	cleanup_parse,
	NULL,
	"Remove the namespaces, interfaces and iptables rules that a killed tasshape left "
	"behind (in this network namespace and /run/netns), killing the processes still "
	"running in those namespaces first. Objects of runs still alive are kept unless --force.\v"
	"Examples:\n"
	"  sudo tasshape cleanup --verbose\n"
	"  sudo tasshape cleanup --pid 12345 --verbose   # one run's leftovers only",
	NULL,
	NULL,
	NULL};

static void note(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "  %s\n", line);
}

int cmd_cleanup(int argc, char **argv)
{
	struct cleanup_args a = {0};
	struct ts_cleanup_opts o = {0};
	struct ts_cleanup_stats st = {0};
	struct ts_err err;
	int ret;

	argp_parse(&cleanup_argp, argc, argv, 0, NULL, &a);
	if (geteuid() != 0)
		return ts_cli_error(
			"cleanup: needs root to remove namespaces, interfaces and rules "
			"(a run started without root leaves none: the kernel removes "
			"them with it, docs/rootless.md)");
	o.force = a.force;
	o.only_pid = a.pid;
	if (a.verbose)
		o.note = note;
	ret = ts_topo_cleanup(&o, &st, &err);
	fprintf(stderr,
		"tasshape cleanup: killed %u processes; removed %u rules, %u interfaces, %u "
		"namespaces; kept %u of running owners\n",
		st.procs, st.rules, st.links, st.netns, st.kept);
	if (ret < 0)
		return ts_cli_error("cleanup: %s", err.msg);
	return 0;
}

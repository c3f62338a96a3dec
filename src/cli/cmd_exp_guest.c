/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp-guest SPEC CONFIG_ID REP SEED LENGTH_NS DELAY_NS RUNDIR:
 * one run of `tasshape exp run` whose kernel is a [kernel NAME] section,
 * inside that kernel's VM (src/exec/exec_vm.h); the arguments here, the
 * run in exec/exec_guest.h. Not meant to be run by hand.
 */
#include <argp.h>
#include <string.h>

#include "cli/cli.h"
#include "exec/exec_guest.h"
#include "tasshape/units.h"

/*
 * The seven positional arguments, in order. Not the run's index in its matrix: the host puts it
 * in the record, so that the run boots the same image whatever matrix it is part of.
 */
enum { A_SPEC, A_CONFIG, A_REP, A_SEED, A_LENGTH, A_DELAY, A_RUNDIR, NARGS };

struct guest_args {
	char *arg[NARGS];
	unsigned n;
	uint64_t num[NARGS]; /* A_REP .. A_DELAY */
};

static const char *const arg_name[NARGS] = {"SPEC",	 "CONFIG_ID", "REP",   "SEED",
					    "LENGTH_NS", "DELAY_NS",  "RUNDIR"};

static error_t guest_parse(int key, char *arg, struct argp_state *state)
{
	struct guest_args *g = state->input;
	struct ts_err e;

	switch (key) {
	case ARGP_KEY_ARG:
		if (g->n == NARGS)
			argp_error(state, "one argument too many: '%s'", arg);
		if (g->n >= A_REP && g->n <= A_DELAY && ts_parse_u64(arg, &g->num[g->n], &e) < 0)
			argp_error(state, "%s: %s", arg_name[g->n], e.msg);
		g->arg[g->n++] = arg;
		return 0;
	case ARGP_KEY_END:
		if (g->n < NARGS)
			argp_error(state, "missing %s (tasshape exp run starts it)",
				   arg_name[g->n]);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int cmd_exp_guest(int argc, char **argv)
{
	static const struct argp argp = {
		NULL,
		guest_parse,
		"SPEC CONFIG_ID REP SEED LENGTH_NS DELAY_NS RUNDIR",
		"One run of tasshape exp run inside its kernel's VM (internal: exp run starts it).",
		NULL,
		NULL,
		NULL};
	struct guest_args g;
	struct ts_exp_guest_req q;
	struct ts_err err;

	memset(&g, 0, sizeof(g));
	if (argp_parse(&argp, argc, argv, 0, NULL, &g))
		return TS_EXIT_USAGE;
	q = (struct ts_exp_guest_req){.spec = g.arg[A_SPEC],
				      .config_id = g.arg[A_CONFIG],
				      .rundir = g.arg[A_RUNDIR],
				      .rep = (unsigned)g.num[A_REP],
				      .seed = g.num[A_SEED],
				      .length = (ts_ns_t)g.num[A_LENGTH],
				      .delay = (ts_ns_t)g.num[A_DELAY]};
	if (ts_exp_guest_run(&q, &err))
		return ts_cli_error("%s", err.msg);
	return 0;
}

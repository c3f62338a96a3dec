/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp-guest SPEC CONFIG_ID REP INDEX SEED LENGTH_NS DELAY_NS RUNDIR:
 * one run of `tasshape exp run` whose kernel is a [kernel NAME] section,
 * inside that kernel's VM (src/exec/exec_vm.h). The spec is planned again
 * with the run's length and delay, the configuration found by its id, and
 * the run carried out with the guest's kernel as the running one. Not
 * meant to be run by hand.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_exp.h"
#include "io/copytree.h"
#include "exec/exec.h"
#include "exec/exec_result.h"
#include "exec/exec_warm.h"
#include "results/result.h"
#include "tasshape/units.h"

/* The eight positional arguments, in order. */
enum { A_SPEC, A_CONFIG, A_REP, A_INDEX, A_SEED, A_LENGTH, A_DELAY, A_RUNDIR, NARGS };

struct guest_args {
	char *arg[NARGS];
	unsigned n;
	uint64_t num[NARGS]; /* A_REP .. A_DELAY */
};

static const char *const arg_name[NARGS] = {"SPEC", "CONFIG_ID", "REP",	     "INDEX",
					    "SEED", "LENGTH_NS", "DELAY_NS", "RUNDIR"};

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
		"SPEC CONFIG_ID REP INDEX SEED LENGTH_NS DELAY_NS RUNDIR",
		"One run of tasshape exp run inside its kernel's VM (internal: exp run starts it).",
		NULL,
		NULL,
		NULL};
	struct guest_args g;
	struct plan_args a;
	struct ts_exp_spec spec;
	struct ts_exp_matrix plan;
	struct ts_exp_run run;
	char sha[2 * TS_SHA256_LEN + 1], err[1024] = "", result[4200];
	char local[] = "/tmp/tasshape-exp-guest.XXXXXX";
	uint64_t rep, idx, seed, len, delay;
	size_t i;
	int ret = 0;

	memset(&g, 0, sizeof(g));
	if (argp_parse(&argp, argc, argv, 0, NULL, &g))
		return TS_EXIT_USAGE;
	rep = g.num[A_REP];
	idx = g.num[A_INDEX];
	seed = g.num[A_SEED];
	len = g.num[A_LENGTH];
	delay = g.num[A_DELAY];
	memset(&a, 0, sizeof(a));
	a.spec_path = g.arg[A_SPEC];
	a.opts.length = (ts_ns_t)len;
	a.opts.delay = (ts_ns_t)delay;
	a.opts.delay_set = 1;
	if (exp_load_plan(&a, &spec, &plan, sha))
		return 1;
	for (i = 0; i < plan.nconfigs && strcmp(plan.configs[i].id, g.arg[A_CONFIG]); i++)
		;
	if (i == plan.nconfigs || !plan.configs[i].tmpl.vm) {
		ret = ts_cli_error("exp-guest: %s: no configuration '%s' with a [kernel NAME]",
				   g.arg[A_SPEC], g.arg[A_CONFIG]);
		goto out;
	}
	run = plan.configs[i].tmpl;
	run.rep = (unsigned)rep;
	run.index = (unsigned)idx;
	run.seed = seed;
	run.in_guest = 1;
	/*
	 * The run writes on the guest's own tmpfs, and its files reach the shared run directory
	 * at the end: writes to the share during the run would stall on the host's I/O, and in
	 * virtual time the guest's clock runs on meanwhile (copytree.h).
	 */
	{
		char self[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n > 0)
			self[n] = '\0';
		ts_exp_exec_warm(n > 0 ? self : NULL);
	}
	if (!mkdtemp(local)) {
		ret = ts_cli_error("exp-guest: %s: %s", local, strerror(errno));
		goto out;
	}
	if (ts_exp_exec_run(&run, local, err, sizeof(err)) < 0 ||
	    ts_copy_tree(local, g.arg[A_RUNDIR], 0, err, sizeof(err)) < 0) {
		snprintf(result, sizeof(result), "%.4000s/%s", g.arg[A_RUNDIR], TS_EXP_F_RESULT);
		if (ts_exp_result_write_unrun(&run, result,
					      err[0] ? err : "the run could not start") < 0)
			ret = ts_cli_error("%s: cannot write", result);
		else
			ret = ts_cli_error("exp-guest: %s", err);
	}
out:
	ts_exp_matrix_free(&plan);
	ts_exp_spec_free(&spec);
	return ret;
}

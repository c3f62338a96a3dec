/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp-guest SPEC CONFIG_ID REP INDEX SEED LENGTH_NS DELAY_NS RUNDIR:
 * one run of `tasshape exp run` whose kernel is a [kernel NAME] section,
 * inside that kernel's VM (src/exec/exec_vm.h). The spec is planned again
 * with the run's length and delay, the configuration found by its id, and
 * the run carried out with the guest's kernel as the running one. Not
 * meant to be run by hand.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_exp.h"
#include "io/copytree.h"
#include "exec/exec_result.h"
#include "exec/exec_warm.h"
#include "results/result.h"
#include "tasshape/units.h"

static int num(const char *what, const char *s, uint64_t *out)
{
	struct ts_err e;

	if (ts_parse_u64(s, out, &e) < 0)
		return ts_cli_error("exp-guest: %s: %s", what, e.msg);
	return 0;
}

int cmd_exp_guest(int argc, char **argv)
{
	struct plan_args a;
	struct ts_exp_spec spec;
	struct ts_exp_matrix plan;
	struct ts_exp_run run;
	char sha[2 * TS_SHA256_LEN + 1], err[1024] = "", result[4200];
	char local[] = "/tmp/tasshape-exp-guest.XXXXXX";
	uint64_t rep, idx, seed, len, delay;
	size_t i;
	int ret = 0;

	if (argc != 9)
		return ts_cli_error("usage: tasshape exp-guest SPEC CONFIG_ID REP INDEX SEED "
				    "LENGTH_NS DELAY_NS RUNDIR (internal)");
	if (num("REP", argv[3], &rep) || num("INDEX", argv[4], &idx) ||
	    num("SEED", argv[5], &seed) || num("LENGTH_NS", argv[6], &len) ||
	    num("DELAY_NS", argv[7], &delay))
		return 1;
	memset(&a, 0, sizeof(a));
	a.spec_path = argv[1];
	a.opts.length = (ts_ns_t)len;
	a.opts.delay = (ts_ns_t)delay;
	a.opts.delay_set = 1;
	if (exp_load_plan(&a, &spec, &plan, sha))
		return 1;
	for (i = 0; i < plan.nconfigs && strcmp(plan.configs[i].id, argv[2]); i++)
		;
	if (i == plan.nconfigs || !plan.configs[i].tmpl.vm) {
		ret = ts_cli_error("exp-guest: %s: no configuration '%s' with a [kernel NAME]",
				   argv[1], argv[2]);
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
	    ts_copy_tree(local, argv[8], 0, err, sizeof(err)) < 0) {
		snprintf(result, sizeof(result), "%.4000s/%s", argv[8], TS_EXP_F_RESULT);
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

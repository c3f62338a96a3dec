/* SPDX-License-Identifier: MIT */
/*
 * One run of `tasshape exp run` inside its kernel's VM (exec/exec_guest.h):
 * the spec planned again with the run's length and delay, the
 * configuration found by its id, the run carried out with the guest's
 * kernel as the running one.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/exec.h"
#include "exec/exec_guest.h"
#include "exec/exec_result.h"
#include "exec/exec_warm.h"
#include "io/copytree.h"
#include "plan/planload.h"
#include "results/result.h"

/* The run's files: warm this binary's pages, run on the guest's tmpfs, copy them out. */
static int guest_exec(const struct ts_exp_run *run, const char *rundir, char *err, size_t errlen)
{
	char local[] = "/tmp/tasshape-exp-guest.XXXXXX", self[PATH_MAX], msg[1024] = "";
	char result[4200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0)
		self[n] = '\0';
	ts_exp_exec_warm(n > 0 ? self : NULL);
	if (!mkdtemp(local)) {
		snprintf(err, errlen, "exp-guest: %s: %s", local, strerror(errno));
		return -1;
	}
	/*
	 * The run writes on the guest's own tmpfs, and its files reach the shared run directory
	 * at the end: writes to the share during the run would stall on the host's I/O, and in
	 * virtual time the guest's clock runs on meanwhile (copytree.h).
	 */
	if (ts_exp_exec_run(run, local, msg, sizeof(msg)) >= 0) {
		struct ts_err cerr;

		if (ts_copy_tree(local, rundir, 0, &cerr) >= 0)
			return 0;
		snprintf(msg, sizeof(msg), "%s", cerr.msg);
	}
	snprintf(result, sizeof(result), "%.4000s/%s", rundir, TS_EXP_F_RESULT);
	if (ts_exp_result_write_unrun(run, result, msg[0] ? msg : "the run could not start") < 0)
		snprintf(err, errlen, "%s: cannot write", result);
	else
		snprintf(err, errlen, "exp-guest: %s", msg);
	return -1;
}

int ts_exp_guest_run(const struct ts_exp_guest_req *g, char *err, size_t errlen)
{
	struct ts_exp_matrix_opts o = {.length = g->length, .delay = g->delay, .delay_set = 1};
	char sha[2 * TS_SHA256_LEN + 1];
	struct ts_exp_spec spec;
	struct ts_exp_matrix plan;
	struct ts_exp_run run;
	size_t i;
	int ret = -1;

	struct ts_err e;

	if (ts_exp_plan_load(g->spec, &o, false, &spec, &plan, sha, &e) < 0) {
		snprintf(err, errlen, "%s", e.msg);
		return -1;
	}
	for (i = 0; i < plan.nconfigs && strcmp(plan.configs[i].id, g->config_id); i++)
		;
	if (i == plan.nconfigs || !plan.configs[i].tmpl.vm) {
		snprintf(err, errlen, "exp-guest: %s: no configuration '%s' with a [kernel NAME]",
			 g->spec, g->config_id);
		goto out;
	}
	run = plan.configs[i].tmpl;
	run.rep = g->rep;
	run.index = g->index;
	run.seed = g->seed;
	run.in_guest = 1;
	ret = guest_exec(&run, g->rundir, err, errlen);
out:
	ts_exp_matrix_free(&plan);
	ts_exp_spec_free(&spec);
	return ret;
}

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
#include "exec/exec_files.h"
#include "exec/exec_guest.h"
#include "exec/exec_warm.h"
#include "io/copytree.h"
#include "plan/planload.h"
#include "results/result.h"

/* The run's files: warm this binary's pages, run on the guest's tmpfs, copy them out. */
static int guest_exec(const struct ts_exp_run *run, const char *rundir, struct ts_err *err)
{
	char local[] = "/tmp/tasshape-exp-guest.XXXXXX", self[PATH_MAX];
	struct ts_err msg = {""};
	char result[4200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0)
		self[n] = '\0';
	ts_exp_exec_warm(n > 0 ? self : NULL);
	if (!mkdtemp(local)) {
		ts_err_set(err, "exp-guest: %s: %s", local, strerror(errno));
		return -1;
	}
	/*
	 * The run writes on the guest's own tmpfs, and its files reach the shared run directory
	 * at the end: writes to the share during the run would stall on the host's I/O, and in
	 * virtual time the guest's clock runs on meanwhile (copytree.h).
	 */
	if (ts_exp_exec_run(run, local, &msg) >= 0 && ts_copy_tree(local, rundir, 0, &msg) >= 0)
		return 0;
	snprintf(result, sizeof(result), "%.4000s/%s", rundir, TS_EXP_F_RESULT);
	if (ts_exp_result_write_unrun(run, result,
				      msg.msg[0] ? msg.msg : "the run could not start") < 0)
		ts_err_set(err, "%s: cannot write", result);
	else
		ts_err_set(err, "exp-guest: %s", msg.msg);
	return -1;
}

int ts_exp_guest_run(const struct ts_exp_guest_req *g, struct ts_err *err)
{
	struct ts_exp_matrix_opts o = {.length = g->length, .delay = g->delay, .delay_set = 1};
	char sha[2 * TS_SHA256_LEN + 1];
	struct ts_exp_spec spec;
	struct ts_exp_matrix plan;
	struct ts_exp_run run;
	size_t i;
	int ret = -1;

	if (ts_exp_plan_load(g->spec, &o, false, &spec, &plan, sha, err) < 0)
		return -1;
	for (i = 0; i < plan.nconfigs && strcmp(plan.configs[i].id, g->config_id); i++)
		;
	if (i == plan.nconfigs || !plan.configs[i].tmpl.vm) {
		ts_err_set(err, "exp-guest: %s: no configuration '%s' with a [kernel NAME]",
			   g->spec, g->config_id);
		goto out;
	}
	run = plan.configs[i].tmpl;
	run.rep = g->rep;
	run.index = 0; /* the host's to record (exec_vm.c) */
	run.seed = g->seed;
	run.in_guest = 1;
	ret = guest_exec(&run, g->rundir, err);
out:
	ts_exp_matrix_free(&plan);
	ts_exp_spec_free(&spec);
	return ret;
}

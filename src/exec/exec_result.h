/* SPDX-License-Identifier: MIT */
/*
 * Turning one run's directory of raw outputs into its result.json (the
 * contract of docs/experiments.md, "Per-run result") and manifest.json.
 * Reads only files in the run directory; everything the orchestration
 * itself knows comes in struct ts_exp_outcome. So a directory of
 * fixtures captured from the real tools gives a result.json a unit test
 * can check number by number.
 *
 * What fails a run ("ok": false, "error" says why): an orchestration
 * error, a flow whose iperf3 output is missing or reports an error, a
 * flow that ran with another congestion control than the run's
 * (iperf3's sender or receiver, or a sample of its sending socket taken
 * after that socket sent data).
 * What flags it: "fell_behind:up"/"fell_behind:down" (ts_exp_fell_behind),
 * "probe_failed" (a latency probe produced no samples).
 */
#ifndef TS_EXEC_EXEC_RESULT_H
#define TS_EXEC_EXEC_RESULT_H

#include <json-c/json.h>

#include "tasshape/err.h"

#include "exec/exec_cca.h"
#include "exec/exec_plan.h"
#include "plan/run.h"

struct ts_exp_outcome {
	const struct ts_exp_run *run;
	const struct ts_exp_plan *plan;
	const struct ts_exp_cca *cca; /* NULL: it could not be acquired */
	const char *rundir;
	struct ts_err error;	 /* "" or why the run could not be carried out */
	json_object *flags;	 /* array of strings to add (borrowed), or NULL */
	json_object *servers;	 /* [{"addr","delay_ms","base_rtt_ms"}] (borrowed), or NULL */
	json_object *sysctl_srv; /* the far side's sysctls as read back (borrowed), or NULL */
};

/*
 * ts_exp_result_write - read the outputs in o->rundir and write
 * result.json and manifest.json there. Returns 0, or a negative errno
 * with @err set when a file could not be written.
 */
int ts_exp_result_write(const struct ts_exp_outcome *o, struct ts_err *err);

#endif

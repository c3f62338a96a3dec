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

/* Files in the run directory, written by the executor and its agents. */
#define TS_EXP_F_RESULT	       "result.json"
#define TS_EXP_F_MANIFEST      "manifest.json"
#define TS_EXP_F_SUMMARY       "summary.json"	      /* the wrapper's --summary-json */
#define TS_EXP_F_STATS	       "stats.csv"	      /* the wrapper's --stats */
#define TS_EXP_F_SOCKSTATS     "sockstats.csv"	      /* the wrapper's --sockstats (client side) */
#define TS_EXP_F_SOCKSTATS_SRV "sockstats-server.csv" /* the far side's, sampled by the executor */
#define TS_EXP_F_LOG	       "tasshape.log"	      /* the wrapper's stderr: its summary */
#define TS_EXP_F_CLIENT	       "client-report.json"   /* the client agent's report */

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

/*
 * The largest file of a run directory read whole (an iperf3 or irtt
 * report, the socket samples of a long run): a bound on what a file the
 * run's programs wrote can make tasshape allocate.
 */
#define TS_EXP_FILE_MAX (256u << 20)

/*
 * ts_exp_slurp - the run file @name of the directory @dir, read whole
 * through io/infile.h (NUL-terminated, caller frees): only a regular
 * file, reached without following a symbolic link or leaving @dir, of at
 * most TS_EXP_FILE_MAX bytes. NULL with errno set when it is absent or
 * refused.
 */
char *ts_exp_slurp(const char *dir, const char *name);

#endif

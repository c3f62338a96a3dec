/* SPDX-License-Identifier: MIT */
/*
 * The files of a run directory: the names the executor and its agents
 * write there, and how tasshape reads one back. The result (exec_result.h),
 * the stations' reports (exec_stations.h) and the VM runner read them; none
 * of them owns the names.
 */
#ifndef TS_EXEC_EXEC_FILES_H
#define TS_EXEC_EXEC_FILES_H

/* Files in the run directory, written by the executor and its agents. */
#define TS_EXP_F_RESULT	       "result.json"
#define TS_EXP_F_MANIFEST      "manifest.json"
#define TS_EXP_F_SUMMARY       "summary.json"	      /* the wrapper's --summary-json */
#define TS_EXP_F_STATS	       "stats.csv"	      /* the wrapper's --stats */
#define TS_EXP_F_SOCKSTATS     "sockstats.csv"	      /* the wrapper's --sockstats (client side) */
#define TS_EXP_F_SOCKSTATS_SRV "sockstats-server.csv" /* the far side's, sampled by the executor */
#define TS_EXP_F_LOG	       "tasshape.log"	      /* the wrapper's stderr: its summary */
#define TS_EXP_F_CLIENT	       "client-report.json"   /* the client agent's report */

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

/* SPDX-License-Identifier: MIT */
/*
 * The experiment driver: a planned matrix carried out into an experiment
 * directory. Everything that can be wrong is checked before the first run
 * (the executor's own preconditions, [kernel NAME] images, the output
 * directory or the one resumed, the congestion controls); then the runs
 * this invocation owns (its shard, and when resuming those not done) are
 * handed to an executor in run order, one at a time or by a pool of
 * worker processes (--jobs); then the directory is summarised from its
 * result.json files and the checks evaluated. The outcome comes back as
 * data, a verdict; nothing here prints or exits: what the user sees goes
 * through the report callbacks of the front end (exp run's console:
 * console.h), and the checks' lines to the stream it names.
 *
 * The executor is an interface, so that a unit test can drive a whole
 * campaign with a fake one (made-up results, no root, no network);
 * ts_campaign_exec is the real one (src/exec/).
 */
#ifndef TS_CAMPAIGN_CAMPAIGN_H
#define TS_CAMPAIGN_CAMPAIGN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tasshape/err.h"

#include "plan/matrix.h"
#include "results/check.h"
#include "results/expdir.h"
#include "results/summary.h"

/* What carries a run out. Every member but check may not be NULL. */
struct ts_campaign_executor {
	void *ctx;
	/* Can runs be carried out here at all (root, ...)? 0, or -errno with @err. May be NULL. */
	int (*check)(void *ctx, struct ts_err *err);
	/* ts_exp_cca_probe's contract (plan/run.h): 0 when @cca can run, else -errno and @why. */
	int (*cca_probe)(void *ctx, const char *cca, struct ts_err *why);
	/*
	 * ts_exp_exec_run's contract (plan/run.h): carry @run out into the empty directory
	 * @rundir and write its result.json there; -errno with @err when it could not start.
	 * Under --jobs it is called in a worker process of its own, pinned to its CPUs.
	 */
	int (*run)(void *ctx, const struct ts_exp_run *run, const char *rundir, struct ts_err *err);
	/*
	 * The clock the runs' durations are read from (ns, non-decreasing); NULL: the host's
	 * monotonic clock. Tests give made-up times, so the durations reported are exact.
	 */
	ts_ns_t (*now)(void *ctx);
};

/* The real executor: root, ts_exp_cca_probe, ts_exp_exec_run (src/exec/). */
extern const struct ts_campaign_executor ts_campaign_exec;

/* What the user sees, supplied by the front end. Any member may be NULL. */
struct ts_campaign_report {
	void *ctx;
	/* A line for the user that does not stop the campaign ("exp: skipping cca=..."). */
	void (*notice)(void *ctx, const char *msg);
	/* The checks passed and @total runs are about to be carried out (the clock starts). */
	void (*begin)(void *ctx, size_t total);
	/* Run @pos of @total starts (one at a time only: --jobs runs overlap). */
	void (*run_start)(void *ctx, const struct ts_exp_run *run, size_t pos, size_t total);
	/* Run @pos of @total ended after @took ns; its result is @result (it may be missing). */
	void (*run_end)(void *ctx, const struct ts_exp_run *run, size_t pos, size_t total,
			const char *result, ts_ns_t took);
	/* No run starts any more (the loop is over, stopped or failed). */
	void (*end)(void *ctx);
	/* The summary of @out, written (summary.json, .csv, .md); the checks follow. */
	void (*summary)(void *ctx, const struct ts_exp_summary *s, const char *out);
};

struct ts_campaign_opts {
	const char *out;       /* the experiment directory */
	const char *spec_path; /* copied beside the results (spec.ini) */
	const char *spec_sha256;
	struct ts_exp_shard shard; /* {0, 0} or {1, 1}: the whole matrix */
	bool shard_given;	   /* resuming: else the recorded shard is taken */
	unsigned jobs;		   /* runs at once; 0 or 1: one after the other */
	bool resume, force;	   /* exp resume, exp resume --force */
	bool strict;		   /* an unavailable congestion control fails the campaign */
	/*
	 * The checks (parsed and resolved, results/checks.h), evaluated on the summary into the
	 * verdict, each one's line and the count written to @checks_out (not NULL when nchecks).
	 */
	const struct ts_exp_check *checks;
	size_t nchecks;
	FILE *checks_out;
	/*
	 * The CPUs the job pool hands out, two per job (one per job when every run is in a
	 * guest in virtual time); NULL: the CPUs this process may run on.
	 */
	const int *cpus;
	size_t ncpus;
	volatile sig_atomic_t *stop; /* set by a stop signal: no new run starts; may be NULL */
};

/* The outcome of a campaign, from which the exit status follows (ts_campaign_status). */
struct ts_campaign_verdict {
	int err;	/* 0, or -errno: the campaign ended before its summary */
	char msg[1024]; /* why, when err */
	bool strict;
	size_t selected;     /* runs this invocation was to carry out */
	size_t carried;	     /* of them, ended */
	size_t skipped_ccas; /* congestion controls this host cannot run */
	int stop_signal;     /* the signal that stopped it, 0 when none */
	/* From the summary of the whole directory: */
	unsigned runs, failed, fell_behind;
	size_t nconfigs;
	unsigned tcg; /* configurations that ran in a VM under TCG (flag tcg) */
	unsigned checks_failed;
};

/*
 * ts_campaign_run - carry out @plan as @o says with @ex, reporting through
 * @rep (may be NULL). Fills @v and returns v->err: 0 when the directory
 * was summarised (failed runs, flags and checks are in @v), or a negative
 * errno with v->msg when a check before the runs failed, a run could not
 * be set up, or the summary could not be written.
 */
int ts_campaign_run(const struct ts_exp_matrix *plan, const struct ts_campaign_opts *o,
		    const struct ts_campaign_executor *ex, const struct ts_campaign_report *rep,
		    struct ts_campaign_verdict *v);

/*
 * ts_campaign_status - exp run's exit status for @v: 1 when the campaign
 * failed, a run failed or a check failed, and under --strict when an
 * emulator fell behind or a configuration ran under TCG; 128 + the signal
 * when a signal stopped it; else 0 (a skipped congestion control is
 * reported, not a failure).
 */
int ts_campaign_status(const struct ts_campaign_verdict *v);

/*
 * ts_campaign_check_jobs - may @jobs runs at once, @per_job CPUs each (0:
 * 2), be given CPUs of their own out of @ncpus? 0, or -EINVAL with @err
 * saying how many fit.
 */
int ts_campaign_check_jobs(unsigned jobs, unsigned per_job, size_t ncpus, struct ts_err *err);

/*
 * ts_campaign_summarise - summarise @dir again from its result.json files
 * into @s and write its summary.json, .csv and .md. 0 (free @s with
 * ts_exp_summary_free), or -errno with @err (@s freed).
 */
int ts_campaign_summarise(const char *dir, struct ts_exp_summary *s, struct ts_err *err);

/*
 * ts_campaign_rootless - for a user without root or sudo, enter a user
 * namespace before the first run, while the process is single-threaded
 * still, as the wrapper does: every run's wrapper and agents then run
 * rootless inside it (docs/rootless.md). 0 (also when root), or -errno
 * with @err.
 */
int ts_campaign_rootless(struct ts_err *err);

#endif

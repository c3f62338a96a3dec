/* SPDX-License-Identifier: MIT */
/*
 * The exp subcommands that work on results (written by exp run): Flent
 * files, reports, resume, shards and merge. Dispatched from cmd_exp.c.
 */
#ifndef TS_CLI_CMD_EXP_RESULTS_H
#define TS_CLI_CMD_EXP_RESULTS_H

#include <stddef.h>

#include <signal.h>
#include <stdbool.h>

#include "results/expdir.h"
#include "plan/matrix.h"

int cmd_exp_flent(int argc, char **argv);
int cmd_exp_resume(int argc, char **argv);
int cmd_exp_report(int argc, char **argv);
int cmd_exp_merge(int argc, char **argv);

/* Summarise @dir again from its result.json files and write its summary.*; -errno with @err. */
int ts_exp_summarise_dir(const char *dir, char *err, size_t errlen);

/* exp run's options for results (--shard, --jobs; resume's --resume, --force). */
struct exp_results {
	struct ts_exp_shard shard; /* {1, 1}: the whole matrix */
	bool shard_given;
	unsigned jobs;
	unsigned cpus_per_job; /* 0: 2 (the shaper and its flows); 1: guests in virtual time */
	bool jobs_given;       /* exp list refuses it: nothing is carried out */
	bool resume, force;
};

/* The argp child reading them; its input is a struct exp_results. */
extern const struct argp exp_results_argp;

/*
 * Resume: may @out be resumed with @plan from the spec of SHA-256 @sha? The
 * recorded spec hash and run list must match (unless --force); the
 * recorded shard is taken when none was given. 1 (printed) when not.
 */
int exp_results_check_resume(struct exp_results *x, const char *out,
			     const struct ts_exp_matrix *plan, const char *sha);

/* After experiment.json is written: the spec copied beside it, its shard recorded. 1 on error. */
int exp_results_after_plan(const struct exp_results *x, const char *out, const char *spec_path);

/* Is @run to be carried out: in the shard and, resuming, not done already? */
bool exp_results_selected(const struct exp_results *x, const struct ts_exp_run *run,
			  const char *out);

/* Before @run: resuming, its partial directory is removed. 1 (printed) on error. */
int exp_results_before_run(const struct exp_results *x, const struct ts_exp_run *run,
			   const char *out);

/* After @run wrote @rundir: its Flent file, then its done record. 1 (printed) on error. */
int exp_results_after_run(const struct ts_exp_run *run, const char *rundir);

/* --jobs N: 1 (printed, saying why) when N runs would need more than half the usable CPUs. */
int exp_results_check_jobs(const struct exp_results *x);

/* What exp run's loop does for one run, for exp_results_run_jobs. */
struct exp_job_ops {
	void *ctx;
	bool (*wanted)(void *ctx, const struct ts_exp_run *run);
	/* In the job's own process, pinned to its CPUs: carry @run out; non-zero when it could not. */
	int (*run)(void *ctx, const struct ts_exp_run *run, char *result, size_t rlen);
	/* Back in exp run: @run (the @pos-th of @total) ended after @took_s seconds. */
	void (*finished)(void *ctx, const struct ts_exp_run *run, size_t pos, size_t total,
			 double took_s);
};

/*
 * exp_results_run_jobs - carry out the wanted runs of @plan, in order, up to
 * x->jobs at once, each in a child process pinned to two CPUs of its own;
 * nothing new starts once *@stop is set. 1 (printed) when a run could not
 * be carried out or a job could not start.
 */
int exp_results_run_jobs(const struct exp_results *x, const struct ts_exp_matrix *plan,
			 const struct exp_job_ops *ops, volatile sig_atomic_t *stop);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The exp subcommands that work on results (written by exp run): Flent
 * files, reports, resume, shards and merge. Dispatched from cmd_exp.c.
 */
#ifndef TS_CLI_CMD_EXP_RESULTS_H
#define TS_CLI_CMD_EXP_RESULTS_H

#include <stddef.h>

#include <stdbool.h>

#include "exp/expdir.h"
#include "exp/matrix.h"

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

#endif

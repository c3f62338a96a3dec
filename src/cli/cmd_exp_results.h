/* SPDX-License-Identifier: MIT */
/*
 * The exp subcommands that work on results (written by exp run): Flent
 * files, reports, resume, shards and merge. Dispatched from cmd_exp.c.
 */
#ifndef TS_CLI_CMD_EXP_RESULTS_H
#define TS_CLI_CMD_EXP_RESULTS_H

#include <stddef.h>

#include <stdbool.h>

#include "results/expdir.h"
#include "plan/matrix.h"

int cmd_exp_flent(int argc, char **argv);
int cmd_exp_resume(int argc, char **argv);
int cmd_exp_report(int argc, char **argv);
int cmd_exp_merge(int argc, char **argv);

/* exp run's options for results (--shard, --jobs; resume's --resume, --force). */
struct exp_results {
	struct ts_exp_shard shard; /* {1, 1}: the whole matrix */
	bool shard_given;
	unsigned jobs;
	bool jobs_given; /* exp list refuses it: nothing is carried out */
	bool resume, force;
};

/* The argp child reading them; its input is a struct exp_results. */
extern const struct argp exp_results_argp;

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Merging shard directories: the directories written by exp run --shard
 * i/N (on other machines, in a CI matrix, a Slurm array or a Kubernetes
 * Indexed Job) combined into one experiment directory that holds every
 * run of the matrix exactly once, as if one exp run had written it; the
 * summaries are then computed from the merged runs by the same code that
 * an unsharded exp run uses.
 */
#ifndef TS_RESULTS_MERGE_H
#define TS_RESULTS_MERGE_H

#include <stddef.h>
#include <stdio.h>

#include "tasshape/err.h"

/*
 * ts_exp_merge - merge @dirs (@ndirs experiment directories of the same
 * spec, each with its experiment.json) into @out, which must not exist or
 * be empty, and summarise it (summary.json, summary.csv, summary.md).
 * Every run of the matrix must be done (its done record intact) in exactly
 * one of @dirs: otherwise nothing is written and the runs that overlap
 * (done in two directories) and the runs that are missing (done in none; a
 * partial copy is named with why it does not count) are listed on @msg,
 * one a line. Run directories are copied, never hard-linked (a link would
 * stay its author's to change), and what is copied belongs to the invoking
 * user; each copy is checked against its done record and its result.json
 * read (a bad value is named in the shard's file). Everything is written
 * into a private directory beside @out (io/outfile.h, ts_out_stage_begin),
 * renamed to @out only when all of it is written: a merge refused at any
 * point leaves @out as it was. At most TS_EXP_MAX_RUNS runs and
 * TS_EXP_SUM_MAX_SKIPPED skipped controls per directory (-E2BIG). Returns
 * 0; -EINVAL (refused: spec differs, overlap, missing, a bad result), or
 * another negative errno, with @err saying why in one line.
 */
int ts_exp_merge(const char *out, const char *const *dirs, size_t ndirs, FILE *msg,
		 struct ts_err *err);

#endif

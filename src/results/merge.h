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

/*
 * ts_exp_merge - merge @dirs (@ndirs experiment directories of the same
 * spec, each with its experiment.json) into @out, which must not exist or
 * be empty. Every run of the matrix must be done (its done record intact)
 * in exactly one of @dirs: otherwise nothing is written and the runs
 * that overlap (done in two directories) and the runs that are missing
 * (done in none; a partial copy is named with why it does not count) are
 * listed on @msg, one a line. Run directories are hard-linked where the
 * file system allows, copied otherwise, and checked against their done
 * record in @out. Returns 0; -EINVAL (refused: spec differs, overlap,
 * missing) or another negative errno, with @err saying why in one line.
 */
int ts_exp_merge(const char *out, const char *const *dirs, size_t ndirs, FILE *msg, char *err,
		 size_t errlen);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The planner: a parsed spec expanded into its configurations (the
 * matrix) and the ordered list of runs (configurations x repetitions).
 * Pure and deterministic: the same spec, options and seed give the same
 * configurations, ids and order, so `exp list` shows exactly what `exp
 * run` will do and a shard of the list can run anywhere.
 */
#ifndef TS_PLAN_MATRIX_H
#define TS_PLAN_MATRIX_H

#include <stdint.h>
#include <stdio.h>

#include "tasshape/err.h"

#include "plan/expspec.h"

#define TS_EXP_MAX_ONLY 32

/*
 * Limits of a plan, checked before anything is allocated for it. A spec at
 * the parser's own limits (64 ccas, 32 links, 9 tests, 17 kernels) has
 * 313,344 configurations: 109 days for one 30-second repetition. The
 * paper behind this tool ran 810 runs; a campaign of 100,000 runs of 30 s
 * is five weeks on one machine, and its plan about 90 MB.
 */
#define TS_EXP_MAX_CONFIGS 100000 /* configurations of the spec's matrix, before --only */
#define TS_EXP_MAX_RUNS	   100000 /* configurations kept x repetitions */

/* Command-line overrides of the spec; zero fields keep the spec's value. */
struct ts_exp_matrix_opts {
	ts_ns_t length, delay;
	int delay_set; /* --delay 0 is a real value */
	unsigned repetitions;
	size_t nonly;
	const char *only[TS_EXP_MAX_ONLY]; /* "AXIS=VALUE": keep configurations with that value */
};

/* One configuration: a point of the matrix; every repetition of it has the same id. */
struct ts_exp_config {
	char *id;		/* "cca=bbr,link=fiveg,test=rrul" (directory-safe) */
	struct ts_exp_run tmpl; /* the run, with rep, index and seed still 0 */
};

struct ts_exp_matrix {
	const struct ts_exp_spec *spec; /* borrowed: must outlive the plan */
	unsigned repetitions;
	size_t nconfigs;
	struct ts_exp_config *configs; /* matrix order: first axis outermost */
	size_t nruns;
	struct ts_exp_run *runs; /* run order; strings point into configs and spec */
};

/*
 * ts_exp_matrix_build - expand @spec with @opts (may be NULL) into @plan.
 * tas_shift multiplies only the cca=tas configurations. Runs: repetition
 * rounds one after the other (every configuration once in round k before
 * any in round k+1), each round in matrix order, or for order = shuffle in
 * a random order drawn from a generator seeded with the spec's seed. Run
 * k of a configuration gets seed = spec seed + k. Returns 0, or -EINVAL
 * with @err set (an --only naming no axis or no value of it, two
 * configurations with the same id, a matrix larger than TS_EXP_MAX_CONFIGS
 * or more runs than TS_EXP_MAX_RUNS, found before any allocation, a seed
 * whose seed + repetitions passes 2^64 - 1), or -ENOMEM.
 */
int ts_exp_matrix_build(const struct ts_exp_spec *spec, const struct ts_exp_matrix_opts *opts,
			struct ts_exp_matrix *plan, struct ts_err *err);

void ts_exp_matrix_free(struct ts_exp_matrix *plan);

/*
 * ts_exp_matrix_count - how many configurations @spec's matrix has, all of
 * them (@opts NULL) or those --only in @opts keeps; computed from the axes
 * alone, without expanding anything (at most 64^5, so no overflow).
 */
uint64_t ts_exp_matrix_count(const struct ts_exp_spec *spec, const struct ts_exp_matrix_opts *opts);

/*
 * ts_exp_matrix_shard - keep only shard @i of @n (1 <= i <= n): the runs at
 * positions i, i + n, i + 2n, ... of the order. Indexes are kept, so the
 * shards' results merge into the same numbering. -EINVAL for a bad i/n.
 */
int ts_exp_matrix_shard(struct ts_exp_matrix *plan, unsigned i, unsigned n);

/* The configuration of @run (same config_id), or NULL. */
const struct ts_exp_config *ts_exp_matrix_config(const struct ts_exp_matrix *plan,
						 const struct ts_exp_run *run);

/*
 * ts_exp_id_value - @value as configuration ids write it, into @buf:
 * characters outside [A-Za-z0-9._:+-] replaced ('/' by '-', others by
 * '_'), bpf:DIR/NAME.bpf.o shortened to bpf:NAME. Returns @buf.
 */
const char *ts_exp_id_value(char *buf, size_t len, const char *value);

/* Does @given name the axis value @raw, as written in the spec or in its id form ("9-10")? */
int ts_exp_value_matches(const char *raw, const char *given);

/* The value of axis @axis in @run, or NULL when the run does not have that axis. */
const char *ts_exp_run_axis(const struct ts_exp_run *run, const char *axis);

/* Print the run list, one run a line, in order (the output of `tasshape exp list`). */
void ts_exp_matrix_print(const struct ts_exp_matrix *plan, FILE *f);

#endif

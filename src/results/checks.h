/* SPDX-License-Identifier: MIT */
/*
 * The checks of one command (exp run --check, exp check): every expression
 * parsed and resolved before anything is run, then evaluated on the
 * summary, each one's line and the count printed (results/check.h has the
 * grammar and the single check).
 */
#ifndef TS_RESULTS_CHECKS_H
#define TS_RESULTS_CHECKS_H

#include <stddef.h>
#include <stdio.h>

#include "tasshape/err.h"

#include "results/check.h"
#include "results/summary.h"

/*
 * ts_exp_checks_parse - parse every check of @exprs into *@out (an array
 * of @n, freed by the caller even on error). 0, or -ENOMEM / -EINVAL with
 * @err saying why (the first malformed check).
 */
int ts_exp_checks_parse(char *const *exprs, size_t n, struct ts_exp_check **out,
			struct ts_err *err);

/*
 * ts_exp_checks_resolve - resolve the checks against @pts (the plan's or a
 * summary's configurations). 0, or -EINVAL with @err (the first that fails).
 */
int ts_exp_checks_resolve(struct ts_exp_check *c, size_t n, const struct ts_exp_point *pts,
			  size_t npts, struct ts_err *err);

/*
 * ts_exp_checks_for_plan - ts_exp_checks_parse, then ts_exp_checks_resolve
 * against @plan's configurations: the checks of exp run, all found wrong
 * before any run. *@out as ts_exp_checks_parse's. 0, -ENOMEM or -EINVAL
 * with @err.
 */
int ts_exp_checks_for_plan(char *const *exprs, size_t n, const struct ts_exp_matrix *plan,
			   struct ts_exp_check **out, struct ts_err *err);

/*
 * ts_exp_checks_eval - evaluate every check on @s, one line each to @out,
 * then "checks: N, M failed" (nothing when @n is 0). The number that failed.
 */
unsigned ts_exp_checks_eval(const struct ts_exp_check *c, size_t n, const struct ts_exp_summary *s,
			    FILE *out);

/*
 * ts_exp_checks_dir - exp check: summarise the results directory @dir again
 * (from its result.json files) and evaluate the checks @exprs on it, to
 * @out. The number that failed, or a negative errno with @err when a check
 * is malformed, names no single configuration, or @dir cannot be read.
 */
long ts_exp_checks_dir(const char *dir, char *const *exprs, size_t n, FILE *out,
		       struct ts_err *err);

#endif

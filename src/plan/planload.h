/* SPDX-License-Identifier: MIT */
/* A spec file to its matrix of runs, as every exp command that plans reads it. */
#ifndef TS_PLAN_PLANLOAD_H
#define TS_PLAN_PLANLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "tasshape/err.h"

#include "io/sha256.h"
#include "plan/expspec.h"
#include "plan/matrix.h"

/*
 * ts_exp_plan_load - read the spec @path, build each link once as the
 * wrapper would, read each kernel's image and modules as a run would
 * (@kernel_files: exp run; exp list plans kernels not built yet, exp-guest
 * has not the host's files), expand the matrix with @o. Returns 0, or a
 * negative errno with @err saying why (nothing to free then). @sha holds
 * the spec's SHA-256, which @spec points to.
 */
int ts_exp_plan_load(const char *path, const struct ts_exp_matrix_opts *o, bool kernel_files,
		     struct ts_exp_spec *spec, struct ts_exp_matrix *plan,
		     char sha[2 * TS_SHA256_LEN + 1], struct ts_err *err);

#endif

/* SPDX-License-Identifier: MIT */
/* What the tasshape exp subcommands share (cmd_exp.c), used by exp run (cmd_exp_run.c). */
#ifndef TS_CLI_CMD_EXP_H
#define TS_CLI_CMD_EXP_H

#include <stdbool.h>

#include "plan/matrix.h"
#include "io/sha256.h"

/* SPEC and the planner's overrides (--length, --delay, --repetitions, --only). */
struct plan_args {
	const char *spec_path;
	struct ts_exp_matrix_opts opts;
	bool kernel_files; /* exp run: read each [kernel] section's image and modules now */
};

/* The argp child reading them; its input is a struct plan_args. */
extern const struct argp exp_plan_argp;

/*
 * Read the spec, build each link once as the wrapper would, read each
 * kernel's image and modules as a run would (@a->kernel_files: exp run;
 * exp list plans kernels not built yet, exp-guest has not the host's
 * files), expand the matrix. Prints the error and returns 1 when any of it fails (nothing
 * to free then); @sha holds the spec's SHA-256 the spec points to.
 */
int exp_load_plan(struct plan_args *a, struct ts_exp_spec *spec, struct ts_exp_matrix *plan,
		  char sha[2 * TS_SHA256_LEN + 1]);

int exp_run(int argc, char **argv);

#endif

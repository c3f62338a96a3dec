/* SPDX-License-Identifier: MIT */
/*
 * One run of `tasshape exp run` whose kernel is a [kernel NAME] section,
 * inside that kernel's VM (exec/exec_vm.h starts `tasshape exp-guest`
 * there, which calls this).
 */
#ifndef TS_EXEC_EXEC_GUEST_H
#define TS_EXEC_EXEC_GUEST_H

#include <stddef.h>
#include <stdint.h>

#include "tasshape/err.h"

#include "tasshape/units.h"

/* The run, as exp run names it on the guest's command line. */
struct ts_exp_guest_req {
	const char *spec;      /* the spec file */
	const char *config_id; /* the configuration's id in it */
	const char *rundir;    /* the shared run directory the run's files end in */
	unsigned rep;
	uint64_t seed;
	ts_ns_t length, delay;
};

/*
 * ts_exp_guest_run - plan @g->spec again with the run's length and delay,
 * find the configuration by its id, and carry the run out with the guest's
 * kernel as the running one, on a tmpfs of the guest, copying its files to
 * @g->rundir at the end (a run that could not start leaves a result.json
 * saying why). Returns 0, or -1 with @err the message to print.
 */
int ts_exp_guest_run(const struct ts_exp_guest_req *g, struct ts_err *err);

#endif

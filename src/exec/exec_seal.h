/* SPDX-License-Identifier: MIT */
/*
 * What a run in a sealed guest (virtual time, src/vm/seal.h) needs from the
 * host besides tasshape: the programs exp-guest and the run execute, and
 * the data files it reads, the spec and every file its links name (traces
 * for every link, as exp-guest re-plans and checks the whole spec), and a
 * bpf: congestion control's object file.
 */
#ifndef TS_EXEC_EXEC_SEAL_H
#define TS_EXEC_EXEC_SEAL_H

#include <stddef.h>

#include "tasshape/err.h"

#include "plan/run.h"

/* Programs every run executes (a missing one is an error) and those only some runs do. */
extern const char *const ts_exp_seal_tools[];
extern const char *const ts_exp_seal_tools_opt[];

#define TS_EXP_SEAL_MAX_FILES 256

struct ts_exp_seal_files {
	size_t n;
	char *path[TS_EXP_SEAL_MAX_FILES + 1]; /* NULL-terminated, owned */
};

/*
 * ts_exp_seal_files - the host files @run reads, its spec being @spec (an
 * absolute path), into @f: the spec, each FILE value of each link (a bundled
 * trace's name resolved as the wrapper resolves it) and a bpf: object. A
 * value naming no file is left out (exp-guest reports it). Returns 0, or a
 * negative errno with @err naming the spec or the bound.
 */
int ts_exp_seal_files(const struct ts_exp_run *run, const char *spec, struct ts_exp_seal_files *f,
		      struct ts_err *err);
void ts_exp_seal_files_free(struct ts_exp_seal_files *f);

#endif

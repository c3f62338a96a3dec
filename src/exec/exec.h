/* SPDX-License-Identifier: MIT */
/*
 * The executor: one planned run (plan/run.h) carried out on this host,
 * and its own knobs. The campaign reaches it through this header alone
 * (campaign/executor.c).
 */
#ifndef TS_EXEC_EXEC_H
#define TS_EXEC_EXEC_H

#include <stddef.h>

#include "tasshape/err.h"

#include "plan/run.h"

/*
 * ts_exp_exec_run - carry out @run, writing its files into @rundir (which
 * exists and is empty). Returns 0 when the run was carried out and
 * result.json written (a run whose flows failed or whose congestion
 * control did not match is still written, with "ok": false and the
 * reason); a negative errno with @err set when it could not be carried
 * out at all. Leaves no namespace, rule, interface or process behind.
 */
int ts_exp_exec_run(const struct ts_exp_run *run, const char *rundir, struct ts_err *err);

/*
 * ts_exp_cca_probe - can @cca (as written in the spec) run on this host?
 * Called once per distinct congestion control before the matrix starts.
 * Returns 0 when it can, -ENOENT (or another negative errno) when it
 * cannot, with @why saying exactly why ("tas: module tcp_bbr_tas not
 * loaded", "bbr3: this kernel's bbr is version 1"). Changes nothing
 * lasting on the host.
 */
int ts_exp_cca_probe(const char *cca, struct ts_err *why);

/*
 * ts_exp_exec_binary - the tasshape binary the executor runs as the
 * wrapper and as its agents (default, NULL: /proc/self/exe, this very
 * binary). For test programs that link the executor but are not tasshape.
 */
void ts_exp_exec_binary(const char *path);

#endif

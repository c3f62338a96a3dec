/* SPDX-License-Identifier: MIT */
/*
 * Where a run's files are: OUT/<config-id>/rep-<k>, one directory per
 * planned run. exp run and resume create it, merge, summary, report and
 * flent export read it back: this is the one place that spells the path,
 * so that none of them can disagree on it.
 */
#ifndef TS_RESULTS_RUNDIR_H
#define TS_RESULTS_RUNDIR_H

#include <stddef.h>

/* The name of a run directory is this prefix and the repetition's number, from 1. */
#define TS_RUNDIR_PREFIX "rep-"

/*
 * ts_rundir_path - "@out/@id/rep-@rep" into @buf (@len bytes), or
 * "@id/rep-@rep" when @out is NULL (a run named relative to its results
 * directory, in messages). Returns 0, or -ENAMETOOLONG when it does not
 * fit (@buf then holds as much as fits, NUL-terminated).
 */
int ts_rundir_path(char *buf, size_t len, const char *out, const char *id, unsigned rep);

/*
 * ts_rundir_name - "rep-@rep", the run directory's name in its
 * configuration's directory, into @buf. 0 or -ENAMETOOLONG as above.
 */
int ts_rundir_name(char *buf, size_t len, unsigned rep);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The done record of a run: <out>/<config-id>/rep-<k>/done, written last,
 * after every other file of the run, listing each file with its size and
 * SHA-256. A run counts as done only when the record exists and every
 * file it lists is there with the same bytes: a run killed half-way has
 * no record (it is redone by exp resume), and one whose files were
 * changed or truncated afterwards fails the check (and is redone too).
 *
 *   {"version": 1, "id": "cca=bbr,...", "rep": 2,
 *    "files": [{"path": "result.json", "bytes": 5120, "sha256": "9f86..."}, ...]}
 */
#ifndef TS_RESULTS_DONE_H
#define TS_RESULTS_DONE_H

#include <stddef.h>

#include "tasshape/err.h"

#define TS_DONE_FILE "done"

/*
 * A run directory holds regular files and directories only, within these
 * limits, checked while it is walked and before memory is asked for
 * (results directories are written by others too). tasshape's runs write
 * a few dozen files, a level or two deep; exp merge copies eight levels
 * (TS_COPY_MAX_DEPTH), so a deeper run could not be merged whole.
 */
#define TS_DONE_MAX_FILES 10000
#define TS_DONE_MAX_DEPTH 8

/*
 * ts_done_write - record every regular file under @rundir (its
 * subdirectories too, paths relative to @rundir, sorted) in @rundir/done,
 * replacing any older record atomically. @id and @rep are copied into the
 * record. Returns 0 or a negative errno with @err naming the file (also
 * when @rundir holds a link, FIFO or device, or exceeds the limits).
 */
int ts_done_write(const char *rundir, const char *id, unsigned rep, struct ts_err *err);

enum ts_done_state {
	TS_DONE_NONE = 0,   /* no record: not done (never finished, or killed) */
	TS_DONE_OK = 1,	    /* record present and every file matches */
	TS_DONE_BROKEN = 2, /* record present but a file is missing, changed or added */
};

/*
 * ts_done_check - the state of @rundir; for TS_DONE_BROKEN @why names the
 * first file that differs and how (a record that does not parse is
 * broken too). The directory is walked through descriptors, never
 * following a link, and every listed file is read with the safe reader
 * (io/infile.h). Returns the state, or a negative errno with @why naming
 * the file when the directory holds what tasshape never writes there and
 * does not read: a symbolic link, FIFO, device or socket, more than
 * TS_DONE_MAX_FILES files (listed or found), directories deeper than
 * TS_DONE_MAX_DEPTH; or when it cannot be read.
 */
int ts_done_check(const char *rundir, struct ts_err *why);

#endif

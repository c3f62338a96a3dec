/* SPDX-License-Identifier: MIT */
/*
 * The one way tasshape runs gnuplot (tasshape plot, exp report, trace
 * plot). tasshape runs as root and draws files from results directories
 * that other people wrote, and gnuplot is a language that can run shell
 * commands ("!cmd", system(), backquotes), so data must never become
 * gnuplot code:
 *
 *   - gnuplot reads data only from files tasshape wrote itself, or from
 *     values parsed as numbers and printed back as numbers;
 *   - every string that enters a script (a title, a label, a
 *     configuration id, a file name) goes through ts_gnuplot_quote();
 *   - gnuplot runs without a shell, with a fixed small environment (no
 *     HOME with a .gnuplot to load, no GNUPLOT_DRIVER_DIR), reads its
 *     script on standard input and writes the image to its standard
 *     output, a descriptor the caller opened: it never opens an output
 *     path itself. One gnuplot per image.
 */
#ifndef TS_IO_GNUPLOT_H
#define TS_IO_GNUPLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tasshape/err.h"
#include "tasshape/text.h"

#define TS_GNUPLOT_TIMEOUT_MS 120000 /* one image; a long run's CDF takes a few seconds */

/*
 * ts_gnuplot_quote - append @s to @b as one gnuplot single-quoted string.
 * Inside single quotes gnuplot expands nothing (no backslash escapes, no
 * backquotes, no macros) and a quote is written twice; what could still
 * end the string or the command is replaced by '?': control characters
 * (a newline would start a new command), DEL, a backquote (expanded
 * inside quotes by older gnuplot versions) and bytes that are not valid
 * UTF-8 (or are C1 controls). Valid UTF-8 text is kept. Returns 0 or
 * -ENOMEM (b->oom set).
 */
int ts_gnuplot_quote(struct ts_text *b, const char *s);

/* ts_gnuplot_available - is there a gnuplot that ts_which (io/which.h) accepts? */
bool ts_gnuplot_available(void);

/*
 * ts_gnuplot_run - run gnuplot (found by ts_which, io/which.h: never
 * under the current directory; no shell) with @script
 * (@len bytes) on its standard input and its standard output on
 * @out_fd (the image; -1: /dev/null); its messages go to our standard
 * error. Waits at most @timeout_ms for it to finish, then kills it.
 * Returns 0, or a negative errno with @err: -ENOENT gnuplot not
 * installed (or only where ts_which refuses it, which @err says), -ETIMEDOUT, -EIO it failed (exit status in the message).
 */
int ts_gnuplot_run(const char *script, size_t len, int out_fd, unsigned int timeout_ms,
		   struct ts_err *err);

/*
 * ts_gnuplot_draw - ts_gnuplot_run with the image into the output file
 * @path, created the one safe way (io/outfile.h: no link followed,
 * another user's file never replaced): gnuplot writes a temporary file
 * beside @path, renamed over it only when gnuplot succeeded, so a
 * failure leaves no half picture. Returns 0 or a negative errno with @err
 * (naming @path).
 */
int ts_gnuplot_draw(const char *script, size_t len, const char *path, unsigned int timeout_ms,
		    struct ts_err *err);

/*
 * A private directory for the data files gnuplot reads: made by mkdtemp
 * (mode 0700) under $TMPDIR (an absolute path) or /tmp, its files created
 * with O_EXCL and O_NOFOLLOW, the whole removed by ts_gnuplot_tmp_close.
 */
struct ts_gnuplot_tmp {
	char dir[256];
	int dfd; /* -1: not open */
};

/* ts_gnuplot_tmp_open - make the directory. 0 or a negative errno with @err. */
int ts_gnuplot_tmp_open(struct ts_gnuplot_tmp *t, struct ts_err *err);

/*
 * ts_gnuplot_tmp_file - create the new file @name (a plain name) in the
 * directory for writing; its full path into @path (for the script, through
 * ts_gnuplot_quote). NULL with errno set on failure.
 */
FILE *ts_gnuplot_tmp_file(struct ts_gnuplot_tmp *t, const char *name, char *path, size_t len);

/* ts_gnuplot_tmp_close - remove the files and the directory. Safe when not open. */
void ts_gnuplot_tmp_close(struct ts_gnuplot_tmp *t);

#endif

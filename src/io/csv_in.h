/* SPDX-License-Identifier: MIT */
/*
 * What the readers of tasshape's own CSV outputs (stats_in.c,
 * sockstats_in.c) share: splitting a line into fields, finding columns
 * by the header's names, and strict numbers. These files are written by
 * tasshape (stats_out.c, sockstats_out.c) but read back from result
 * directories that travel between people, so every field is checked: a
 * number is plain decimal (no sign, no hex, no "inf" or "nan", no
 * blanks), a line and its field count are bounded, and an error names
 * the file, the line and what was expected.
 */
#ifndef TS_IO_CSV_IN_H
#define TS_IO_CSV_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasshape/err.h"

#define TS_CSV_IN_LINE_MAX 4096 /* longest line (without its newline) */
#define TS_CSV_IN_COLS_MAX 64	/* most fields in a line */

/* A line split at its commas; the fields point into @buf (not terminated by '\0' there). */
struct ts_csv_in_fields {
	size_t n;
	const char *f[TS_CSV_IN_COLS_MAX];
	size_t len[TS_CSV_IN_COLS_MAX];
};

/*
 * ts_csv_in_split - split @line/@len (one line; a trailing "\n" or "\r\n"
 * is dropped) into @out. Returns 0, or -EINVAL with @err saying
 * "@name:@lineno: ..." when the line is longer than TS_CSV_IN_LINE_MAX,
 * holds a NUL byte or has more than TS_CSV_IN_COLS_MAX fields.
 */
int ts_csv_in_split(const char *line, size_t len, struct ts_csv_in_fields *out, const char *name,
		    unsigned long lineno, struct ts_err *err);

/*
 * ts_csv_in_columns - the position of each of @ncols names of @want in
 * header @h, into @col (-1 when absent). A name given twice in the header
 * is an error (-EINVAL with @err); so is a missing name whose @required
 * entry is true.
 */
int ts_csv_in_columns(const struct ts_csv_in_fields *h, const char *const *want,
		      const bool *required, size_t ncols, int *col, const char *name,
		      struct ts_err *err);

/* Called for each line of a file with its number (from 1); non-zero stops the reading. */
typedef int (*ts_csv_in_line_fn)(void *ctx, const char *line, size_t len, unsigned long lineno,
				 struct ts_err *err);

/*
 * ts_csv_in_file - call @fn for each line of @path (its "\n" removed), in
 * a fixed buffer: a line longer than TS_CSV_IN_LINE_MAX is an error
 * before it is read whole, so no file makes the reader allocate. Returns
 * 0, @fn's non-zero value, or a negative errno with @err naming @path
 * (and the line).
 */
int ts_csv_in_file(const char *path, ts_csv_in_line_fn fn, void *ctx, struct ts_err *err);

/* Does field @s/@len equal @word? */
bool ts_csv_in_is(const char *s, size_t len, const char *word);

/*
 * ts_csv_in_num - a plain non-negative decimal ("12", "0.125", "1e6",
 * "2.5E-3") into *@out, finite. Returns false for anything else
 * (empty, signs, blanks, hex, inf, nan, overflow, more than 64 bytes).
 */
bool ts_csv_in_num(const char *s, size_t len, double *out);

/* ts_csv_in_u64 - digits only, at most UINT64_MAX, into *@out; false otherwise. */
bool ts_csv_in_u64(const char *s, size_t len, uint64_t *out);

#endif

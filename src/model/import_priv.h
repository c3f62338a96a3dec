/* SPDX-License-Identifier: MIT */
/*
 * Private to the importers (import.c: the framework and the shared CSV
 * and number helpers; imp_*.c: one file per family of formats).
 */
#ifndef TASSHAPE_IMPORT_PRIV_H
#define TASSHAPE_IMPORT_PRIV_H

#include "csv.h"
#include "tasshape/trace_import.h"

#define IMP_MAX_INPUTS 2

/* A row as the dataset gave it (not merged), in ns and bit/s. */
struct imp_row {
	ts_ns_t t;
	uint64_t down, up;
	ts_ns_t delay;
};

struct ts_import {
	const struct ts_import_fmt *fmt;
	struct ts_import_opts o;
	size_t ninputs;
	char name[IMP_MAX_INPUTS][256];
	unsigned long line[IMP_MAX_INPUTS]; /* number of the line being read */
	bool failed;
	char failmsg[TS_ERR_MAX];

	/* CSV formats: the header's fields */
	bool have_header;
	size_t nfields;

	/* rows collected so far */
	struct imp_row *rows;
	size_t n, cap;

	void *priv; /* the format's own state */
};

struct imp_ops {
	int (*init)(struct ts_import *im, struct ts_err *err);
	/* @s/@len: the line without '\r', blanks at the ends trimmed, not empty */
	int (*line)(struct ts_import *im, size_t input, const char *s, size_t len,
		    struct ts_err *err);
	int (*finish)(struct ts_import *im, struct ts_series *out, struct ts_text *notes,
		      struct ts_err *err);
	void (*fini)(struct ts_import *im);
};

extern const struct imp_ops imp_mahimahi, imp_gnettrack, imp_lumos5g, imp_5gophers, imp_pensieve,
	imp_leoreplayer;

/* Record "NAME:LINE: message" for input @input, mark the import failed, return @ret. */
int imp_fail(struct ts_import *im, size_t input, struct ts_err *err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* As imp_fail, for the whole input: "NAME: message". */
int imp_fail_file(struct ts_import *im, size_t input, struct ts_err *err, int ret, const char *fmt,
		  ...) __attribute__((format(printf, 5, 6)));

/* An ops->fini that frees im->priv. */
void imp_free_priv(struct ts_import *im);

/* Append a row. Returns 0, -E2BIG (more rows than a trace may hold) or -ENOMEM. */
int imp_push(struct ts_import *im, ts_ns_t t, uint64_t down, uint64_t up, ts_ns_t delay);

/* The message of a failed imp_push (@ret) for the current line of @input; returns @ret. */
int imp_push_fail(struct ts_import *im, size_t input, int ret, struct ts_err *err);

/*
 * Copy the collected rows into @out (times from the first row's), with
 * period = last row + @last_len, or the lower median interval between
 * rows when @last_len is 0 (as the CSV reader does). Returns 0, -EINVAL
 * (no rows: "NAME: no data rows") or -ENOMEM.
 */
int imp_rows_to_series(struct ts_import *im, ts_ns_t last_len, struct ts_series *out,
		       struct ts_err *err);

/* ---- CSV helpers ---- */

/* Number of comma-separated fields. */
size_t imp_nfields(const char *s, size_t len);

/* Index of the header field named @name (any case), or -1. */
long imp_col(const char *s, size_t len, const char *name);

/*
 * Parse a non-negative decimal field for column @col with value scaled by
 * 10^@pow10 into *@out (e.g. kbit/s with pow10 3 gives bit/s). Errors are
 * "COL is negative", "COL: expected a number, got 'V'", "COL 'V' is too
 * large" (above @max). Returns 0 or -EINVAL / -ERANGE via imp_fail.
 */
int imp_number(struct ts_import *im, size_t input, const char *col, const char *f, size_t flen,
	       int pow10, uint64_t max, uint64_t *out, struct ts_err *err);

/* Quote @s for a message (at most 40 bytes, control bytes as '?'). */
const char *imp_quote(char *buf, size_t size, const char *s, size_t len);

#define IMP_RATE_MAX 10000000000000ull /* 10 Tbit/s: catches a wrong unit */

#endif

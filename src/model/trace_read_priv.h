/* SPDX-License-Identifier: MIT */
/*
 * Private to the trace readers (trace_read.c dispatches lines,
 * trace_mahimahi.c and trace_csv.c parse them). Not part of the API.
 */
#ifndef TASSHAPE_TRACE_READ_PRIV_H
#define TASSHAPE_TRACE_READ_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasshape/err.h"
#include "tasshape/time.h"
#include "tasshape/trace.h"

/*
 * Longest accepted line. No trace line is anywhere near it; the limit
 * keeps a binary file without newlines from growing the loader's buffer.
 */
#define TR_LINE_MAX 65536

/*
 * Longest trace, the same for both formats: mahimahi timestamps are
 * 32-bit milliseconds (49.7 days), and a CSV trace may not be longer.
 */
#define TR_PERIOD_MAX ((ts_ns_t)UINT32_MAX * TS_NSEC_PER_MSEC)

/*
 * Highest capacity a trace may give, the same for every reader (CSV rows,
 * const:RATE): it catches a wrong unit, not a plausible value.
 */
#define TR_RATE_MAX 10000000000000ull /* 10 Tbit/s */

/*
 * Most entries a trace may hold: mahimahi distinct milliseconds, CSV rows
 * (2.8 hours at 1 ms). It bounds memory (at most about 0.6 GB for a CSV
 * with both directions, delay and loss) and the time a runaway file or
 * conversion takes; no public trace comes near it.
 */
#define TR_ENTRIES_MAX 10000000u

struct tr_csv;

struct ts_trace_reader {
	char name[sizeof(((struct ts_trace *)0)->name)];
	enum ts_trace_format fmt; /* TS_FMT_AUTO until the first content line */
	bool detected;		  /* fmt was guessed, not forced (for hints) */
	unsigned long line;	  /* number of the line being read, from 1 */
	bool failed;
	char failmsg[TS_ERR_MAX]; /* the first error, repeated on later calls */

	ts_ns_t duration; /* from "# duration=...", valid if duration_line */
	unsigned long duration_line;

	/* mahimahi: run-length opportunities, grown geometrically */
	struct ts_trace_opp *opps;
	size_t n, cap;
	unsigned long last_line; /* line of opps[n - 1] */

	struct tr_csv *csv;
};

/*
 * tr_fail - record "NAME:LINE: <message>" in @err and in the reader,
 * mark the reader failed and return @ret (a negative errno).
 */
int tr_fail(struct ts_trace_reader *r, struct ts_err *err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* tr_fail_at - as tr_fail, for line @line instead of the current one. */
int tr_fail_at(struct ts_trace_reader *r, struct ts_err *err, int ret, unsigned long line,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* tr_fail_file - as tr_fail, for the whole file: "NAME: <message>". */
int tr_fail_file(struct ts_trace_reader *r, struct ts_err *err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * tr_quote - copy at most 40 bytes of @s into @buf (NUL-terminated) for a
 * message, with control and non-ASCII bytes shown as '?' and "..." when
 * cut. Returns @buf.
 */
char *tr_quote(char *buf, size_t size, const char *s, size_t len);

/* A new empty trace named @name, or NULL when out of memory. */
struct ts_trace *tr_trace_new(const char *name, enum ts_trace_kind kind);

/*
 * mahimahi reader (trace_mahimahi.c). @s/@len is a trimmed, non-empty,
 * non-comment line. tr_mm_finish hands the trace to *@out on success.
 */
int tr_mm_line(struct ts_trace_reader *r, const char *s, size_t len, struct ts_err *err);
int tr_mm_finish(struct ts_trace_reader *r, struct ts_trace **out, struct ts_err *err);

/*
 * CSV reader (trace_csv.c). tr_csv_line takes the header first, then
 * rows; tr_csv_comment sees every comment line of any format (for the
 * "# duration=" directive). tr_csv_free frees what tr_csv_line built.
 */
int tr_csv_line(struct ts_trace_reader *r, const char *s, size_t len, struct ts_err *err);
int tr_csv_comment(struct ts_trace_reader *r, const char *s, size_t len, struct ts_err *err);
int tr_csv_finish(struct ts_trace_reader *r, struct ts_trace **down, struct ts_trace **up,
		  struct ts_err *err);
void tr_csv_free(struct tr_csv *c);

/*
 * tr_parse_decimal - parse the whole of @s/@len as an unsigned decimal
 * "[digits][.digits][(e|E)[+|-]digits]" (at least one mantissa digit)
 * and store round-half-up(value * 10^@pow10) in *@out. Exact: no
 * floating point. Returns 0, -EINVAL on a syntax error (including a sign
 * or "nan"/"inf") or -ERANGE when the result exceeds @max.
 */
int tr_parse_decimal(const char *s, size_t len, int pow10, uint64_t max, uint64_t *out);

#endif

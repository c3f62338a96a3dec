/* SPDX-License-Identifier: MIT */
/*
 * Small helpers every comma-separated reader of the model shares: the
 * native trace CSV (trace_csv.c), the Wi-Fi PHY-rate CSV
 * (wifi6_phy_trace.c) and the dataset importers (import.c, imp_*.c).
 * One definition of a field, of trimming and of the "typical row
 * interval", so the readers cannot disagree about a file.
 *
 * A field is what lies between two commas; quoting is the simple kind
 * the datasets use (a field may be wrapped in one pair of double quotes;
 * a quoted comma is not supported). Trimming removes blanks (space, tab)
 * and a carriage return at either end, then one pair of double quotes.
 */
#ifndef TS_MODEL_CSV_H
#define TS_MODEL_CSV_H

#include <stdbool.h>
#include <stddef.h>

#include "tasshape/time.h"

/* @c in lower case, if it is an ASCII upper-case letter. */
char ts_csv_lower(char c);

/* Is @s/@len equal to @word (given in lower case), ignoring ASCII case? */
bool ts_csv_ieq(const char *s, size_t len, const char *word);

/* Does @s/@len contain @word (given in lower case), ignoring ASCII case? */
bool ts_csv_icontains(const char *s, size_t len, const char *word);

/* Trim blanks and CR at both ends (of a field or a whole line). */
void ts_csv_trim_blanks(const char **s, size_t *len);

/* ts_csv_trim_blanks, then one pair of double quotes around the rest. */
void ts_csv_trim(const char **s, size_t *len);

/* Number of fields of a line: commas + 1. */
size_t ts_csv_count_fields(const char *s, size_t len);

/*
 * ts_csv_field - field @k (0-based) of @s/@len, trimmed, into @f/@flen.
 * Returns false (leaving @f/@flen alone) when the line has fewer fields.
 */
bool ts_csv_field(const char *s, size_t len, size_t k, const char **f, size_t *flen);

/*
 * ts_median_gap - the lower median of the @n - 1 intervals between
 * consecutive times of @n >= 2 rows: the length of a typical row, one
 * that occurs in the file and is robust to a gap. The rows are an array
 * of structs of @size bytes whose ts_ns_t time lies @t_offset bytes in
 * (use TS_MEDIAN_GAP). Returns 0, or -ENOMEM; -EINVAL when @n < 2.
 */
int ts_median_gap(const void *rows, size_t n, size_t size, size_t t_offset, ts_ns_t *out);

#define TS_MEDIAN_GAP(rows, n, out)                                                                \
	ts_median_gap((rows), (n), sizeof(*(rows)), offsetof(__typeof__(*(rows)), t), (out))

#endif

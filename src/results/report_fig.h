/* SPDX-License-Identifier: MIT */
/*
 * exp report's pictures and report.md (results/report_make.c is the entry),
 * shared by the files that draw them: the report being written, one
 * figure (PNG, SVG and its entry in report.md), the names of its files.
 */
#ifndef TS_RESULTS_REPORT_FIG_H
#define TS_RESULTS_REPORT_FIG_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "io/gnuplot.h"
#include "results/report.h"

#define TS_REP_REF_LEN (PATH_MAX + 300)

/* The report being written. */
struct ts_rep_out {
	const char *dir, *out;
	const char *qq_ref; /* the Q-Q plot's reference configuration (AXIS=VALUE,...) */
	FILE *md;
	unsigned figures, nodata;
	int bad; /* a picture was not drawn, or an input file was malformed */
	void (*say)(void *ctx, const char *msg); /* a problem, said as it is found */
	void *ctx;
};

/* ts_rep_say - a message (printf @fmt) through @r->say. */
void ts_rep_say(const struct ts_rep_out *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ts_rep_open_data - create the report's data file NAME.dat; NULL (said why) on failure. */
FILE *ts_rep_open_data(const struct ts_rep_out *r, const char *name);

/*
 * ts_rep_figure - plot @body twice, as NAME.png and NAME.svg, and add it to report.md;
 * @nodata: a picture that says why instead. A picture not drawn sets @r->bad.
 */
void ts_rep_figure(struct ts_rep_out *r, const char *name, const char *title,
		   const struct ts_text *body, const char *nodata);

/*
 * ts_rep_stem - the stem of a figure's files: @test, every character but
 * [A-Za-z0-9_+=,.-] (and a leading dot) as '_', then @suffix (printf) into @buf.
 */
void ts_rep_stem(char *buf, size_t len, const char *test, const char *suffix, ...)
	__attribute__((format(printf, 4, 5)));

/* ts_rep_crowded - why @t's per-configuration figures are not drawn (into @buf), or NULL. */
const char *ts_rep_crowded(const struct ts_rep_test *t, char *buf, size_t len);

/* ts_rep_file_ref - the data file NAME.dat of the report, as a quoted gnuplot string. */
void ts_rep_file_ref(struct ts_text *b, const struct ts_rep_out *r, const char *name);

/*
 * ts_rep_label - configuration @i of @t named by what sets it apart: its id without the
 * axis=value items all of @t's configurations share (the whole id when none is left or
 * @t has one configuration), into @buf (@len > 0, always terminated).
 */
void ts_rep_label(const struct ts_rep_test *t, size_t i, char *buf, size_t len);

/* ts_rep_ids_var - the configurations' labels as a gnuplot array ids[1..n], for the keys. */
void ts_rep_ids_var(struct ts_text *b, const struct ts_rep_test *t);

/* The figures of one test: per configuration, and of its first run. */
void ts_rep_box_figures(struct ts_rep_out *r, const struct ts_rep_test *t);
void ts_rep_qq_figure(struct ts_rep_out *r, const struct ts_rep_test *t);
void ts_rep_cdf_scatter_figures(struct ts_rep_out *r, const struct ts_rep_test *t);
void ts_rep_run_figures(struct ts_rep_out *r, const struct ts_rep_test *t);

#endif

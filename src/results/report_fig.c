/* SPDX-License-Identifier: MIT */
/*
 * One figure of exp report: its gnuplot script drawn twice (PNG, SVG) by
 * io/gnuplot.h, one process per picture, and its entry in report.md; the
 * names of its files, which come from the results directory and so are
 * made safe here. Every string that enters a script goes through
 * ts_gnuplot_quote().
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "io/gnuplot.h"
#include "io/md.h"
#include "io/outfile.h"
#include "results/report_fig.h"

void ts_rep_say(const struct ts_rep_out *r, const char *fmt, ...)
{
	char msg[TS_REP_REF_LEN + TS_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->say(r->ctx, msg);
}

FILE *ts_rep_open_data(const struct ts_rep_out *r, const char *name)
{
	char path[TS_REP_REF_LEN];
	struct ts_err err;

	snprintf(path, sizeof(path), "%s/%s.dat", r->out, name);
	return ts_out_fopen(path, &err);
}

/* One picture: the script @b into the file @path. Returns 0 or -1 (said why). */
static int draw(const struct ts_rep_out *r, const char *path, const struct ts_text *b)
{
	struct ts_err err;

	if (b->oom) {
		ts_rep_say(r, "%s: out of memory", path);
		return -1;
	}
	if (ts_gnuplot_draw(b->p, b->len, path, TS_GNUPLOT_TIMEOUT_MS, &err) < 0) {
		ts_rep_say(r, "%s", err.msg);
		return -1;
	}
	return 0;
}

/* Plot @body twice, as NAME.png and NAME.svg; @nodata: a picture that says why instead. */
void ts_rep_figure(struct ts_rep_out *r, const char *name, const char *title,
		   const struct ts_text *body, const char *nodata)
{
	int svg;

	for (svg = 0; svg < 2; svg++) {
		char path[TS_REP_REF_LEN];
		struct ts_text b;

		ts_text_init(&b);
		if (svg)
			ts_text_printf(&b, "set terminal svg size 1000,600 dynamic noenhanced font "
					   "'Sans,11'\n");
		else
			ts_text_printf(&b, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set "
					   "terminal pngcairo size 1000,600 noenhanced font "
					   "'Sans,10' } else { set terminal png size 1000,600 "
					   "noenhanced }\n");
		ts_text_printf(&b, "set title ");
		ts_gnuplot_quote(&b, title);
		ts_text_printf(&b, "\n");
		if (nodata) {
			ts_text_printf(&b, "unset border\nunset tics\nunset key\nset label 1 ");
			ts_gnuplot_quote(&b, nodata);
			ts_text_printf(&b, " at graph 0.5, 0.5 center font ',16'\nplot [0:1] [0:1] "
					   "NaN notitle\n");
		} else {
			ts_text_printf(&b, "set grid\n");
			ts_text_add(&b, body->p, body->len);
			b.oom |= body->oom;
		}
		snprintf(path, sizeof(path), "%s/%s.%s", r->out, name, svg ? "svg" : "png");
		if (draw(r, path, &b))
			r->bad = 1;
		ts_text_fini(&b);
	}
	/* The title holds the test's name (data); the file names are stems (below). */
	fputs("\n### ", r->md);
	ts_md_escape(r->md, title);
	fputs("\n\n![", r->md);
	ts_md_escape(r->md, title);
	fprintf(r->md, "](%s.png)\n\n[SVG](%s.svg) · data: [%s.dat](%s.dat)", name, name, name,
		name);
	if (nodata) {
		fputs(" · **no data**: ", r->md);
		ts_md_escape(r->md, nodata);
	}
	fputc('\n', r->md);
	r->figures++;
	if (nodata)
		r->nodata++;
}

/*
 * The stem of a figure's files: the test's name, which comes from the results directory,
 * with every character but [A-Za-z0-9_+=,.-] (and a leading dot) as '_', so that it names
 * a file in the report directory and nothing else; then @suffix, @arg.
 */
void ts_rep_stem(char *buf, size_t len, const char *test, const char *suffix, ...)
{
	static const char ok[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+=,.-";
	size_t n = 0;
	va_list ap;

	for (; *test && n + 1 < len && n < 100; test++, n++)
		buf[n] = strchr(ok, *test) && !(n == 0 && *test == '.') ? *test : '_';
	buf[n] = '\0';
	va_start(ap, suffix);
	vsnprintf(buf + n, len - n, suffix, ap);
	va_end(ap);
}

/*
 * Why test @t's per-configuration figures are not drawn (into @buf), or NULL: more
 * configurations than one picture can show (TS_REP_FIGURE_MAX); their .dat files hold them.
 */
const char *ts_rep_crowded(const struct ts_rep_test *t, char *buf, size_t len)
{
	if (t->n <= TS_REP_FIGURE_MAX)
		return NULL;
	snprintf(buf, len,
		 "%zu configurations, more than the %d one figure shows: the numbers are in the "
		 ".dat file",
		 t->n, TS_REP_FIGURE_MAX);
	return buf;
}

/* The data file NAME.dat of the report, as a quoted gnuplot string, into @b. */
void ts_rep_file_ref(struct ts_text *b, const struct ts_rep_out *r, const char *name)
{
	char path[TS_REP_REF_LEN];

	snprintf(path, sizeof(path), "%s/%s.dat", r->out, name);
	ts_gnuplot_quote(b, path);
}

/* Whether "axis=value" item @it (@n bytes) is one of the comma-separated items of @id. */
static int id_has_item(const char *id, const char *it, size_t n)
{
	const char *p = id;

	for (;;) {
		size_t m = strcspn(p, ",");

		if (m == n && !memcmp(p, it, n))
			return 1;
		if (!p[m])
			return 0;
		p += m + 1;
	}
}

/*
 * The label of configuration @i of test @t: its id without the axis=value items every
 * configuration of the test shares (the test, a kernel they all run), so that a key or an
 * axis label says what differs; the whole id when nothing is left or the test has one
 * configuration. Always terminated, cut at @len - 1 bytes.
 */
void ts_rep_label(const struct ts_rep_test *t, size_t i, char *buf, size_t len)
{
	const char *p = t->c[i].id;
	size_t n = 0, k;

	buf[0] = '\0';
	for (;;) {
		size_t m = strcspn(p, ",");
		int shared = t->n > 1;

		for (k = 0; k < t->n && shared; k++)
			shared = id_has_item(t->c[k].id, p, m);
		if (!shared && n + (n > 0) + m < len) {
			if (n)
				buf[n++] = ',';
			memcpy(buf + n, p, m);
			n += m;
			buf[n] = '\0';
		}
		if (!p[m])
			break;
		p += m + 1;
	}
	if (!n)
		snprintf(buf, len, "%s", t->c[i].id);
}

/* The configurations' labels (ts_rep_label) as a gnuplot array ids[1..n], for the keys. */
void ts_rep_ids_var(struct ts_text *b, const struct ts_rep_test *t)
{
	char label[512];
	size_t i;

	ts_text_printf(b, "array ids[%zu]\n", t->n ? t->n : 1);
	for (i = 0; i < t->n; i++) {
		ts_rep_label(t, i, label, sizeof(label));
		ts_text_printf(b, "ids[%zu] = ", i + 1);
		ts_gnuplot_quote(b, label);
		ts_text_printf(b, "\n");
	}
}

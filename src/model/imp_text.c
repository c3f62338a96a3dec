/* SPDX-License-Identifier: MIT */
/*
 * Importers of plain-text traces: mahimahi pairs, Pensieve's cooked
 * traces and LeoReplayer's bandwidth + delay pairs. mahimahi-format
 * inputs go through the trace reader (same checks and messages as
 * --trace), then become rows of a bin width (see trace_conv.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_priv.h"
#include "tasshape/trace_conv.h"
#include "tasshape/trace_stats.h"
#include "trace_read_priv.h"

/* Feed a line to a trace reader; its error becomes the import's. */
static int reader_line(struct ts_import *im, struct ts_trace_reader *r, const char *s, size_t len,
		       struct ts_err *err)
{
	int ret = ts_trace_read_line(r, s, len, err);

	if (ret) {
		im->failed = true;
		snprintf(im->failmsg, sizeof(im->failmsg), "%s", err->msg);
	}
	return ret;
}

static void put_s(struct ts_text *b, ts_ns_t ns)
{
	ts_text_fixed(b, (unsigned long long)ns, 9);
	ts_text_add(b, " s", 2);
}

/* ---- mahimahi pairs ------------------------------------------------------- */

struct mm {
	struct ts_trace_reader *r[IMP_MAX_INPUTS];
};

static int mm_init(struct ts_import *im, struct ts_err *err)
{
	struct mm *m = calloc(1, sizeof(*m));
	size_t i;

	im->priv = m;
	if (!m)
		goto oom;
	for (i = 0; i < im->ninputs; i++) {
		m->r[i] = ts_trace_read_init(im->name[i], TS_FMT_MAHIMAHI);
		if (!m->r[i])
			goto oom;
	}
	return 0;
oom:
	ts_err_set(err, "out of memory");
	return -ENOMEM;
}

static void mm_fini(struct ts_import *im)
{
	struct mm *m = im->priv;
	size_t i;

	for (i = 0; m && i < IMP_MAX_INPUTS; i++)
		ts_trace_read_free(m->r[i]);
	imp_free_priv(im);
}

static int mm_line(struct ts_import *im, size_t input, const char *s, size_t len,
		   struct ts_err *err)
{
	struct mm *m = im->priv;

	return reader_line(im, m->r[input], s, len, err);
}

static int mm_finish(struct ts_import *im, struct ts_series *out, struct ts_text *notes,
		     struct ts_err *err)
{
	struct mm *m = im->priv;
	struct ts_trace *t[IMP_MAX_INPUTS] = {NULL, NULL}, *unused;
	ts_ns_t bin = im->o.bin ? im->o.bin : 100 * TS_NSEC_PER_MSEC, period = 0;
	const struct ts_trace *down, *up;
	size_t i;
	int ret = 0;

	for (i = 0; i < im->ninputs && !ret; i++) {
		ret = ts_trace_read_finish(m->r[i], &t[i], &unused, err);
		m->r[i] = NULL;
		if (!ret)
			period = ts_max(period, t[i]->period);
	}
	if (ret)
		goto out;
	if (im->ninputs == 2) {
		up = t[0];
		down = t[1];
		out->cols = TS_COL_DOWN | TS_COL_UP;
	} else {
		down = im->o.up ? NULL : t[0];
		up = im->o.up ? t[0] : NULL;
		out->cols = im->o.up ? TS_COL_UP : TS_COL_DOWN;
	}
	ret = ts_opps_to_series(down, up, bin, period, out);
	if (ret == -E2BIG)
		ret = imp_fail_file(im, 0, err, -E2BIG,
				    "more than %u rows in bins of %lld ms: use a wider --bin",
				    TR_ENTRIES_MAX, (long long)(bin / TS_NSEC_PER_MSEC));
	if (ret)
		goto out;
	ts_text_printf(notes, "imported from ");
	for (i = 0; i < im->ninputs; i++) {
		ts_text_printf(notes, "%s%s (%s, period ", i ? " and " : "", im->name[i],
			       t[i] == up ? "uplink" : "downlink");
		put_s(notes, t[i]->period);
		ts_text_add(notes, ")", 1);
	}
	ts_text_printf(notes, " (mahimahi): opportunities of 1500 bytes counted in bins of ");
	put_s(notes, bin);
	if (im->ninputs == 2 && t[0]->period != t[1]->period)
		ts_text_printf(notes, "\nthe shorter trace loops up to the longer one's period");
out:
	ts_trace_free(t[0]);
	ts_trace_free(t[1]);
	return ret;
}

const struct imp_ops imp_mahimahi = {mm_init, mm_line, mm_finish, mm_fini};

/* ---- Pensieve cooked traces ------------------------------------------------- */

struct pens {
	bool have;
	ts_ns_t prev;
	unsigned long prev_line;
	char prev_q[48];
};

static int pens_init(struct ts_import *im, struct ts_err *err)
{
	im->priv = calloc(1, sizeof(struct pens));
	if (!im->priv) {
		ts_err_set(err, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* Split on blanks: the tokens' starts and lengths; returns how many (up to 3). */
static size_t tokens(const char *s, size_t len, const char **tok, size_t *tlen)
{
	size_t i = 0, n = 0;

	while (i < len && n < 3) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == len)
			break;
		tok[n] = s + i;
		while (i < len && s[i] != ' ' && s[i] != '\t')
			i++;
		tlen[n] = (size_t)(s + i - tok[n]);
		n++;
	}
	return n;
}

static int pens_line(struct ts_import *im, size_t input, const char *s, size_t len,
		     struct ts_err *err)
{
	struct pens *p = im->priv;
	const char *tok[3];
	size_t tlen[3], n;
	uint64_t t, bps;
	char q[48];
	int ret;

	(void)input;
	if (!len)
		return 0;
	n = tokens(s, len, tok, tlen);
	/* a sign gets imp_number's message below; letters (a header) get this one */
	if (n != 2 ||
	    !((tok[0][0] >= '0' && tok[0][0] <= '9') || tok[0][0] == '.' || tok[0][0] == '-'))
		return imp_fail(im, 0, err, -EINVAL,
				"expected two numbers 'TIME_S BW_MBPS' separated by blanks (a "
				"Pensieve cooked trace), got '%s'",
				imp_quote(q, sizeof(q), s, len));
	ret = imp_number(im, 0, "time_s", tok[0], tlen[0], 9, (uint64_t)INT64_MAX, &t, err);
	if (!ret)
		ret = imp_number(im, 0, "bw_Mbps", tok[1], tlen[1], 6, IMP_RATE_MAX, &bps, err);
	if (ret)
		return ret;
	if (p->have && (ts_ns_t)t <= p->prev)
		return imp_fail(im, 0, err, -EINVAL,
				"time %s is not after %s on line %lu; times must increase",
				imp_quote(q, sizeof(q), tok[0], tlen[0]), p->prev_q, p->prev_line);
	p->have = true;
	p->prev = (ts_ns_t)t;
	p->prev_line = im->line[0];
	imp_quote(p->prev_q, sizeof(p->prev_q), tok[0], tlen[0]);
	ret = imp_push(im, (ts_ns_t)t, bps, 0, 0);
	return ret ? imp_push_fail(im, 0, ret, err) : 0;
}

static int pens_finish(struct ts_import *im, struct ts_series *out, struct ts_text *notes,
		       struct ts_err *err)
{
	int ret;

	out->cols = TS_COL_DOWN;
	ret = imp_rows_to_series(im, 0, out, err);
	if (ret)
		return ret;
	ts_text_printf(notes,
		       "imported from %s (Pensieve cooked trace): %zu rows; the last lasts the "
		       "median interval; times shifted to start at 0",
		       im->name[0], im->n);
	return 0;
}

const struct imp_ops imp_pensieve = {pens_init, pens_line, pens_finish, imp_free_priv};

/* ---- LeoReplayer bw + delay ------------------------------------------------- */

struct leo {
	struct ts_trace_reader *bw;
	ts_ns_t *delay;
	size_t nd, cap;
};

static int leo_init(struct ts_import *im, struct ts_err *err)
{
	struct leo *l = calloc(1, sizeof(*l));

	im->priv = l;
	if (l)
		l->bw = ts_trace_read_init(im->name[0], TS_FMT_MAHIMAHI);
	if (!l || !l->bw) {
		ts_err_set(err, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static void leo_fini(struct ts_import *im)
{
	struct leo *l = im->priv;

	if (l) {
		ts_trace_read_free(l->bw);
		free(l->delay);
	}
	imp_free_priv(im);
}

static int leo_line(struct ts_import *im, size_t input, const char *s, size_t len,
		    struct ts_err *err)
{
	struct leo *l = im->priv;
	uint64_t ns;
	int ret;

	if (input == 0)
		return reader_line(im, l->bw, s, len, err);
	if (!len)
		return imp_fail(im, 1, err, -EINVAL,
				"empty line: each line is the one-way delay in ms of one interval");
	ret = imp_number(im, 1, "delay", s, len, 6, 3600 * (uint64_t)TS_NSEC_PER_SEC, &ns, err);
	if (ret)
		return ret;
	if (l->nd == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		ts_ns_t *p = realloc(l->delay, cap * sizeof(*p));

		if (!p)
			return imp_fail(im, 1, err, -ENOMEM, "out of memory");
		l->delay = p;
		l->cap = cap;
	}
	l->delay[l->nd++] = (ts_ns_t)ns;
	return 0;
}

/* Mean delay over [a, b), the delay file looping with one line per @iv. */
static ts_ns_t leo_delay(const struct leo *l, ts_ns_t iv, ts_ns_t a, ts_ns_t b)
{
	__int128 sum = 0;
	ts_ns_t x = a;

	while (x < b) {
		ts_ns_t slot = x / iv, e = ts_min(b, (slot + 1) * iv);

		sum += (__int128)l->delay[(size_t)(slot % (ts_ns_t)l->nd)] * (e - x);
		x = e;
	}
	return (ts_ns_t)((sum + (b - a) / 2) / (b - a));
}

static int leo_finish(struct ts_import *im, struct ts_series *out, struct ts_text *notes,
		      struct ts_err *err)
{
	struct leo *l = im->priv;
	struct ts_trace *t = NULL, *unused;
	ts_ns_t bin = im->o.bin ? im->o.bin : 10 * TS_NSEC_PER_MSEC;
	ts_ns_t iv = im->o.delay_interval ? im->o.delay_interval : 10 * TS_NSEC_PER_MSEC;
	uint64_t *bps = NULL;
	size_t n, j;
	int ret;

	ret = ts_trace_read_finish(l->bw, &t, &unused, err);
	l->bw = NULL;
	if (ret)
		return ret;
	if (!l->nd) {
		ret = imp_fail_file(im, 1, err, -EINVAL,
				    "no delays: expected one-way delays in ms, one per line");
		goto out;
	}
	ret = ts_trace_bins(t, bin, &bps, &n);
	if (ret == -E2BIG)
		ret = imp_fail_file(im, 0, err, -E2BIG,
				    "more than %u rows in bins of %lld ms: use a wider --bin",
				    TS_TRACE_BINS_MAX, (long long)(bin / TS_NSEC_PER_MSEC));
	if (ret)
		goto out;
	out->cols = (im->o.up ? TS_COL_UP : TS_COL_DOWN) | TS_COL_DELAY;
	out->period = t->period;
	for (j = 0; j < n && !ret; j++) {
		ts_ns_t a = (ts_ns_t)j * bin, b = ts_min(a + bin, t->period);
		struct ts_series_row r = {.t = a, .delay = leo_delay(l, iv, a, b)};

		if (im->o.up)
			r.up = bps[j];
		else
			r.down = bps[j];
		ret = ts_series_add(out, &r);
	}
	if (ret)
		goto out;
	ts_text_printf(notes, "imported from %s and %s (LeoReplayer): %s capacity of ", im->name[0],
		       im->name[1], im->o.up ? "uplink" : "downlink");
	put_s(notes, t->period);
	ts_text_printf(notes, " in bins of ");
	put_s(notes, bin);
	ts_text_printf(notes, "; %zu delays of ", l->nd);
	put_s(notes, iv);
	ts_text_printf(notes, " (%s), averaged per bin",
		       (ts_ns_t)l->nd * iv == t->period ? "as long as the capacity"
		       : (ts_ns_t)l->nd * iv < t->period
			       ? "shorter than the capacity: they loop, as LeoReplayer does"
			       : "longer than the capacity: the rest is not used");
out:
	free(bps);
	ts_trace_free(t);
	return ret;
}

const struct imp_ops imp_leoreplayer = {leo_init, leo_line, leo_finish, leo_fini};

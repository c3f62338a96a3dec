/* SPDX-License-Identifier: MIT */
/*
 * The import framework: format table, line bookkeeping (numbers, binary
 * junk, line ends), error messages and the helpers the formats share.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "import_priv.h"
#include "trace_read_priv.h"

static const struct ts_import_fmt fmts[] = {
	{"mahimahi", "UP DOWN | FILE",
	 "two mahimahi traces (uplink, downlink: mm-link's order) into one CSV, or one as a "
	 "single direction",
	 1, 2, &imp_mahimahi},
	{"gnettrack", "FILE",
	 "G-NetTrack Pro CSV of the UCC 4G/5G datasets (DL_bitrate/UL_bitrate in kbit/s, State "
	 "D/I)",
	 1, 1, &imp_gnettrack},
	{"lumos5g", "FILE", "Lumos5G 1.0 CSV: one run's per-second Throughput (Mbit/s, downlink)",
	 1, 1, &imp_lumos5g},
	{"5gophers", "FILE",
	 "5Gophers 1.0 throughput CSV: one operator's <Operator>_throughput_mbps column", 1, 1,
	 &imp_5gophers},
	{"pensieve", "FILE", "Pensieve cooked trace: lines 'time_s bw_Mbps'", 1, 1, &imp_pensieve},
	{"leoreplayer", "BW DELAY",
	 "LeoReplayer bw_N.txt (mahimahi opportunities) and delay_N.txt (one-way ms per 10 ms)", 2,
	 2, &imp_leoreplayer},
};

#define NFMTS (sizeof(fmts) / sizeof(fmts[0]))

size_t ts_import_count(void)
{
	return NFMTS;
}

const struct ts_import_fmt *ts_import_at(size_t i)
{
	return i < NFMTS ? &fmts[i] : NULL;
}

static const char *fmt_name(const void *ctx, size_t i)
{
	(void)ctx;
	return fmts[i].name;
}

char *ts_import_names(char *buf, size_t len)
{
	return ts_join(buf, len, NFMTS, fmt_name, NULL, ", ");
}

const char *imp_quote(char *buf, size_t size, const char *s, size_t len)
{
	return tr_quote(buf, size, s, len);
}

static int imp_vfail(struct ts_import *im, size_t input, struct ts_err *err, int ret, bool line,
		     const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

static int imp_vfail(struct ts_import *im, size_t input, struct ts_err *err, int ret, bool line,
		     const char *fmt, va_list ap)
{
	int n;

	if (line)
		n = snprintf(im->failmsg, sizeof(im->failmsg), "%s:%lu: ", im->name[input],
			     im->line[input]);
	else
		n = snprintf(im->failmsg, sizeof(im->failmsg), "%s: ", im->name[input]);
	if (n >= 0 && (size_t)n < sizeof(im->failmsg))
		vsnprintf(im->failmsg + n, sizeof(im->failmsg) - (size_t)n, fmt, ap);
	im->failed = true;
	ts_err_set(err, "%s", im->failmsg);
	return ret;
}

int imp_fail(struct ts_import *im, size_t input, struct ts_err *err, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ret = imp_vfail(im, input, err, ret, true, fmt, ap);
	va_end(ap);
	return ret;
}

int imp_fail_file(struct ts_import *im, size_t input, struct ts_err *err, int ret, const char *fmt,
		  ...)
{
	va_list ap;

	va_start(ap, fmt);
	ret = imp_vfail(im, input, err, ret, false, fmt, ap);
	va_end(ap);
	return ret;
}

int ts_import_new(const char *fmt, const char *const *names, size_t ninputs,
		  const struct ts_import_opts *o, struct ts_import **out, struct ts_err *err)
{
	const struct ts_import_fmt *f = NULL;
	struct ts_import *im;
	char known[128];
	size_t i;
	int ret;

	*out = NULL;
	for (i = 0; i < NFMTS; i++)
		if (!strcasecmp(fmts[i].name, fmt))
			f = &fmts[i];
	if (!f) {
		ts_err_set(err, "unknown format '%s'; expected one of %s (or pcap)", fmt,
			   ts_import_names(known, sizeof(known)));
		return -EINVAL;
	}
	if (ninputs < f->min_inputs || ninputs > f->max_inputs) {
		ts_err_set(err, "%s: expected %s", f->name, f->inputs);
		return -EINVAL;
	}
	im = calloc(1, sizeof(*im));
	if (!im) {
		ts_err_set(err, "out of memory");
		return -ENOMEM;
	}
	im->fmt = f;
	im->o = *o;
	im->ninputs = ninputs;
	for (i = 0; i < ninputs; i++)
		snprintf(im->name[i], sizeof(im->name[i]), "%s", names[i]);
	ret = f->ops->init ? f->ops->init(im, err) : 0;
	if (ret) {
		ts_import_free(im);
		return ret;
	}
	*out = im;
	return 0;
}

void imp_free_priv(struct ts_import *im)
{
	free(im->priv);
	im->priv = NULL;
}

void ts_import_free(struct ts_import *im)
{
	if (!im)
		return;
	if (im->fmt->ops->fini)
		im->fmt->ops->fini(im);
	free(im->rows);
	free(im);
}

int ts_import_line(struct ts_import *im, size_t input, const char *s, size_t len,
		   struct ts_err *err)
{
	if (im->failed) {
		ts_err_set(err, "%s", im->failmsg);
		return -EINVAL;
	}
	if (input >= im->ninputs) {
		ts_err_set(err, "%s: no input %zu", im->fmt->name, input);
		return -EINVAL;
	}
	im->line[input]++;
	if (len > TR_LINE_MAX)
		return imp_fail(im, input, err, -EINVAL,
				"line longer than %d bytes: not a text file", TR_LINE_MAX);
	if (memchr(s, '\0', len))
		return imp_fail(im, input, err, -EINVAL, "NUL byte: binary data, not a %s file",
				im->fmt->name);
	if (im->line[input] == 1 && len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) {
		s += 3;
		len -= 3;
	}
	while (len && (s[len - 1] == '\r' || s[len - 1] == '\n' || s[len - 1] == ' ' ||
		       s[len - 1] == '\t'))
		len--;
	while (len && (s[0] == ' ' || s[0] == '\t')) {
		s++;
		len--;
	}
	return im->fmt->ops->line(im, input, s, len, err);
}

/*
 * A direction that is 0 in every row is a link that never delivers: the
 * trace reader refuses it, so the import does too, rather than writing a
 * file that --trace would not take.
 */
static int imp_check_nonzero(struct ts_import *im, const struct ts_series *s, struct ts_err *err)
{
	bool any[2] = {false, false};
	size_t i;
	int d;

	for (i = 0; i < s->n; i++) {
		any[0] |= s->rows[i].down > 0;
		any[1] |= s->rows[i].up > 0;
	}
	for (d = 0; d < 2; d++)
		if ((s->cols & (d ? TS_COL_UP : TS_COL_DOWN)) && !any[d])
			return imp_fail_file(im, 0, err, -EINVAL,
					     "the %s capacity is 0 in every row: a link that never "
					     "delivers",
					     d ? "uplink" : "downlink");
	return 0;
}

int ts_import_finish(struct ts_import *im, struct ts_series *out, struct ts_text *notes,
		     struct ts_err *err)
{
	int ret;

	if (im->failed) {
		ts_err_set(err, "%s", im->failmsg);
		return -EINVAL;
	}
	ret = im->fmt->ops->finish(im, out, notes, err);
	if (!ret && notes->oom)
		ret = -ENOMEM;
	if (!ret)
		ret = imp_check_nonzero(im, out, err);
	if (ret == -ENOMEM)
		ts_err_set(err, "%s: out of memory", im->name[0]);
	return ret;
}

int imp_push(struct ts_import *im, ts_ns_t t, uint64_t down, uint64_t up, ts_ns_t delay)
{
	if (im->n == TR_ENTRIES_MAX)
		return -E2BIG;
	if (im->n == im->cap) {
		size_t cap = im->cap ? im->cap * 2 : 256;
		struct imp_row *p = realloc(im->rows, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		im->rows = p;
		im->cap = cap;
	}
	im->rows[im->n].t = t;
	im->rows[im->n].down = down;
	im->rows[im->n].up = up;
	im->rows[im->n].delay = delay;
	im->n++;
	return 0;
}

int imp_push_fail(struct ts_import *im, size_t input, int ret, struct ts_err *err)
{
	if (ret == -E2BIG)
		return imp_fail(im, input, err, ret, "more than %u rows, the most a trace may hold",
				TR_ENTRIES_MAX);
	return imp_fail(im, input, err, ret, "out of memory");
}

int imp_rows_to_series(struct ts_import *im, ts_ns_t last_len, struct ts_series *out,
		       struct ts_err *err)
{
	ts_ns_t t0;
	size_t i;
	int ret;

	if (!im->n)
		return imp_fail_file(im, 0, err, -EINVAL, "no data rows");
	if (!last_len && im->n == 1)
		return imp_fail_file(im, 0, err, -EINVAL,
				     "a single row: cannot tell how long it lasts");
	if (!last_len && TS_MEDIAN_GAP(im->rows, im->n, &last_len) < 0)
		return -ENOMEM;
	t0 = im->rows[0].t;
	/* Each part checked alone first: their sum can exceed what ts_ns_t holds. */
	if (im->rows[im->n - 1].t - t0 > TR_PERIOD_MAX || last_len > TR_PERIOD_MAX ||
	    im->rows[im->n - 1].t - t0 + last_len > TR_PERIOD_MAX)
		return imp_fail_file(im, 0, err, -EINVAL, "longer than 49.7 days");
	out->period = im->rows[im->n - 1].t - t0 + last_len;
	for (i = 0; i < im->n; i++) {
		struct ts_series_row r = {.t = im->rows[i].t - t0,
					  .down = im->rows[i].down,
					  .up = im->rows[i].up,
					  .delay = im->rows[i].delay};

		ret = ts_series_add(out, &r);
		if (ret)
			return ret;
	}
	return 0;
}

size_t imp_nfields(const char *s, size_t len)
{
	size_t n = 1, i;

	for (i = 0; i < len; i++)
		n += s[i] == ',';
	return n;
}

long imp_col(const char *s, size_t len, const char *name)
{
	size_t k, n = imp_nfields(s, len), nlen = strlen(name);
	const char *f;
	size_t flen;

	for (k = 0; k < n; k++)
		if (ts_csv_field(s, len, k, &f, &flen) && flen == nlen &&
		    !strncasecmp(f, name, nlen))
			return (long)k;
	return -1;
}

int imp_number(struct ts_import *im, size_t input, const char *col, const char *f, size_t flen,
	       int pow10, uint64_t max, uint64_t *out, struct ts_err *err)
{
	char q[48];
	int ret;

	imp_quote(q, sizeof(q), f, flen);
	if (!flen)
		return imp_fail(im, input, err, -EINVAL, "%s: empty value", col);
	if (f[0] == '-')
		return imp_fail(im, input, err, -EINVAL,
				"%s is negative ('%s'); expected a value >= 0", col, q);
	ret = tr_parse_decimal(f, flen, pow10, max, out);
	if (ret == -ERANGE)
		return imp_fail(im, input, err, -ERANGE, "%s '%s' is too large (wrong unit?)", col,
				q);
	if (ret)
		return imp_fail(im, input, err, -EINVAL,
				"%s: expected a finite non-negative decimal number, got '%s'", col,
				q);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * tasshape's native trace format: a CSV whose header names each column
 * with its unit, for example "time_s,down_mbps,up_mbps,delay_ms,loss".
 * Rows are piecewise constant; both directions share the time column and
 * each gets its own copy of the delay and loss columns. Numbers are
 * parsed exactly (decimal digits to integers, no floating point), so a
 * rate written as 12.5 is 12500000 bit/s and not 12499999.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/units.h"
#include "csv.h"
#include "trace_read_priv.h"

enum csv_col {
	COL_TIME,
	COL_DOWN,
	COL_UP,
	COL_DELAY,
	COL_LOSS,
	COL_N,
};

/* Column names and the power of ten from the written unit to ns/bps/ppm. */
static const struct csv_name {
	const char *name;
	enum csv_col col;
	int pow10;
} csv_names[] = {
	{"time_s", COL_TIME, 9},    {"time_ms", COL_TIME, 6},	{"down_bps", COL_DOWN, 0},
	{"down_kbps", COL_DOWN, 3}, {"down_mbps", COL_DOWN, 6}, {"down_gbps", COL_DOWN, 9},
	{"up_bps", COL_UP, 0},	    {"up_kbps", COL_UP, 3},	{"up_mbps", COL_UP, 6},
	{"up_gbps", COL_UP, 9},	    {"delay_s", COL_DELAY, 9},	{"delay_ms", COL_DELAY, 6},
	{"delay_us", COL_DELAY, 3}, {"loss", COL_LOSS, 6},	{"loss_pct", COL_LOSS, 4},
};

#define CSV_KNOWN                                                                                  \
	"time_s or time_ms; down_ and up_ with bps, kbps, mbps or gbps; delay_s, delay_ms "        \
	"or delay_us; loss or loss_pct"

/* Limits: they catch a wrong unit, not a plausible value. */
#define CSV_RATE_MAX  TR_RATE_MAX
#define CSV_DELAY_MAX (3600 * TS_NSEC_PER_SEC) /* one hour */

struct tr_csv {
	unsigned long header_line;
	size_t nfields;
	signed char *field_col;		   /* per header field: enum csv_col, or -1 if ignored */
	const struct csv_name *col[COL_N]; /* the column found, or NULL */

	size_t n, cap;
	ts_ns_t t0;		      /* time of row 0 as written, in ns */
	struct ts_trace_row *rows[2]; /* by enum ts_trace_dir; NULL if absent */
	ts_ns_t *delay;		      /* NULL if absent */
	uint32_t *loss;		      /* NULL if absent */
	bool nonzero[2];	      /* some row of that direction is > 0 */
	char prev_time[48];	      /* time of the previous row as written */
	unsigned long prev_line;
};

static const enum ts_trace_dir csv_dirs[2] = {TS_DIR_DOWN, TS_DIR_UP};

static enum csv_col csv_dir_col(enum ts_trace_dir d)
{
	return d == TS_DIR_DOWN ? COL_DOWN : COL_UP;
}

void tr_csv_free(struct tr_csv *c)
{
	if (!c)
		return;
	free(c->field_col);
	free(c->rows[0]);
	free(c->rows[1]);
	free(c->delay);
	free(c->loss);
	free(c);
}

static unsigned int csv_digit(const char *s, size_t int_start, size_t int_len, size_t frac_start,
			      size_t j)
{
	size_t at = j < int_len ? int_start + j : frac_start + (j - int_len);

	return (unsigned int)(s[at] - '0');
}

int tr_parse_decimal(const char *s, size_t len, int pow10, uint64_t max, uint64_t *out)
{
	size_t i = 0, int_len, frac_start, frac_len = 0, k, j;
	long exp = 0, e, keep, z;
	bool exp_neg = false;
	uint64_t acc = 0;

	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	int_len = i;
	frac_start = i;
	if (i < len && s[i] == '.') {
		frac_start = ++i;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		frac_len = i - frac_start;
	}
	k = int_len + frac_len;
	if (!k)
		return -EINVAL;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t exp_start;

		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			exp_neg = s[i++] == '-';
		exp_start = i;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (exp < 1000000) /* beyond any digit count: saturate */
				exp = exp * 10 + (s[i] - '0');
		if (i == exp_start)
			return -EINVAL;
		if (exp_neg)
			exp = -exp;
	}
	if (i != len)
		return -EINVAL;
	/* value = (the k mantissa digits as an integer) * 10^e */
	e = exp - (long)frac_len + pow10;
	keep = (long)k + e; /* leading digits that form the integer part */
	for (j = 0; j < k && (long)j < keep; j++) {
		unsigned int d = csv_digit(s, 0, int_len, frac_start, j);

		if (acc > (max - d) / 10)
			return -ERANGE;
		acc = acc * 10 + d;
	}
	for (z = (long)k; z < keep && acc; z++) {
		if (acc > max / 10)
			return -ERANGE;
		acc *= 10;
	}
	/* The first dropped digit decides: exact round half up. */
	if (keep >= 0 && keep < (long)k &&
	    csv_digit(s, 0, int_len, frac_start, (size_t)keep) >= 5) {
		if (acc == max)
			return -ERANGE;
		acc++;
	}
	*out = acc;
	return 0;
}

static const char *csv_fmt_s(char *buf, size_t size, ts_ns_t ns)
{
	long long sec = ns / TS_NSEC_PER_SEC, frac = ns % TS_NSEC_PER_SEC;
	int digits = 9;

	if (!frac) {
		snprintf(buf, size, "%llds", sec);
		return buf;
	}
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	snprintf(buf, size, "%lld.%0*llds", sec, digits, frac);
	return buf;
}

int tr_csv_comment(struct ts_trace_reader *r, const char *s, size_t len, struct ts_err *err)
{
	static const struct {
		const char *unit;
		int pow10;
	} units[] = {{"s", 9}, {"ms", 6}, {"us", 3}, {"ns", 0}};
	const char *v;
	size_t i = 1, vlen, ulen, nlen;
	uint64_t ns;
	char q[48];
	int ret, u;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (len - i < 8 || !ts_csv_ieq(s + i, 8, "duration"))
		return 0;
	i += 8;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < len && s[i] == ':')
		return tr_fail(r, err, -EINVAL,
			       "write the duration as '# duration=60s' (with '=', not ':')");
	if (i == len || s[i] != '=')
		return 0; /* prose such as "# duration of the drive..." */
	v = s + i + 1;
	vlen = len - i - 1;
	ts_csv_trim(&v, &vlen);
	tr_quote(q, sizeof(q), v, vlen);
	if (r->duration_line)
		return tr_fail(r, err, -EINVAL, "duration given twice (first on line %lu)",
			       r->duration_line);
	for (ulen = 0; ulen < vlen && ulen < 3; ulen++) {
		char c = ts_csv_lower(v[vlen - 1 - ulen]);

		if (c < 'a' || c > 'z')
			break;
	}
	for (u = 0; u < 4; u++)
		if (ts_csv_ieq(v + vlen - ulen, ulen, units[u].unit))
			break;
	nlen = vlen - ulen;
	while (nlen && (v[nlen - 1] == ' ' || v[nlen - 1] == '\t'))
		nlen--; /* "60 s" */
	if (u == 4 || !nlen)
		return tr_fail(r, err, -EINVAL,
			       "expected '# duration=' and a time with unit s, ms, us or ns, such "
			       "as '# duration=60s', got '%s'",
			       q);
	ret = tr_parse_decimal(v, nlen, units[u].pow10, (uint64_t)TR_PERIOD_MAX, &ns);
	if (ret == -ERANGE)
		return tr_fail(r, err, -ERANGE, "duration '%s' is longer than 49.7 days", q);
	if (ret)
		return tr_fail(r, err, -EINVAL,
			       "expected '# duration=' and a time such as 60s or 1.5s, got '%s'",
			       q);
	if (!ns)
		return tr_fail(r, err, -EINVAL, "duration '%s' must be > 0", q);
	r->duration = (ts_ns_t)ns;
	r->duration_line = r->line;
	return 0;
}

/*
 * "MBps", "KBps", "Bps": a capital B next to a lower-case letter means
 * bytes (as in units.h); all capitals ("DOWN_MBPS") is read as bits.
 */
static bool csv_bytes_unit(const char *u, size_t len)
{
	bool big_b = false, lower = false;
	size_t i;

	for (i = 0; i < len; i++) {
		big_b |= u[i] == 'B';
		lower |= u[i] >= 'a' && u[i] <= 'z';
	}
	return big_b && lower;
}

/* Reject a rate column with an unknown unit rather than ignore it. */
static int csv_check_rate_name(struct ts_trace_reader *r, const char *f, size_t flen,
			       struct ts_err *err)
{
	const char *dir;
	size_t plen;
	char q[48];

	if (flen > 5 && ts_csv_ieq(f, 5, "down_")) {
		dir = "down";
		plen = 5;
	} else if (flen > 3 && ts_csv_ieq(f, 3, "up_")) {
		dir = "up";
		plen = 3;
	} else {
		return 0;
	}
	if (!ts_csv_icontains(f + plen, flen - plen, "bps") &&
	    !ts_csv_icontains(f + plen, flen - plen, "bit"))
		return 0;
	tr_quote(q, sizeof(q), f, flen);
	if (csv_bytes_unit(f + plen, flen - plen))
		return tr_fail(r, err, -EINVAL,
			       "column '%s': a capital B means bytes; rates are in bits per "
			       "second: %s_bps, %s_kbps, %s_mbps or %s_gbps",
			       q, dir, dir, dir, dir);
	return tr_fail(r, err, -EINVAL,
		       "column '%s': unknown rate unit; expected %s_bps, %s_kbps, %s_mbps or "
		       "%s_gbps (bit/s)",
		       q, dir, dir, dir, dir);
}

static int csv_header(struct ts_trace_reader *r, struct tr_csv *c, const char *s, size_t len,
		      struct ts_err *err)
{
	const char *p = s, *end = s + len;
	size_t f = 0, k;
	int ret;

	c->header_line = r->line;
	c->nfields = ts_csv_count_fields(s, len);
	c->field_col = malloc(c->nfields);
	if (!c->field_col)
		return tr_fail(r, err, -ENOMEM, "out of memory");
	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *fs = p;
		size_t flen = (size_t)((comma ? comma : end) - p);
		const struct csv_name *nm = NULL;

		ts_csv_trim(&fs, &flen);
		for (k = 0; k < sizeof(csv_names) / sizeof(csv_names[0]); k++)
			if (ts_csv_ieq(fs, flen, csv_names[k].name))
				nm = &csv_names[k];
		if (nm && (nm->col == COL_DOWN || nm->col == COL_UP)) {
			size_t plen = nm->col == COL_DOWN ? 5 : 3;

			/* "down_MBps": bytes, rejected just below */
			if (csv_bytes_unit(fs + plen, flen - plen))
				nm = NULL;
		}
		if (!nm) {
			ret = csv_check_rate_name(r, fs, flen, err);
			if (ret)
				return ret;
			c->field_col[f] = -1;
		} else if (c->col[nm->col]) {
			return tr_fail(r, err, -EINVAL,
				       "columns '%s' and '%s' give the same quantity; keep one",
				       c->col[nm->col]->name, nm->name);
		} else {
			c->col[nm->col] = nm;
			c->field_col[f] = (signed char)nm->col;
		}
		f++;
		if (!comma)
			break;
		p = comma + 1;
	}
	if (!c->col[COL_TIME])
		return tr_fail(r, err, -EINVAL,
			       "missing time column: expected time_s or time_ms (known columns: "
			       "%s)",
			       CSV_KNOWN);
	if (!c->col[COL_DOWN] && !c->col[COL_UP])
		return tr_fail(r, err, -EINVAL,
			       "no capacity column: expected down_<unit> and/or up_<unit> with "
			       "unit bps, kbps, mbps or gbps (bit/s; known columns: %s)",
			       CSV_KNOWN);
	return 0;
}

static int csv_grow(struct ts_trace_reader *r, struct tr_csv *c, struct ts_err *err)
{
	size_t cap = c->cap ? c->cap * 2 : 256;
	int d;

	if (cap > SIZE_MAX / sizeof(struct ts_trace_row))
		return tr_fail(r, err, -ENOMEM, "out of memory");
	/* A failure leaves the arrays grown so far merely larger than cap. */
	for (d = 0; d < 2; d++) {
		if (c->col[csv_dir_col((enum ts_trace_dir)d)]) {
			struct ts_trace_row *p = realloc(c->rows[d], cap * sizeof(*p));

			if (!p)
				return tr_fail(r, err, -ENOMEM, "out of memory");
			c->rows[d] = p;
		}
	}
	if (c->col[COL_DELAY]) {
		ts_ns_t *p = realloc(c->delay, cap * sizeof(*p));

		if (!p)
			return tr_fail(r, err, -ENOMEM, "out of memory");
		c->delay = p;
	}
	if (c->col[COL_LOSS]) {
		uint32_t *p = realloc(c->loss, cap * sizeof(*p));

		if (!p)
			return tr_fail(r, err, -ENOMEM, "out of memory");
		c->loss = p;
	}
	c->cap = cap;
	return 0;
}

static uint64_t csv_max(const struct csv_name *nm)
{
	switch (nm->col) {
	case COL_TIME:
		return INT64_MAX;
	case COL_DOWN:
	case COL_UP:
		return CSV_RATE_MAX;
	case COL_DELAY:
		return CSV_DELAY_MAX;
	default:
		return TS_PPM_ONE;
	}
}

static const char *csv_max_text(const struct csv_name *nm)
{
	switch (nm->col) {
	case COL_TIME:
		return "too large";
	case COL_DOWN:
	case COL_UP:
		return "above the limit of 10 Tbit/s (wrong unit?)";
	case COL_DELAY:
		return "above the limit of 1 hour (wrong unit?)";
	default:
		return nm->pow10 == 6 ? "above 1 (loss is a fraction; use loss_pct for percent)"
				      : "above 100 percent";
	}
}

static int csv_value(struct ts_trace_reader *r, const struct csv_name *nm, const char *s,
		     size_t len, uint64_t *out, struct ts_err *err)
{
	char q[48];
	int ret;

	ts_csv_trim(&s, &len);
	tr_quote(q, sizeof(q), s, len);
	if (!len)
		return tr_fail(r, err, -EINVAL, "%s: empty value", nm->name);
	if (s[0] == '-')
		return tr_fail(r, err, -EINVAL, "%s is negative ('%s'); expected a value >= 0",
			       nm->name, q);
	ret = tr_parse_decimal(s, len, nm->pow10, csv_max(nm), out);
	if (ret == -ERANGE)
		return tr_fail(r, err, -ERANGE, "%s '%s' is %s", nm->name, q, csv_max_text(nm));
	if (ret)
		return tr_fail(r, err, -EINVAL,
			       "%s: expected a finite non-negative decimal number, got '%s'",
			       nm->name, q);
	return 0;
}

static int csv_row(struct ts_trace_reader *r, struct tr_csv *c, const char *s, size_t len,
		   struct ts_err *err)
{
	const char *p = s, *end = s + len, *time_s = s;
	size_t f = 0, nf, time_len = 0;
	uint64_t v[COL_N] = {0};
	ts_ns_t t;
	int ret, d;

	nf = ts_csv_count_fields(s, len);
	if (nf != c->nfields)
		return tr_fail(r, err, -EINVAL,
			       "fields: %zu here, %zu in the header on line %lu (columns are "
			       "separated by ',')",
			       nf, c->nfields, c->header_line);
	for (f = 0; f < nf; f++) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t flen = (size_t)((comma ? comma : end) - p);
		int col = c->field_col[f];

		if (col >= 0) {
			ret = csv_value(r, c->col[col], p, flen, &v[col], err);
			if (ret)
				return ret;
			if (col == COL_TIME) {
				time_s = p;
				time_len = flen;
				ts_csv_trim(&time_s, &time_len);
			}
		}
		p = comma ? comma + 1 : end;
	}
	if (!c->n)
		c->t0 = (ts_ns_t)v[COL_TIME];
	t = (ts_ns_t)v[COL_TIME] - c->t0;
	if (c->n) {
		char q[48];
		ts_ns_t prev = c->rows[c->col[COL_DOWN] ? TS_DIR_DOWN : TS_DIR_UP][c->n - 1].t;

		if (t <= prev)
			return tr_fail(r, err, -EINVAL,
				       "%s %s is not after %s on line %lu; times must increase",
				       c->col[COL_TIME]->name,
				       tr_quote(q, sizeof(q), time_s, time_len), c->prev_time,
				       c->prev_line);
	}
	if (t >= TR_PERIOD_MAX)
		return tr_fail(r, err, -ERANGE,
			       "row starts more than 49.7 days after the first row");
	if (c->n == TR_ENTRIES_MAX)
		return tr_fail(r, err, -E2BIG, "more than %u rows, the most a trace may hold",
			       TR_ENTRIES_MAX);
	if (c->n == c->cap) {
		ret = csv_grow(r, c, err);
		if (ret)
			return ret;
	}
	for (d = 0; d < 2; d++) {
		if (c->rows[d]) {
			uint64_t bps = v[csv_dir_col((enum ts_trace_dir)d)];

			c->rows[d][c->n].t = t;
			c->rows[d][c->n].bps = bps;
			c->nonzero[d] |= bps > 0;
		}
	}
	if (c->delay)
		c->delay[c->n] = (ts_ns_t)v[COL_DELAY];
	if (c->loss)
		c->loss[c->n] = (uint32_t)v[COL_LOSS];
	c->n++;
	tr_quote(c->prev_time, sizeof(c->prev_time), time_s, time_len);
	c->prev_line = r->line;
	return 0;
}

int tr_csv_line(struct ts_trace_reader *r, const char *s, size_t len, struct ts_err *err)
{
	if (!r->csv) {
		r->csv = calloc(1, sizeof(*r->csv));
		if (!r->csv)
			return tr_fail(r, err, -ENOMEM, "out of memory");
		return csv_header(r, r->csv, s, len, err);
	}
	return csv_row(r, r->csv, s, len, err);
}

/*
 * The last row lasts as long as a typical row: the lower median of the
 * intervals (one that occurs in the file, and robust to a gap).
 */
static int csv_median(struct ts_trace_reader *r, const struct ts_trace_row *rows, size_t n,
		      ts_ns_t *out, struct ts_err *err)
{
	if (TS_MEDIAN_GAP(rows, n, out) < 0)
		return tr_fail_file(r, err, -ENOMEM, "out of memory");
	return 0;
}

static void *csv_shrink(void *p, size_t size)
{
	void *q = realloc(p, size);

	return q ? q : p;
}

static void *csv_dup(const void *p, size_t size)
{
	void *q = malloc(size);

	if (q)
		memcpy(q, p, size);
	return q;
}

/* The trace's period: its '# duration=' line, else the last row plus the median row length. */
static int csv_period(struct ts_trace_reader *r, const struct ts_trace_row *any, ts_ns_t *period,
		      struct ts_err *err)
{
	const struct tr_csv *c = r->csv;
	ts_ns_t last = any[c->n - 1].t, median = 0;
	char b1[48], b2[48];
	int ret;

	if (r->duration_line) {
		if (r->duration <= last)
			return tr_fail_at(r, err, -EINVAL, r->duration_line,
					  "duration %s does not reach past the last row, which "
					  "starts %s after the first",
					  csv_fmt_s(b1, sizeof(b1), r->duration),
					  csv_fmt_s(b2, sizeof(b2), last));
		*period = r->duration;
		return 0;
	}
	if (c->n == 1)
		return tr_fail_file(r, err, -EINVAL,
				    "a single data row needs a '# duration=' line (for "
				    "example '# duration=60s') to say how long it lasts");
	ret = csv_median(r, any, c->n, &median, err);
	if (ret)
		return ret;
	*period = last + median;
	if (*period > TR_PERIOD_MAX)
		return tr_fail_file(r, err, -ERANGE, "trace longer than 49.7 days");
	return 0;
}

/*
 * The traces of the directions read, taking the reader's arrays: the first direction takes
 * the delay and loss columns, the second a copy, so each can be freed alone. Returns 0 or
 * -ENOMEM (@t then holds what was made).
 */
static int csv_traces(struct ts_trace_reader *r, ts_ns_t period, struct ts_trace *t[2])
{
	struct tr_csv *c = r->csv;
	struct ts_trace *first = NULL;
	int i;

	for (i = 0; i < 2; i++) {
		enum ts_trace_dir d = csv_dirs[i];
		struct ts_trace *tr;

		if (!c->rows[d])
			continue;
		tr = t[d] = tr_trace_new(r->name, TS_TRACE_RATE);
		if (!tr)
			return -ENOMEM;
		tr->n = c->n;
		tr->cap = c->n;
		tr->period = period;
		tr->rows = csv_shrink(c->rows[d], c->n * sizeof(*tr->rows));
		c->rows[d] = NULL;
		if (!first) {
			if (c->delay)
				tr->delay = csv_shrink(c->delay, c->n * sizeof(*c->delay));
			if (c->loss)
				tr->loss_ppm = csv_shrink(c->loss, c->n * sizeof(*c->loss));
			c->delay = NULL;
			c->loss = NULL;
			first = tr;
			continue;
		}
		if (first->delay) {
			tr->delay = csv_dup(first->delay, c->n * sizeof(*tr->delay));
			if (!tr->delay)
				return -ENOMEM;
		}
		if (first->loss_ppm) {
			tr->loss_ppm = csv_dup(first->loss_ppm, c->n * sizeof(*tr->loss_ppm));
			if (!tr->loss_ppm)
				return -ENOMEM;
		}
	}
	return 0;
}

int tr_csv_finish(struct ts_trace_reader *r, struct ts_trace **down, struct ts_trace **up,
		  struct ts_err *err)
{
	struct tr_csv *c = r->csv;
	struct ts_trace *t[2] = {NULL, NULL};
	const struct ts_trace_row *any;
	ts_ns_t period = 0;
	int ret, i;

	if (!c)
		return tr_fail_file(r, err, -EINVAL,
				    "empty trace: expected a CSV header such as "
				    "'time_s,down_mbps,up_mbps'");
	if (!c->n)
		return tr_fail_at(r, err, -EINVAL, c->header_line, "no data rows after the header");
	any = c->rows[c->rows[TS_DIR_DOWN] ? TS_DIR_DOWN : TS_DIR_UP];
	ret = csv_period(r, any, &period, err);
	if (ret)
		return ret;
	for (i = 0; i < 2; i++) {
		enum ts_trace_dir d = csv_dirs[i];

		if (c->rows[d] && !c->nonzero[d])
			return tr_fail_file(r, err, -EINVAL,
					    "%s is 0 in every row: a link that never delivers",
					    c->col[csv_dir_col(d)]->name);
	}
	ret = csv_traces(r, period, t);
	if (ret < 0) {
		ts_trace_free(t[0]);
		ts_trace_free(t[1]);
		return tr_fail_file(r, err, ret, "out of memory");
	}
	*down = t[TS_DIR_DOWN];
	*up = t[TS_DIR_UP];
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * PHY-rate traces for the Wi-Fi 6 MAC: rate adaptation (MCS changes over
 * time) replayed from a CSV with the capacity CSV's conventions,
 *
 *   # duration=20s
 *   time_s,phy_mbps
 *   0,1201
 *   10,600.4
 *
 * A time column (time_s or time_ms) and one phy_<unit> column (bps, kbps,
 * mbps, gbps, bit/s); other columns are ignored, so the phy column may sit
 * in the same file as a capacity trace's down_/up_ columns. Rows are
 * piecewise constant and the trace loops with period = "# duration=" or
 * the last row's start plus the lower median row interval, as the capacity
 * CSV does. Numbers are parsed exactly (trace_read_priv.h). A PHY rate of
 * 0 is refused: an outage belongs in the capacity trace.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/text.h"
#include "tasshape/trace_file.h"
#include "tasshape/units.h"
#include "tasshape/wifi6.h"
#include "csv.h"
#include "trace_read_priv.h"

#define PHY_RATE_MAX 100000000000ull /* 100 Gbit/s: catches a wrong unit */
#define PHY_FILE_MAX (64u << 20)

struct phy_reader {
	const char *name;
	unsigned long line;
	int time_col, phy_col, time_pow10, phy_pow10;
	size_t nfields;
	const char *phy_name;
	ts_ns_t duration, t0;
	unsigned long duration_line;
	struct ts_trace_row *rows;
	size_t n, cap;
};

static int fail(struct phy_reader *r, struct ts_err *err, int ret, const char *what)
{
	if (r->line)
		ts_err_set(err, "%s:%lu: %s", r->name, r->line, what);
	else
		ts_err_set(err, "%s: %s", r->name, what);
	return ret;
}

static int header(struct phy_reader *r, const char *s, size_t len, struct ts_err *err)
{
	static const struct {
		const char *name;
		int pow10;
		bool time;
	} names[] = {
		{"time_s", 9, true},	{"time_ms", 6, true},	{"phy_bps", 0, false},
		{"phy_kbps", 3, false}, {"phy_mbps", 6, false}, {"phy_gbps", 9, false},
	};
	const char *f;
	size_t flen, i, k;

	r->nfields = ts_csv_count_fields(s, len);
	r->time_col = r->phy_col = -1;
	for (i = 0; ts_csv_field(s, len, i, &f, &flen); i++) {
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			if (!ts_csv_ieq(f, flen, names[k].name))
				continue;
			if ((names[k].time ? r->time_col : r->phy_col) >= 0)
				return fail(r, err, -EINVAL,
					    names[k].time ? "two time columns; keep one"
							  : "two phy_* columns; keep one");
			if (names[k].time) {
				r->time_col = (int)i;
				r->time_pow10 = names[k].pow10;
			} else {
				r->phy_col = (int)i;
				r->phy_pow10 = names[k].pow10;
				r->phy_name = names[k].name;
			}
		}
	}
	if (r->time_col < 0)
		return fail(r, err, -EINVAL, "missing time column: expected time_s or time_ms");
	if (r->phy_col < 0)
		return fail(r, err, -EINVAL,
			    "no PHY-rate column: expected phy_bps, phy_kbps, phy_mbps or phy_gbps");
	return 0;
}

static int row(struct phy_reader *r, const char *s, size_t len, struct ts_err *err)
{
	uint64_t t, bps;
	const char *f;
	size_t flen;
	char msg[160];

	if (ts_csv_count_fields(s, len) != r->nfields)
		return fail(r, err, -EINVAL, "not as many fields as the header");
	ts_csv_field(s, len, (size_t)r->time_col, &f, &flen);
	if (tr_parse_decimal(f, flen, r->time_pow10, (uint64_t)TR_PERIOD_MAX, &t))
		return fail(r, err, -EINVAL,
			    "time: expected a non-negative decimal number below 49.7 days");
	ts_csv_field(s, len, (size_t)r->phy_col, &f, &flen);
	if (tr_parse_decimal(f, flen, r->phy_pow10, PHY_RATE_MAX, &bps)) {
		snprintf(msg, sizeof(msg),
			 "%s: expected a non-negative decimal number up to 100 Gbit/s",
			 r->phy_name);
		return fail(r, err, -EINVAL, msg);
	}
	if (!bps) {
		snprintf(msg, sizeof(msg),
			 "%s is 0: a PHY rate must be > 0 (an outage belongs in the capacity "
			 "trace)",
			 r->phy_name);
		return fail(r, err, -EINVAL, msg);
	}
	if (!r->n)
		r->t0 = (ts_ns_t)t;
	if (r->n && (ts_ns_t)t - r->t0 <= r->rows[r->n - 1].t)
		return fail(r, err, -EINVAL,
			    "time is not after the previous row's; times must "
			    "increase");
	if ((ts_ns_t)t - r->t0 >= TR_PERIOD_MAX)
		return fail(r, err, -ERANGE, "row starts more than 49.7 days after the first");
	_Static_assert(TR_ENTRIES_MAX == 10000000u, "the message names the limit");
	if (r->n == TR_ENTRIES_MAX)
		return fail(r, err, -E2BIG, "more than 10000000 rows, the most a trace may hold");
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct ts_trace_row *p = realloc(r->rows, cap * sizeof(*p));

		if (!p)
			return fail(r, err, -ENOMEM, "out of memory");
		r->rows = p;
		r->cap = cap;
	}
	r->rows[r->n].t = (ts_ns_t)t - r->t0;
	r->rows[r->n].bps = bps;
	r->n++;
	return 0;
}

/* "# duration=60s": how long the last row lasts, as in the capacity CSV. */
static int comment(struct phy_reader *r, const char *s, size_t len, struct ts_err *err)
{
	char val[64];
	const char *v;
	size_t i = 1, vlen;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (len - i < 8 || !ts_csv_ieq(s + i, 8, "duration"))
		return 0;
	i += 8;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == len || s[i] != '=')
		return 0; /* prose */
	v = s + i + 1;
	vlen = len - i - 1;
	ts_csv_trim(&v, &vlen);
	if (vlen >= sizeof(val))
		return fail(r, err, -EINVAL, "duration: value too long");
	memcpy(val, v, vlen);
	val[vlen] = '\0';
	if (r->duration_line)
		return fail(r, err, -EINVAL, "duration given twice");
	if (ts_parse_time(val, &r->duration, NULL) < 0 || r->duration <= 0 ||
	    r->duration > TR_PERIOD_MAX)
		return fail(r, err, -EINVAL,
			    "expected '# duration=' and a time such as 60s, more than 0");
	r->duration_line = r->line;
	return 0;
}

static int period(struct phy_reader *r, ts_ns_t *out, struct ts_err *err)
{
	ts_ns_t last = r->rows[r->n - 1].t, gap;

	r->line = 0;
	if (r->duration_line) {
		if (r->duration <= last)
			return fail(r, err, -EINVAL,
				    "duration does not reach past the start of the last row");
		*out = r->duration;
		return 0;
	}
	if (r->n == 1) {
		*out = TS_NSEC_PER_SEC; /* constant: any period */
		return 0;
	}
	if (TS_MEDIAN_GAP(r->rows, r->n, &gap) < 0)
		return fail(r, err, -ENOMEM, "out of memory");
	*out = last + gap;
	if (*out > TR_PERIOD_MAX)
		return fail(r, err, -ERANGE, "trace longer than 49.7 days");
	return 0;
}

int ts_wifi6_phy_trace_parse(const char *name, const char *text, size_t len, struct ts_trace **out,
			     struct ts_err *err)
{
	struct phy_reader r = {.name = name};
	const char *p = text, *end = text + len;
	struct ts_trace *t = NULL;
	bool have_header = false;
	ts_ns_t per;
	int ret = 0;

	*out = NULL;
	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *s = p;
		size_t slen = (size_t)((nl ? nl : end) - p);

		p = nl ? nl + 1 : end;
		r.line++;
		ts_csv_trim_blanks(&s, &slen);
		if (!slen)
			continue;
		if (memchr(s, '\0', slen))
			ret = fail(&r, err, -EINVAL, "NUL byte: not a text file");
		else if (s[0] == '#')
			ret = comment(&r, s, slen, err);
		else if (have_header)
			ret = row(&r, s, slen, err);
		else
			ret = header(&r, s, slen, err);
		if (s[0] != '#')
			have_header = true;
	}
	if (ret)
		goto out;
	r.line = 0;
	if (!r.n) {
		ret = fail(&r, err, -EINVAL,
			   have_header ? "no data rows"
				       : "empty: expected a header 'time_s,phy_mbps'");
		goto out;
	}
	ret = period(&r, &per, err);
	if (ret)
		goto out;
	ret = -ENOMEM;
	t = tr_trace_new(name, TS_TRACE_RATE);
	if (!t) {
		fail(&r, err, ret, "out of memory");
		goto out;
	}
	t->rows = r.rows;
	t->n = t->cap = r.n;
	t->period = per;
	r.rows = NULL;
	*out = t;
	ret = 0;
out:
	free(r.rows);
	return ret;
}

struct slurp {
	struct ts_text text;
	const char *path;
};

static int slurp_line(void *ctx, const char *line, size_t len, unsigned long lineno,
		      struct ts_err *err)
{
	struct slurp *s = ctx;

	(void)lineno;
	if (s->text.len + len + 1 > PHY_FILE_MAX) {
		ts_err_set(err, "%s: larger than 64 MiB: not a PHY-rate trace", s->path);
		return -EFBIG;
	}
	if (ts_text_add(&s->text, line, len) < 0 || ts_text_add(&s->text, "\n", 1) < 0) {
		ts_err_set(err, "%s: out of memory", s->path);
		return -ENOMEM;
	}
	return 0;
}

int ts_wifi6_phy_trace_load(const char *path, struct ts_trace **out, struct ts_err *err)
{
	struct slurp s = {.path = path};
	int ret;

	*out = NULL;
	ts_text_init(&s.text);
	/* The shared block reader; the parser wants the whole (small) file. */
	ret = ts_file_lines(path, slurp_line, &s, err);
	if (!ret)
		ret = ts_wifi6_phy_trace_parse(path, s.text.p ? s.text.p : "", s.text.len, out,
					       err);
	ts_text_fini(&s.text);
	return ret;
}

uint64_t ts_wifi6_trace_bps_at(const struct ts_trace *t, ts_ns_t at)
{
	ts_ns_t off = at % t->period;
	size_t lo = 0, hi = t->n;

	if (off < 0)
		off += t->period;
	/* Last row starting at or before off. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].t <= off)
			lo = mid;
		else
			hi = mid;
	}
	return t->rows[lo].bps;
}

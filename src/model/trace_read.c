/* SPDX-License-Identifier: MIT */
/*
 * Trace reading front end: the incremental reader (init/line/finish in
 * the style of wireguard-tools' config_read_*), format detection, the
 * block-reading file loader, "const:RATE" and the --trace spec. The two
 * formats are parsed in trace_mahimahi.c and trace_csv.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/trace.h"
#include "tasshape/units.h"
#include "tasshape/trace_file.h"
#include "trace_read_priv.h"

/* The loader reads this much per fread: few calls, and it fits in L2. */

static void tr_vfail(struct ts_trace_reader *r, struct ts_err *err, unsigned long line,
		     const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

static void tr_vfail(struct ts_trace_reader *r, struct ts_err *err, unsigned long line,
		     const char *fmt, va_list ap)
{
	int n;

	/* Prefix first, then the message after it: truncated at the end. */
	if (line)
		n = snprintf(r->failmsg, sizeof(r->failmsg), "%s:%lu: ", r->name, line);
	else
		n = snprintf(r->failmsg, sizeof(r->failmsg), "%s: ", r->name);
	if (n >= 0 && (size_t)n < sizeof(r->failmsg))
		vsnprintf(r->failmsg + n, sizeof(r->failmsg) - (size_t)n, fmt, ap);
	r->failed = true;
	ts_err_set(err, "%s", r->failmsg);
}

int tr_fail(struct ts_trace_reader *r, struct ts_err *err, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tr_vfail(r, err, r->line, fmt, ap);
	va_end(ap);
	return ret;
}

int tr_fail_at(struct ts_trace_reader *r, struct ts_err *err, int ret, unsigned long line,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tr_vfail(r, err, line, fmt, ap);
	va_end(ap);
	return ret;
}

int tr_fail_file(struct ts_trace_reader *r, struct ts_err *err, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tr_vfail(r, err, 0, fmt, ap);
	va_end(ap);
	return ret;
}

char *tr_quote(char *buf, size_t size, const char *s, size_t len)
{
	size_t i, n = len > 40 ? 40 : len;

	if (size < 44)
		n = 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (size >= 44 && len > n) {
		memcpy(buf + i, "...", 3);
		i += 3;
	}
	if (size)
		buf[i] = '\0';
	return buf;
}

struct ts_trace *tr_trace_new(const char *name, enum ts_trace_kind kind)
{
	struct ts_trace *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->kind = kind;
	snprintf(t->name, sizeof(t->name), "%s", name);
	return t;
}

void ts_trace_free(struct ts_trace *t)
{
	if (!t)
		return;
	free(t->opps);
	free(t->rows);
	free(t->delay);
	free(t->loss_ppm);
	free(t->cum);
	free(t);
}

struct ts_trace_reader *ts_trace_read_init(const char *name, enum ts_trace_format fmt)
{
	struct ts_trace_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->fmt = fmt;
	return r;
}

void ts_trace_read_free(struct ts_trace_reader *r)
{
	if (!r)
		return;
	free(r->opps);
	tr_csv_free(r->csv);
	free(r);
}

static bool tr_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * The first content line decides: an integer (or a negative one, so that
 * it gets the mahimahi message) is a mahimahi trace, anything else is a
 * CSV header.
 */
static enum ts_trace_format tr_detect(const char *s, size_t len)
{
	if (s[0] >= '0' && s[0] <= '9')
		return TS_FMT_MAHIMAHI;
	if (s[0] == '-' && len > 1 && s[1] >= '0' && s[1] <= '9')
		return TS_FMT_MAHIMAHI;
	return TS_FMT_CSV;
}

int ts_trace_read_line(struct ts_trace_reader *r, const char *line, size_t len, struct ts_err *err)
{
	const char *s = line;

	if (r->failed) {
		ts_err_set(err, "%s", r->failmsg);
		return -EINVAL;
	}
	r->line++;
	if (len > TR_LINE_MAX)
		return tr_fail(r, err, -EINVAL, "line longer than %d bytes: not a trace file",
			       TR_LINE_MAX);
	if (memchr(s, '\0', len))
		return tr_fail(r, err, -EINVAL, "NUL byte: binary data, not a text trace file");
	/* A UTF-8 byte order mark, as spreadsheet programs write. */
	if (r->line == 1 && len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) {
		s += 3;
		len -= 3;
	}
	while (len && tr_is_space(s[len - 1]))
		len--;
	while (len && tr_is_space(s[0])) {
		s++;
		len--;
	}
	if (!len)
		return 0;
	if (s[0] == '#')
		return tr_csv_comment(r, s, len, err);
	if (r->fmt == TS_FMT_AUTO) {
		r->fmt = tr_detect(s, len);
		r->detected = true;
	}
	if (r->fmt == TS_FMT_MAHIMAHI)
		return tr_mm_line(r, s, len, err);
	return tr_csv_line(r, s, len, err);
}

int ts_trace_read_finish(struct ts_trace_reader *r, struct ts_trace **down, struct ts_trace **up,
			 struct ts_err *err)
{
	int ret;

	*down = NULL;
	*up = NULL;
	if (r->failed) {
		ts_err_set(err, "%s", r->failmsg);
		ret = -EINVAL;
		goto out;
	}
	switch (r->fmt) {
	case TS_FMT_MAHIMAHI:
		ret = tr_mm_finish(r, down, err);
		break;
	case TS_FMT_CSV:
		ret = tr_csv_finish(r, down, up, err);
		break;
	default:
		ret = tr_fail_file(r, err, -EINVAL,
				   "empty trace: expected mahimahi millisecond timestamps or a "
				   "CSV header such as 'time_s,down_mbps,up_mbps'");
		break;
	}
out:
	ts_trace_read_free(r);
	return ret;
}

static int load_line(void *ctx, const char *line, size_t len, unsigned long lineno,
		     struct ts_err *err)
{
	(void)lineno; /* the reader counts lines itself */
	return ts_trace_read_line(ctx, line, len, err);
}

int ts_trace_load(const char *path, enum ts_trace_format fmt, struct ts_trace **down,
		  struct ts_trace **up, struct ts_err *err)
{
	struct ts_trace_reader *r;
	int ret;

	*down = NULL;
	*up = NULL;
	r = ts_trace_read_init(path, fmt);
	if (!r) {
		ts_err_set(err, "%s: out of memory", path);
		return -ENOMEM;
	}
	/* The shared block reader splits lines; the reader judges them. */
	ret = ts_file_lines(path, load_line, r, err);
	if (ret) {
		ts_trace_read_free(r);
		return ret;
	}
	return ts_trace_read_finish(r, down, up, err);
}

struct ts_trace *ts_trace_const(uint64_t bps)
{
	char name[64];
	struct ts_trace *t;

	snprintf(name, sizeof(name), "const:%llubit", (unsigned long long)bps);
	t = tr_trace_new(name, TS_TRACE_RATE);
	if (!t)
		return NULL;
	t->rows = calloc(1, sizeof(*t->rows));
	if (!t->rows) {
		free(t);
		return NULL;
	}
	t->rows[0].bps = bps;
	t->n = 1;
	t->cap = 1;
	/* Any period works for one row; a second keeps pass counts small. */
	t->period = TS_NSEC_PER_SEC;
	return t;
}

int ts_trace_open_spec(const char *spec, struct ts_trace **down, struct ts_trace **up,
		       struct ts_err *err)
{
	static const char prefix[] = "const:";
	struct ts_err inner;
	uint64_t bps;
	int ret;

	*down = NULL;
	*up = NULL;
	if (strncmp(spec, prefix, sizeof(prefix) - 1))
		return ts_trace_load(spec, TS_FMT_AUTO, down, up, err);
	inner.msg[0] = '\0';
	ret = ts_parse_rate(spec + sizeof(prefix) - 1, &bps, 0, &inner);
	if (ret) {
		ts_err_set(err, "%s: %s", spec, inner.msg);
		return ret;
	}
	if (bps > TR_RATE_MAX) {
		ts_err_set(err, "%s: above the limit of 10 Tbit/s (wrong unit?)", spec);
		return -ERANGE;
	}
	*down = ts_trace_const(bps);
	if (!*down) {
		ts_err_set(err, "%s: out of memory", spec);
		return -ENOMEM;
	}
	snprintf((*down)->name, sizeof((*down)->name), "%s", spec);
	return 0;
}

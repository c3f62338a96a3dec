/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "record/stats_in.h"

static const char *const col_name[TS_STATS__N] = {
	"time_s",	  "dir",	   "interval_s",      "capacity_bps",
	"throughput_bps", "arrived_bytes", "delivered_bytes", "delivered_pkts",
	"queue_bytes",	  "queue_pkts",	   "qdelay_p50_ms",   "qdelay_max_ms",
	"drops"};

/* What a column holds: may it be empty (as the writer leaves it), is it an integer? */
static const bool may_be_empty[TS_STATS__N] = {
	[TS_STATS_CAPACITY] = true, [TS_STATS_P50] = true, [TS_STATS_MAX] = true};
static const bool integer[TS_STATS__N] = {
	[TS_STATS_ARRIVED] = true, [TS_STATS_DELIVERED] = true,	 [TS_STATS_DELIVERED_PKTS] = true,
	[TS_STATS_QUEUE] = true,   [TS_STATS_QUEUE_PKTS] = true, [TS_STATS_DROPS] = true};
static const bool required[TS_STATS__N] = {[TS_STATS_TIME] = true, [TS_STATS_DIR] = true};

void ts_stats_in_init(struct ts_stats_in *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
}

static int header(struct ts_stats_in *r, const struct ts_csv_in_fields *h, struct ts_err *err)
{
	int ret = ts_csv_in_columns(h, col_name, required, TS_STATS__N, r->col, r->name, err);

	if (!ret)
		r->ncols = h->n;
	return ret;
}

static int field(const struct ts_stats_in *r, const struct ts_csv_in_fields *f, int k,
		 struct ts_stats_row *row, struct ts_err *err)
{
	const char *s = f->f[r->col[k]];
	size_t len = f->len[r->col[k]];
	uint64_t u;

	row->v[k] = NAN;
	if (!len && may_be_empty[k])
		return 0;
	if (integer[k] && ts_csv_in_u64(s, len, &u)) {
		row->v[k] = (double)u;
		return 0;
	}
	if (!integer[k] && ts_csv_in_num(s, len, &row->v[k]))
		return 0;
	ts_err_set(err, "%s:%lu: %s: expected %s%s, got '%.*s'", r->name, r->line, col_name[k],
		   integer[k] ? "a whole number" : "a non-negative decimal number",
		   may_be_empty[k] ? " or nothing" : "", (int)(len > 40 ? 40 : len), s);
	return -EINVAL;
}

int ts_stats_in_line(struct ts_stats_in *r, const char *line, size_t len, struct ts_stats_row *row,
		     struct ts_err *err)
{
	struct ts_csv_in_fields f;
	const char *d;
	size_t dlen;
	int k, ret;

	r->line++;
	ret = ts_csv_in_split(line, len, &f, r->name, r->line, err);
	if (ret)
		return ret;
	if (!r->ncols)
		return header(r, &f, err);
	if (f.n != r->ncols) {
		ts_err_set(err, "%s:%lu: %zu fields, expected %zu as in the header", r->name,
			   r->line, f.n, r->ncols);
		return -EINVAL;
	}
	d = f.f[r->col[TS_STATS_DIR]];
	dlen = f.len[r->col[TS_STATS_DIR]];
	if (ts_csv_in_is(d, dlen, "uplink")) {
		row->dir = 0;
	} else if (ts_csv_in_is(d, dlen, "downlink")) {
		row->dir = 1;
	} else {
		ts_err_set(err, "%s:%lu: dir: expected uplink or downlink, got '%.*s'", r->name,
			   r->line, (int)(dlen > 40 ? 40 : dlen), d);
		return -EINVAL;
	}
	for (k = 0; k < TS_STATS__N; k++) {
		if (k == TS_STATS_DIR)
			continue;
		if (r->col[k] < 0)
			row->v[k] = NAN;
		else if ((ret = field(r, &f, k, row, err)))
			return ret;
	}
	row->v[TS_STATS_DIR] = row->dir;
	if (row->v[TS_STATS_TIME] < r->last_t) {
		ts_err_set(err, "%s:%lu: time_s %.17g goes back (the line before: %.17g)", r->name,
			   r->line, row->v[TS_STATS_TIME], r->last_t);
		return -EINVAL;
	}
	r->last_t = row->v[TS_STATS_TIME];
	return 1;
}

int ts_stats_in_finish(const struct ts_stats_in *r, struct ts_err *err)
{
	if (r->ncols)
		return 0;
	ts_err_set(err, "%s: empty, expected a header line naming time_s and dir", r->name);
	return -EINVAL;
}

struct file_ctx {
	struct ts_stats_in r;
	ts_stats_in_fn fn;
	void *ctx;
};

static int file_line(void *ctx, const char *line, size_t len, unsigned long lineno,
		     struct ts_err *err)
{
	struct file_ctx *c = ctx;
	struct ts_stats_row row;
	int ret;

	(void)lineno; /* the reader counts its own */
	ret = ts_stats_in_line(&c->r, line, len, &row, err);
	return ret == 1 ? c->fn(c->ctx, &row) : ret;
}

int ts_stats_in_file(const char *path, ts_stats_in_fn fn, void *ctx, struct ts_err *err)
{
	struct file_ctx c = {.fn = fn, .ctx = ctx};
	int ret;

	ts_stats_in_init(&c.r, path);
	ret = ts_csv_in_file(path, file_line, &c, err);
	if (!ret)
		ret = ts_stats_in_finish(&c.r, err);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/*
 * The reader of the per-window time series that stats_out.c writes
 * (stats.csv, --stats FILE; its columns are described in stats_out.h).
 * Used by everything that reads the file back (tasshape plot, exp
 * report), so that they agree on what a row is and reject the same bad
 * ones. Strict, because a results directory is untrusted input: the
 * header must name time_s and dir, each once; every row has the
 * header's field count; dir is uplink or downlink; every known column
 * holds a plain decimal (the integer columns an integer), empty only
 * where the writer leaves it empty; time_s never goes back. Columns the
 * reader does not know (drop_<cause>, a stage's own) are counted, not
 * read. Columns an older or hand-made file lacks read as NAN.
 */
#ifndef TS_RECORD_STATS_IN_H
#define TS_RECORD_STATS_IN_H

#include <stddef.h>

#include "io/csv_in.h"

enum ts_stats_col {
	TS_STATS_TIME,	   /* time_s: end of the window, s */
	TS_STATS_DIR,	   /* dir */
	TS_STATS_INTERVAL, /* interval_s */
	TS_STATS_CAPACITY, /* capacity_bps (empty: unlimited) */
	TS_STATS_THROUGHPUT,
	TS_STATS_ARRIVED,
	TS_STATS_DELIVERED,
	TS_STATS_DELIVERED_PKTS,
	TS_STATS_QUEUE,
	TS_STATS_QUEUE_PKTS,
	TS_STATS_P50, /* qdelay_p50_ms (empty: no packet left the link in the window) */
	TS_STATS_MAX, /* qdelay_max_ms (same) */
	TS_STATS_DROPS,
	TS_STATS__N
};

/* One row: v[col] per column, NAN when the field is empty or the file has no such column. */
struct ts_stats_row {
	int dir; /* 0 uplink, 1 downlink */
	double v[TS_STATS__N];
};

struct ts_stats_in {
	const char *name; /* for messages: "NAME:LINE: ..." */
	unsigned long line;
	size_t ncols; /* of the header; 0 before it */
	int col[TS_STATS__N];
	double last_t;
};

/* ts_stats_in_init - a reader of the file called @name (kept, not copied). */
void ts_stats_in_init(struct ts_stats_in *r, const char *name);

/*
 * ts_stats_in_line - the next line of the file (with or without its
 * newline). Returns 0 for the header, 1 with @row filled for a row, or
 * -EINVAL with @err "NAME:LINE: what was wrong, what was expected".
 */
int ts_stats_in_line(struct ts_stats_in *r, const char *line, size_t len, struct ts_stats_row *row,
		     struct ts_err *err);

/* ts_stats_in_finish - end of the file: -EINVAL with @err when there was no header. */
int ts_stats_in_finish(const struct ts_stats_in *r, struct ts_err *err);

/* Called for each row; a non-zero return stops the reading and is returned. */
typedef int (*ts_stats_in_fn)(void *ctx, const struct ts_stats_row *row);

/*
 * ts_stats_in_file - read @path row by row (no allocation) with @fn.
 * Returns 0, @fn's value, or a negative errno with @err naming @path
 * (-ENOENT when it does not exist).
 */
int ts_stats_in_file(const char *path, ts_stats_in_fn fn, void *ctx, struct ts_err *err);

#endif

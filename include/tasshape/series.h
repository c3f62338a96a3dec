/* SPDX-License-Identifier: MIT */
/*
 * A trace under construction: rows of capacity (and delay, loss) that
 * generators, importers and converters build, and one writer that turns
 * them into tasshape's native CSV. Rows are piecewise constant, as in the
 * CSV: row i holds from its time until row i + 1 (the last until period).
 */
#ifndef TASSHAPE_SERIES_H
#define TASSHAPE_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "tasshape/text.h"
#include "tasshape/time.h"

/* Columns a series carries (bit set). */
enum {
	TS_COL_DOWN = 1,
	TS_COL_UP = 2,
	TS_COL_DELAY = 4,
	TS_COL_LOSS = 8,
	/* The down column is a Wi-Fi PHY rate, written as phy_mbps (no up column). */
	TS_COL_PHY = 16,
};

struct ts_series_row {
	ts_ns_t t;	   /* start, from 0 */
	uint64_t down;	   /* bit/s (the PHY rate with TS_COL_PHY) */
	uint64_t up;	   /* bit/s */
	ts_ns_t delay;	   /* one-way delay */
	uint32_t loss_ppm; /* loss probability */
};

struct ts_series {
	unsigned int cols;
	size_t n, cap;
	struct ts_series_row *rows;
	ts_ns_t period; /* length of the trace; > rows[n - 1].t when written */
};

/* An empty series with columns @cols (TS_COL_*). */
void ts_series_init(struct ts_series *s, unsigned int cols);

/* Free the rows; the series is empty again (columns kept). */
void ts_series_fini(struct ts_series *s);

/*
 * ts_series_add - append a row. A row whose values equal the previous
 * row's adds nothing (the previous row just lasts longer); a row at the
 * same time as the previous one replaces it. Returns 0, -EINVAL when
 * @r->t is before the last row, or -ENOMEM.
 */
int ts_series_add(struct ts_series *s, const struct ts_series_row *r);

/*
 * ts_series_write_csv - write @s as native CSV: each line of @comments
 * (may be NULL; lines separated by '\n') as a "# " comment, then
 * "# duration=...", the header (time_s and the columns of s->cols, in the
 * order down, up, delay, loss) and the rows. Numbers are exact decimals:
 * time_s to the nanosecond, rates in Mbit/s to the bit/s, delay_ms to the
 * nanosecond, loss to the ppm. Returns 0, -EINVAL for an empty series or
 * a period not after the last row, -ENOMEM.
 */
int ts_series_write_csv(const struct ts_series *s, const char *comments, struct ts_text *out);

#endif

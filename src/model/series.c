/* SPDX-License-Identifier: MIT */
/*
 * Building and writing native CSV traces. The writer formats integers
 * only, so an output depends on nothing but the rows: generators are
 * byte-reproducible and the reader parses back exactly what was written.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/series.h"

void ts_series_init(struct ts_series *s, unsigned int cols)
{
	memset(s, 0, sizeof(*s));
	s->cols = cols;
}

void ts_series_fini(struct ts_series *s)
{
	free(s->rows);
	ts_series_init(s, s->cols);
}

static bool same_values(const struct ts_series_row *a, const struct ts_series_row *b)
{
	return a->down == b->down && a->up == b->up && a->delay == b->delay &&
	       a->loss_ppm == b->loss_ppm;
}

int ts_series_add(struct ts_series *s, const struct ts_series_row *r)
{
	struct ts_series_row *last = s->n ? &s->rows[s->n - 1] : NULL;

	if (last && r->t < last->t)
		return -EINVAL;
	if (last && r->t == last->t) {
		/* Replace; and merge with the row before if now equal to it. */
		*last = *r;
		if (s->n >= 2 && same_values(&s->rows[s->n - 2], last))
			s->n--;
		return 0;
	}
	if (last && same_values(last, r))
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct ts_series_row *p;

		if (cap > SIZE_MAX / sizeof(*p))
			return -ENOMEM;
		p = realloc(s->rows, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->rows = p;
		s->cap = cap;
	}
	s->rows[s->n++] = *r;
	return 0;
}

static void write_comments(struct ts_text *out, const char *c)
{
	while (c && *c) {
		const char *nl = strchr(c, '\n');
		size_t len = nl ? (size_t)(nl - c) : strlen(c);

		ts_text_add(out, "# ", 2);
		ts_text_add(out, c, len);
		ts_text_add(out, "\n", 1);
		c += len + (nl ? 1 : 0);
	}
}

int ts_series_write_csv(const struct ts_series *s, const char *comments, struct ts_text *out)
{
	size_t i;

	if (!s->n || s->period <= s->rows[s->n - 1].t || s->rows[0].t != 0)
		return -EINVAL;
	write_comments(out, comments);
	ts_text_add(out, "# duration=", 11);
	ts_text_fixed(out, (unsigned long long)s->period, 9);
	ts_text_printf(out, "s\ntime_s");
	if (s->cols & TS_COL_PHY)
		ts_text_printf(out, ",phy_mbps");
	else if (s->cols & TS_COL_DOWN)
		ts_text_printf(out, ",down_mbps");
	if ((s->cols & TS_COL_UP) && !(s->cols & TS_COL_PHY))
		ts_text_printf(out, ",up_mbps");
	if (s->cols & TS_COL_DELAY)
		ts_text_printf(out, ",delay_ms");
	if (s->cols & TS_COL_LOSS)
		ts_text_printf(out, ",loss");
	ts_text_add(out, "\n", 1);
	for (i = 0; i < s->n; i++) {
		const struct ts_series_row *r = &s->rows[i];

		ts_text_fixed(out, (unsigned long long)r->t, 9);
		if (s->cols & (TS_COL_DOWN | TS_COL_PHY)) {
			ts_text_add(out, ",", 1);
			ts_text_fixed(out, r->down, 6);
		}
		if ((s->cols & TS_COL_UP) && !(s->cols & TS_COL_PHY)) {
			ts_text_add(out, ",", 1);
			ts_text_fixed(out, r->up, 6);
		}
		if (s->cols & TS_COL_DELAY) {
			ts_text_add(out, ",", 1);
			ts_text_fixed(out, (unsigned long long)r->delay, 6);
		}
		if (s->cols & TS_COL_LOSS) {
			ts_text_add(out, ",", 1);
			ts_text_fixed(out, r->loss_ppm, 6);
		}
		ts_text_add(out, "\n", 1);
	}
	return out->oom ? -ENOMEM : 0;
}

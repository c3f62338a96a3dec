/* SPDX-License-Identifier: MIT */
/*
 * mahimahi traces: one millisecond timestamp per line, each a delivery
 * opportunity for one IP packet of up to TS_OPP_BYTES. Repeated lines are
 * stored once with a count, so a 7-million-line file of a 10-minute drive
 * needs at most 600,000 entries. The period is the last timestamp.
 *
 * Friendlier than mahimahi (which rejects blank
 * lines, trailing spaces and CRs): the dispatcher has already trimmed the
 * line and skipped blank and '#' lines.
 */
#include <errno.h>
#include <stdlib.h>

#include "trace_read_priv.h"

static int mm_bad(struct ts_trace_reader *r, const char *s, size_t len, struct ts_err *err)
{
	char q[48];
	size_t i;
	bool sep = false;

	tr_quote(q, sizeof(q), s, len);
	if (s[0] == '-')
		return tr_fail(r, err, -EINVAL,
			       "negative timestamp '%s': expected milliseconds >= 0", q);
	for (i = 0; i < len; i++)
		sep |= s[i] == ',' || s[i] == ' ' || s[i] == '\t' || s[i] == ';';
	if (sep && r->detected)
		return tr_fail(r, err, -EINVAL,
			       "expected a millisecond timestamp (an unsigned integer), got '%s'; "
			       "a CSV trace needs a header line such as 'time_s,down_mbps'",
			       q);
	return tr_fail(r, err, -EINVAL,
		       "expected a millisecond timestamp (an unsigned integer), got '%s'", q);
}

static int mm_grow(struct ts_trace_reader *r, struct ts_err *err)
{
	size_t cap = r->cap ? r->cap * 2 : 1024;
	struct ts_trace_opp *p;

	if (cap > SIZE_MAX / sizeof(*p))
		return tr_fail(r, err, -ENOMEM, "out of memory");
	p = realloc(r->opps, cap * sizeof(*p));
	if (!p)
		return tr_fail(r, err, -ENOMEM, "out of memory");
	r->opps = p;
	r->cap = cap;
	return 0;
}

int tr_mm_line(struct ts_trace_reader *r, const char *s, size_t len, struct ts_err *err)
{
	uint64_t ms = 0;
	size_t i;
	int ret;

	for (i = 0; i < len; i++) {
		unsigned int d = (unsigned int)(s[i] - '0');

		if (d > 9)
			return mm_bad(r, s, len, err);
		ms = ms * 10 + d;
		/* Stop before ms can wrap, however many digits follow. */
		if (ms > UINT32_MAX) {
			char q[48];

			return tr_fail(r, err, -ERANGE,
				       "timestamp '%s' is too large (at most %lu ms, 49.7 days)",
				       tr_quote(q, sizeof(q), s, len), (unsigned long)UINT32_MAX);
		}
	}
	if (r->n) {
		struct ts_trace_opp *last = &r->opps[r->n - 1];

		if (ms == last->ms) {
			if (last->count == UINT32_MAX)
				return tr_fail(r, err, -ERANGE,
					       "more than %lu opportunities at %lu ms",
					       (unsigned long)UINT32_MAX, (unsigned long)ms);
			last->count++;
			r->last_line = r->line;
			return 0;
		}
		if (ms < last->ms)
			return tr_fail(r, err, -EINVAL,
				       "timestamp %lu is before %lu on line %lu; timestamps must "
				       "not decrease",
				       (unsigned long)ms, (unsigned long)last->ms, r->last_line);
	}
	if (r->n == TR_ENTRIES_MAX)
		return tr_fail(r, err, -E2BIG,
			       "more than %u distinct timestamps, the most a trace may hold",
			       TR_ENTRIES_MAX);
	if (r->n == r->cap) {
		ret = mm_grow(r, err);
		if (ret)
			return ret;
	}
	r->opps[r->n].ms = (uint32_t)ms;
	r->opps[r->n].count = 1;
	r->n++;
	r->last_line = r->line;
	return 0;
}

int tr_mm_finish(struct ts_trace_reader *r, struct ts_trace **out, struct ts_err *err)
{
	struct ts_trace *t;
	struct ts_trace_opp *p;

	if (r->duration_line)
		return tr_fail_at(r, err, -EINVAL, r->duration_line,
				  "'# duration=' applies to CSV traces only; a mahimahi trace "
				  "lasts until its last timestamp");
	if (!r->n)
		return tr_fail_file(r, err, -EINVAL,
				    "no timestamps: expected one millisecond timestamp per line");
	if (r->opps[r->n - 1].ms == 0)
		return tr_fail_at(r, err, -EINVAL, r->last_line,
				  "the last timestamp is 0; it sets the trace period, which must "
				  "be > 0 ms");
	t = tr_trace_new(r->name, TS_TRACE_OPPS);
	if (!t)
		return tr_fail_file(r, err, -ENOMEM, "out of memory");
	/* Give back the slack of geometric growth; keep it if realloc fails. */
	p = realloc(r->opps, r->n * sizeof(*p));
	t->opps = p ? p : r->opps;
	t->n = r->n;
	t->cap = p ? r->n : r->cap;
	t->period = (ts_ns_t)t->opps[t->n - 1].ms * TS_NSEC_PER_MSEC;
	r->opps = NULL;
	r->n = 0;
	r->cap = 0;
	*out = t;
	return 0;
}

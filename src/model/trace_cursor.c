/* SPDX-License-Identifier: MIT */
/*
 * Replaying a capacity trace: when can a packet start, and when is its
 * last byte delivered. This file is the semantics of a trace; the readers
 * only build the arrays.
 *
 * Opportunity traces (mahimahi): pass k of the trace places entry i at
 * origin + k * period + ms_i. An entry at ms 0 belongs to the first pass
 * only: in later passes the entry at ms == period of the previous pass
 * stands at the same instant, and mahimahi's replay of both there is a
 * double opportunity we do not copy. A packet uses whole or partial
 * opportunities; the unused part of an opportunity stays available to
 * packets that are already queued at that instant and is lost otherwise.
 *
 * Rate traces: the work left for a packet is counted in bit-nanoseconds
 * (bits * 1e9) in 128-bit integers, so rows of any rate and length are
 * integrated exactly; the completion time is rounded up to the next
 * nanosecond, and the sub-nanosecond remainder is kept for a packet that
 * starts at that very instant, so back-to-back packets lose nothing.
 */
#include <errno.h>
#include <stdlib.h>

#include "tasshape/trace.h"

typedef unsigned __int128 u128;

void ts_trace_cursor_init(struct ts_trace_cursor *c, const struct ts_trace *t, ts_ns_t origin,
			  bool once)
{
	c->trace = t;
	c->once = once;
	c->origin = origin;
	c->pass = 0;
	c->idx = 0;
	c->sub = 0;
	c->left_t = TS_NEVER;
	c->left = 0;
	c->left_work = 0;
}

/* First entry of a pass: later passes skip an entry at ms 0 (see above). */
static size_t first_idx(const struct ts_trace *t, uint64_t pass)
{
	if (t->kind == TS_TRACE_OPPS && pass > 0 && t->opps[0].ms == 0)
		return 1;
	return 0;
}

static ts_ns_t entry_off(const struct ts_trace *t, size_t i)
{
	if (t->kind == TS_TRACE_OPPS)
		return (ts_ns_t)t->opps[i].ms * TS_NSEC_PER_MSEC;
	return t->rows[i].t;
}

static ts_ns_t pass_start(const struct ts_trace_cursor *c, uint64_t pass)
{
	return c->origin + (ts_ns_t)pass * c->trace->period;
}

/* Absolute time of the cursor's current entry; TS_NEVER past a --once trace. */
static ts_ns_t cur_time(const struct ts_trace_cursor *c)
{
	if (c->once && c->pass > 0)
		return TS_NEVER;
	return pass_start(c, c->pass) + entry_off(c->trace, c->idx);
}

/* Move to the next entry, wrapping into the next pass. */
static void step(struct ts_trace_cursor *c)
{
	c->sub = 0;
	if (++c->idx < c->trace->n)
		return;
	c->pass++;
	c->idx = first_idx(c->trace, c->pass);
}

/* Index of the last entry with offset <= off (the trace's first entry if none). */
static size_t find_le(const struct ts_trace *t, ts_ns_t off, size_t lo)
{
	size_t hi = t->n; /* answer in [lo, hi) */

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (entry_off(t, mid) <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Jump close to @t without walking: O(log n) however long the link was
 * idle. For rate traces land on the row containing @t; for opportunity
 * traces on the last entry at or before @t (the caller then steps past
 * entries that are too early).
 */
static void seek(struct ts_trace_cursor *c, ts_ns_t t)
{
	const struct ts_trace *tr = c->trace;
	ts_ns_t rel = t - c->origin - 1; /* aim just before t: never skip what is at t */
	uint64_t pass;
	size_t idx;

	if (rel < 0 || cur_time(c) == TS_NEVER)
		return;
	pass = (uint64_t)(rel / tr->period);
	if (pass < c->pass)
		return;
	if (c->once && pass > 0) {
		c->pass = 1;
		return;
	}
	idx = find_le(tr, rel - (ts_ns_t)pass * tr->period, first_idx(tr, pass));
	if (pass == c->pass && idx <= c->idx)
		return;
	c->pass = pass;
	c->idx = idx;
	c->sub = 0;
}

static ts_ns_t rate_row_end(const struct ts_trace_cursor *c)
{
	const struct ts_trace *t = c->trace;
	ts_ns_t end = c->idx + 1 < t->n ? t->rows[c->idx + 1].t : t->period;

	return pass_start(c, c->pass) + end;
}

static ts_ns_t opps_start(struct ts_trace_cursor *c, ts_ns_t t)
{
	ts_ns_t at;

	if (c->left && c->left_t == t)
		return t;
	c->left = 0;
	if (cur_time(c) < t)
		seek(c, t);
	while ((at = cur_time(c)) < t)
		step(c);
	return at;
}

static ts_ns_t rate_start(struct ts_trace_cursor *c, ts_ns_t t)
{
	const struct ts_trace *tr = c->trace;
	ts_ns_t at;

	if (c->left_t != t)
		c->left_work = 0;
	seek(c, t);
	/* Past zero-capacity rows; a reader never builds an all-zero trace. */
	for (;;) {
		at = cur_time(c);
		if (at == TS_NEVER)
			return TS_NEVER;
		if (tr->rows[c->idx].bps && rate_row_end(c) > t)
			return ts_max(at, t);
		step(c);
	}
}

ts_ns_t ts_trace_cursor_start(struct ts_trace_cursor *c, ts_ns_t t)
{
	if (c->trace->kind == TS_TRACE_OPPS)
		return opps_start(c, t);
	return rate_start(c, t);
}

static ts_ns_t opps_serve(struct ts_trace_cursor *c, ts_ns_t t, uint64_t bytes)
{
	for (;;) {
		uint64_t take;

		if (!c->left || c->left_t != t) {
			t = opps_start(c, t);
			if (t == TS_NEVER)
				return TS_NEVER;
			if (!c->left || c->left_t != t) {
				/* Open a fresh opportunity at the cursor. */
				c->left = TS_OPP_BYTES;
				c->left_t = t;
				if (++c->sub >= c->trace->opps[c->idx].count)
					step(c);
			}
		}
		take = bytes < c->left ? bytes : c->left;
		c->left -= (uint32_t)take;
		bytes -= take;
		if (!bytes)
			return t;
	}
}

static u128 cap_prefix(const struct ts_trace *t, size_t k);

/*
 * A looping trace offers the same capacity in any window of one period, so
 * a packet that needs more than whole periods skips them in one step: a
 * slow link with a short period (1 bit/s looping every microsecond, found
 * by fuzz_trace_csv) would otherwise walk 10^10 rows for one packet.
 */
static u128 skip_passes(struct ts_trace_cursor *c, ts_ns_t *t, u128 work)
{
	u128 per_pass, k;

	if (c->once)
		return work;
	per_pass = cap_prefix(c->trace, c->trace->n);
	if (!per_pass || work <= per_pass)
		return work;
	k = (work - 1) / per_pass;
	c->pass += (uint64_t)k;
	*t += (ts_ns_t)k * c->trace->period;
	return work - k * per_pass;
}

static ts_ns_t rate_serve(struct ts_trace_cursor *c, ts_ns_t t, uint64_t bytes)
{
	u128 work = (u128)bytes * 8u * (u128)TS_NSEC_PER_SEC; /* bit-ns still to deliver */
	u128 credit = c->left_t == t ? c->left_work : 0;

	c->left_work = 0;
	if (credit >= work) {
		c->left_work = credit - work;
		return t;
	}
	work -= credit;
	for (;;) {
		ts_ns_t end, done;
		u128 rate, room;

		t = rate_start(c, t);
		if (t == TS_NEVER)
			return TS_NEVER;
		work = skip_passes(c, &t, work);
		rate = c->trace->rows[c->idx].bps;
		end = rate_row_end(c);
		room = rate * (u128)(end - t);
		if (work <= room) {
			u128 ns = (work + rate - 1) / rate;

			done = t + (ts_ns_t)ns;
			c->left_t = done;
			c->left_work = ns * rate - work;
			return done;
		}
		work -= room;
		t = end;
	}
}

ts_ns_t ts_trace_cursor_serve(struct ts_trace_cursor *c, ts_ns_t t, uint64_t bytes)
{
	if (c->trace->kind == TS_TRACE_OPPS)
		return opps_serve(c, t, bytes);
	return rate_serve(c, t, bytes);
}

/* Number of entries with offset < @off (entries are sorted by offset). */
static size_t count_before(const struct ts_trace *t, ts_ns_t off)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (entry_off(t, mid) < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Capacity in bit-ns of entry @i as a whole. */
static u128 entry_cap(const struct ts_trace *t, size_t i)
{
	ts_ns_t end;

	if (t->kind == TS_TRACE_OPPS)
		return (u128)t->opps[i].count * TS_OPP_BYTES * 8u * TS_NSEC_PER_SEC;
	end = i + 1 < t->n ? t->rows[i + 1].t : t->period;
	return (u128)t->rows[i].bps * (u128)(end - t->rows[i].t);
}

/* Capacity in bit-ns of entries [0, k): O(1) from the index when built, else summed. */
static u128 cap_prefix(const struct ts_trace *t, size_t k)
{
	u128 sum = 0;
	size_t i;

	if (t->cum)
		return t->cum[k];
	for (i = 0; i < k; i++)
		sum += entry_cap(t, i);
	return sum;
}

/* Capacity of pass @pass before offset @off into it (off <= period + 1). */
static u128 cap_before(const struct ts_trace *t, uint64_t pass, ts_ns_t off)
{
	size_t k = count_before(t, off), first = first_idx(t, pass);
	ts_ns_t end;

	if (t->kind == TS_TRACE_OPPS)
		return k > first ? cap_prefix(t, k) - cap_prefix(t, first) : 0;
	if (!k)
		return 0;
	/* Whole rows before the last one that starts before @off, then its part. */
	end = k < t->n ? t->rows[k].t : t->period;
	return cap_prefix(t, k - 1) +
	       (u128)t->rows[k - 1].bps * (u128)(ts_min(end, off) - t->rows[k - 1].t);
}

int ts_trace_index(struct ts_trace *t)
{
	u128 *cum;
	size_t i;

	if (t->cum)
		return 0;
	cum = malloc((t->n + 1) * sizeof(*cum));
	if (!cum)
		return -ENOMEM;
	cum[0] = 0;
	for (i = 0; i < t->n; i++)
		cum[i + 1] = cum[i] + entry_cap(t, i);
	t->cum = cum;
	return 0;
}

/*
 * Capacity in bit-ns before trace time @x (x >= 0), looping. Passes that
 * end before @x count whole; the pass containing @x counts up to it.
 */
static u128 cap_until(const struct ts_trace *t, ts_ns_t x)
{
	uint64_t full;
	u128 sum = 0;

	if (x <= 0)
		return 0;
	full = (uint64_t)((x - 1) / t->period);
	if (full) {
		sum += cap_before(t, 0, t->period + 1); /* all of it */
		sum += (u128)(full - 1) * cap_before(t, 1, t->period + 1);
	}
	return sum + cap_before(t, full, x - (ts_ns_t)full * t->period);
}

uint64_t ts_trace_capacity_bytes(const struct ts_trace *t, ts_ns_t t0, ts_ns_t t1)
{
	u128 a, b;

	if (t1 <= t0)
		return 0;
	a = cap_until(t, ts_max(t0, 0));
	b = cap_until(t, ts_max(t1, 0));
	return (uint64_t)((b - a) / (8u * (u128)TS_NSEC_PER_SEC));
}

static size_t row_at(const struct ts_trace *t, ts_ns_t at)
{
	ts_ns_t off = at % t->period;

	if (off < 0)
		off += t->period;
	return find_le(t, off, 0);
}

bool ts_trace_delay_at(const struct ts_trace *t, ts_ns_t at, ts_ns_t *delay)
{
	if (!t || t->kind != TS_TRACE_RATE || !t->delay)
		return false;
	*delay = t->delay[row_at(t, at)];
	return true;
}

bool ts_trace_loss_at(const struct ts_trace *t, ts_ns_t at, uint32_t *ppm)
{
	if (!t || t->kind != TS_TRACE_RATE || !t->loss_ppm)
		return false;
	*ppm = t->loss_ppm[row_at(t, at)];
	return true;
}

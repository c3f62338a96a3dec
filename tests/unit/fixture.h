/* SPDX-License-Identifier: MIT */
/*
 * Test fixtures for the model: traces built by hand (independent of the
 * readers) and a sink that records what a pipe releases and drops.
 */
#ifndef TS_FIXTURE_H
#define TS_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "tasshape/pipe.h"
#include "tasshape/trace.h"

/* An opportunity trace from (ms, count) pairs; period = last ms. */
static inline struct ts_trace *fx_opps(const uint32_t *ms, const uint32_t *count, size_t n)
{
	struct ts_trace *t = calloc(1, sizeof(*t));
	size_t i;

	t->kind = TS_TRACE_OPPS;
	t->opps = calloc(n, sizeof(*t->opps));
	for (i = 0; i < n; i++) {
		t->opps[i].ms = ms[i];
		t->opps[i].count = count[i];
	}
	t->n = t->cap = n;
	t->period = (ts_ns_t)ms[n - 1] * TS_NSEC_PER_MSEC;
	strcpy(t->name, "fixture");
	return t;
}

/* A rate trace from (t, bps) rows and a period. */
static inline struct ts_trace *fx_rate(const ts_ns_t *at, const uint64_t *bps, size_t n,
				       ts_ns_t period)
{
	struct ts_trace *t = calloc(1, sizeof(*t));
	size_t i;

	t->kind = TS_TRACE_RATE;
	t->rows = calloc(n, sizeof(*t->rows));
	for (i = 0; i < n; i++) {
		t->rows[i].t = at[i];
		t->rows[i].bps = bps[i];
	}
	t->n = t->cap = n;
	t->period = period;
	strcpy(t->name, "fixture");
	return t;
}

static inline void fx_trace_free(struct ts_trace *t)
{
	free(t->opps);
	free(t->rows);
	free(t->delay);
	free(t->loss_ppm);
	free(t->cum);
	free(t);
}

#define FX_MAX 200000

/* Records every release and drop, in order. */
struct fx_sink {
	size_t nrel, ndrop;
	uint32_t rel_id[FX_MAX];
	ts_ns_t rel_t[FX_MAX];
	uint32_t drop_id[FX_MAX];
	ts_ns_t drop_t[FX_MAX];
	int drop_cause[FX_MAX];
	uint64_t rel_bytes;
	struct ts_pool *pool; /* packets go back here */
};

static inline void fx_release(void *ctx, struct ts_pkt *p, ts_ns_t t)
{
	struct fx_sink *s = ctx;

	if (s->nrel < FX_MAX) {
		s->rel_id[s->nrel] = p->id;
		s->rel_t[s->nrel] = t;
	}
	s->nrel++;
	s->rel_bytes += p->len;
	if (s->pool)
		ts_pool_put(s->pool, p);
}

static inline void fx_drop(void *ctx, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t t)
{
	struct fx_sink *s = ctx;

	if (s->ndrop < FX_MAX) {
		s->drop_id[s->ndrop] = p->id;
		s->drop_t[s->ndrop] = t;
		s->drop_cause[s->ndrop] = cause;
	}
	s->ndrop++;
	if (s->pool)
		ts_pool_put(s->pool, p);
}

#endif

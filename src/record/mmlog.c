/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "record/mmlog.h"
#include "tasshape/qdisc.h"
#include "io/outfile.h"

static int ring_init(struct ts_mm_ring *r, size_t cap)
{
	r->ev = calloc(cap, sizeof(*r->ev));
	r->cap = cap;
	r->head = 0;
	r->n = 0;
	return r->ev ? 0 : -ENOMEM;
}

static struct ts_mm_ev *ring_at(struct ts_mm_ring *r, size_t i)
{
	return &r->ev[(r->head + i) % r->cap];
}

static void write_ev(struct ts_mmlog *m, const struct ts_mm_ev *e)
{
	int n;

	switch (e->type) {
	case '-':
		n = fprintf(m->f, "%" PRId64 " - %" PRIu32 " %" PRIu32 "\n", e->ms, e->a, e->b);
		break;
	case 'd':
		n = fprintf(m->f, "%" PRId64 " d %" PRIu32 " %" PRIu32 "\n", e->ms, e->a, e->b);
		break;
	default:
		n = fprintf(m->f, "%" PRId64 " %c %" PRIu32 "\n", e->ms, e->type, e->a);
		break;
	}
	if (n < 0 && !m->error)
		m->error = -EIO;
	m->lines++;
	m->last_ms = e->ms;
}

/* Write, in time order (arrivals before departures of the same ms), every event before @limit. */
static void write_before(struct ts_mmlog *m, int64_t limit)
{
	for (;;) {
		struct ts_mm_ring *r = NULL;

		if (m->prompt.n && ring_at(&m->prompt, 0)->ms < limit)
			r = &m->prompt;
		if (m->dep.n && ring_at(&m->dep, 0)->ms < limit &&
		    (!r || ring_at(&m->dep, 0)->ms < ring_at(&m->prompt, 0)->ms))
			r = &m->dep;
		if (!r)
			return;
		write_ev(m, ring_at(r, 0));
		r->head = (r->head + 1) % r->cap;
		r->n--;
	}
}

/*
 * Insert keeping the ring sorted by time. Input is nearly sorted (events
 * of one loop turn may come a few out of order), so the walk from the
 * tail is short. Equal times keep their arrival order.
 */
static void push(struct ts_mmlog *m, struct ts_mm_ring *r, const struct ts_mm_ev *e)
{
	size_t i;

	if (r->n == r->cap) {
		/* Full: the oldest event of both rings goes out now. */
		int64_t oldest = ring_at(r, 0)->ms;

		if (m->prompt.n && ring_at(&m->prompt, 0)->ms < oldest)
			oldest = ring_at(&m->prompt, 0)->ms;
		if (m->dep.n && ring_at(&m->dep, 0)->ms < oldest)
			oldest = ring_at(&m->dep, 0)->ms;
		write_before(m, oldest + 1);
		m->out_of_order_risk++;
	}
	i = r->n++;
	while (i > 0 && ring_at(r, i - 1)->ms > e->ms) {
		*ring_at(r, i) = *ring_at(r, i - 1);
		i--;
	}
	*ring_at(r, i) = *e;
}

static int64_t ms_of(const struct ts_mmlog *m, ts_ns_t t)
{
	ts_ns_t d = t - m->origin;

	return d < 0 ? 0 : d / TS_NSEC_PER_MSEC;
}

/* Opportunities of every whole millisecond before @until_ms. */
static void catch_up(struct ts_mmlog *m, int64_t until_ms)
{
	struct ts_mm_ev e = {.type = '#', .a = TS_MM_PACKET_SIZE};

	if (!m->trace)
		return;
	for (; m->opp_ms < until_ms; m->opp_ms++) {
		ts_ns_t t0 = m->opp_ms * TS_NSEC_PER_MSEC;

		m->opp_acc += ts_trace_capacity_bytes(m->trace, t0, t0 + TS_NSEC_PER_MSEC);
		e.ms = m->opp_ms;
		while (m->opp_acc >= TS_OPP_BYTES) {
			m->opp_acc -= TS_OPP_BYTES;
			push(m, &m->prompt, &e);
		}
	}
}

int ts_mmlog_init(struct ts_mmlog *m, FILE *f, const struct ts_mmlog_conf *c)
{
	size_t cap = c->ring ? c->ring : 65536;

	memset(m, 0, sizeof(*m));
	m->f = f;
	m->trace = c->trace;
	m->origin = c->origin;
	m->drops = c->drops;
	/* Whole ms, rounded up, plus one: an event at ms k is final once the clock is past k + lag. */
	m->lag_ms = (c->lag_ns + TS_NSEC_PER_MSEC - 1) / TS_NSEC_PER_MSEC + 1;
	m->last_ms = -1;
	if (ring_init(&m->prompt, cap) < 0 || ring_init(&m->dep, cap) < 0) {
		free(m->prompt.ev);
		free(m->dep.ev);
		memset(m, 0, sizeof(*m));
		return -ENOMEM;
	}
	fprintf(f, "# mahimahi mm-link (%s) [%s] > %s\n", c->link_name,
		c->trace ? c->trace->name : "unlimited", c->path ? c->path : "-");
	fprintf(f, "# command line: %s\n", c->command_line ? c->command_line : "");
	fprintf(f, "# queue: %s\n", c->queue ? c->queue : TS_QDISC_DEFAULT);
	fprintf(f, "# init timestamp: %" PRId64 "\n", c->init_epoch_ms);
	fprintf(f, "# base timestamp: 0\n");
	fprintf(f,
		"# tasshape: sizes are IP bytes + %d (mahimahi's TUN header); one opportunity "
		"(# %d) carries %u IP bytes\n",
		TS_MM_TUN_HDR, TS_MM_PACKET_SIZE, TS_OPP_BYTES);
	return 0;
}

int ts_mmlog_open(struct ts_mmlog *m, const struct ts_mmlog_conf *c, struct ts_err *err)
{
	FILE *f = ts_out_fopen(c->path, err);
	int ret;

	if (!f)
		return -errno;
	/* A large buffer: at 1 Gbit/s the log takes ~250k lines a second. */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	ret = ts_mmlog_init(m, f, c);
	if (ret < 0) {
		fclose(f);
		ts_err_set(err, "%s: out of memory", c->path);
		return ret;
	}
	m->own = true;
	return 0;
}

void ts_mmlog_arrival(struct ts_mmlog *m, ts_ns_t t, uint32_t len)
{
	struct ts_mm_ev e = {.type = '+', .ms = ms_of(m, t), .a = len + TS_MM_TUN_HDR};

	catch_up(m, e.ms);
	push(m, &m->prompt, &e);
}

void ts_mmlog_departure(struct ts_mmlog *m, ts_ns_t t_arr, ts_ns_t t_dep, uint32_t len)
{
	struct ts_mm_ev e = {.type = '-', .ms = ms_of(m, t_dep), .a = len + TS_MM_TUN_HDR};
	int64_t arr = ms_of(m, t_arr);

	/* The delay is a difference of the logged ms, so "T - DELAY" is the arrival's line. */
	e.b = (uint32_t)(e.ms > arr ? e.ms - arr : 0);
	push(m, &m->dep, &e);
}

void ts_mmlog_drop(struct ts_mmlog *m, ts_ns_t t, uint32_t pkts, uint32_t len)
{
	struct ts_mm_ev e = {.type = 'd', .ms = ms_of(m, t), .a = pkts};

	if (!m->drops)
		return;
	e.b = len + TS_MM_TUN_HDR * pkts;
	catch_up(m, e.ms);
	push(m, &m->prompt, &e);
}

void ts_mmlog_flush(struct ts_mmlog *m, ts_ns_t now)
{
	int64_t ms = ms_of(m, now);

	if (!m->f)
		return;
	catch_up(m, ms);
	write_before(m, ms - m->lag_ms);
}

int ts_mmlog_close(struct ts_mmlog *m, ts_ns_t now)
{
	int ret;

	if (!m->f)
		return 0;
	catch_up(m, ms_of(m, now));
	write_before(m, INT64_MAX);
	if (fflush(m->f) != 0 && !m->error)
		m->error = -errno;
	if (m->own && fclose(m->f) != 0 && !m->error)
		m->error = -EIO;
	free(m->prompt.ev);
	free(m->dep.ev);
	ret = m->error;
	memset(m, 0, sizeof(*m));
	return ret;
}

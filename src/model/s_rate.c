/* SPDX-License-Identifier: MIT */
/*
 * The trace server: a queue discipline in front of a link whose capacity
 * a trace gives (docs/design.md, "Stages, pipes and directions"). One packet is on the
 * link at a time. When the link is idle and a packet is queued, the
 * server waits for the first instant the trace offers capacity, dequeues
 * the head there (so CoDel sees the real sojourn), and delivers it when
 * its last byte has been served. Capacity offered while nothing is
 * queued is lost, as on a real link and in mahimahi.
 */
#include <errno.h>

#include "tasshape/qdisc.h"
#include "tasshape/stage.h"

struct rate_priv {
	struct ts_qdisc *q;
	struct ts_trace_cursor cur;
	struct ts_pkt *tx;  /* on the link, or NULL */
	ts_ns_t tx_done;    /* when tx's last byte is delivered */
	ts_ns_t next_start; /* idle with packets queued: when service can begin, else TS_NEVER */
	bool ended;	    /* a --once trace has ended */
	ts_ns_t end;	    /* --once: when the trace ends (an event even on an idle link) */
};

static int rate_init(struct ts_stage *st, const struct ts_stage_conf *conf, struct ts_err *err)
{
	struct rate_priv *rp = st->priv;
	int ret;

	if (!conf->trace) {
		ts_err_set(err, "rate: needs a capacity trace");
		return -EINVAL;
	}
	ret = ts_qdisc_create(&rp->q, conf->qdisc, conf->seed, ts_stage_drop_cb, st, err);
	if (ret < 0)
		return ret;
	ts_trace_cursor_init(&rp->cur, conf->trace, conf->origin, conf->once);
	rp->tx = NULL;
	rp->tx_done = TS_NEVER;
	rp->next_start = TS_NEVER;
	rp->ended = false;
	rp->end = conf->once ? conf->origin + conf->trace->period : TS_NEVER;
	return 0;
}

static void rate_fini(struct ts_stage *st, ts_ns_t now)
{
	struct rate_priv *rp = st->priv;
	enum ts_drop_cause cause = rp->ended ? TS_DROP_TRACE_END : TS_DROP_SHUTDOWN;

	if (rp->tx)
		ts_stage_drop(st, rp->tx, cause, now);
	rp->tx = NULL;
	ts_qdisc_destroy(rp->q, cause, now);
	rp->q = NULL;
}

/* Begin sending the head of the queue at @t, an instant with capacity. */
static void rate_begin(struct ts_stage *st, ts_ns_t t)
{
	struct rate_priv *rp = st->priv;
	struct ts_pkt *p;

	rp->next_start = TS_NEVER;
	p = rp->q->ops->dequeue(rp->q, t);
	if (!p)
		return;
	ts_hist_add(&st->stats.qdelay, t - p->t_enq);
	rp->tx = p;
	rp->tx_done = ts_trace_cursor_serve(&rp->cur, t, p->len);
	if (rp->tx_done == TS_NEVER)
		rp->ended = true;
}

/* The link is free at @t: find when the next queued packet can start. */
static void rate_schedule(struct ts_stage *st, ts_ns_t t)
{
	struct rate_priv *rp = st->priv;
	ts_ns_t start;

	if (rp->tx || !ts_qdisc_pkts(rp->q) || rp->ended)
		return;
	start = ts_trace_cursor_start(&rp->cur, t);
	if (start == TS_NEVER) {
		rp->ended = true;
		return;
	}
	if (start == t)
		rate_begin(st, t);
	else
		rp->next_start = start;
}

static void rate_advance(struct ts_stage *st, ts_ns_t now)
{
	struct rate_priv *rp = st->priv;

	for (;;) {
		if (rp->tx && rp->tx_done <= now) {
			struct ts_pkt *p = rp->tx;
			ts_ns_t t = rp->tx_done;

			rp->tx = NULL;
			rp->tx_done = TS_NEVER;
			ts_stage_emit(st, p, t);
			rate_schedule(st, t);
		} else if (!rp->tx && rp->next_start <= now) {
			ts_ns_t t = rp->next_start;

			rate_begin(st, t);
			if (!rp->tx)
				rate_schedule(st, t); /* the queue dropped what it had */
		} else {
			break;
		}
	}
	if (now >= rp->end)
		rp->ended = true; /* whatever is still queued waits for the shutdown */
}

static void rate_enqueue(struct ts_stage *st, struct ts_pkt *p, ts_ns_t now)
{
	struct rate_priv *rp = st->priv;

	rate_advance(st, now);
	rp->q->ops->enqueue(rp->q, p, now);
	if (!rp->tx && rp->next_start == TS_NEVER)
		rate_schedule(st, now);
}

static ts_ns_t rate_next_deadline(const struct ts_stage *st)
{
	const struct rate_priv *rp = st->priv;

	ts_ns_t d = rp->tx ? rp->tx_done : rp->next_start;

	/* The end of a --once trace is an event of its own, so an idle link ends too. */
	return rp->ended ? d : ts_min(d, rp->end);
}

bool ts_rate_ended(const struct ts_stage *st)
{
	const struct rate_priv *rp = st->priv;

	return rp->ended;
}

const struct ts_stage_ops ts_s_rate = {
	.name = "rate",
	.keys = "",
	.priv_size = sizeof(struct rate_priv),
	.init = rate_init,
	.fini = rate_fini,
	.enqueue = rate_enqueue,
	.next_deadline = rate_next_deadline,
	.advance = rate_advance,
};

/* SPDX-License-Identifier: MIT */
/*
 * FIFO queues, as Linux's sch_fifo.c and mahimahi's drop_tail_queue /
 * drop_head_queue: droptail refuses the arriving packet when a limit is
 * reached, drophead drops the oldest packets to make room (which keeps
 * the queue's content fresh: what is dropped has waited longest).
 * Limits: packets=N and/or bytes=SIZE; at least one is required, so that
 * an unbounded queue is only ever asked for by name ("infinite").
 */
#include <errno.h>

#include "tasshape/qdisc.h"

struct fifo_priv {
	uint64_t limit_pkts;  /* 0 = no packet limit */
	uint64_t limit_bytes; /* 0 = no byte limit */
};

static int fifo_init(struct ts_qdisc *q, struct ts_spec *spec, struct ts_err *err)
{
	struct fifo_priv *fp = q->priv;
	int ret;

	ret = ts_spec_get_u64(spec, "packets", &fp->limit_pkts, err);
	if (ret < 0)
		return ret;
	ret = ts_spec_get_size(spec, "bytes", &fp->limit_bytes, err);
	if (ret < 0)
		return ret;
	if (!fp->limit_pkts && !fp->limit_bytes) {
		ts_err_set(
			err,
			"%s: needs a limit, packets=N and/or bytes=SIZE (use 'infinite' for none)",
			spec->name);
		return -EINVAL;
	}
	return 0;
}

static int fifo_over(const struct ts_qdisc *q, const struct ts_pkt *p)
{
	const struct fifo_priv *fp = q->priv;

	/* A GSO unit (--gso) is the wire packets it stands for, as a router would hold them. */
	if (fp->limit_pkts && q->fifo.segs + ts_pkt_segs(p) > fp->limit_pkts)
		return 1;
	if (fp->limit_bytes && q->fifo.bytes + p->len > fp->limit_bytes)
		return 1;
	return 0;
}

static void droptail_enqueue(struct ts_qdisc *q, struct ts_pkt *p, ts_ns_t now)
{
	if (fifo_over(q, p)) {
		ts_qdisc_drop(q, p, TS_DROP_OVERLIMIT, now);
		return;
	}
	p->t_enq = now;
	ts_fifo_push(&q->fifo, p);
}

static void drophead_enqueue(struct ts_qdisc *q, struct ts_pkt *p, ts_ns_t now)
{
	const struct fifo_priv *fp = q->priv;

	/* A packet larger than the whole byte limit could never fit. */
	if (fp->limit_bytes && p->len > fp->limit_bytes) {
		ts_qdisc_drop(q, p, TS_DROP_OVERLIMIT, now);
		return;
	}
	while (q->fifo.head && fifo_over(q, p))
		ts_qdisc_drop(q, ts_fifo_pop(&q->fifo), TS_DROP_HEAD, now);
	p->t_enq = now;
	ts_fifo_push(&q->fifo, p);
}

static struct ts_pkt *fifo_dequeue(struct ts_qdisc *q, ts_ns_t now)
{
	(void)now;
	return ts_fifo_pop(&q->fifo);
}

static int infinite_init(struct ts_qdisc *q, struct ts_spec *spec, struct ts_err *err)
{
	(void)q;
	(void)spec;
	(void)err;
	return 0;
}

static void infinite_enqueue(struct ts_qdisc *q, struct ts_pkt *p, ts_ns_t now)
{
	p->t_enq = now;
	ts_fifo_push(&q->fifo, p);
}

const struct ts_qdisc_ops ts_q_droptail = {
	.name = "droptail",
	.keys = "packets, bytes",
	.help = "FIFO, drops arriving packets over packets=N / bytes=SIZE",
	.priv_size = sizeof(struct fifo_priv),
	.init = fifo_init,
	.enqueue = droptail_enqueue,
	.dequeue = fifo_dequeue,
};

const struct ts_qdisc_ops ts_q_drophead = {
	.name = "drophead",
	.keys = "packets, bytes",
	.help = "FIFO, drops the oldest packets to stay within packets=N / bytes=SIZE",
	.priv_size = sizeof(struct fifo_priv),
	.init = fifo_init,
	.enqueue = drophead_enqueue,
	.dequeue = fifo_dequeue,
};

const struct ts_qdisc_ops ts_q_infinite = {
	.name = "infinite",
	.keys = "",
	.help = "FIFO without limit (only bounded by the descriptor pool)",
	.priv_size = 0,
	.init = infinite_init,
	.enqueue = infinite_enqueue,
	.dequeue = fifo_dequeue,
};

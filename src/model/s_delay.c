/* SPDX-License-Identifier: MIT */
/*
 * The delay line: a fixed one-way propagation delay ("delay:delay=20ms")
 * plus, when the trace has a delay column, the delay of the row in force
 * when the packet enters. A packet never overtakes the one before it: if
 * the delay drops, later packets wait for earlier ones (a path does not
 * reorder because its latency changed), so the line is a FIFO.
 */
#include <errno.h>

#include "tasshape/stage.h"

struct delay_priv {
	ts_ns_t fixed;
	const struct ts_trace *trace; /* delay column source, or NULL */
	ts_ns_t origin;
	ts_ns_t last_due; /* due time of the newest packet in the line */
	struct ts_fifo line;
};

static int delay_init(struct ts_stage *st, const struct ts_stage_conf *conf, struct ts_err *err)
{
	struct delay_priv *dp = st->priv;
	ts_ns_t d;
	int ret;

	dp->fixed = 0;
	if (conf->spec) {
		ret = ts_spec_get_time(conf->spec, "delay", &dp->fixed, err);
		if (ret < 0)
			return ret;
		ret = ts_spec_check_used(conf->spec, st->ops->keys, err);
		if (ret < 0)
			return ret;
	}
	dp->trace = ts_trace_delay_at(conf->trace, 0, &d) ? conf->trace : NULL;
	dp->origin = conf->origin;
	dp->last_due = TS_NEVER;
	ts_fifo_init(&dp->line);
	return 0;
}

static void delay_fini(struct ts_stage *st, ts_ns_t now)
{
	struct delay_priv *dp = st->priv;
	struct ts_pkt *p;

	while ((p = ts_fifo_pop(&dp->line)))
		ts_stage_drop(st, p, TS_DROP_SHUTDOWN, now);
}

static void delay_advance(struct ts_stage *st, ts_ns_t now)
{
	struct delay_priv *dp = st->priv;

	while (dp->line.head && dp->line.head->t_due <= now) {
		struct ts_pkt *p = ts_fifo_pop(&dp->line);

		ts_stage_emit(st, p, p->t_due);
	}
}

static void delay_enqueue(struct ts_stage *st, struct ts_pkt *p, ts_ns_t now)
{
	struct delay_priv *dp = st->priv;
	ts_ns_t d = dp->fixed, extra;

	delay_advance(st, now);
	if (dp->trace && ts_trace_delay_at(dp->trace, now - dp->origin, &extra))
		d += extra;
	p->t_due = now + d;
	if (dp->line.tail && p->t_due < dp->last_due)
		p->t_due = dp->last_due; /* FIFO: wait behind the previous packet */
	dp->last_due = p->t_due;
	if (!d && !dp->line.head) {
		ts_stage_emit(st, p, now);
		return;
	}
	ts_fifo_push(&dp->line, p);
}

static ts_ns_t delay_next_deadline(const struct ts_stage *st)
{
	const struct delay_priv *dp = st->priv;

	return dp->line.head ? dp->line.head->t_due : TS_NEVER;
}

const struct ts_stage_ops ts_s_delay = {
	.name = "delay",
	.keys = "delay",
	.priv_size = sizeof(struct delay_priv),
	.init = delay_init,
	.fini = delay_fini,
	.enqueue = delay_enqueue,
	.next_deadline = delay_next_deadline,
	.advance = delay_advance,
};

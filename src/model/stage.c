/* SPDX-License-Identifier: MIT */
/*
 * The generic half of every stage: counting and handing packets on. A
 * stage file only implements its own behaviour.
 */
#include "tasshape/pipe.h"
#include "tasshape/stage.h"

const char *ts_place_name(enum ts_place place)
{
	return place == TS_PLACE_SENDER ? "sender" : "network";
}

static const char *const drop_names[TS_DROP__COUNT] = {
	[TS_DROP_LOSS] = "loss",
	[TS_DROP_OVERLIMIT] = "overlimit",
	[TS_DROP_HEAD] = "headdrop",
	[TS_DROP_CODEL] = "codel",
	[TS_DROP_PIE] = "pie",
	[TS_DROP_MAC_RETRY] = "mac_retry",
	[TS_DROP_TRACE_END] = "trace_end",
	[TS_DROP_NO_DESC] = "no_descriptor",
	[TS_DROP_SHUTDOWN] = "shutdown",
};

const char *ts_drop_name(enum ts_drop_cause cause)
{
	if ((unsigned int)cause >= TS_DROP__COUNT)
		return "unknown";
	return drop_names[cause];
}

/* Called for every packet entering a stage, before its ops->enqueue. */
static void stage_count_in(struct ts_stage *st, const struct ts_pkt *p)
{
	struct ts_stage_stats *s = &st->stats;

	s->pkts_in++;
	s->bytes_in += p->len;
	s->held_pkts++;
	s->held_bytes += p->len;
}

/* After an enqueue settles (the packet may have been dropped at once). */
static void stage_update_peak(struct ts_stage *st)
{
	struct ts_stage_stats *s = &st->stats;

	if (s->held_pkts > s->peak_pkts)
		s->peak_pkts = s->held_pkts;
	if (s->held_bytes > s->peak_bytes)
		s->peak_bytes = s->held_bytes;
}

void ts_stage_enqueue(struct ts_stage *st, struct ts_pkt *p, ts_ns_t t)
{
	stage_count_in(st, p);
	st->ops->enqueue(st, p, t);
	stage_update_peak(st);
}

static void stage_count_out(struct ts_stage *st, const struct ts_pkt *p)
{
	st->stats.held_pkts--;
	st->stats.held_bytes -= p->len;
}

void ts_stage_emit(struct ts_stage *st, struct ts_pkt *p, ts_ns_t t)
{
	struct ts_pipe *pipe = st->pipe;

	stage_count_out(st, p);
	st->stats.pkts_out++;
	st->stats.bytes_out += p->len;
	if (st->next) {
		p->t_enq = t;
		ts_stage_enqueue(st->next, p, t);
		return;
	}
	pipe->stats.pkts_out++;
	pipe->stats.bytes_out += p->len;
	ts_hist_add(&pipe->stats.sojourn, t - p->t_arrival);
	pipe->release(pipe->ctx, p, t);
}

void ts_stage_drop(struct ts_stage *st, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t t)
{
	struct ts_pipe *pipe = st->pipe;

	stage_count_out(st, p);
	st->stats.drops[cause]++;
	st->stats.drop_bytes[cause] += p->len;
	pipe->stats.drops[cause]++;
	pipe->stats.drop_bytes[cause] += p->len;
	pipe->drop(pipe->ctx, p, cause, t);
}

void ts_stage_drop_cb(void *stage, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t t)
{
	ts_stage_drop(stage, p, cause, t);
}

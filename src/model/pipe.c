/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/pipe.h"

void ts_pipe_init(struct ts_pipe *pipe, enum ts_place place, ts_release_fn release, ts_drop_fn drop,
		  void *ctx)
{
	memset(pipe, 0, sizeof(*pipe));
	pipe->place = place;
	pipe->release = release;
	pipe->drop = drop;
	pipe->ctx = ctx;
	ts_hist_init(&pipe->stats.sojourn);
}

int ts_pipe_add(struct ts_pipe *pipe, const struct ts_stage_ops *ops,
		const struct ts_stage_conf *conf, struct ts_err *err)
{
	struct ts_stage *st = NULL;
	int ret = -E2BIG;

	if (pipe->nstages >= sizeof(pipe->stage) / sizeof(pipe->stage[0])) {
		ts_err_set(err, "too many stages in one direction");
		goto out;
	}
	ret = -ENOMEM;
	st = calloc(1, sizeof(*st));
	if (!st)
		goto out;
	st->priv = calloc(1, ops->priv_size ? ops->priv_size : 1);
	if (!st->priv)
		goto out;
	st->ops = ops;
	st->pipe = pipe;
	ts_hist_init(&st->stats.qdelay);
	st->place = pipe->place;
	ret = ops->init(st, conf, err);
	if (ret < 0)
		goto out;
	if (pipe->nstages)
		pipe->stage[pipe->nstages - 1]->next = st;
	pipe->stage[pipe->nstages++] = st;
	st = NULL;
out:
	if (st) {
		free(st->priv);
		free(st);
	}
	return ret;
}

void ts_pipe_drain(struct ts_pipe *pipe, ts_ns_t now)
{
	unsigned int i;

	if (pipe->drained)
		return;
	pipe->drained = true;
	/* Front to back: nothing a later stage drops can flow back upstream. */
	for (i = 0; i < pipe->nstages; i++) {
		struct ts_stage *st = pipe->stage[i];

		if (st->ops->fini)
			st->ops->fini(st, now);
	}
}

void ts_pipe_fini(struct ts_pipe *pipe, ts_ns_t now)
{
	unsigned int i;

	ts_pipe_drain(pipe, now);
	for (i = 0; i < pipe->nstages; i++) {
		free(pipe->stage[i]->priv);
		free(pipe->stage[i]);
		pipe->stage[i] = NULL;
	}
	pipe->nstages = 0;
}

void ts_pipe_enqueue(struct ts_pipe *pipe, struct ts_pkt *p, ts_ns_t now)
{
	struct ts_stage *first = pipe->nstages ? pipe->stage[0] : NULL;

	pipe->stats.pkts_in++;
	pipe->stats.bytes_in += p->len;
	p->t_arrival = now;
	p->t_enq = now;
	if (!first) {
		pipe->stats.pkts_out++;
		pipe->stats.bytes_out += p->len;
		ts_hist_add(&pipe->stats.sojourn, 0);
		pipe->release(pipe->ctx, p, now);
		return;
	}
	ts_stage_enqueue(first, p, now);
}

ts_ns_t ts_pipe_next_deadline(const struct ts_pipe *pipe)
{
	ts_ns_t d = TS_NEVER;
	unsigned int i;

	for (i = 0; i < pipe->nstages; i++)
		d = ts_min(d, pipe->stage[i]->ops->next_deadline(pipe->stage[i]));
	return d;
}

void ts_pipe_advance(struct ts_pipe *pipe, ts_ns_t now)
{
	unsigned int i;

	/*
	 * In order: a packet stage i emits at t <= now enters stage i + 1,
	 * which first advances itself to t, so every stage sees its events in
	 * time order; then stage i + 1 is advanced the rest of the way.
	 */
	for (i = 0; i < pipe->nstages; i++)
		pipe->stage[i]->ops->advance(pipe->stage[i], now);
}

uint64_t ts_pipe_held_pkts(const struct ts_pipe *pipe)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < pipe->nstages; i++)
		n += pipe->stage[i]->stats.held_pkts;
	return n;
}

uint64_t ts_pipe_held_bytes(const struct ts_pipe *pipe)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < pipe->nstages; i++)
		n += pipe->stage[i]->stats.held_bytes;
	return n;
}

/* SPDX-License-Identifier: MIT */
/*
 * tasshape sim's run (run/simrun.h): the sources feed the link model's
 * pipes as the kernel's hooks would, and time jumps from one arrival or
 * model deadline to the next.
 */
#include <errno.h>
#include <string.h>

#include "run/simrun.h"
#include "tasshape/units.h"

int ts_sim_init(struct ts_sim_run *r)
{
	memset(r, 0, sizeof(*r));
	r->ctx.dirs = r->dirs;
	return ts_pool_init(&r->ctx.pool, 1u << 20) < 0 ? -ENOMEM : 0;
}

/*
 * A packet the sender pipe releases goes on to the network pipe, as the
 * kernel queues it again at the next hook in a real run (p->src holds the
 * place it was released from, p->user its direction).
 */
static void sim_release(void *ctx, struct ts_pkt *p, ts_ns_t t)
{
	struct ts_sim_ctx *s = ctx;
	struct ts_pipe *net = &s->dirs[p->user].pipe[TS_PLACE_NETWORK];

	if (p->src == TS_PLACE_SENDER && net->nstages) {
		p->src = TS_PLACE_NETWORK;
		ts_pipe_enqueue(net, p, t);
		return;
	}
	ts_pool_put(&s->pool, p);
}

static void sim_drop(void *ctx, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t t)
{
	struct ts_sim_ctx *s = ctx;

	(void)cause;
	(void)t;
	ts_pool_put(&s->pool, p);
}

/* The run's length: --duration, or with --once the longest trace if shorter. */
static ts_ns_t sim_duration(const struct ts_sim_req *a)
{
	ts_ns_t longest = 0;
	int i;

	if (!a->link->once)
		return a->duration;
	for (i = 0; i < 2; i++)
		if (a->link->cap[i])
			longest = ts_max(longest, a->link->cap[i]->period);
	return ts_min(a->duration, longest);
}

/*
 * Source rate of direction @i (0 up, 1 down): --offered-up/--offered-down, --offered,
 * or 120% of the mean capacity (100 Mbit/s if unlimited). 0: no source.
 */
static uint64_t sim_offered(const struct ts_sim_req *a, int i)
{
	uint64_t rate = a->offered;

	if (a->dir_given[i])
		return a->offered_dir[i];

	if (!rate && a->link->cap[i])
		/* 128-bit: bytes * 8e9 overflows 64 bits past ~2.3 GB of capacity. */
		rate = (uint64_t)((unsigned __int128)ts_trace_capacity_bytes(a->link->cap[i], 0,
									     a->duration) *
				  8u * TS_NSEC_PER_SEC * 12u / 10u / (uint64_t)a->duration);
	return rate ? rate : 100000000;
}

int ts_sim_setup(struct ts_sim_run *r, struct ts_sim_req *a, struct ts_err *err)
{
	int i, ret;

	ret = ts_linkcfg_load(a->link, err);
	if (ret < 0)
		return ret;
	a->duration = sim_duration(a);
	r->real = a->link->wifi6 ? ts_wifi6_conf_of(a->link->wifi6)->real : 1;
	for (i = 0; i < 2; i++) {
		ret = ts_linkcfg_build(a->link, i, &r->dirs[i], 0, sim_release, sim_drop, &r->ctx,
				       err);
		if (ret < 0)
			return ret;
		r->built++;
		if (!sim_offered(a, i)) {
			r->gap[i] = TS_NEVER; /* no source in this direction */
			continue;
		}
		r->gap[i] = (ts_ns_t)((uint64_t)a->pkt_size * 8 * (uint64_t)TS_NSEC_PER_SEC /
				      sim_offered(a, i));
		if (r->gap[i] < 1)
			r->gap[i] = 1;
	}
	return 0;
}

/* Feed direction @i's source up to @now into the first place that has stages. */
static void sim_feed(struct ts_sim_run *r, int i, ts_ns_t now, ts_ns_t *next, uint64_t *id,
		     uint32_t pkt_size)
{
	struct ts_dir *d = &r->dirs[i];
	int first = d->pipe[TS_PLACE_SENDER].nstages ? TS_PLACE_SENDER : TS_PLACE_NETWORK;

	while (*next <= now) {
		struct ts_pkt *p = ts_pool_get(&r->ctx.pool);

		*next += r->gap[i];
		if (!p) {
			r->no_desc[i]++;
			continue;
		}
		memset(p, 0, sizeof(*p));
		p->id = (uint32_t)(*id)++;
		p->len = pkt_size;
		p->segs = 1;
		p->src = (uint16_t)first;
		/* With real Wi-Fi stations, the source's packets take turns among them. */
		p->sta = (uint16_t)(r->real > 1 ? p->id % r->real : 0);
		p->user = (uint64_t)i;
		ts_pipe_enqueue(&d->pipe[first], p, now);
	}
}

/* Event-driven: jump to the next arrival or model deadline, whichever is first. */
void ts_sim_loop(struct ts_sim_run *r, ts_ns_t duration, uint32_t pkt_size)
{
	ts_ns_t next[2] = {0, 0}, now = 0;
	uint64_t id = 0;
	int i;

	for (i = 0; i < 2; i++)
		if (r->gap[i] == TS_NEVER)
			next[i] = TS_NEVER;

	while (now < duration) {
		ts_ns_t t = ts_min(next[0], next[1]);

		for (i = 0; i < 2; i++)
			t = ts_min(t, ts_dir_next_deadline(&r->dirs[i]));
		if (t >= duration)
			break;
		now = t;
		for (i = 0; i < 2; i++) {
			ts_pipe_advance(&r->dirs[i].pipe[TS_PLACE_SENDER], now);
			ts_pipe_advance(&r->dirs[i].pipe[TS_PLACE_NETWORK], now);
			sim_feed(r, i, now, &next[i], &id, pkt_size);
		}
	}
	/* The run is [0, duration): what is due at exactly duration is not counted. */
	for (i = 0; i < 2; i++) {
		ts_pipe_advance(&r->dirs[i].pipe[TS_PLACE_SENDER], duration - 1);
		ts_pipe_advance(&r->dirs[i].pipe[TS_PLACE_NETWORK], duration - 1);
	}
}

void ts_sim_summary(const struct ts_sim_run *r, ts_ns_t duration, struct ts_summary *sum)
{
	int i;

	for (i = 0; i < 2; i++) {
		sum->dir[i] = &r->dirs[i];
		sum->extra[i].no_descriptor = r->no_desc[i];
	}
	sum->start = 0;
	sum->end = duration;
}

void ts_sim_fini(struct ts_sim_run *r, ts_ns_t duration)
{
	int i;

	for (i = 0; i < r->built; i++)
		ts_dir_fini(&r->dirs[i], duration);
	ts_pool_fini(&r->ctx.pool);
}

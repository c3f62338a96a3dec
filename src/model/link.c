/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>

#include "tasshape/link.h"

/* Stream numbers for ts_rng_derive: fixed, so a seed's meaning never shifts. */
enum { SEED_LOSS = 1, SEED_QUEUE = 2, SEED_MAC_QUEUE = 3 };

/* Put "DIR: WHAT" in front of the message in @err. */
static void prefix(struct ts_err *err, const char *dir, const char *what)
{
	char msg[TS_ERR_MAX];

	if (!err)
		return;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	ts_err_set(err, "%s: %s%s", dir, what, msg);
}

static int add_stage(struct ts_pipe *pipe, const char *dir, const struct ts_stage_ops *ops,
		     const struct ts_stage_conf *conf, struct ts_err *err)
{
	int ret = ts_pipe_add(pipe, ops, conf, err);

	if (ret < 0)
		prefix(err, dir, "");
	return ret;
}

/* The direction's side of the Wi-Fi medium, in @pipe. */
static int add_mac(struct ts_dir *d, struct ts_pipe *pipe, const struct ts_dir_conf *conf,
		   struct ts_err *err)
{
	struct ts_stage_conf sc = {
		.qdisc = conf->mac_queue,
		.seed = ts_rng_derive(conf->seed, SEED_MAC_QUEUE),
		.origin = conf->origin,
		.wifi6 = conf->wifi6,
		.wifi6_side = conf->wifi6_side,
	};
	int ret = add_stage(pipe, conf->name, &ts_s_wifi6, &sc, err);

	if (!ret)
		d->mac = pipe->stage[pipe->nstages - 1];
	return ret;
}

int ts_dir_build(struct ts_dir *d, const struct ts_dir_conf *conf, ts_release_fn release,
		 ts_drop_fn drop, void *ctx, struct ts_err *err)
{
	struct ts_pipe *pipe = &d->pipe[conf->place];
	struct ts_stage_conf sc = {0};
	struct ts_spec spec;
	ts_ns_t dummy;
	uint32_t ppm;
	int ret;

	d->name = conf->name;
	d->rate = NULL;
	d->mac = NULL;
	d->trace = conf->trace;
	d->origin = conf->origin;
	ts_pipe_init(&d->pipe[TS_PLACE_SENDER], TS_PLACE_SENDER, release, drop, ctx);
	ts_pipe_init(&d->pipe[TS_PLACE_NETWORK], TS_PLACE_NETWORK, release, drop, ctx);
	sc.origin = conf->origin;
	sc.trace = conf->trace;

	/* The station's queue comes first, at its egress, where TSQ sees it. */
	if (conf->wifi6 && conf->wifi6_side == TS_WIFI6_UP) {
		ret = add_mac(d, &d->pipe[TS_PLACE_SENDER], conf, err);
		if (ret < 0)
			goto fail;
	}

	if (conf->loss || ts_trace_loss_at(conf->trace, 0, &ppm)) {
		sc.spec = NULL;
		if (conf->loss) {
			ret = ts_spec_parse(&spec, conf->loss, err);
			if (ret < 0) {
				prefix(err, conf->name, "loss: ");
				goto fail;
			}
			sc.spec = &spec;
		}
		sc.seed = ts_rng_derive(conf->seed, SEED_LOSS);
		ret = add_stage(pipe, conf->name, &ts_s_loss, &sc, err);
		if (ret < 0)
			goto fail;
	}
	if (conf->trace) {
		sc.spec = NULL;
		sc.qdisc = conf->queue;
		sc.once = conf->once;
		sc.seed = ts_rng_derive(conf->seed, SEED_QUEUE);
		ret = add_stage(pipe, conf->name, &ts_s_rate, &sc, err);
		if (ret < 0)
			goto fail;
		d->rate = pipe->stage[pipe->nstages - 1];
	}
	if (conf->delay > 0 || ts_trace_delay_at(conf->trace, 0, &dummy)) {
		char buf[64];

		snprintf(buf, sizeof(buf), "delay:delay=%lldns", (long long)conf->delay);
		ret = ts_spec_parse(&spec, buf, err);
		if (ret < 0)
			goto fail;
		sc.spec = &spec;
		ret = add_stage(pipe, conf->name, &ts_s_delay, &sc, err);
		if (ret < 0)
			goto fail;
	}
	/* The access point's queue comes last, after the router/ISP hop. */
	if (conf->wifi6 && conf->wifi6_side == TS_WIFI6_DOWN) {
		ret = add_mac(d, pipe, conf, err);
		if (ret < 0)
			goto fail;
	}
	return 0;
fail:
	ts_dir_fini(d, conf->origin);
	return ret;
}

void ts_dir_drain(struct ts_dir *d, ts_ns_t now)
{
	ts_pipe_drain(&d->pipe[TS_PLACE_SENDER], now);
	ts_pipe_drain(&d->pipe[TS_PLACE_NETWORK], now);
}

void ts_dir_fini(struct ts_dir *d, ts_ns_t now)
{
	ts_pipe_fini(&d->pipe[TS_PLACE_SENDER], now);
	ts_pipe_fini(&d->pipe[TS_PLACE_NETWORK], now);
	d->rate = NULL;
	d->mac = NULL;
}

ts_ns_t ts_dir_next_deadline(const struct ts_dir *d)
{
	return ts_min(ts_pipe_next_deadline(&d->pipe[TS_PLACE_SENDER]),
		      ts_pipe_next_deadline(&d->pipe[TS_PLACE_NETWORK]));
}

bool ts_dir_ended(const struct ts_dir *d)
{
	return d->rate && ts_rate_ended(d->rate);
}

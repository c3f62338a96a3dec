/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link/linkcfg.h"

static const char *const dir_name[2] = {"uplink", "downlink"};

/* ts_rng_derive stream of the Wi-Fi medium; the directions use 1 and 2. */
enum { SEED_WIFI6 = 3 };

void ts_linkcfg_init(struct ts_linkcfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->seed = 1;
	cfg->place[TS_UP] = TS_PLACE_NETWORK;
	cfg->place[TS_DOWN] = TS_PLACE_NETWORK;
	cfg->rt_priority = TS_RT_PRIO_DEFAULT;
	cfg->shaper_cpu = TS_SHAPER_CPU_AUTO;
}

static int keep(struct ts_linkcfg *cfg, struct ts_trace *t)
{
	size_t i;

	/* Capacity is asked for per window and per logged millisecond: index it. */
	ts_trace_index(t);
	for (i = 0; i < sizeof(cfg->owned) / sizeof(cfg->owned[0]); i++) {
		if (!cfg->owned[i]) {
			cfg->owned[i] = t;
			return 0;
		}
	}
	ts_trace_free(t);
	return -E2BIG;
}

unsigned int ts_linkcfg_stations(const struct ts_linkcfg *cfg)
{
	struct ts_wifi6_conf conf;
	struct ts_spec spec;
	struct ts_err e;

	if (cfg->wifi6)
		return ts_wifi6_conf_of(cfg->wifi6)->real;
	if (!cfg->mac || ts_spec_parse(&spec, cfg->mac, &e) < 0 || strcmp(spec.name, "wifi6"))
		return 1;
	ts_wifi6_conf_init(&conf);
	return ts_wifi6_conf_parse(&conf, &spec, &e) < 0 ? 1 : conf.real;
}

/* --mac: the shared medium of a Wi-Fi hop. */
static int load_mac(struct ts_linkcfg *cfg, struct ts_err *err)
{
	struct ts_wifi6_conf conf;
	struct ts_spec spec;
	int ret;

	ret = ts_spec_parse(&spec, cfg->mac, err);
	if (ret < 0)
		goto out;
	if (strcmp(spec.name, "wifi6")) {
		ts_err_set(err, "--mac: unknown MAC '%s' (expected wifi6:KEY=VALUE,...)",
			   spec.name);
		ret = -EINVAL;
		goto out;
	}
	ts_wifi6_conf_init(&conf);
	ret = ts_wifi6_conf_parse(&conf, &spec, err);
	if (ret < 0)
		goto out;
	ret = ts_wifi6_create(&cfg->wifi6, &conf, ts_rng_derive(cfg->seed, SEED_WIFI6), err);
out:
	if (ret < 0 && err) {
		char msg[TS_ERR_MAX];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		if (strncmp(msg, "--mac", 5))
			ts_err_set(err, "--mac: %s", msg);
	}
	return ret;
}

int ts_linkcfg_check(const struct ts_linkcfg *cfg, struct ts_err *err)
{
	const char *specs[3] = {cfg->trace, cfg->dir_trace[TS_UP], cfg->dir_trace[TS_DOWN]};
	int k;

	/* A constant rate never ends: --once would end it at an arbitrary period. */
	for (k = 0; k < 3 && cfg->once; k++) {
		if (specs[k] && !strncmp(specs[k], "const:", 6)) {
			ts_err_set(err,
				   "--once with %s: a constant rate has no end (use --duration)",
				   specs[k]);
			return -EINVAL;
		}
	}
	if (cfg->mac_queue && !cfg->mac) {
		ts_err_set(err, "--mac-queue: there is no Wi-Fi hop (add --mac wifi6:...)");
		return -EINVAL;
	}
	return 0;
}

/* --trace: one file or rate for both directions, or a CSV with a column each. */
static int load_both(struct ts_linkcfg *cfg, struct ts_err *err)
{
	struct ts_trace *down = NULL, *up = NULL;
	int ret;

	ret = ts_trace_open_spec(cfg->trace, &down, &up, err);
	if (ret < 0)
		return ret;
	if (down && !up && (down->kind == TS_TRACE_OPPS || !strncmp(cfg->trace, "const:", 6))) {
		/* One mahimahi file or rate for both directions, as `mm-link F F`. */
		up = down;
	}
	cfg->cap[TS_DOWN] = down;
	cfg->cap[TS_UP] = up;
	if (down)
		ret = keep(cfg, down);
	if (!ret && up && up != down)
		ret = keep(cfg, up);
	return ret;
}

/* --uplink-trace / --downlink-trace: its own column if it is a CSV with both, else its only one. */
static int load_one(struct ts_linkcfg *cfg, int dir, struct ts_err *err)
{
	struct ts_trace *down = NULL, *up = NULL;
	int ret;

	ret = ts_trace_open_spec(cfg->dir_trace[dir], &down, &up, err);
	if (ret < 0)
		return ret;
	if (dir == TS_UP && up) {
		cfg->cap[dir] = up;
		ret = keep(cfg, up);
		if (!ret && down)
			ret = keep(cfg, down);
	} else {
		cfg->cap[dir] = down ? down : up;
		ret = keep(cfg, down ? down : up);
		if (!ret && down && up)
			ret = keep(cfg, up);
	}
	return ret;
}

static int load_traces(struct ts_linkcfg *cfg, struct ts_err *err)
{
	int ret = 0, dir;

	if (cfg->trace)
		ret = load_both(cfg, err);
	for (dir = 0; dir < 2 && !ret; dir++)
		if (cfg->dir_trace[dir])
			ret = load_one(cfg, dir, err);
	if (ret < 0)
		return ret;
	for (dir = 0; dir < 2; dir++) {
		if ((cfg->trace || cfg->dir_trace[dir]) && !cfg->cap[dir]) {
			ts_err_set(err, "%s: no capacity for the %s (the file has no %s column)",
				   cfg->dir_trace[dir] ? cfg->dir_trace[dir] : cfg->trace,
				   dir_name[dir], dir == TS_UP ? "up_*" : "down_*");
			return -EINVAL;
		}
	}
	return 0;
}

void ts_linkcfg_warn(const struct ts_linkcfg *cfg, FILE *f)
{
	int dir;

	for (dir = 0; dir < 2; dir++) {
		if (cfg->queue[dir] && !strncmp(cfg->queue[dir], "infinite", 8) &&
		    (dir == TS_UP || cfg->queue[TS_UP] != cfg->queue[TS_DOWN]))
			fprintf(f,
				"tasshape: warning: the %s queue is infinite: it only ends when "
				"the descriptor pool does, and delays grow without bound\n",
				cfg->queue[TS_UP] == cfg->queue[TS_DOWN] ? "uplink and downlink"
									 : dir_name[dir]);
	}
}

int ts_linkcfg_load(struct ts_linkcfg *cfg, struct ts_err *err)
{
	int ret;

	ret = ts_linkcfg_check(cfg, err);
	if (!ret)
		ret = load_traces(cfg, err);
	if (!ret && cfg->mac)
		ret = load_mac(cfg, err);
	if (!ret)
		ts_linkcfg_warn(cfg, stderr);
	return ret;
}

int ts_linkcfg_build(const struct ts_linkcfg *cfg, int dir, struct ts_dir *d, ts_ns_t origin,
		     ts_release_fn release, ts_drop_fn drop, void *ctx, struct ts_err *err)
{
	struct ts_dir_conf c = {
		.name = dir_name[dir],
		.trace = cfg->cap[dir],
		.queue = cfg->queue[dir],
		.delay = cfg->delay,
		.loss = cfg->loss[dir],
		.seed = ts_rng_derive(cfg->seed, (uint64_t)dir + 1),
		.once = cfg->once,
		.place = cfg->place[dir],
		.origin = origin,
		.wifi6 = cfg->wifi6,
		.wifi6_side = dir == TS_UP ? TS_WIFI6_UP : TS_WIFI6_DOWN,
		.mac_queue = cfg->mac_queue,
	};

	return ts_dir_build(d, &c, release, drop, ctx, err);
}

/* Bytes a queue spec holds at most: packets=N of full-size packets, or bytes=SIZE. */
static uint64_t queue_bytes(const char *q)
{
	uint64_t pkts = UINT64_MAX, bytes = UINT64_MAX;
	struct ts_spec spec;

	if (!q)
		return TS_LINGER_QUEUE_PKTS * TS_LINGER_MTU;
	if (ts_spec_parse(&spec, q, NULL) < 0)
		return 0;
	if (!strcmp(spec.name, "infinite"))
		return UINT64_MAX;
	ts_spec_get_u64(&spec, "packets", &pkts, NULL);
	ts_spec_get_size(&spec, "bytes", &bytes, NULL);
	if (bytes != UINT64_MAX && (pkts == UINT64_MAX || bytes < pkts * TS_LINGER_MTU))
		return bytes;
	if (pkts != UINT64_MAX)
		return pkts * TS_LINGER_MTU;
	return TS_LINGER_QUEUE_PKTS * TS_LINGER_MTU;
}

/* Time a full queue of direction @dir takes to empty at the trace's mean rate; 0: unlimited. */
static ts_ns_t queue_delay(const struct ts_linkcfg *cfg, int dir)
{
	const struct ts_trace *t = cfg->cap[dir];
	uint64_t q = queue_bytes(cfg->queue[dir]), cap, ns;

	if (!t)
		return 0;
	if (cfg->mac)
		q = ts_max(q, queue_bytes(cfg->mac_queue)); /* the driver queue is in front */
	cap = ts_trace_capacity_bytes(t, 0, t->period);
	if (!cap || q == UINT64_MAX)
		return TS_LINGER_MAX;
	ns = (uint64_t)((unsigned __int128)q * (uint64_t)t->period / cap);
	return ns > (uint64_t)TS_LINGER_MAX ? TS_LINGER_MAX : (ts_ns_t)ns;
}

ts_ns_t ts_linkcfg_linger(const struct ts_linkcfg *cfg)
{
	ts_ns_t hold = 0;
	int dir;

	for (dir = 0; dir < 2; dir++)
		hold += queue_delay(cfg, dir) + cfg->delay;
	return ts_min(TS_LINGER_MAX, TS_LINGER_BASE + 2 * hold);
}

void ts_linkcfg_unload(struct ts_linkcfg *cfg)
{
	size_t i;

	for (i = 0; i < sizeof(cfg->owned) / sizeof(cfg->owned[0]); i++) {
		ts_trace_free(cfg->owned[i]);
		cfg->owned[i] = NULL;
	}
	cfg->cap[0] = cfg->cap[1] = NULL;
	ts_wifi6_put(cfg->wifi6);
	cfg->wifi6 = NULL;
}

void ts_linkcfg_free(struct ts_linkcfg *cfg)
{
	size_t i;

	ts_linkcfg_unload(cfg);
	for (i = 0; i < TS_LINKCFG_NSTR; i++) {
		free(cfg->str[i]);
		cfg->str[i] = NULL;
	}
}

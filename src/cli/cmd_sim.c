/* SPDX-License-Identifier: MIT */
/*
 * tasshape sim: run the link model alone, without the kernel, against a
 * constant-bit-rate source in each direction, and print the summary the
 * real datapath prints. Useful to see what a trace and a queue do before
 * spending a minute of real traffic on them, and needs no root.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "run/run_summary.h"
#include "tasshape/units.h"
#include "io/outfile.h"

struct sim_args {
	struct ts_linkcfg link;
	ts_ns_t duration;
	uint64_t offered;	 /* bit/s; 0: 120% of each direction's mean capacity */
	uint64_t offered_dir[2]; /* --offered-up, --offered-down: one direction's (0: no source) */
	bool dir_given[2];
	uint64_t pkt_size;
	const char *json;
};

enum { OPT_DURATION = 0x200, OPT_OFFERED, OPT_OFFERED_UP, OPT_OFFERED_DOWN, OPT_PKT, OPT_JSON };

static const struct argp_option sim_options[] = {
	{"duration", OPT_DURATION, "TIME", 0, "Simulated time (default 10s)", 0},
	{"offered", OPT_OFFERED, "RATE", 0,
	 "Constant bit rate offered to each direction (default 120% of its mean capacity)", 0},
	{"offered-up", OPT_OFFERED_UP, "RATE", 0,
	 "Rate offered to the uplink alone (0mbit: no uplink source; default: as --offered)", 0},
	{"offered-down", OPT_OFFERED_DOWN, "RATE", 0, "The same for the downlink", 0},
	{"packet-size", OPT_PKT, "SIZE", 0, "IP packet size of the source (default 1500B)", 0},
	{"summary-json", OPT_JSON, "FILE", 0, "Also write the summary as JSON to FILE", 0},
	{0}};

static error_t sim_parse(int key, char *arg, struct argp_state *state)
{
	struct sim_args *a = state->input;
	struct ts_err err;
	int i;

	ts_cli_check_path(state, sim_options, key, arg);
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->link;
		break;
	case OPT_DURATION:
		if (ts_parse_time(arg, &a->duration, &err) < 0)
			argp_error(state, "--duration: %s", err.msg);
		if (a->duration <= 0 || a->duration > 366 * 24 * 3600 * TS_NSEC_PER_SEC)
			argp_error(state,
				   "--duration: '%s': expected more than 0 and at most 366 days",
				   arg);
		break;
	case OPT_OFFERED:
		if (ts_parse_rate(arg, &a->offered, 0, &err) < 0)
			argp_error(state, "--offered: %s", err.msg);
		break;
	case OPT_OFFERED_UP:
	case OPT_OFFERED_DOWN:
		i = key == OPT_OFFERED_DOWN;
		if (ts_parse_rate(arg, &a->offered_dir[i], 1, &err) < 0)
			argp_error(state, "--offered-%s: %s", i ? "down" : "up", err.msg);
		a->dir_given[i] = true;
		break;
	case OPT_PKT:
		if (ts_parse_size(arg, &a->pkt_size, &err) < 0 || a->pkt_size < 20 ||
		    a->pkt_size > 65535)
			argp_error(state, "--packet-size: expected 20B to 65535B, got '%s'", arg);
		break;
	case OPT_JSON:
		a->json = arg;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child sim_children[] = {{&ts_link_argp, 0, NULL, 0}, {0}};

static const struct argp sim_argp = {
	sim_options,
	sim_parse,
	NULL,
	"Simulate the link model with a constant-bit-rate source in each direction, without "
	"the kernel, and print the run summary. No root needed.\v"
	"Examples:\n"
	"  tasshape sim --trace starlink --duration 30s\n"
	"  tasshape sim --trace lte-driving --queue codel --offered 20mbit\n"
	"  tasshape sim --trace const:25mbit --mac wifi6:phy=1201mbit --summary-json s.json",
	sim_children,
	NULL,
	NULL};

struct sim_ctx {
	struct ts_pool pool;
	struct ts_dir *dirs;
};

/*
 * A packet the sender pipe releases goes on to the network pipe, as the
 * kernel queues it again at the next hook in a real run (p->src holds the
 * place it was released from, p->user its direction).
 */
static void sim_release(void *ctx, struct ts_pkt *p, ts_ns_t t)
{
	struct sim_ctx *s = ctx;
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
	struct sim_ctx *s = ctx;

	(void)cause;
	(void)t;
	ts_pool_put(&s->pool, p);
}

/* The simulated run: the two directions, their sources and the counters the summary reads. */
struct sim_run {
	struct sim_ctx ctx;
	struct ts_dir dirs[2];
	int built;
	ts_ns_t gap[2]; /* between two packets of each direction's source */
	uint64_t no_desc[2];
	unsigned int real; /* the Wi-Fi hop's real stations (1 without one) */
};

/* The run's length: --duration, or with --once the longest trace if shorter. */
static ts_ns_t sim_duration(const struct sim_args *a)
{
	ts_ns_t longest = 0;
	int i;

	if (!a->link.once)
		return a->duration;
	for (i = 0; i < 2; i++)
		if (a->link.cap[i])
			longest = ts_max(longest, a->link.cap[i]->period);
	return ts_min(a->duration, longest);
}

/*
 * Source rate of direction @i (0 up, 1 down): --offered-up/--offered-down, --offered,
 * or 120% of the mean capacity (100 Mbit/s if unlimited). 0: no source.
 */
static uint64_t sim_offered(const struct sim_args *a, int i)
{
	uint64_t rate = a->offered;

	if (a->dir_given[i])
		return a->offered_dir[i];

	if (!rate && a->link.cap[i])
		/* 128-bit: bytes * 8e9 overflows 64 bits past ~2.3 GB of capacity. */
		rate = (uint64_t)((unsigned __int128)ts_trace_capacity_bytes(a->link.cap[i], 0,
									     a->duration) *
				  8u * TS_NSEC_PER_SEC * 12u / 10u / (uint64_t)a->duration);
	return rate ? rate : 100000000;
}

/* Load the traces and build both directions. Returns 0 or -1 (the error printed). */
static int sim_setup(struct sim_run *r, struct sim_args *a)
{
	struct ts_err err;
	int i;

	if (ts_linkcfg_load(&a->link, &err) < 0) {
		ts_cli_error("%s", err.msg);
		return -1;
	}
	a->duration = sim_duration(a);
	r->real = a->link.wifi6 ? ts_wifi6_conf_of(a->link.wifi6)->real : 1;
	for (i = 0; i < 2; i++) {
		if (ts_linkcfg_build(&a->link, i, &r->dirs[i], 0, sim_release, sim_drop, &r->ctx,
				     &err) < 0) {
			ts_cli_error("%s", err.msg);
			return -1;
		}
		r->built++;
		if (!sim_offered(a, i)) {
			r->gap[i] = TS_NEVER; /* no source in this direction */
			continue;
		}
		r->gap[i] =
			(ts_ns_t)(a->pkt_size * 8 * (uint64_t)TS_NSEC_PER_SEC / sim_offered(a, i));
		if (r->gap[i] < 1)
			r->gap[i] = 1;
	}
	return 0;
}

/* Feed direction @i's source up to @now into the first place that has stages. */
static void sim_feed(struct sim_run *r, int i, ts_ns_t now, ts_ns_t *next, uint64_t *id,
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
static void sim_loop(struct sim_run *r, ts_ns_t duration, uint32_t pkt_size)
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

/* The summary on stdout and, with --summary-json, in a file. Returns the exit code. */
static int sim_output(struct sim_run *r, const struct sim_args *a)
{
	struct ts_summary sum = {.title = "tasshape sim"};
	struct ts_err err;
	FILE *jf;
	int i, ret = 0;

	for (i = 0; i < 2; i++) {
		sum.dir[i] = &r->dirs[i];
		sum.extra[i].no_descriptor = r->no_desc[i];
	}
	sum.start = 0;
	sum.end = a->duration;
	ts_summary_print(stdout, &sum);
	if (!a->json)
		return 0;
	jf = ts_out_fopen(a->json, &err);
	if (!jf)
		return ts_cli_error("%s", err.msg);
	if (ts_summary_json(jf, &sum) < 0)
		ret = ts_cli_error("%s: cannot write: %s", a->json, strerror(errno));
	if (jf && fclose(jf) != 0 && !ret)
		ret = ts_cli_error("%s: cannot write: %s", a->json, strerror(errno));
	return ret;
}

int cmd_sim(int argc, char **argv)
{
	struct sim_args a = {.duration = 10 * TS_NSEC_PER_SEC, .pkt_size = 1500};
	struct sim_run r;
	int i, ret = 1;

	ts_linkcfg_init(&a.link);
	argp_parse(&sim_argp, argc, argv, 0, NULL, &a);
	if (!a.link.trace && !a.link.dir_trace[TS_UP] && !a.link.dir_trace[TS_DOWN])
		return ts_cli_error("sim: needs a capacity trace (--trace FILE or const:RATE)");
	memset(&r, 0, sizeof(r));
	r.ctx.dirs = r.dirs;
	if (ts_pool_init(&r.ctx.pool, 1u << 20) < 0)
		return ts_cli_error("sim: out of memory");
	if (sim_setup(&r, &a) == 0) {
		sim_loop(&r, a.duration, (uint32_t)a.pkt_size);
		ret = sim_output(&r, &a);
	}
	for (i = 0; i < r.built; i++)
		ts_dir_fini(&r.dirs[i], a.duration);
	ts_linkcfg_free(&a.link);
	ts_pool_fini(&r.ctx.pool);
	return ret;
}

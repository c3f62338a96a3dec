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
#include "run/summary.h"
#include "tasshape/units.h"

struct sim_args {
	struct ts_linkcfg link;
	ts_ns_t duration;
	uint64_t offered; /* bit/s; 0: 120% of each direction's mean capacity */
	uint64_t pkt_size;
	const char *json;
};

enum { OPT_DURATION = 0x200, OPT_OFFERED, OPT_PKT, OPT_JSON };

static const struct argp_option sim_options[] = {
	{"duration", OPT_DURATION, "TIME", 0, "Simulated time (default 10s)", 0},
	{"offered", OPT_OFFERED, "RATE", 0,
	 "Constant bit rate offered to each direction (default 120% of its mean capacity)", 0},
	{"packet-size", OPT_PKT, "SIZE", 0, "IP packet size of the source (default 1500B)", 0},
	{"summary-json", OPT_JSON, "FILE", 0, "Also write the summary as JSON to FILE", 0},
	{0}};

static error_t sim_parse(int key, char *arg, struct argp_state *state)
{
	struct sim_args *a = state->input;
	struct ts_err err;

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

int cmd_sim(int argc, char **argv)
{
	struct sim_args a = {.duration = 10 * TS_NSEC_PER_SEC, .pkt_size = 1500};
	struct ts_dir dirs[2];
	struct ts_summary sum = {.title = "tasshape sim"};
	struct sim_ctx ctx;
	ts_ns_t gap[2], next[2], now = 0;
	struct ts_err err;
	int built = 0, i, ret = 1;
	uint64_t id = 0, no_desc[2] = {0, 0};
	FILE *jf;

	ts_linkcfg_init(&a.link);
	argp_parse(&sim_argp, argc, argv, 0, NULL, &a);
	if (!a.link.trace && !a.link.dir_trace[TS_UP] && !a.link.dir_trace[TS_DOWN])
		return ts_cli_error("sim: needs a capacity trace (--trace FILE or const:RATE)");
	ctx.dirs = dirs;
	if (ts_pool_init(&ctx.pool, 1u << 20) < 0)
		return ts_cli_error("sim: out of memory");
	if (ts_linkcfg_load(&a.link, &err) < 0) {
		ts_cli_error("%s", err.msg);
		goto out;
	}
	if (a.link.once) {
		/* --once: the run ends with the longest trace. */
		ts_ns_t longest = 0;

		for (i = 0; i < 2; i++)
			if (a.link.cap[i])
				longest = ts_max(longest, a.link.cap[i]->period);
		a.duration = ts_min(a.duration, longest);
	}
	for (i = 0; i < 2; i++) {
		uint64_t rate = a.offered;

		if (ts_linkcfg_build(&a.link, i, &dirs[i], 0, sim_release, sim_drop, &ctx, &err) <
		    0) {
			ts_cli_error("%s", err.msg);
			goto out;
		}
		built++;
		if (!rate && a.link.cap[i])
			/* 128-bit: bytes * 8e9 overflows 64 bits past ~2.3 GB of capacity. */
			rate = (uint64_t)((unsigned __int128)ts_trace_capacity_bytes(
						  a.link.cap[i], 0, a.duration) *
					  8u * TS_NSEC_PER_SEC * 12u / 10u / (uint64_t)a.duration);
		if (!rate)
			rate = 100000000; /* unlimited direction: 100 Mbit/s */
		gap[i] = (ts_ns_t)(a.pkt_size * 8 * (uint64_t)TS_NSEC_PER_SEC / rate);
		if (gap[i] < 1)
			gap[i] = 1;
		next[i] = 0;
		sum.dir[i] = &dirs[i];
	}
	/* Event-driven: jump to the next arrival or model deadline, whichever is first. */
	while (now < a.duration) {
		ts_ns_t t = ts_min(next[0], next[1]);

		for (i = 0; i < 2; i++)
			t = ts_min(t, ts_dir_next_deadline(&dirs[i]));
		if (t >= a.duration)
			break;
		now = t;
		for (i = 0; i < 2; i++) {
			/* Packets enter at the first place that has stages. */
			int first = dirs[i].pipe[TS_PLACE_SENDER].nstages ? TS_PLACE_SENDER
									  : TS_PLACE_NETWORK;
			struct ts_pipe *pipe = &dirs[i].pipe[first];

			ts_pipe_advance(&dirs[i].pipe[TS_PLACE_SENDER], now);
			ts_pipe_advance(&dirs[i].pipe[TS_PLACE_NETWORK], now);
			while (next[i] <= now) {
				struct ts_pkt *p = ts_pool_get(&ctx.pool);

				next[i] += gap[i];
				if (!p) {
					no_desc[i]++;
					continue;
				}
				memset(p, 0, sizeof(*p));
				p->id = (uint32_t)id++;
				p->len = (uint32_t)a.pkt_size;
				p->segs = 1;
				p->src = (uint16_t)first;
				p->user = (uint64_t)i;
				ts_pipe_enqueue(pipe, p, now);
			}
		}
	}
	/* The run is [0, duration): what is due at exactly duration is not counted. */
	for (i = 0; i < 2; i++) {
		ts_pipe_advance(&dirs[i].pipe[TS_PLACE_SENDER], a.duration - 1);
		ts_pipe_advance(&dirs[i].pipe[TS_PLACE_NETWORK], a.duration - 1);
		sum.extra[i].no_descriptor = no_desc[i];
	}
	sum.start = 0;
	sum.end = a.duration;
	ts_summary_print(stdout, &sum);
	ret = 0;
	if (a.json) {
		jf = fopen(a.json, "w");
		if (!jf || ts_summary_json(jf, &sum) < 0) {
			ret = ts_cli_error("%s: cannot write: %s", a.json, strerror(errno));
		}
		if (jf && fclose(jf) != 0 && !ret)
			ret = ts_cli_error("%s: cannot write: %s", a.json, strerror(errno));
	}
out:
	for (i = 0; i < built; i++)
		ts_dir_fini(&dirs[i], a.duration);
	ts_linkcfg_free(&a.link);
	ts_pool_fini(&ctx.pool);
	return ret;
}

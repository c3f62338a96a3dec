/* SPDX-License-Identifier: MIT */
/* Link options, named as mahimahi, netem and tc users know them. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "link/bundled.h"
#include "run/rt.h"
#include "tasshape/qdisc.h"
#include "tasshape/stage.h"
#include "tasshape/text.h"
#include "tasshape/units.h"
#include "tasshape/wifi6.h"

enum {
	OPT_UP_TRACE = 0x100,
	OPT_DOWN_TRACE,
	OPT_UP_QUEUE,
	OPT_DOWN_QUEUE,
	OPT_UP_LOSS,
	OPT_DOWN_LOSS,
	OPT_UP_AT,
	OPT_ONCE,
	OPT_SEED,
	OPT_MAC,
	OPT_MAC_QUEUE,
	OPT_RT_PRIO,
};

static const struct argp_option link_options[] = {
	{NULL, 0, NULL, 0, "Link options:", 1},
	{"trace", 't', "FILE", 0,
	 "Capacity trace for both directions: a CSV with down_*/up_* columns, a mahimahi file "
	 "(used for both directions), a bundled trace by name (e.g. starlink; 'tasshape trace "
	 "list' shows them), or const:RATE (e.g. const:50mbit)",
	 1},
	{"uplink-trace", OPT_UP_TRACE, "FILE", 0, "Capacity trace of the uplink only", 1},
	{"downlink-trace", OPT_DOWN_TRACE, "FILE", 0, "Capacity trace of the downlink only", 1},
	{"delay", 'd', "TIME", 0,
	 "One-way propagation delay per direction (e.g. 20ms), added to "
	 "the trace's delay column",
	 1},
	/* The models after the colon come from the loss stage's table (link_help). */
	{"loss", 'l', "SPEC", 0, "Random loss, both directions: P (e.g. 1%),", 1},
	{"uplink-loss", OPT_UP_LOSS, "SPEC", 0, "Random loss of the uplink only", 1},
	{"downlink-loss", OPT_DOWN_LOSS, "SPEC", 0, "Random loss of the downlink only", 1},
	/* The text after the colon comes from the queue table (link_help). */
	{"queue", 'q', "SPEC", 0, "Queue of both directions (default " TS_QDISC_DEFAULT "):", 1},
	{"uplink-queue", OPT_UP_QUEUE, "SPEC", 0, "Queue of the uplink only", 1},
	{"downlink-queue", OPT_DOWN_QUEUE, "SPEC", 0, "Queue of the downlink only", 1},
	{"uplink-at", OPT_UP_AT, "PLACE", 0,
	 "Where the uplink's queue is held: network (default: after the veth, charged to no "
	 "socket) or sender (at the sending host's egress, charged to the socket, so TCP Small "
	 "Queues sees it)",
	 1},
	{"once", OPT_ONCE, NULL, 0,
	 "Play the trace once and end the run at its end (default: loop)", 1},
	{"seed", OPT_SEED, "N", 0, "Seed of every random choice (default 1)", 1},
	{"mac", OPT_MAC, "SPEC", 0,
	 "A Wi-Fi 6 hop in front of the wired link, one medium for both directions: "
	 "wifi6[:KEY=VALUE,...] with phy=RATE (default 1201mbit: 80 MHz, 2 SS, MCS 11) or "
	 "bw/mcs/ss/gi, phy_trace=FILE (time_s,phy_mbps), mpdus=256, ampdu_bytes, "
	 "ppdu_max=5484us, aifsn=3, cwmin=15, cwmax=1023, ba=256, retry=7, collision=P, "
	 "mpdu_err=P, stations=N, backoff=SLOTS, pacing_shift=7|8|kernel|tas:STARTUP/STEADY "
	 "(the station's TSQ budget, default 7 as mac80211). The uplink is the station's queue "
	 "(held at its egress, so TCP Small Queues limits what it aggregates) then the --uplink-* "
	 "hop; the downlink is the --downlink-* hop then the access point's queue. "
	 "Example: --mac wifi6:phy=1201mbit --uplink-trace const:25mbit (docs/wifi6-model.md)",
	 1},
	{"mac-queue", OPT_MAC_QUEUE, "SPEC", 0,
	 "Driver queue of the Wi-Fi station and access point (default " TS_QDISC_DEFAULT
	 ", like a txqueuelen of 1000); same syntax as --queue",
	 1},
	{"rt-priority", OPT_RT_PRIO, "N|off", 0,
	 "Run the shaper's loop under SCHED_FIFO priority N (1-49, default 10), memory locked; "
	 "everything it starts keeps normal scheduling. off: normal scheduling. Where the "
	 "kernel refuses, the run goes on without and the summary says why (sim has no "
	 "shaper loop and ignores it)",
	 1},
	{0}};

/* Here, not in main.c: the experiment layer's tests and fuzzers link this file alone. */
/* FILE, DIR, REPORT_DIR, SPEC_FILE: the argument names of paths. */
static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

const char *ts_cli_check_path(struct argp_state *state, const struct argp_option *opts, int key,
			      const char *arg)
{
	const struct argp_option *o;

	if (!arg || *arg)
		return arg;
	for (o = opts; o->name || o->key || o->doc; o++)
		if (o->key == key && o->arg &&
		    (ends_with(o->arg, "FILE") || ends_with(o->arg, "DIR")))
			argp_error(state, "--%s: an empty %s name (expected a path)", o->name,
				   ends_with(o->arg, "FILE") ? "file" : "directory");
	return arg;
}

/* "1%" or "0.01" means Bernoulli; anything with a model name is passed on. */
static const char *loss_spec(char *buf, size_t len, const char *arg)
{
	if (strchr(arg, ':'))
		return arg;
	snprintf(buf, len, "bernoulli:p=%s", arg);
	return buf;
}

static void no_drop(void *ctx, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t now)
{
	(void)ctx;
	(void)p;
	(void)cause;
	(void)now;
}

/* A bad queue spec is a usage error naming @opt (argp adds where --help is). */
static const char *check_queue(struct argp_state *state, const char *opt, const char *arg)
{
	struct ts_qdisc *q = NULL;
	struct ts_err err;

	if (ts_qdisc_create(&q, arg, 1, no_drop, NULL, &err) < 0)
		argp_error(state, "%s: %s", opt, err.msg);
	ts_qdisc_destroy(q, TS_DROP_SHUTDOWN, 0);
	return arg;
}

/* The same for a loss spec, after "1%" became "bernoulli:p=1%". */
static const char *check_loss(struct argp_state *state, const char *opt, const char *spec)
{
	struct ts_err err;

	if (ts_loss_spec_check(spec, &err) < 0)
		argp_error(state, "%s: %s", opt, err.msg);
	return spec;
}

/* And a MAC spec: its name and keys (a phy_trace file is read when the link is built). */
static const char *check_mac(struct argp_state *state, const char *arg)
{
	struct ts_wifi6_conf conf;
	struct ts_spec spec;
	struct ts_err err;

	/* argp_error returns under ARGP_NO_EXIT (experiment specs): stop at the first error. */
	if (ts_spec_parse(&spec, arg, &err) < 0) {
		argp_error(state, "--mac: %s", err.msg);
		return arg;
	}
	if (strcmp(spec.name, ts_s_wifi6.name)) {
		argp_error(state, "--mac: unknown MAC '%s' (expected %s:KEY=VALUE,...)", spec.name,
			   ts_s_wifi6.name);
		return arg;
	}
	ts_wifi6_conf_init(&conf);
	if (ts_wifi6_conf_parse(&conf, &spec, &err) < 0)
		argp_error(state, "--mac: %s", err.msg);
	return arg;
}

/* "off" or 1..TS_RT_PRIO_MAX, digits only (no sign, no trailing junk). */
static int parse_rt_priority(const char *arg, int *out)
{
	char *end;
	long v;

	if (!strcmp(arg, "off")) {
		*out = 0;
		return 0;
	}
	if (arg[0] < '0' || arg[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v < 1 || v > TS_RT_PRIO_MAX)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

static int parse_place(const char *arg, enum ts_place *out)
{
	if (!strcmp(arg, "sender"))
		*out = TS_PLACE_SENDER;
	else if (!strcmp(arg, "network"))
		*out = TS_PLACE_NETWORK;
	else
		return -EINVAL;
	return 0;
}

/* Loss specs are rewritten into these buffers, which live as long as the program. */
static char loss_buf[2][256];

/* Bundled trace names resolve to paths kept here: --trace, --uplink-trace, --downlink-trace. */
static char trace_buf[3][PATH_MAX];

static error_t link_parse(int key, char *arg, struct argp_state *state)
{
	struct ts_linkcfg *cfg = state->input;
	struct ts_err err;
	uint64_t seed;

	ts_cli_check_path(state, link_options, key, arg);
	switch (key) {
	case 't':
		cfg->trace = ts_trace_resolve(arg, trace_buf[0], sizeof(trace_buf[0]));
		break;
	case OPT_UP_TRACE:
		cfg->dir_trace[TS_UP] = ts_trace_resolve(arg, trace_buf[1], sizeof(trace_buf[1]));
		break;
	case OPT_DOWN_TRACE:
		cfg->dir_trace[TS_DOWN] = ts_trace_resolve(arg, trace_buf[2], sizeof(trace_buf[2]));
		break;
	case 'd':
		/* An hour is beyond any path; the bound keeps now + delay from overflowing. */
		if (ts_parse_time(arg, &cfg->delay, &err) < 0)
			argp_error(state, "--delay: %s", err.msg);
		if (cfg->delay > 3600 * TS_NSEC_PER_SEC)
			argp_error(state, "--delay: '%s': expected at most 1 hour", arg);
		break;
	case 'l':
		cfg->loss[TS_UP] = check_loss(state, "--loss",
					      loss_spec(loss_buf[TS_UP], sizeof(loss_buf[0]), arg));
		cfg->loss[TS_DOWN] = loss_spec(loss_buf[TS_DOWN], sizeof(loss_buf[0]), arg);
		break;
	case OPT_UP_LOSS:
		cfg->loss[TS_UP] = check_loss(state, "--uplink-loss",
					      loss_spec(loss_buf[TS_UP], sizeof(loss_buf[0]), arg));
		break;
	case OPT_DOWN_LOSS:
		cfg->loss[TS_DOWN] =
			check_loss(state, "--downlink-loss",
				   loss_spec(loss_buf[TS_DOWN], sizeof(loss_buf[0]), arg));
		break;
	case 'q':
		cfg->queue[TS_UP] = cfg->queue[TS_DOWN] = check_queue(state, "--queue", arg);
		break;
	case OPT_UP_QUEUE:
		cfg->queue[TS_UP] = check_queue(state, "--uplink-queue", arg);
		break;
	case OPT_DOWN_QUEUE:
		cfg->queue[TS_DOWN] = check_queue(state, "--downlink-queue", arg);
		break;
	case OPT_UP_AT:
		/* Only the uplink has a sending host inside the emulated namespace. */
		if (parse_place(arg, &cfg->place[TS_UP]) < 0)
			argp_error(state, "--uplink-at: '%s' (expected sender or network)", arg);
		break;
	case OPT_ONCE:
		cfg->once = true;
		break;
	case OPT_SEED:
		if (ts_parse_u64(arg, &seed, &err) < 0)
			argp_error(state, "--seed: %s", err.msg);
		cfg->seed = seed;
		break;
	case OPT_MAC:
		cfg->mac = check_mac(state, arg);
		break;
	case OPT_MAC_QUEUE:
		cfg->mac_queue = check_queue(state, "--mac-queue", arg);
		break;
	case OPT_RT_PRIO:
		if (parse_rt_priority(arg, &cfg->rt_priority) < 0)
			argp_error(state, "--rt-priority: '%s' (expected off or a priority 1-%d)",
				   arg, TS_RT_PRIO_MAX);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * --queue's help lists every queue discipline with its own one-line help,
 * --loss's every loss model, both from their tables.
 */
static char *link_help(int key, const char *text, void *input)
{
	struct ts_text b;
	size_t i;

	(void)input;
	if ((key != 'q' && key != 'l') || !text)
		return (char *)text;
	ts_text_init(&b);
	ts_text_printf(&b, "%s", text);
	if (key == 'q') {
		for (i = 0; i < ts_qdisc_count(); i++)
			ts_text_printf(&b, "%s %s: %s", i ? ";" : "", ts_qdisc_at(i)->name,
				       ts_qdisc_at(i)->help);
	} else {
		for (i = 0; i < ts_loss_model_count(); i++)
			ts_text_printf(&b, "%s %s", i ? " or" : "", ts_loss_model_at(i)->help);
	}
	return b.p ? b.p : (char *)text; /* argp frees a text it did not pass in */
}

const struct argp ts_link_argp = {link_options, link_parse, NULL, NULL, NULL, link_help, NULL};

/* SPDX-License-Identifier: MIT */
/* Options shared by the commands that shape real traffic (the wrapper, attach). */
#include "cli/cli.h"
#include "tasshape/units.h"

enum {
	OPT_JSON = 0x400,
	OPT_QUIET,
	OPT_DURATION,
	OPT_KQUEUE,
	OPT_POOL,
	OPT_OUT,
	OPT_OUT_PCAP,
	OPT_PCAP_UP,
	OPT_PCAP_DOWN,
	OPT_PCAP_INGRESS,
	OPT_PCAP_DROPS,
	OPT_SNAPLEN,
	OPT_UP_LOG,
	OPT_DOWN_LOG,
	OPT_LOG_DROPS,
	OPT_STATS,
	OPT_INTERVAL,
	OPT_SOCKSTATS,
	OPT_SOCK_INTERVAL,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
	OPT_LINGER,
};

static const struct argp_option common_options[] = {
	{NULL, 0, NULL, 0, "Run options:", 2},
	{"summary-json", OPT_JSON, "FILE", 0, "Also write the run summary as JSON to FILE", 2},
	{"quiet", OPT_QUIET, NULL, 0, "No summary and no status line on stderr", 2},
	{"duration", OPT_DURATION, "TIME", 0, "End the run after TIME", 2},
	{"linger", OPT_LINGER, "TIME", 0,
	 "When the run ends (CMD exits, --duration, or attach is stopped), keep shaping until "
	 "the queues are empty (and CMD's connections closed), for at most TIME (default: twice "
	 "the longest time the link can hold a packet both ways, plus 1s; 0s: no drain)",
	 2},
	{"kernel-queue", OPT_KQUEUE, "N", 0,
	 "Kernel NFQUEUE length per hook (default 65536); must hold the emulated queue, the "
	 "packets in flight in the delay line, and bursts",
	 2},
	{"descriptors", OPT_POOL, "N", 0,
	 "Packet descriptors of the shaper (default 196608); when they run out, packets are "
	 "dropped and counted as no_descriptor",
	 2},
	{NULL, 0, NULL, 0, "Recording options (docs/observability.md):", 3},
	{"out", OPT_OUT, "DIR", 0,
	 "Write the run's record into DIR (created): manifest.json, summary.json, stats.csv, "
	 "sockstats.csv, uplink.log, downlink.log; 'tasshape plot DIR' draws it",
	 3},
	{"out-pcap", OPT_OUT_PCAP, NULL, 0,
	 "With --out: also uplink.pcap, downlink.pcap, ingress.pcap and drops.pcap (+ .csv)", 3},
	{"pcap-up", OPT_PCAP_UP, "FILE", 0,
	 "Capture the uplink's packets as the link releases them (pcap, ns timestamps)", 3},
	{"pcap-down", OPT_PCAP_DOWN, "FILE", 0, "Same for the downlink", 3},
	{"pcap-ingress", OPT_PCAP_INGRESS, "FILE", 0,
	 "Capture the packets of both directions as they arrive at the link", 3},
	{"pcap-drops", OPT_PCAP_DROPS, "FILE", 0,
	 "Capture the dropped packets; FILE.csv gives each one's cause", 3},
	{"pcap-snaplen", OPT_SNAPLEN, "N", 0,
	 "Bytes kept per captured packet (default and most: 128, the IP and TCP headers the "
	 "shaper sees)",
	 3},
	{"uplink-log", OPT_UP_LOG, "FILE", 0,
	 "Log the uplink in mahimahi's mm-link format (for mm-throughput-graph)", 3},
	{"downlink-log", OPT_DOWN_LOG, "FILE", 0, "Same for the downlink", 3},
	{"log-drops", OPT_LOG_DROPS, NULL, 0,
	 "Also log drops in those logs ('T d PKTS BYTES', as newer mm-link does; "
	 "mm-throughput-graph does not read them)",
	 3},
	{"stats", OPT_STATS, "FILE", 0,
	 "Per-window CSV: capacity, throughput, queue, queueing delay, drops by cause", 3},
	{"interval", OPT_INTERVAL, "TIME", 0, "Window of --stats (default 100ms)", 3},
	{"sockstats", OPT_SOCKSTATS, "FILE", 0,
	 "Sample every TCP socket of the emulated host (cwnd, RTT, pacing and delivery rate, "
	 "retransmits, congestion control, BBR's estimates) into a CSV",
	 3},
	{"sockstats-interval", OPT_SOCK_INTERVAL, "TIME", 0,
	 "Sampling period of --sockstats (default 50ms)", 3},
	{"progress", OPT_PROGRESS, NULL, 0,
	 "Show the status line even under an interactive shell (it is shown by default on a "
	 "terminal when CMD is given, and with attach)",
	 3},
	{"no-progress", OPT_NO_PROGRESS, NULL, 0, "No status line", 3},
	{0}};

/* A period for --interval / --sockstats-interval: 1 ms to 1 hour. */
static void parse_period(struct argp_state *state, const char *opt, const char *arg, ts_ns_t *out)
{
	struct ts_err err;

	if (ts_parse_time(arg, out, &err) < 0)
		argp_error(state, "--%s: %s", opt, err.msg);
	if (*out < TS_NSEC_PER_MSEC || *out > 3600 * TS_NSEC_PER_SEC)
		argp_error(state, "--%s: expected a time from 1ms to 1h, got '%s'", opt, arg);
}

/* A path option's value: an empty one is an error, not "no output". */
static const char *path_arg(struct argp_state *state, const char *opt, const char *arg)
{
	if (!*arg)
		argp_error(state, "--%s: expected a path, got an empty string", opt);
	return arg;
}

/* --linger, --duration, --kernel-queue and --descriptors: the run's bounds and sizes. */
static void run_arg(struct ts_run_common *c, int key, const char *arg, struct argp_state *state)
{
	struct ts_err err;
	uint64_t v;

	switch (key) {
	case OPT_LINGER:
		if (ts_parse_time(arg, &c->linger, &err) < 0)
			argp_error(state, "--linger: %s", err.msg);
		if (c->linger < 0 || c->linger > 3600 * TS_NSEC_PER_SEC)
			argp_error(state, "--linger: '%s': expected 0 to 1h", arg);
		break;
	case OPT_DURATION:
		/* Bounded so that start + duration cannot overflow the clock. */
		if (ts_parse_time(arg, &c->duration, &err) < 0)
			argp_error(state, "--duration: %s", err.msg);
		if (c->duration <= 0 || c->duration > 366 * 24 * 3600 * TS_NSEC_PER_SEC)
			argp_error(state,
				   "--duration: '%s': expected more than 0 and at most 366 days",
				   arg);
		break;
	default: /* OPT_KQUEUE, OPT_POOL */
		if (ts_parse_u64(arg, &v, &err) < 0 || v < 16 || v > 16777216)
			argp_error(state, "--%s: expected a count from 16 to 16777216, got '%s'",
				   key == OPT_KQUEUE ? "kernel-queue" : "descriptors", arg);
		if (key == OPT_KQUEUE)
			c->queue_len = (uint32_t)v;
		else
			c->pool = (uint32_t)v;
		break;
	}
}

/* What a run records: --out, the captures, the logs, the samplers and the progress line. */
static error_t obs_arg(struct ts_obs_opts *o, int key, const char *arg, struct argp_state *state)
{
	struct ts_err err;
	uint64_t v;

	switch (key) {
	case OPT_OUT:
		o->out_dir = path_arg(state, "out", arg);
		break;
	case OPT_OUT_PCAP:
		o->out_pcap = true;
		break;
	case OPT_PCAP_UP:
	case OPT_PCAP_DOWN:
		o->pcap[key == OPT_PCAP_DOWN] =
			path_arg(state, key == OPT_PCAP_DOWN ? "pcap-down" : "pcap-up", arg);
		break;
	case OPT_PCAP_INGRESS:
		o->pcap_ingress = path_arg(state, "pcap-ingress", arg);
		break;
	case OPT_PCAP_DROPS:
		o->pcap_drops = path_arg(state, "pcap-drops", arg);
		break;
	case OPT_SNAPLEN:
		/* NFQUEUE copies only TS_NFQ_COPY_RANGE bytes: more cannot be captured. */
		if (ts_parse_u64(arg, &v, &err) < 0 || v < 20 || v > TS_NFQ_COPY_RANGE)
			argp_error(state, "--pcap-snaplen: expected 20 to %d bytes, got '%s'",
				   TS_NFQ_COPY_RANGE, arg);
		o->snaplen = (uint32_t)v;
		break;
	case OPT_UP_LOG:
	case OPT_DOWN_LOG:
		o->mmlog[key == OPT_DOWN_LOG] =
			path_arg(state, key == OPT_DOWN_LOG ? "downlink-log" : "uplink-log", arg);
		break;
	case OPT_LOG_DROPS:
		o->log_drops = true;
		break;
	case OPT_STATS:
		o->stats = path_arg(state, "stats", arg);
		break;
	case OPT_INTERVAL:
		parse_period(state, "interval", arg, &o->interval);
		break;
	case OPT_SOCKSTATS:
		o->sockstats = path_arg(state, "sockstats", arg);
		break;
	case OPT_SOCK_INTERVAL:
		parse_period(state, "sockstats-interval", arg, &o->sock_interval);
		break;
	case OPT_PROGRESS:
		o->progress = 1;
		break;
	case OPT_NO_PROGRESS:
		o->progress = -1;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	struct ts_run_common *c = state->input;

	ts_cli_check_path(state, common_options, key, arg);
	switch (key) {
	case OPT_JSON:
		c->summary_json = path_arg(state, "summary-json", arg);
		break;
	case OPT_QUIET:
		c->quiet = true;
		break;
	case OPT_LINGER:
	case OPT_DURATION:
	case OPT_KQUEUE:
	case OPT_POOL:
		run_arg(c, key, arg, state);
		break;
	case ARGP_KEY_END:
		if (c->obs.out_pcap && !c->obs.out_dir)
			argp_error(state, "--out-pcap needs --out DIR");
		break;
	default:
		return obs_arg(&c->obs, key, arg, state);
	}
	return 0;
}

const struct argp ts_common_argp = {common_options, common_parse, NULL, NULL, NULL, NULL, NULL};

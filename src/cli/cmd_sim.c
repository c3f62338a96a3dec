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
#include "run/simrun.h"
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

/* The summary on stdout and, with --summary-json, in a file. Returns the exit code. */
static int sim_output(const struct ts_sim_run *r, const struct sim_args *a, ts_ns_t duration)
{
	struct ts_summary sum = {.title = "tasshape sim"};
	struct ts_err err;
	FILE *jf;
	int ret = 0;

	ts_sim_summary(r, duration, &sum);
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
	struct ts_sim_req q;
	struct ts_sim_run r;
	struct ts_err err;
	int ret = 1;

	ts_linkcfg_init(&a.link);
	argp_parse(&sim_argp, argc, argv, 0, NULL, &a);
	if (!a.link.trace && !a.link.dir_trace[TS_UP] && !a.link.dir_trace[TS_DOWN])
		return ts_cli_error("sim: needs a capacity trace (--trace FILE or const:RATE)");
	if (ts_sim_init(&r) < 0)
		return ts_cli_error("sim: out of memory");
	q = (struct ts_sim_req){.link = &a.link,
				.duration = a.duration,
				.offered = a.offered,
				.offered_dir = {a.offered_dir[0], a.offered_dir[1]},
				.dir_given = {a.dir_given[0], a.dir_given[1]},
				.pkt_size = (uint32_t)a.pkt_size};
	if (ts_sim_setup(&r, &q, &err) < 0) {
		ts_cli_error("%s", err.msg);
	} else {
		ts_sim_loop(&r, q.duration, q.pkt_size);
		ret = sim_output(&r, &a, q.duration);
	}
	ts_sim_fini(&r, q.duration);
	ts_linkcfg_free(&a.link);
	return ret;
}

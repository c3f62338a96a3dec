/* SPDX-License-Identifier: MIT */
/* Options shared by the commands that shape real traffic (the wrapper, attach). */
#include "cli/cli.h"
#include "tasshape/units.h"

enum { OPT_JSON = 0x400, OPT_QUIET, OPT_GSO, OPT_DURATION, OPT_KQUEUE, OPT_POOL };

static const struct argp_option common_options[] = {
	{NULL, 0, NULL, 0, "Run options:", 2},
	{"summary-json", OPT_JSON, "FILE", 0, "Also write the run summary as JSON to FILE", 2},
	{"quiet", OPT_QUIET, NULL, 0, "No summary on stderr", 2},
	{"gso", OPT_GSO, NULL, 0,
	 "Speed mode: let the kernel queue GSO super-packets whole (per-packet fidelity is lost: "
	 "drops and releases are per super-packet)",
	 2},
	{"duration", OPT_DURATION, "TIME", 0, "End the run after TIME", 2},
	{"kernel-queue", OPT_KQUEUE, "N", 0,
	 "Kernel NFQUEUE length per hook (default 65536); must hold the emulated queue, the "
	 "packets in flight in the delay line, and bursts",
	 2},
	{"descriptors", OPT_POOL, "N", 0,
	 "Packet descriptors of the shaper (default 196608); when they run out, packets are "
	 "dropped and counted as no_descriptor",
	 2},
	{0}};

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	struct ts_run_common *c = state->input;
	struct ts_err err;
	uint64_t v;

	switch (key) {
	case OPT_JSON:
		c->summary_json = arg;
		break;
	case OPT_QUIET:
		c->quiet = true;
		break;
	case OPT_GSO:
		c->gso = true;
		break;
	case OPT_DURATION:
		if (ts_parse_time(arg, &c->duration, &err) < 0 || c->duration <= 0)
			argp_error(state, "--duration: %s",
				   c->duration <= 0 ? "must be > 0" : err.msg);
		break;
	case OPT_KQUEUE:
	case OPT_POOL:
		if (ts_parse_u64(arg, &v, &err) < 0 || v < 16 || v > 16777216)
			argp_error(state, "--%s: expected a count from 16 to 16777216, got '%s'",
				   key == OPT_KQUEUE ? "kernel-queue" : "descriptors", arg);
		if (key == OPT_KQUEUE)
			c->queue_len = (uint32_t)v;
		else
			c->pool = (uint32_t)v;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp ts_common_argp = {common_options, common_parse, NULL, NULL, NULL, NULL, NULL};

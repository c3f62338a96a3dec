/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp flent DIR...: write <test>.flent.gz for every run of a
 * Flent-named test under each DIR (an experiment's --out directory, or one
 * run directory <config-id>/rep-<k>). exp run does the same after each
 * run; this command regenerates them, for example after an upgrade. The
 * options here; the files are results/flent_tree.c's.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_exp_results.h"
#include "results/flent.h"
#include "run/manifest.h"

static void say(void *ctx, const char *msg)
{
	(void)ctx;
	ts_cli_error("exp flent: %s", msg);
}

struct flent_args {
	char **dirs;
	size_t ndirs;
};

static error_t flent_parse(int key, char *arg, struct argp_state *state)
{
	struct flent_args *a = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		/* All of them at once: argp has already taken the options from among them. */
		(void)arg;
		a->dirs = state->argv + state->next - 1;
		a->ndirs = (size_t)(state->argc - state->next + 1);
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!a->ndirs)
			argp_error(state, "expected at least one DIR");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_exp_flent(int argc, char **argv)
{
	static const struct argp argp = {
		NULL,
		flent_parse,
		"DIR...",
		"Write <test>.flent.gz (Flent 2.1's data file format) for every run of a Flent "
		"test (tcp_upload, tcp_download, tcp_nup, tcp_ndown, rrul, rrul_be, rtt_fair) "
		"under each DIR: an experiment's --out directory, or one run directory "
		"<config-id>/rep-<k>. Exit 1 when a run's file could not be written.",
		NULL,
		NULL,
		NULL};
	struct ts_flent_count c = {0, 0, 0};
	struct flent_args a = {0};
	size_t i;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return TS_EXIT_USAGE;
	for (i = 0; i < a.ndirs; i++) {
		int ret = ts_flent_export_tree(a.dirs[i], ts_build_version(), &c, say, NULL);

		if (ret < 0)
			return ts_cli_error("exp flent: %s: %s", a.dirs[i], strerror(-ret));
	}
	printf("exp flent: %u written, %u without a Flent test or failed runs, %u errors\n",
	       c.written, c.skipped, c.failed);
	return c.failed ? 1 : 0;
}

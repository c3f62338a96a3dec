/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp merge OUT DIR...: the shard directories of one matrix
 * (written by exp run --shard i/N anywhere) into one experiment directory
 * OUT holding every run once, summarised by the same code as an unsharded
 * exp run (summary.json, summary.csv, summary.md). Refuses, writing
 * nothing, when the directories ran different specs or when runs overlap
 * or are missing, listing each, or when a run's files do not read; OUT
 * appears only when all of it is written (results/merge.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_exp_results.h"
#include "results/merge.h"

struct merge_args {
	const char *out;
	char **dirs;
	size_t ndirs;
};

static error_t merge_parse(int key, char *arg, struct argp_state *state)
{
	struct merge_args *a = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		for (int i = state->next - 1; i < state->argc; i++)
			if (!state->argv[i][0])
				argp_error(state, "an empty path (expected OUT and DIRs)");
		a->out = arg;
		a->dirs = state->argv + state->next;
		a->ndirs = (size_t)(state->argc - state->next);
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!a->out || !a->ndirs)
			argp_error(state, "expected OUT and at least one DIR");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_exp_merge(int argc, char **argv)
{
	static const struct argp argp = {
		NULL,
		merge_parse,
		"OUT DIR...",
		"Combine the shard directories DIR... of one matrix (exp run --shard i/N) into "
		"OUT, which must be new or empty, and write its summary.json, summary.csv and "
		"summary.md. Every run must be done in exactly one DIR; overlapping and missing "
		"runs are listed and nothing is written. Runs are copied (the files are yours, "
		"not links to the shards' authors' files); OUT appears only when all of it is "
		"written.",
		NULL,
		NULL,
		NULL};
	struct merge_args a = {0};
	struct ts_err err;
	int ret;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return TS_EXIT_USAGE;
	ret = ts_exp_merge(a.out, (const char *const *)a.dirs, a.ndirs, stderr, &err);
	if (ret)
		return ts_cli_error("exp merge: %s", err.msg);
	printf("exp merge: %zu directories into %s: summary.json, summary.csv, summary.md "
	       "written\n",
	       a.ndirs, a.out);
	return 0;
}

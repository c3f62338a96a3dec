/* SPDX-License-Identifier: MIT */
/*
 * The options of exp run for results that outlive it (--shard i/N,
 * --jobs N, and resume's hidden --resume and --force), which the campaign
 * carries out (src/campaign/select.c, jobs.c); and tasshape exp resume DIR
 * [SPEC], which is exp run in resume mode.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_exp.h"
#include "cli/cmd_exp_results.h"
#include "results/expdir.h"

enum { OPT_SHARD = 0x700, OPT_RESUME, OPT_FORCE, OPT_JOBS };

static const struct argp_option results_options[] = {
	{"shard", OPT_SHARD, "i/N", 0,
	 "Run only slice i of N of the matrix: the runs at positions i, i+N, i+2N, ... of the "
	 "order (same spec and seed: same slice); merge the slices with 'exp merge'",
	 0},
	{"jobs", OPT_JOBS, "N", 0,
	 "Carry out up to N runs at once, each pinned to its own two CPUs (at most half the "
	 "CPUs; default 1)",
	 0},
	{"resume", OPT_RESUME, NULL, OPTION_HIDDEN, "(exp resume)", 0},
	{"force", OPT_FORCE, NULL, OPTION_HIDDEN, "(exp resume --force)", 0},
	{0}};

static error_t results_parse(int key, char *arg, struct argp_state *state)
{
	struct exp_results *x = state->input;
	struct ts_err err;
	char *end;
	unsigned long v;

	switch (key) {
	case ARGP_KEY_INIT:
		if (!x->shard.n)
			x->shard.i = x->shard.n = 1;
		if (!x->jobs)
			x->jobs = 1;
		break;
	case OPT_SHARD:
		if (ts_exp_shard_parse(arg, &x->shard, &err))
			argp_error(state, "%s", err.msg);
		x->shard_given = true;
		break;
	case OPT_JOBS:
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || v < 1 || v > 1024)
			argp_error(state,
				   "--jobs: expected a number of runs from 1 to 1024, got '%s'",
				   arg);
		x->jobs = (unsigned)v;
		x->jobs_given = true;
		break;
	case OPT_RESUME:
		x->resume = true;
		break;
	case OPT_FORCE:
		x->force = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp exp_results_argp = {results_options, results_parse, NULL, NULL, NULL, NULL, NULL};

int cmd_exp_resume(int argc, char **argv)
{
	char spec[PATH_MAX], **av;
	const char *dir = NULL, *user_spec = NULL;
	struct ts_err err;
	int i, n = 0, ret;
	bool force = false;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("Usage: tasshape exp resume DIR [SPEC] [--force] [exp run options]\n"
			       "Finish the experiment in DIR: runs whose done record is intact are "
			       "kept,\npartial ones removed and run again, then DIR is summarised "
			       "and checked as\nexp run does. SPEC defaults to DIR/spec.ini (the "
			       "copy exp run keeps); a SPEC\nthat differs from it (by SHA-256), or "
			       "options that plan other runs, are refused\nunless --force. Give "
			       "the same --only/--repetitions/--length as the first run.\n");
			return 0;
		}
		if (!strcmp(argv[i], "--force"))
			force = true;
		else if (argv[i][0] == '-')
			break; /* exp run options from here on */
		else if (!dir)
			dir = argv[i];
		else if (!user_spec)
			user_spec = argv[i];
		else
			return ts_cli_usage("exp resume: unexpected argument '%s'", argv[i]);
	}
	if (!dir)
		return ts_cli_usage("exp resume: expected DIR, an exp run --out directory "
				    "(tasshape exp resume --help)");
	if (!user_spec) {
		if (ts_expdir_spec(dir, spec, sizeof(spec), &err) < 0)
			return ts_cli_error("exp resume: %s; give the SPEC", err.msg);
		user_spec = spec;
	}
	av = calloc((size_t)argc + 8, sizeof(*av));
	if (!av)
		return ts_cli_error("out of memory");
	av[n++] = (char *)"tasshape exp resume";
	av[n++] = (char *)user_spec;
	av[n++] = (char *)"--out";
	av[n++] = (char *)dir;
	av[n++] = (char *)"--resume";
	if (force)
		av[n++] = (char *)"--force";
	for (; i < argc; i++)
		if (strcmp(argv[i], "--force"))
			av[n++] = argv[i];
	ret = exp_run(n, av);
	free(av);
	return ret;
}

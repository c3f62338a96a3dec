/* SPDX-License-Identifier: MIT */
/*
 * What exp run does for results that outlive it: --shard i/N (a slice of
 * the matrix), resume (keep the runs whose done record is intact, redo
 * the rest), the spec kept beside the results (spec.ini), and after each
 * run its Flent file and then its done record. Hooks called from
 * cmd_exp_run.c; tasshape exp resume DIR [SPEC] is exp run in resume mode.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_exp.h"
#include "cli/cmd_exp_results.h"
#include "results/done.h"
#include "results/expdir.h"
#include "results/flent.h"
#include "run/manifest.h"

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
	char err[256];
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
		if (ts_exp_shard_parse(arg, &x->shard, err, sizeof(err)))
			argp_error(state, "%s", err);
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

/* The recorded runs of @rec against the plan's: the first difference, for the message. */
static int same_runs(const struct ts_expdir *rec, const struct ts_exp_matrix *plan, char *why,
		     size_t whylen)
{
	size_t i;

	if (rec->n != plan->nruns) {
		snprintf(why, whylen, "%zu runs recorded, the spec now expands to %zu", rec->n,
			 plan->nruns);
		return 0;
	}
	for (i = 0; i < rec->n; i++) {
		const struct ts_exp_run *r = &plan->runs[i];

		if (strcmp(rec->runs[i].id, r->config_id) || rec->runs[i].rep != r->rep ||
		    rec->runs[i].index != r->index) {
			snprintf(why, whylen, "run %zu was %s rep %u, is now %s rep %u", i + 1,
				 rec->runs[i].id, rec->runs[i].rep, r->config_id, r->rep);
			return 0;
		}
	}
	return 1;
}

int exp_results_check_resume(struct exp_results *x, const char *out,
			     const struct ts_exp_matrix *plan, const char *sha)
{
	struct ts_expdir rec;
	char err[1024], why[512];
	int ret = 1;

	if (ts_expdir_read(out, &rec, err, sizeof(err)))
		return ts_cli_error("exp resume: %s", err);
	if (!x->shard_given)
		x->shard = rec.shard;
	if (rec.shard.i != x->shard.i || rec.shard.n != x->shard.n) {
		ts_cli_error("exp resume: %s ran shard %u/%u, not %u/%u", out, rec.shard.i,
			     rec.shard.n, x->shard.i, x->shard.n);
		goto out;
	}
	if (strcmp(rec.spec_sha256, sha ? sha : "")) {
		if (!x->force) {
			ts_cli_error("exp resume: the spec differs from the one %s was run with "
				     "(SHA-256 %.16s..., recorded %.16s...): resuming would mix "
				     "results of two experiments; use --force to resume anyway",
				     out, sha ? sha : "?", rec.spec_sha256);
			goto out;
		}
		fprintf(stderr, "tasshape: exp resume: the spec differs from the recorded one "
				"(--force: resuming anyway)\n");
	}
	if (!same_runs(&rec, plan, why, sizeof(why))) {
		if (!x->force) {
			ts_cli_error(
				"exp resume: %s planned other runs (%s): give the same options "
				"(--only, --repetitions, ...) as the first run, or --force",
				out, why);
			goto out;
		}
		fprintf(stderr, "tasshape: exp resume: %s (--force: resuming anyway)\n", why);
	}
	ret = 0;
out:
	ts_expdir_free(&rec);
	return ret;
}

int exp_results_after_plan(const struct exp_results *x, const char *out, const char *spec_path)
{
	struct ts_expdir rec;
	char err[1024], copy[PATH_MAX];

	if (snprintf(copy, sizeof(copy), "%s/%s", out, TS_EXPDIR_SPEC) >= (int)sizeof(copy))
		return ts_cli_error("--out %s: path too long", out);
	/* The spec beside its results: resume and the curious need no other file. */
	if ((!x->resume || access(copy, F_OK) != 0) &&
	    ts_expdir_copy_spec(out, spec_path, err, sizeof(err)))
		return ts_cli_error("%s", err);
	if (x->shard.n == 1)
		return 0;
	if (ts_expdir_read(out, &rec, err, sizeof(err)))
		return ts_cli_error("%s", err);
	rec.shard = x->shard;
	if (ts_expdir_write(out, &rec, err, sizeof(err))) {
		ts_expdir_free(&rec);
		return ts_cli_error("%s", err);
	}
	ts_expdir_free(&rec);
	return 0;
}

static void rundir_of(const char *out, const struct ts_exp_run *run, char *buf, size_t len)
{
	struct ts_expdir_run r = {(char *)run->config_id, run->rep, run->index};

	ts_expdir_rundir(out, &r, buf, len);
}

bool exp_results_selected(const struct exp_results *x, const struct ts_exp_run *run,
			  const char *out)
{
	char dir[PATH_MAX], why[512];

	if ((run->index - 1) % x->shard.n != x->shard.i - 1)
		return false;
	if (!x->resume)
		return true;
	rundir_of(out, run, dir, sizeof(dir));
	return ts_done_check(dir, why, sizeof(why)) != TS_DONE_OK;
}

int exp_results_before_run(const struct exp_results *x, const struct ts_exp_run *run,
			   const char *out)
{
	char dir[PATH_MAX], why[1024];
	int ret;

	if (!x->resume)
		return 0;
	rundir_of(out, run, dir, sizeof(dir));
	ret = ts_expdir_prepare_run(dir, why, sizeof(why));
	if (ret < 0)
		return ts_cli_error("exp resume: %s", why);
	if (why[0])
		fprintf(stderr, "tasshape: exp resume: redoing %s\n", why);
	return 0;
}

int exp_results_after_run(const struct ts_exp_run *run, const char *rundir)
{
	char err[1024];
	int ret;

	ret = ts_flent_export_run(rundir, ts_build_version(), err, sizeof(err));
	if (ret < 0)
		/* The run's own results stand; only its Flent view is missing, and says why. */
		ts_cli_error("exp: %s: no Flent file: %s", rundir, err);
	/* Last: from here on the run counts as done, and resume keeps it. */
	if (ts_done_write(rundir, run->config_id, run->rep, err, sizeof(err)))
		return ts_cli_error("exp: %s", err);
	return 0;
}

int cmd_exp_resume(int argc, char **argv)
{
	char spec[PATH_MAX], **av;
	const char *dir = NULL, *user_spec = NULL;
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
		snprintf(spec, sizeof(spec), "%s/%s", dir, TS_EXPDIR_SPEC);
		if (access(spec, R_OK) != 0)
			return ts_cli_error("exp resume: %s: %s; give the SPEC", spec,
					    strerror(errno));
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

/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp run: the options, the spec and the checks read here; the
 * campaign (src/campaign/campaign.h) checks the rest before the first
 * run, carries the runs out and summarises the directory; its console
 * (src/campaign/console.h) shows the progress and the verdict's lines;
 * this file prints the notices, the summary and the checks, and returns
 * the exit status the verdict gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_exp.h"
#include "cli/cmd_exp_results.h"
#include "campaign/campaign.h"
#include "campaign/console.h"
#include "campaign/stops.h"
#include "results/checks.h"

#define MAX_CHECKS 64

enum {
	OPT_OUT = 0x600,
	OPT_CHECK,
	OPT_STRICT,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
};

struct run_args {
	struct plan_args plan;
	const char *out;
	size_t nchecks;
	char *checks[MAX_CHECKS];
	bool strict;
	int progress;		/* 1 live line, 0 a line per run, -1: a live line on a terminal */
	struct exp_results res; /* --shard, --jobs, resume (cmd_exp_resume.c) */
};

static const struct argp_option run_options[] = {
	{"out", OPT_OUT, "DIR", 0,
	 "Write the results into DIR (created; refused when it exists and is not empty)", 0},
	{"check", OPT_CHECK, "EXPR", 0,
	 "A check over the summary, e.g. 'rrul[cca=bbr].ping_icmp_ms.p95 < "
	 "rrul[cca=cubic].ping_icmp_ms.p95' (repeatable; exit 1 when one fails)",
	 0},
	{"strict", OPT_STRICT, NULL, 0,
	 "Fail instead of skipping an unavailable congestion control, and fail when a run's "
	 "emulator fell behind",
	 0},
	{"progress", OPT_PROGRESS, NULL, 0, "A live status line even when stderr is no terminal",
	 0},
	{"no-progress", OPT_NO_PROGRESS, NULL, 0,
	 "One line per finished run even on a terminal (what CI logs get)", 0},
	{0}};

static error_t run_parse(int key, char *arg, struct argp_state *state)
{
	struct run_args *a = state->input;

	ts_cli_check_path(state, run_options, key, arg);
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->plan;
		state->child_inputs[1] = &a->res;
		break;
	case OPT_OUT:
		a->out = arg;
		break;
	case OPT_CHECK:
		if (a->nchecks == MAX_CHECKS)
			argp_error(state, "--check: at most %d", MAX_CHECKS);
		a->checks[a->nchecks++] = arg;
		break;
	case OPT_STRICT:
		a->strict = true;
		break;
	case OPT_PROGRESS:
		a->progress = 1;
		break;
	case OPT_NO_PROGRESS:
		a->progress = 0;
		break;
	case ARGP_KEY_END:
		if (!a->out)
			argp_error(state, "--out DIR is required");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* A line for the user that does not stop the campaign. */
static void rep_notice(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "tasshape: %s\n", msg);
}

/* The summary's table, and where its files are. */
static void rep_summary(void *ctx, const struct ts_exp_summary *s, const char *out)
{
	(void)ctx;
	ts_exp_summary_write_md(s, stdout);
	printf("\nsummaries: %s/summary.json, .csv, .md\n", out);
}

int exp_run(int argc, char **argv)
{
	struct argp_child children[] = {
		{&exp_plan_argp, 0, NULL, 0}, {&exp_results_argp, 0, NULL, 0}, {0}};
	struct argp argp = {
		run_options,
		run_parse,
		"SPEC",
		"Carry out every run SPEC expands to (see 'exp list') into --out DIR, "
		"OUT/<config-id>/rep-<k>/ each, then write summary.json, summary.csv and "
		"summary.md and evaluate the checks. Exit 0 when every run and check "
		"passed (a skipped congestion control is reported, not a failure), 1 "
		"otherwise, 64 for a usage error (an option, the spec or a check). "
		"docs/experiments.md has the spec, the "
		"metrics and the check grammar.",
		children,
		NULL,
		NULL};
	struct run_args a = {.progress = -1};
	struct ts_exp_check *checks = NULL;
	struct ts_exp_spec spec;
	struct ts_exp_matrix plan;
	struct ts_campaign_console con;
	struct ts_campaign_report cb = {.notice = rep_notice, .summary = rep_summary};
	struct ts_campaign_opts o;
	struct ts_campaign_verdict v;
	struct ts_err err;
	char sha[2 * TS_SHA256_LEN + 1];
	int ret = TS_EXIT_USAGE, have_plan = 0;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return TS_EXIT_USAGE;
	/* Everything that can be wrong with the request is found here, before any run. */
	a.plan.kernel_files = true;
	if (exp_load_plan(&a.plan, &spec, &plan, sha))
		goto out;
	have_plan = 1;
	if (ts_exp_checks_for_plan(a.checks, a.nchecks, &plan, &checks, &err) < 0) {
		ts_cli_error("%s", err.msg);
		goto out;
	}

	o = (struct ts_campaign_opts){.out = a.out,
				      .spec_path = a.plan.spec_path,
				      .spec_sha256 = spec.sha256,
				      .shard = a.res.shard,
				      .shard_given = a.res.shard_given,
				      .jobs = a.res.jobs,
				      .resume = a.res.resume,
				      .force = a.res.force,
				      .strict = a.strict,
				      .checks = checks,
				      .nchecks = a.nchecks,
				      .checks_out = stdout,
				      .stop = ts_campaign_stop_flag()};
	ts_campaign_console_init(&con, stderr, a.progress, a.res.jobs, &plan, &cb);
	/* Not root: the campaign runs in a user namespace of its own (docs/rootless.md). */
	if (ts_campaign_rootless(&err) < 0) {
		ts_cli_error("%s", err.msg);
		goto out;
	}
	if (ts_campaign_run(&plan, &o, &ts_campaign_exec, &cb, &v)) {
		ret = ts_cli_error("%s", v.msg);
		goto out;
	}
	ts_campaign_verdict_print(&v, stderr);
	ret = ts_campaign_status(&v);
out:
	free(checks);
	if (have_plan) {
		ts_exp_matrix_free(&plan);
		ts_exp_spec_free(&spec);
	}
	return ret;
}

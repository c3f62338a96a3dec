/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp: experiments (docs/experiments.md). list expands a spec
 * into its runs; run carries them out and summarises; check gates on a
 * finished results directory. Subcommands from a table, as in main.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_exp.h"
#include "cli/cmd_exp_results.h"
#include "results/checks.h"
#include "plan/matrix.h"
#include "plan/planload.h"
#include "io/sha256.h"
#include "tasshape/units.h"

static int exp_list(int argc, char **argv);
static int exp_check(int argc, char **argv);

static const struct ts_cmd exp_cmds[] = {
	{"run", exp_run,
	 "Run the matrix of a spec into --out DIR, summarise it, evaluate --check; needs root", 0},
	{"list", exp_list, "Print the runs a spec expands to, in order, without running anything",
	 0},
	{"check", exp_check,
	 "Evaluate checks on a finished results directory; exit 1 when one fails", 0},
	{"flent", cmd_exp_flent, "Write Flent data files (<test>.flent.gz) for finished runs", 0},
	{"merge", cmd_exp_merge, "Combine shard directories of one matrix into one, summarised", 0},
	{"report", cmd_exp_report,
	 "Figures (PNG, SVG, each with its data) and report.md for an experiment directory", 0},
	{"resume", cmd_exp_resume,
	 "Finish an interrupted exp run: keep the runs that are done, redo the partial ones", 0},
};

#define NCMDS (sizeof(exp_cmds) / sizeof(exp_cmds[0]))

enum {
	OPT_LENGTH = 0x500,
	OPT_DELAY,
	OPT_REPS,
	OPT_ONLY,
};

static const struct argp_option plan_options[] = {
	{"length", OPT_LENGTH, "TIME", 0, "Measured part of each test (overrides the spec)", 0},
	{"delay", OPT_DELAY, "TIME", 0,
	 "Time before the flows start and after they end (overrides the spec)", 0},
	{"repetitions", OPT_REPS, "N", 0, "Repetitions of each configuration (overrides the spec)",
	 0},
	{"only", OPT_ONLY, "AXIS=VALUE", 0,
	 "Keep only configurations with this axis value (repeatable: values of one axis are "
	 "alternatives, different axes must all match)",
	 0},
	{0}};

static error_t plan_parse(int key, char *arg, struct argp_state *state)
{
	struct plan_args *a = state->input;
	struct ts_err err;
	uint64_t v;

	switch (key) {
	case OPT_LENGTH:
		if (ts_parse_time(arg, &a->opts.length, &err) < 0)
			argp_error(state, "--length: %s", err.msg);
		if (a->opts.length < TS_NSEC_PER_MSEC ||
		    a->opts.length > 24 * 3600 * TS_NSEC_PER_SEC)
			argp_error(state, "--length: expected a time from 1ms to 24h, got '%s'",
				   arg);
		break;
	case OPT_DELAY:
		if (ts_parse_time(arg, &a->opts.delay, &err) < 0)
			argp_error(state, "--delay: %s", err.msg);
		if (a->opts.delay > 24 * 3600 * TS_NSEC_PER_SEC)
			argp_error(state, "--delay: expected at most 24h, got '%s'", arg);
		a->opts.delay_set = 1;
		break;
	case OPT_REPS:
		if (ts_parse_u64(arg, &v, &err) < 0 || v < 1 || v > 10000)
			argp_error(state, "--repetitions: expected 1 to 10000, got '%s'", arg);
		a->opts.repetitions = (unsigned)v;
		break;
	case OPT_ONLY:
		if (a->opts.nonly == TS_EXP_MAX_ONLY)
			argp_error(state, "--only: at most %d", TS_EXP_MAX_ONLY);
		a->opts.only[a->opts.nonly++] = arg;
		break;
	case ARGP_KEY_ARG:
		if (a->spec_path)
			argp_error(state, "one SPEC only (got '%s' too)", arg);
		a->spec_path = arg;
		break;
	case ARGP_KEY_END:
		if (!a->spec_path)
			argp_error(state, "expected SPEC, an experiment file");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp exp_plan_argp = {plan_options, plan_parse, NULL, NULL, NULL, NULL, NULL};

int exp_load_plan(struct plan_args *a, struct ts_exp_spec *spec, struct ts_exp_matrix *plan,
		  char sha[2 * TS_SHA256_LEN + 1])
{
	struct ts_err err;

	if (ts_exp_plan_load(a->spec_path, &a->opts, a->kernel_files, spec, plan, sha, &err) < 0)
		return ts_cli_error("%s", err.msg);
	return 0;
}

struct list_args {
	struct plan_args plan;
	struct exp_results res; /* --shard */
};

static error_t list_parse(int key, char *arg, struct argp_state *state)
{
	struct list_args *a = state->input;

	(void)arg;
	if (key != ARGP_KEY_INIT)
		return ARGP_ERR_UNKNOWN;
	state->child_inputs[0] = &a->plan;
	state->child_inputs[1] = &a->res;
	return 0;
}

static int exp_list(int argc, char **argv)
{
	struct argp_child children[] = {
		{&exp_plan_argp, 0, NULL, 0}, {&exp_results_argp, 0, NULL, 0}, {0}};
	struct argp argp = {
		NULL,
		list_parse,
		"SPEC",
		"Print the runs SPEC expands to, in the order exp run carries them out: "
		"index, repetition, emulator seed, configuration id, link options "
		"(with --shard i/N: the runs that shard carries out).",
		children,
		NULL,
		NULL};
	struct list_args a;
	struct ts_exp_spec spec;
	struct ts_exp_matrix plan;
	char sha[2 * TS_SHA256_LEN + 1];

	memset(&a, 0, sizeof(a));
	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return TS_EXIT_USAGE;
	if (exp_load_plan(&a.plan, &spec, &plan, sha))
		return TS_EXIT_USAGE; /* an invalid spec, like a bad option */
	if (a.res.jobs_given) {
		ts_exp_matrix_free(&plan);
		ts_exp_spec_free(&spec);
		ts_cli_error("exp list: --jobs is an option of exp run and exp resume (exp list "
			     "prints the runs in the one order that every job count shares)");
		return TS_EXIT_USAGE;
	}
	if (a.res.shard.n > 1) {
		size_t all = plan.nruns;

		ts_exp_matrix_shard(&plan, a.res.shard.i, a.res.shard.n);
		/* Nothing printed would look like a failure or an empty spec: say why. */
		if (!plan.nruns)
			fprintf(stderr,
				"exp list: shard %u/%u has no runs: the spec expands to %zu "
				"run(s), "
				"and shard i/N takes runs i, i+N, i+2N, ...\n",
				a.res.shard.i, a.res.shard.n, all);
	}
	ts_exp_matrix_print(&plan, stdout);
	ts_exp_matrix_free(&plan);
	ts_exp_spec_free(&spec);
	return fflush(stdout) ? 1 : 0;
}

struct check_args {
	const char *dir;
	size_t nexprs;
	char **exprs;
};

static error_t check_parse(int key, char *arg, struct argp_state *state)
{
	struct check_args *a = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		a->dir = arg;
		a->exprs = state->argv + state->next;
		a->nexprs = (size_t)(state->argc - state->next);
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!a->dir || !a->nexprs)
			argp_error(state, "expected DIR and at least one EXPR");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int exp_check(int argc, char **argv)
{
	struct argp argp = {
		NULL,
		check_parse,
		"DIR EXPR...",
		"Summarise the results directory DIR again (from its result.json files) "
		"and evaluate each check EXPR on it, printing both sides and PASS or "
		"FAIL. Exit 0 when all pass, 1 when one fails (or has no value), 64 when a "
		"check is malformed or names no single configuration. "
		"The grammar is in docs/experiments.md (\"Checks\"), e.g. "
		"'rrul[cca=bbr].ping_icmp_ms.p95 < rrul[cca=cubic].ping_icmp_ms.p95'.",
		NULL,
		NULL,
		NULL};
	struct check_args a = {0};
	struct ts_err err;
	long failed;

	/* Checks may start with a digit or '-' ("-5 < ..."): stop option parsing at DIR. */
	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a))
		return TS_EXIT_USAGE;
	failed = ts_exp_checks_dir(a.dir, a.exprs, a.nexprs, stdout, &err);
	/* A check that cannot be evaluated is a usage error, not a failure. */
	if (failed < 0) {
		ts_cli_error("%s", err.msg);
		return TS_EXIT_USAGE;
	}
	return failed ? 1 : 0;
}

static void exp_usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: tasshape exp COMMAND [OPTIONS]\n\nCommands:\n");
	for (i = 0; i < NCMDS; i++)
		fprintf(f, "  %-6s %s\n", exp_cmds[i].name, exp_cmds[i].description);
	fprintf(f, "\n'tasshape exp COMMAND --help' lists a command's options; specs are described "
		   "in docs/experiments.md.\n");
}

int cmd_exp(int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		exp_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? TS_EXIT_USAGE : 0;
	}
	for (i = 0; i < NCMDS; i++) {
		if (!strcmp(argv[1], exp_cmds[i].name)) {
			char name[64];

			snprintf(name, sizeof(name), "tasshape exp %s", exp_cmds[i].name);
			argv[1] = name;
			return exp_cmds[i].fn(argc - 1, argv + 1);
		}
	}
	ts_cli_usage("exp: unknown command '%s'", argv[1]);
	exp_usage(stderr);
	return TS_EXIT_USAGE;
}

/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp report DIR [--out REPORT_DIR] [--qq-ref AXIS=VALUE,...]:
 * the options; the report (figures, data files, report.md) is
 * results/report_make.h's.
 */
#include <limits.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cmd_exp_results.h"
#include "results/report_make.h"

struct report {
	const char *dir, *out;
	const char *qq_ref;
};

enum { OPT_OUT = 0x600, OPT_QQ_REF };

static const struct argp_option report_options[] = {
	{"out", OPT_OUT, "REPORT_DIR", 0, "Write the report here (default DIR/report)", 0},
	{"qq-ref", OPT_QQ_REF, "AXIS=VALUE,...", 0,
	 "The configuration each test's Q-Q plot compares the others against: the first whose "
	 "id holds every AXIS=VALUE given (e.g. cca=bbr3; a tas_shift 8/8 is written 8-8); "
	 "default: the test's first configuration",
	 0},
	{0}};

static error_t report_parse(int key, char *arg, struct argp_state *state)
{
	struct report *r = state->input;

	ts_cli_check_path(state, report_options, key, arg);
	switch (key) {
	case OPT_OUT:
		r->out = arg;
		break;
	case OPT_QQ_REF:
		r->qq_ref = arg;
		break;
	case ARGP_KEY_ARG:
		if (r->dir)
			argp_error(state, "unexpected '%s': one DIR", arg);
		if (!*arg)
			argp_error(state, "DIR is empty (expected an experiment directory)");
		r->dir = arg;
		break;
	case ARGP_KEY_END:
		if (!r->dir)
			argp_error(state, "expected DIR, an experiment directory");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp report_argp = {
	report_options,
	report_parse,
	"DIR",
	"Figures (gnuplot, PNG and SVG, each with its .dat data file) and report.md for the "
	"experiment directory DIR, written to REPORT_DIR (default DIR/report).",
	NULL,
	NULL,
	NULL};

static void say(void *ctx, const char *msg)
{
	(void)ctx;
	ts_cli_error("exp report: %s", msg);
}

int cmd_exp_report(int argc, char **argv)
{
	struct report r = {0};
	char path[PATH_MAX];
	unsigned figures = 0, nodata = 0;
	struct ts_report_req q;

	if (argp_parse(&report_argp, argc, argv, 0, NULL, &r))
		return TS_EXIT_USAGE;
	if (!r.out) {
		snprintf(path, sizeof(path), "%s/report", r.dir);
		r.out = path;
	}
	q = (struct ts_report_req){
		.dir = r.dir, .out = r.out, .qq_ref = r.qq_ref, .say = say, .ctx = NULL};
	if (ts_report_make(&q, &figures, &nodata))
		return 1;
	printf("exp report: %u figures (%u saying their data is missing) and report.md in %s\n",
	       figures, nodata, r.out);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * tasshape trace gen MODEL [--seed N] [--duration D] [-o FILE] [KEY=VALUE...]:
 * write a trace from one of the stochastic models of src/model/gen_*.c.
 * The same arguments always give the same bytes.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_trace.h"
#include "tasshape/trace_gen.h"
#include "tasshape/units.h"

#define GEN_MAX_KV 32

struct gen_cli {
	const char *model, *out;
	uint64_t seed;
	ts_ns_t duration;
	bool list;
	const char *kv[GEN_MAX_KV];
	size_t nkv;
};

enum { OPT_SEED = 0x300, OPT_DURATION, OPT_LIST };

static const struct argp_option gen_options[] = {
	{"seed", OPT_SEED, "N", 0, "Seed of the random choices (default 1)", 0},
	{"duration", OPT_DURATION, "TIME", 0, "Length of the trace (default 300s)", 0},
	{"output", 'o', "FILE", 0, "Write to FILE instead of stdout", 0},
	{"list", OPT_LIST, NULL, 0, "List the models and their parameters", 0},
	{0}};

static error_t gen_parse(int key, char *arg, struct argp_state *state)
{
	struct gen_cli *a = state->input;
	struct ts_err err;

	ts_cli_check_path(state, gen_options, key, arg);
	switch (key) {
	case OPT_SEED:
		if (ts_parse_u64(arg, &a->seed, &err) < 0)
			argp_error(state, "--seed: %s", err.msg);
		break;
	case OPT_DURATION:
		if (ts_parse_time(arg, &a->duration, &err) < 0)
			argp_error(state, "--duration: %s", err.msg);
		break;
	case 'o':
		a->out = arg;
		break;
	case OPT_LIST:
		a->list = true;
		break;
	case ARGP_KEY_ARG:
		if (!a->model) {
			a->model = arg;
		} else if (a->nkv < GEN_MAX_KV) {
			a->kv[a->nkv++] = arg;
		} else {
			argp_error(state, "more than %d parameters", GEN_MAX_KV);
		}
		break;
	case ARGP_KEY_END:
		if (!a->model && !a->list)
			argp_error(state, "which model? (--list shows them)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp gen_argp = {
	gen_options,
	gen_parse,
	"MODEL [KEY=VALUE...]",
	"Generate a capacity trace (native CSV) from a stochastic model. The same model, seed, "
	"duration and parameters give the same bytes on every machine.\v"
	"Examples:\n"
	"  tasshape trace gen --list\n"
	"  tasshape trace gen lte-driving --seed 7 --duration 60s -o lte7.csv\n"
	"  tasshape trace gen const --duration 60s down=25mbit up=5mbit -o isp.csv",
	NULL,
	NULL,
	NULL};

static void gen_list(void)
{
	size_t i, k;

	for (i = 0; i < ts_gen_count(); i++) {
		const struct ts_gen_model *m = ts_gen_at(i);

		printf("%s\n    %s\n", m->name, m->summary);
		for (k = 0; k < m->nparams; k++)
			printf("    %-13s %-8s %s\n", m->params[k].key, m->params[k].def,
			       m->params[k].help);
		printf("\n");
	}
}

int trace_gen(int argc, char **argv)
{
	struct gen_cli a = {.seed = 1, .duration = 300 * TS_NSEC_PER_SEC};
	struct ts_text b;
	struct ts_err err;
	int ret;

	argp_parse(&gen_argp, argc, argv, 0, NULL, &a);
	if (a.list) {
		gen_list();
		return 0;
	}
	ts_text_init(&b);
	ret = ts_gen_csv(a.model, a.seed, a.duration, a.kv, a.nkv, &b, &err);
	if (ret < 0)
		ret = ts_cli_error("gen: %s", err.msg);
	else
		ret = trace_write(a.out, &b);
	ts_text_fini(&b);
	return ret;
}

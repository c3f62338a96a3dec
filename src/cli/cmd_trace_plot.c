/* SPDX-License-Identifier: MIT */
/*
 * tasshape trace plot FILE -o trace.png: capacity (and one-way delay, on
 * the right axis) over one period, drawn by gnuplot (io/gnuplot.h), which
 * reads the script on its standard input and writes the PNG to its
 * standard output, the file opened here. The data are the trace's parsed
 * numbers, printed again as numbers; the title (the file name, or
 * --title) goes through ts_gnuplot_quote().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_trace.h"
#include "io/gnuplot.h"
#include "tasshape/trace_stats.h"
#include "tasshape/units.h"

struct plot_cli {
	const char *in, *out, *title;
	ts_ns_t bin;
	unsigned int w, h;
};

enum { OPT_BIN = 0x300, OPT_TITLE, OPT_SIZE };

static const struct argp_option plot_options[] = {
	{"output", 'o', "FILE", 0, "The PNG to write (required)", 0},
	{"bin", OPT_BIN, "TIME", 0,
	 "Average the capacity over bins of TIME (default: the rows of a CSV as they are; "
	 "mahimahi traces in about 2000 bins of whole ms, at least 10ms)",
	 0},
	{"title", OPT_TITLE, "TEXT", 0, "Title (default: the file name)", 0},
	{"size", OPT_SIZE, "WxH", 0, "Size in pixels (default 800x300)", 0},
	{0}};

static error_t plot_parse(int key, char *arg, struct argp_state *state)
{
	struct plot_cli *a = state->input;
	struct ts_err err;
	char *end;

	ts_cli_check_path(state, plot_options, key, arg);
	switch (key) {
	case 'o':
		a->out = arg;
		break;
	case OPT_BIN:
		if (ts_parse_time(arg, &a->bin, &err) < 0 || a->bin <= 0)
			argp_error(state, "--bin: %s", a->bin <= 0 ? "must be > 0" : err.msg);
		break;
	case OPT_TITLE:
		a->title = arg;
		break;
	case OPT_SIZE:
		errno = 0;
		a->w = (unsigned int)strtoul(arg, &end, 10);
		if (errno || *end != 'x' || a->w < 100 || a->w > 10000)
			argp_error(state, "--size: expected WxH such as 800x300, got '%s'", arg);
		a->h = (unsigned int)strtoul(end + 1, &end, 10);
		if (errno || *end || a->h < 100 || a->h > 10000)
			argp_error(state, "--size: expected WxH such as 800x300, got '%s'", arg);
		break;
	case ARGP_KEY_ARG:
		if (a->in)
			argp_error(state, "one trace file at a time");
		a->in = arg;
		break;
	case ARGP_KEY_END:
		if (!a->in)
			argp_error(state, "which trace file?");
		if (!a->out)
			argp_error(state, "-o FILE.png is required");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp plot_argp = {
	plot_options,
	plot_parse,
	"FILE",
	"Plot a trace's capacity per direction (and its one-way delay on the right axis) over "
	"one period as a PNG, with gnuplot (Debian: apt-get install gnuplot-nox).\v"
	"Examples:\n"
	"  tasshape trace plot starlink -o starlink.png\n"
	"  tasshape trace plot 5g-mmwave-driving --bin 100ms --size 1200x400 -o 5g.png",
	NULL,
	NULL,
	NULL};

/* The capacity data block: time_s down up (Mbit/s), a step function. */
static int data_rates(struct ts_text *b, struct ts_trace *tr[2], ts_ns_t bin)
{
	const struct ts_trace *any = tr[1] ? tr[1] : tr[0];
	uint64_t *bps[2] = {NULL, NULL};
	size_t n[2] = {0, 0}, j, rows;
	int d;

	if (!bin) {
		/* the rows as they are; the rows of both directions share the times */
		rows = any->n;
	} else {
		for (d = 0; d < 2; d++)
			if (tr[d] && ts_trace_bins(tr[d], bin, &bps[d], &n[d]) < 0)
				goto oom;
		rows = n[tr[1] ? 1 : 0];
	}
	ts_text_printf(b, "$rate << EOD\n");
	for (j = 0; j <= rows; j++) {
		/* one more point at the period, so the last step is drawn */
		size_t k = j < rows ? j : rows - 1;
		ts_ns_t t = j == rows ? any->period : bin ? (ts_ns_t)j * bin : any->rows[j].t;

		ts_text_fixed(b, (unsigned long long)t, 9);
		for (d = 1; d >= 0; d--) {
			ts_text_add(b, " ", 1);
			if (!tr[d])
				ts_text_add(b, "NaN", 3);
			else
				ts_text_fixed(b, bin ? bps[d][k] : tr[d]->rows[k].bps, 6);
		}
		ts_text_add(b, "\n", 1);
	}
	ts_text_printf(b, "EOD\n");
	free(bps[0]);
	free(bps[1]);
	return 0;
oom:
	free(bps[0]);
	free(bps[1]);
	return -1;
}

static void data_delay(struct ts_text *b, const struct ts_trace *t)
{
	size_t j;

	ts_text_printf(b, "$delay << EOD\n");
	for (j = 0; j <= t->n; j++) {
		size_t k = j < t->n ? j : t->n - 1;

		ts_text_fixed(b, (unsigned long long)(j < t->n ? t->rows[j].t : t->period), 9);
		ts_text_add(b, " ", 1);
		ts_text_fixed(b, (unsigned long long)t->delay[k], 6);
		ts_text_add(b, "\n", 1);
	}
	ts_text_printf(b, "EOD\n");
}

static void script(struct ts_text *b, const struct plot_cli *a, struct ts_trace *tr[2],
		   const struct ts_trace_file_info *info)
{
	const struct ts_trace *any = tr[1] ? tr[1] : tr[0];
	bool delay = any->kind == TS_TRACE_RATE && any->delay;

	ts_text_printf(b,
		       "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) "
		       "{ set terminal pngcairo size %u,%u font ',9' } "
		       "else { set terminal png size %u,%u }\nset title ",
		       a->w, a->h, a->w, a->h);
	ts_gnuplot_quote(b, a->title ? a->title : a->in);
	ts_text_printf(b,
		       " noenhanced\nset xlabel 'time (s)'\nset ylabel '%s (Mbit/s)'\n"
		       "set grid\nset key below horizontal noenhanced\nset yrange [0:*]\n"
		       "set xrange [0:*]\nset format y '%%g'\n",
		       info->phy ? "PHY rate" : "capacity");
	if (delay)
		ts_text_printf(b,
			       "set y2label 'one-way delay (ms)'\nset y2tics\nset ytics nomirror\n"
			       "set y2range [0:*]\n");
	if (a->bin || any->kind == TS_TRACE_OPPS)
		ts_text_printf(b, "set label 1 'mean over bins' at graph 0.01, graph 0.95\n");
	ts_text_printf(b, "plot ");
	if (tr[1])
		ts_text_printf(b, "$rate using 1:2 with steps lw 1.2 lc rgb '#1f77b4' title '%s'%s",
			       info->phy ? "phy" : "down", tr[0] || delay ? ", " : "");
	if (tr[0])
		ts_text_printf(b, "$rate using 1:3 with steps lw 1.2 lc rgb '#ff7f0e' title 'up'%s",
			       delay ? ", " : "");
	if (delay)
		ts_text_printf(b, "$delay using 1:2 axes x1y2 with steps lw 1 lc rgb '#2ca02c' "
				  "title 'delay'");
	ts_text_printf(b, "\n");
}

/* The script @b into the PNG at @path. */
static int run_gnuplot(const struct ts_text *b, const char *path)
{
	struct ts_err err;

	if (ts_gnuplot_draw(b->p, b->len, path, TS_GNUPLOT_TIMEOUT_MS, &err) < 0)
		return ts_cli_error("plot: %s", err.msg);
	return 0;
}

int trace_plot(int argc, char **argv)
{
	struct plot_cli a = {.w = 800, .h = 300};
	struct ts_trace *tr[2] = {NULL, NULL};
	struct ts_trace_file_info info;
	const struct ts_trace *any;
	struct ts_text b;
	ts_ns_t bin;
	int ret = 1;

	argp_parse(&plot_argp, argc, argv, 0, NULL, &a);
	if (!ts_gnuplot_available())
		return ts_cli_error("plot: gnuplot not found in PATH; install it (Debian: "
				    "apt-get install gnuplot-nox) or use 'trace stats --series'");
	if (trace_load(a.in, &tr[TS_DIR_DOWN], &tr[TS_DIR_UP], &info))
		return 1;
	any = tr[1] ? tr[1] : tr[0];
	bin = a.bin;
	if (!bin && any->kind == TS_TRACE_OPPS) {
		bin = any->period / 2000 / TS_NSEC_PER_MSEC * TS_NSEC_PER_MSEC;
		bin = ts_max(bin, 10 * TS_NSEC_PER_MSEC);
	}
	ts_text_init(&b);
	if (data_rates(&b, tr, bin) < 0)
		goto oom;
	if (any->kind == TS_TRACE_RATE && any->delay)
		data_delay(&b, any);
	a.bin = bin;
	script(&b, &a, tr, &info);
	if (b.oom)
		goto oom;
	ret = run_gnuplot(&b, a.out);
	goto out;
oom:
	ts_cli_error("%s: out of memory", a.in);
out:
	ts_text_fini(&b);
	ts_trace_free(tr[0]);
	ts_trace_free(tr[1]);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/*
 * tasshape trace convert IN -o OUT: native CSV to mahimahi (one direction,
 * rates turned into 1500-byte opportunities per millisecond with error
 * diffusion) and mahimahi to CSV (opportunities counted in bins). The
 * rounding is described in include/tasshape/trace_conv.h and
 * docs/traces.md.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_trace.h"
#include "tasshape/trace_conv.h"
#include "tasshape/units.h"

struct conv_cli {
	const char *in, *out, *to, *dir;
	ts_ns_t bin;
};

enum { OPT_TO = 0x300, OPT_DIR, OPT_BIN };

static const struct argp_option conv_options[] = {
	{"output", 'o', "FILE", 0, "Write to FILE (default stdout)", 0},
	{"to", OPT_TO, "FORMAT", 0, "mahimahi or csv (default: the other format than the input's)",
	 0},
	{"dir", OPT_DIR, "down|up", 0,
	 "Direction of a CSV written as mahimahi, or that a mahimahi trace becomes: down "
	 "(default) or up",
	 0},
	{"bin", OPT_BIN, "TIME", 0, "Row width when mahimahi becomes CSV (default 100ms)", 0},
	{0}};

static error_t conv_parse(int key, char *arg, struct argp_state *state)
{
	struct conv_cli *a = state->input;
	struct ts_err err;

	ts_cli_check_path(state, conv_options, key, arg);
	switch (key) {
	case 'o':
		a->out = arg;
		break;
	case OPT_TO:
		if (strcmp(arg, "mahimahi") && strcmp(arg, "csv"))
			argp_error(state, "--to: expected mahimahi or csv, got '%s'", arg);
		a->to = arg;
		break;
	case OPT_DIR:
		if (strcmp(arg, "down") && strcmp(arg, "up"))
			argp_error(state, "--dir: expected down or up, got '%s'", arg);
		a->dir = arg;
		break;
	case OPT_BIN:
		if (ts_parse_time(arg, &a->bin, &err) < 0 || a->bin < TS_NSEC_PER_MSEC)
			argp_error(state, "--bin: %s", a->bin <= 0 ? "must be >= 1ms" : err.msg);
		break;
	case ARGP_KEY_ARG:
		if (a->in)
			argp_error(state, "one input file");
		a->in = arg;
		break;
	case ARGP_KEY_END:
		if (!a->in)
			argp_error(state, "which trace file?");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp conv_argp = {
	conv_options,
	conv_parse,
	"IN",
	"Convert a trace between native CSV and mahimahi. CSV to mahimahi: one direction, each "
	"millisecond's capacity in whole 1500-byte opportunities, the remainder carried to the "
	"next millisecond so the mean is kept; delay and loss columns are dropped. mahimahi to "
	"CSV: the opportunities of each bin as a rate.\v"
	"Examples:\n"
	"  tasshape trace convert lte-driving --dir down -o lte-down.mahi\n"
	"  tasshape trace convert Verizon-LTE-driving.down --bin 50ms -o verizon.csv",
	NULL,
	NULL,
	NULL};

int trace_convert(int argc, char **argv)
{
	struct conv_cli a = {.bin = 100 * TS_NSEC_PER_MSEC};
	struct ts_trace *down = NULL, *up = NULL, *t;
	struct ts_trace_file_info info;
	struct ts_series s;
	struct ts_text b, note;
	struct ts_err err;
	bool want_up, to_mm;
	int ret = 1;

	argp_parse(&conv_argp, argc, argv, 0, NULL, &a);
	if (trace_load(a.in, &down, &up, &info))
		return 1;
	ts_text_init(&b);
	ts_text_init(&note);
	ts_series_init(&s, 0);
	want_up = a.dir && !strcmp(a.dir, "up");
	to_mm = a.to ? !strcmp(a.to, "mahimahi") : info.fmt == TS_FMT_CSV;
	if (to_mm) {
		t = want_up ? up : down;
		if (!t) {
			ts_cli_error("%s: no %s column to convert%s", a.in, want_up ? "up" : "down",
				     want_up ? "" : " (--dir up for the up column)");
			goto out;
		}
		if (t->delay || t->loss_ppm)
			fprintf(stderr,
				"tasshape: note: mahimahi traces carry no delay or loss; "
				"%s's are dropped (give them with --delay, --loss)\n",
				a.in);
		if (ts_trace_write_mahimahi(t, &b, &err) < 0) {
			ts_cli_error("%s", err.msg);
			goto out;
		}
	} else {
		if (info.fmt == TS_FMT_MAHIMAHI) {
			s.cols = want_up ? TS_COL_UP : TS_COL_DOWN;
			ret = ts_opps_to_series(want_up ? NULL : down, want_up ? down : NULL, a.bin,
						down->period, &s);
			ts_text_printf(&note, "converted from %s (mahimahi), bins of ", a.in);
			ts_text_fixed(&note, (unsigned long long)a.bin, 9);
			ts_text_printf(&note, " s");
		} else {
			t = down ? down : up;
			s.cols = (down ? TS_COL_DOWN : 0) | (up ? TS_COL_UP : 0) |
				 (info.phy ? TS_COL_PHY : 0) | (t->delay ? TS_COL_DELAY : 0) |
				 (t->loss_ppm ? TS_COL_LOSS : 0);
			ret = ts_rate_to_series(down, up, &s);
			ts_text_printf(&note, "rewritten from %s", a.in);
		}
		if (ret || note.oom || ts_series_write_csv(&s, note.p, &b) < 0) {
			ts_cli_error("%s: %s", a.in,
				     ret == -E2BIG ? "more than 10000000 rows: use a wider --bin"
						   : "out of memory");
			ret = 1;
			goto out;
		}
	}
	ret = trace_write(a.out, &b);
out:
	ts_series_fini(&s);
	ts_text_fini(&b);
	ts_text_fini(&note);
	ts_trace_free(down);
	ts_trace_free(up);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/*
 * tasshape trace import FORMAT IN [IN2] -o OUT: a public dataset to
 * native CSV (the parsers are in src/model/import.c and imp_*.c), or a
 * pcap of a saturating download to a mahimahi trace (src/io/pcap_import.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_trace.h"
#include "io/pcap_import.h"
#include "tasshape/trace_conv.h"
#include "tasshape/trace_import.h"
#include "tasshape/units.h"

struct import_cli {
	const char *fmt, *in[2], *out;
	size_t nin;
	struct ts_import_opts o;
	struct ts_pcap_import_opts p;
};

enum {
	OPT_OPERATOR = 0x300,
	OPT_RUN,
	OPT_KEEP_IDLE,
	OPT_BIN,
	OPT_DIR,
	OPT_INTERVAL,
	OPT_FILTER,
	OPT_SKIP,
	OPT_DURATION,
};

static const struct argp_option import_options[] = {
	{"output", 'o', "FILE", 0, "Write to FILE (default stdout)", 0},
	{"operator", OPT_OPERATOR, "NAME", 0,
	 "5gophers: the operator whose column to take (Sprint, TMobile, Verizon)", 0},
	{"run", OPT_RUN, "N", 0, "lumos5g: the run_num to take (default: the file's first run)", 0},
	{"keep-idle", OPT_KEEP_IDLE, NULL, 0,
	 "gnettrack: keep the rows in State I (idle); by default they are cut out", 0},
	{"bin", OPT_BIN, "TIME", 0, "mahimahi, leoreplayer: row width (defaults 100ms and 10ms)",
	 0},
	{"dir", OPT_DIR, "down|up", 0,
	 "One mahimahi file, leoreplayer: the direction the trace is (down, the default, or up)",
	 0},
	{"delay-interval", OPT_INTERVAL, "TIME", 0,
	 "leoreplayer: time each line of the delay file covers (default 10ms)", 0},
	{"filter", OPT_FILTER, "EXPR", 0, "pcap: a BPF filter (tcpdump syntax) applied first", 0},
	{"skip", OPT_SKIP, "TIME", 0, "pcap: ignore the first TIME of the download (slow start)",
	 0},
	{"duration", OPT_DURATION, "TIME", 0, "pcap: keep at most TIME of the download", 0},
	{0}};

static void parse_time(struct argp_state *state, const char *opt, const char *arg, ts_ns_t *out,
		       ts_ns_t min)
{
	struct ts_err err;

	if (ts_parse_time(arg, out, &err) < 0)
		argp_error(state, "%s: %s", opt, err.msg);
	if (*out < min)
		argp_error(state, "%s: must be at least 1ms", opt);
}

static error_t import_parse(int key, char *arg, struct argp_state *state)
{
	struct import_cli *a = state->input;
	struct ts_err err;

	ts_cli_check_path(state, import_options, key, arg);
	switch (key) {
	case 'o':
		a->out = arg;
		break;
	case OPT_OPERATOR:
		a->o.operator_name = arg;
		break;
	case OPT_RUN:
		if (ts_parse_u64(arg, &a->o.run, &err) < 0)
			argp_error(state, "--run: %s", err.msg);
		a->o.has_run = true;
		break;
	case OPT_KEEP_IDLE:
		a->o.keep_idle = true;
		break;
	case OPT_BIN:
		parse_time(state, "--bin", arg, &a->o.bin, TS_NSEC_PER_MSEC);
		break;
	case OPT_DIR:
		if (strcmp(arg, "down") && strcmp(arg, "up"))
			argp_error(state, "--dir: expected down or up, got '%s'", arg);
		a->o.up = !strcmp(arg, "up");
		break;
	case OPT_INTERVAL:
		parse_time(state, "--delay-interval", arg, &a->o.delay_interval, TS_NSEC_PER_MSEC);
		break;
	case OPT_FILTER:
		a->p.filter = arg;
		break;
	case OPT_SKIP:
		parse_time(state, "--skip", arg, &a->p.skip, 0);
		break;
	case OPT_DURATION:
		parse_time(state, "--duration", arg, &a->p.duration, TS_NSEC_PER_MSEC);
		break;
	case ARGP_KEY_ARG:
		if (!a->fmt)
			a->fmt = arg;
		else if (a->nin < 2)
			a->in[a->nin++] = arg;
		else
			argp_error(state, "at most two input files");
		break;
	case ARGP_KEY_END:
		if (!a->fmt || !a->nin)
			argp_error(state, "expected FORMAT and the input file(s)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static char *import_help(int key, const char *text, void *input)
{
	struct ts_text b;
	size_t i;

	(void)input;
	if (key != ARGP_KEY_HELP_POST_DOC)
		return (char *)text;
	ts_text_init(&b);
	ts_text_printf(&b, "Formats:\n");
	for (i = 0; i < ts_import_count(); i++) {
		const struct ts_import_fmt *f = ts_import_at(i);

		ts_text_printf(&b, "  %-11s %-15s ", f->name, f->inputs);
		ts_cli_wrap(&b, f->summary, 30);
	}
	ts_text_printf(&b, "  %-11s %-15s ", "pcap", "CAPTURE");
	ts_cli_wrap(&b,
		    "a capture of a saturating download (libpcap) into a mahimahi trace: one "
		    "opportunity per 1500 bytes received, at the millisecond",
		    30);
	ts_text_printf(&b, "\nExamples:\n"
			   "  tasshape trace import lumos5g Lumos5G-v1.0.csv -o lumos.csv\n"
			   "  tasshape trace import mahimahi up.mahi down.mahi -o link.csv\n"
			   "  tasshape trace import pcap download.pcap -o download.mahi\n");
	return b.p; /* argp frees it */
}

static const struct argp import_argp = {
	import_options,
	import_parse,
	"FORMAT IN [IN2]",
	"Import a public capacity dataset into tasshape's native CSV, or a capture into a "
	"mahimahi trace; details in docs/traces.md.\v",
	NULL,
	import_help,
	NULL};

struct feed {
	struct ts_import *im;
	size_t input;
};

static int feed_line(void *ctx, const char *line, size_t len, unsigned long lineno,
		     struct ts_err *err)
{
	struct feed *f = ctx;

	(void)lineno;
	return ts_import_line(f->im, f->input, line, len, err);
}

static int import_pcap(struct import_cli *a)
{
	struct ts_trace *t = NULL;
	struct ts_text b, notes;
	struct ts_err err;
	int ret = 1;

	if (a->nin != 1)
		return ts_cli_error("import pcap: expected one capture file");
	ts_text_init(&b);
	ts_text_init(&notes);
	if (ts_pcap_import(a->in[0], &a->p, &t, &notes, &err) < 0) {
		ts_cli_error("%s", err.msg);
		goto out;
	}
	if (ts_trace_write_mahimahi(t, &b, &err) < 0) {
		ts_cli_error("%s", err.msg);
		goto out;
	}
	/* mahimahi files have no comments: the notes go to stderr */
	if (notes.p)
		fprintf(stderr, "tasshape: %s\n", notes.p);
	ret = trace_write(a->out, &b);
out:
	ts_trace_free(t);
	ts_text_fini(&b);
	ts_text_fini(&notes);
	return ret;
}

int trace_import(int argc, char **argv)
{
	struct import_cli a = {0};
	struct ts_import *im = NULL;
	struct ts_series s;
	struct ts_text b, notes;
	struct ts_err err;
	struct feed f;
	size_t i;
	int ret = 1;

	argp_parse(&import_argp, argc, argv, 0, NULL, &a);
	if (!strcmp(a.fmt, "pcap"))
		return import_pcap(&a);
	ts_series_init(&s, 0);
	ts_text_init(&b);
	ts_text_init(&notes);
	err.msg[0] = '\0';
	if (ts_import_new(a.fmt, a.in, a.nin, &a.o, &im, &err) < 0) {
		ts_cli_error("import: %s", err.msg);
		goto out;
	}
	for (i = 0; i < a.nin; i++) {
		f.im = im;
		f.input = i;
		if (ts_file_lines(a.in[i], feed_line, &f, &err) < 0) {
			ts_cli_error("%s", err.msg[0] ? err.msg : "out of memory");
			goto out;
		}
	}
	if (ts_import_finish(im, &s, &notes, &err) < 0 ||
	    ts_series_write_csv(&s, notes.p, &b) < 0) {
		ts_cli_error("%s", err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	ret = trace_write(a.out, &b);
out:
	ts_import_free(im);
	ts_series_fini(&s);
	ts_text_fini(&b);
	ts_text_fini(&notes);
	return ret;
}

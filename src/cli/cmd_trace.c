/* SPDX-License-Identifier: MIT */
/*
 * tasshape trace: check, stats, convert, plot, gen and import, from a
 * table (the same shape as the top-level command table in main.c), and
 * the helpers they share.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_trace.h"
#include "link/bundled.h"
#include "tasshape/trace_import.h"
#include "io/outfile.h"

static const struct ts_cmd trace_cmds[] = {
	{"list", trace_list, "The bundled traces (names for --trace), their mean rates and origin",
	 0},
	{"check", trace_check, "Validate trace files; exit 1 with FILE:LINE on the first error", 0},
	{"stats", trace_stats, "Duration, mean, percentiles, outages, delay (--json, --series)", 0},
	{"convert", trace_convert, "Convert between native CSV and mahimahi", 0},
	{"plot", trace_plot, "Plot capacity and delay over time to a PNG (needs gnuplot)", 0},
	{"gen", trace_gen, "Generate a trace from a stochastic model (--list shows them)", 0},
	{"import", trace_import, "Import a public dataset or a pcap (formats below)", 0},
};

#define NCMDS (sizeof(trace_cmds) / sizeof(trace_cmds[0]))

static void trace_usage(FILE *f)
{
	char names[128];
	size_t i;

	fprintf(f, "Usage: tasshape trace COMMAND [OPTIONS]\n\nCommands:\n");
	for (i = 0; i < NCMDS; i++)
		fprintf(f, "  %-8s %s\n", trace_cmds[i].name, trace_cmds[i].description);
	/* The importers' own table (src/model/import.c), plus the capture importer of src/run. */
	fprintf(f, "\nImport formats: %s, pcap\n", ts_import_names(names, sizeof(names)));
	fprintf(f, "\n'tasshape trace COMMAND --help' lists a command's options; the formats and "
		   "the bundled traces are described in docs/traces.md.\n\n"
		   "Examples:\n"
		   "  tasshape trace list\n"
		   "  tasshape trace stats starlink\n"
		   "  tasshape trace plot 5g-mmwave-driving -o 5g.png\n"
		   "  tasshape trace gen lte-driving --seed 7 --duration 60s -o lte7.csv\n");
}

int cmd_trace(int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		trace_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? TS_EXIT_USAGE : 0;
	}
	for (i = 0; i < NCMDS; i++) {
		if (!strcmp(argv[1], trace_cmds[i].name)) {
			char name[64];

			snprintf(name, sizeof(name), "tasshape trace %s", trace_cmds[i].name);
			argv[1] = name;
			return trace_cmds[i].fn(argc - 1, argv + 1);
		}
	}
	ts_cli_usage("trace: unknown command '%s'", argv[1]);
	trace_usage(stderr);
	return TS_EXIT_USAGE;
}

int trace_load(const char *path, struct ts_trace **down, struct ts_trace **up,
	       struct ts_trace_file_info *info)
{
	char buf[PATH_MAX];
	struct ts_err err;

	err.msg[0] = '\0';
	path = ts_trace_resolve(path, buf, sizeof(buf));
	if (ts_trace_load_tool(path, down, up, info, &err) < 0) {
		ts_cli_error("%s", err.msg[0] ? err.msg : "cannot load the trace");
		return 1;
	}
	return 0;
}

int trace_write(const char *path, const struct ts_text *b)
{
	bool to_stdout = !path || !strcmp(path, "-");
	struct ts_err err;
	FILE *f = to_stdout ? stdout : ts_out_fopen(path, &err);
	int bad;

	if (!f)
		return ts_cli_error("%s", err.msg);
	bad = b->len && fwrite(b->p, 1, b->len, f) != b->len;
	if (to_stdout)
		bad |= fflush(f) != 0;
	else
		bad |= fclose(f) != 0;
	if (bad)
		return ts_cli_error("%s: cannot write: %s", to_stdout ? "stdout" : path,
				    strerror(errno));
	return 0;
}

const char *trace_dir_name(int dir, bool phy)
{
	if (phy)
		return "phy";
	return dir == TS_DIR_DOWN ? "down" : "up";
}

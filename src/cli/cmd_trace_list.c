/* SPDX-License-Identifier: MIT */
/*
 * tasshape trace list: the bundled traces (the names --trace takes), each
 * with its mean rates, computed from the file, and its one-line
 * description, read from the first table of the directory's README.md
 * ("| `FILE` | what it is | ..."), so the list has no copy to keep in step.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_trace.h"
#include "link/bundled.h"
#include "tasshape/trace_stats.h"

struct list_cli {
	bool names; /* --names: bare names, for shell completion */
};

enum { OPT_NAMES = 0x500 };

static const struct argp_option list_options[] = {
	{"names", OPT_NAMES, NULL, 0, "Print only the names, one per line (for completion)", 0},
	{0}};

static error_t list_parse(int key, char *arg, struct argp_state *state)
{
	struct list_cli *a = state->input;

	(void)arg;
	switch (key) {
	case OPT_NAMES:
		a->names = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "'%s': trace list takes no arguments", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp list_argp = {
	list_options,
	list_parse,
	NULL,
	"List the bundled traces: the names --trace and the trace tools accept in place of a "
	"file, with each one's mean rates (Mbit/s; a Wi-Fi PHY-rate trace has one PHY-rate "
	"column) and what it is.\v"
	"Examples:\n"
	"  tasshape trace list\n"
	"  tasshape trace stats starlink\n"
	"  sudo tasshape --trace 5g-mmwave-driving --delay 10ms",
	NULL,
	NULL,
	NULL};

/* The bundled file names: regular trace files, sorted (scandir). */
static int is_trace(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && ((n > 4 && !strcmp(d->d_name + n - 4, ".csv")) ||
				       (n > 5 && !strcmp(d->d_name + n - 5, ".mahi")));
}

/* The "what it is" cell of FILE's row in README.md into @out, or "" when there is none. */
static void describe(FILE *readme, const char *file, char *out, size_t len)
{
	char line[2048], key[PATH_MAX + 8];
	char *start, *end;

	out[0] = '\0';
	if (!readme)
		return;
	rewind(readme);
	snprintf(key, sizeof(key), "| `%s` | ", file);
	while (fgets(line, sizeof(line), readme)) {
		if (strncmp(line, key, strlen(key)))
			continue;
		start = line + strlen(key);
		end = strstr(start, " |");
		if (end)
			*end = '\0';
		/* Markdown code spans read as plain text on a terminal. */
		for (end = out; *start && end < out + len - 1; start++)
			if (*start != '`')
				*end++ = *start;
		*end = '\0';
		return;
	}
}

/* The trace's mean over one period in Mbit/s, right-aligned in 8 columns ("-" if none). */
static void print_mean(struct ts_text *b, const struct ts_trace *t)
{
	struct ts_trace_stats st;
	struct ts_text m;

	ts_text_init(&m);
	if (t && ts_trace_stats(t, TS_NSEC_PER_SEC, 20 * TS_NSEC_PER_MSEC, &st) == 0)
		ts_text_mbps(&m, st.mean_bps, 1);
	ts_text_printf(b, "%8s", m.p ? m.p : "-");
	ts_text_fini(&m);
}

static int list_one(const char *dir, const char *file, FILE *readme)
{
	struct ts_trace *down = NULL, *up = NULL;
	struct ts_trace_file_info info;
	char path[PATH_MAX + NAME_MAX + 2], name[NAME_MAX + 1], what[1024];
	struct ts_text b;
	char *dot;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	snprintf(name, sizeof(name), "%s", file);
	dot = strrchr(name, '.');
	if (dot)
		*dot = '\0';
	ret = trace_load(path, &down, &up, &info);
	if (ret)
		return ret;
	describe(readme, file, what, sizeof(what));
	ts_text_init(&b);
	ts_text_printf(&b, "%-20s", name);
	print_mean(&b, down);
	if (info.phy)
		ts_text_printf(&b, "%8s", "(phy)");
	else /* a mahimahi file serves both directions (--trace) */
		print_mean(&b, info.fmt == TS_FMT_MAHIMAHI && !up ? down : up);
	ts_text_printf(&b, "  %s\n", what);
	fputs(b.p ? b.p : "", stdout);
	ts_text_fini(&b);
	ts_trace_free(down);
	ts_trace_free(up);
	return 0;
}

int trace_list(int argc, char **argv)
{
	struct list_cli a = {0};
	struct dirent **ents = NULL;
	char dir[PATH_MAX], readme_path[PATH_MAX + 16];
	FILE *readme = NULL;
	int i, n, ret = 0;

	argp_parse(&list_argp, argc, argv, 0, NULL, &a);
	if (!ts_bundled_dir(dir, sizeof(dir)))
		return ts_cli_error("no bundled traces found (looked beside the binary, in "
				    "share/tasshape/traces); is tasshape installed?");
	n = scandir(dir, &ents, is_trace, alphasort);
	if (n < 0)
		return ts_cli_error("%s: cannot list: %s", dir, strerror(errno));
	if (!a.names) {
		snprintf(readme_path, sizeof(readme_path), "%s/README.md", dir);
		readme = fopen(readme_path, "r");
		printf("# %s (mean Mbit/s)\n%-20s%8s%8s  %s\n", dir, "name", "down", "up",
		       "what it is");
	}
	for (i = 0; i < n; i++) {
		if (a.names) {
			char *dot = strrchr(ents[i]->d_name, '.');

			printf("%.*s\n", (int)(dot - ents[i]->d_name), ents[i]->d_name);
		} else if (list_one(dir, ents[i]->d_name, readme)) {
			ret = 1;
		}
		free(ents[i]);
	}
	free(ents);
	if (readme)
		fclose(readme);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/*
 * tasshape: trace-replay network emulator and link shaper. One binary,
 * subcommands dispatched from this table; usage is printed from it too.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "run/manifest.h"

/* "tasshape 0.1.0 (git 7f2bf4b)": the same version and revision a run's manifest records. */
static void print_version(FILE *f, struct argp_state *state)
{
	(void)state;
	fprintf(f, "tasshape %s (git %s)\n", ts_build_version(), ts_build_git_rev());
}

void (*argp_program_version_hook)(FILE *, struct argp_state *) = print_version;

static const struct ts_cmd commands[] = {
	{"sim", cmd_sim,
	 "Simulate the link model alone (no kernel, no root) and print the summary"},
	{"attach", cmd_attach, "Shape the link of an existing namespace (ip netns, Mininet-style)"},
	{"plot", cmd_plot, "Draw a recorded run (--out DIR) with gnuplot"},
	{"trace", cmd_trace, "Check, inspect, convert, plot, generate and import capacity traces"},
	{"cleanup", cmd_cleanup,
	 "Remove namespaces, interfaces and rules a killed run left behind"},
};

int ts_cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("tasshape: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: tasshape [LINK OPTIONS] [-- CMD [ARGS...]]\n"
		   "       tasshape COMMAND [OPTIONS]\n\n"
		   "Without a command, runs CMD (default: your shell) behind the emulated link.\n"
		   "'tasshape --help' lists the link options.\n\nCommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].description);
	fprintf(f, "\n'tasshape COMMAND --help' lists a command's options.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc >= 2 && !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (argc < 2 || argv[1][0] == '-')
		return cmd_run(argc, argv);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		print_version(stdout, NULL);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			char name[64];

			/* argp names the program after argv[0] in its messages. */
			snprintf(name, sizeof(name), "tasshape %s", commands[i].name);
			argv[1] = name;
			return commands[i].fn(argc - 1, argv + 1);
		}
	}
	ts_cli_error("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}

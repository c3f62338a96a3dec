/* SPDX-License-Identifier: MIT */
/*
 * tasshape: trace-replay network emulator and link shaper. One binary,
 * subcommands dispatched from this table; usage is printed from it too.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "net/userns.h"
#include "io/invoker.h"
#include "run/manifest.h"
#include "tasshape/qdisc.h"
#include "tasshape/stage.h"

/* "tasshape 0.1.0 (git 7f2bf4b)": the same version and revision a run's manifest records. */
static void print_version(FILE *f, struct argp_state *state)
{
	(void)state;
	fprintf(f, "tasshape %s (git %s)\n", ts_build_version(), ts_build_git_rev());
}

void (*argp_program_version_hook)(FILE *, struct argp_state *) = print_version;

static const struct ts_cmd commands[] = {
	{"sim", cmd_sim, "Simulate the link model alone (no kernel, no root) and print the summary",
	 0},
	{"attach", cmd_attach, "Shape the link of an existing namespace (ip netns, Mininet-style)",
	 0},
	{"plot", cmd_plot, "Draw a recorded run (--out DIR) with gnuplot", 0},
	{"exp", cmd_exp,
	 "Experiments: expand a spec into runs, run the matrix, summarise and check (list, run, "
	 "check)",
	 0},
	{"trace", cmd_trace, "Check, inspect, convert, plot, generate and import capacity traces",
	 0},
	{"vm", cmd_vm,
	 "Run CMD under another kernel in a QEMU micro-VM (BBRv3, out-of-tree modules)", 0},
	{"doctor", cmd_doctor, "Check what this host can run, and say how to fix what it cannot",
	 0},
	{"cleanup", cmd_cleanup, "Remove namespaces, interfaces and rules a killed run left behind",
	 0},
	{"exp-agent", cmd_exp_agent, "(internal) one side of a run of 'tasshape exp run'",
	 TS_CMD_HIDDEN},
	{"exp-guest", cmd_exp_guest,
	 "(internal) one run of 'tasshape exp run' inside its kernel's VM", TS_CMD_HIDDEN},
};

/* argp wraps help past column 78: wrap first, at a blank, under the text's own column. */
#define HELP_WIDTH 78
#define DESC_COL   13

void ts_cli_wrap(struct ts_text *b, const char *s, int col)
{
	size_t room = HELP_WIDTH - (size_t)col, n;

	while (strlen(s) > room) {
		for (n = room; n > 0 && s[n] != ' '; n--)
			;
		if (!n)
			break;
		ts_text_printf(b, "%.*s\n%*s", (int)n, s, col, "");
		s += n + 1;
	}
	ts_text_printf(b, "%s\n", s);
}

void ts_cli_commands(struct ts_text *b)
{
	size_t i;

	ts_text_printf(b, "Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		/* The completion reads this list: what is left out here is not offered. */
		if (commands[i].flags & TS_CMD_HIDDEN)
			continue;
		ts_text_printf(b, "  %-*s", DESC_COL - 2, commands[i].name);
		ts_cli_wrap(b, commands[i].description, DESC_COL);
	}
	ts_text_printf(b, "'tasshape COMMAND --help' lists a command's options and examples.\n");
}

static void usage(FILE *f)
{
	struct ts_text b;

	ts_text_init(&b);
	ts_cli_commands(&b);
	fprintf(f,
		"Usage: tasshape [LINK OPTIONS] [-- CMD [ARGS...]]\n"
		"       tasshape COMMAND [OPTIONS]\n\n"
		"Without a command, runs CMD (default: your shell) behind the emulated link.\n"
		"'tasshape --help' lists the link options.\n\n%s",
		b.p ? b.p : "");
	fprintf(f, "\nExamples:\n"
		   "  sudo tasshape doctor\n"
		   "  sudo tasshape --trace starlink -- sh -c 'iperf3 -c $TASSHAPE_BASE -t 20'\n"
		   "  tasshape trace list\n");
	ts_text_fini(&b);
}

/*
 * tasshape __complete KIND: the names shell completion offers, from the
 * tables they live in (queues, loss models, MACs), so the completion script
 * cannot fall behind them. Subcommands and options it reads from --help.
 */
static int complete_names(int argc, char **argv)
{
	const char *kind = argc > 2 ? argv[2] : "";
	size_t i;

	if (!strcmp(kind, "queue")) {
		for (i = 0; i < ts_qdisc_count(); i++)
			puts(ts_qdisc_at(i)->name);
	} else if (!strcmp(kind, "loss")) {
		for (i = 0; i < ts_loss_model_count(); i++)
			puts(ts_loss_model_at(i)->name);
	} else if (!strcmp(kind, "mac")) {
		puts(ts_s_wifi6.name);
	} else {
		return ts_cli_error("__complete: expected queue, loss or mac");
	}
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	argp_err_exit_status = TS_EXIT_USAGE;
	if (argc >= 2 && !strcmp(argv[1], "__complete"))
		return complete_names(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	/* Messages say "tasshape", not the path it was started by. */
	argv[0] = "tasshape";
	/*
	 * Nothing any command writes (results, traces, reports, captures, the
	 * namespace files) is group- or world-writable, whatever the umask:
	 * another user could otherwise edit a result a later root run reads.
	 */
	ts_invoker_umask_harden();
	/*
	 * Started inside a rootless run's user namespace (an exp agent, a nested
	 * wrapper): the system's programs show as the overflow uid there.
	 */
	if (ts_userns_rootless())
		ts_invoker_set_rootless();
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
	ts_cli_usage("unknown command '%s'", argv[1]);
	usage(stderr);
	return TS_EXIT_USAGE;
}

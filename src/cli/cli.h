/* SPDX-License-Identifier: MIT */
/*
 * The front end: one binary, git-style subcommands dispatched from the
 * table in main.c (as wireguard-tools' wg.c does). Each subcommand lives in
 * its own cmd_*.c file, parses its arguments with argp, and returns the
 * process exit status.
 */
#ifndef TS_CLI_H
#define TS_CLI_H

#include <argp.h>
#include <sysexits.h>

#include "link/linkcfg.h"
#include "run/session.h"
#include "tasshape/text.h"

/* A subcommand the user does not call: tasshape runs it itself (exp run's agents). */
#define TS_CMD_HIDDEN 0x1

struct ts_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *description;
	unsigned flags; /* TS_CMD_HIDDEN: callable, but left out of help and completion */
};

int cmd_sim(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_exp(int argc, char **argv);
int cmd_exp_agent(int argc, char **argv);
int cmd_exp_guest(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_vm(int argc, char **argv);

/* Options of every shaping command (--summary-json, --quiet, --gso, ...): input struct ts_run_common. */
extern const struct argp ts_common_argp;

/*
 * Link options shared by every subcommand that builds a link (--trace,
 * --delay, --loss, --queue, ...): an argp child whose input is a
 * struct ts_linkcfg, each option read by ts_linkcfg_set (link/grammar.h).
 */
extern const struct argp ts_link_argp;

/* The subcommands and their one-line descriptions, from main.c's table, as help text. */
void ts_cli_commands(struct ts_text *b);

/*
 * ts_cli_wrap - append @s and a newline, wrapped at blanks to argp's help
 * width, continuation lines indented to column @col (where @s starts).
 */
void ts_cli_wrap(struct ts_text *b, const char *s, int col);

/*
 * The exit status of every usage error of every command (an option, an
 * argument, a spec or a check): EX_USAGE, the status argp exits with, which
 * the man pages and docs/experiments.md promise. main() hands it to argp too.
 */
#define TS_EXIT_USAGE EX_USAGE

/* Print "tasshape: MSG" to stderr; returns 1, the status of a failure that is not a usage error. */
int ts_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * ts_cli_check_path - in an argp parser: if option @key of @opts takes a
 * FILE or DIR and @arg is empty, a usage error naming the option (an
 * empty path would be ignored, or fail as "'': No such file"). Returns
 * @arg.
 */
const char *ts_cli_check_path(struct argp_state *state, const struct argp_option *opts, int key,
			      const char *arg);

/* Print "tasshape: MSG" to stderr; returns TS_EXIT_USAGE. */
int ts_cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

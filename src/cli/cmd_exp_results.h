/* SPDX-License-Identifier: MIT */
/*
 * The exp subcommands that work on results (written by exp run): Flent
 * files, reports, resume, shards and merge. Dispatched from cmd_exp.c.
 */
#ifndef TS_CLI_CMD_EXP_RESULTS_H
#define TS_CLI_CMD_EXP_RESULTS_H

int cmd_exp_flent(int argc, char **argv);

#endif

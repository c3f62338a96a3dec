/* SPDX-License-Identifier: MIT */
/*
 * The exp subcommands that work on results (written by exp run): Flent
 * files, reports, resume, shards and merge. Dispatched from cmd_exp.c.
 */
#ifndef TS_CLI_CMD_EXP_RESULTS_H
#define TS_CLI_CMD_EXP_RESULTS_H

#include <stddef.h>

int cmd_exp_flent(int argc, char **argv);
int cmd_exp_merge(int argc, char **argv);

/* Summarise @dir again from its result.json files and write its summary.*; -errno with @err. */
int ts_exp_summarise_dir(const char *dir, char *err, size_t errlen);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * tasshape trace SUBCOMMAND: tools for capacity traces, one file per
 * subcommand (cmd_trace_*.c), dispatched from the table in cmd_trace.c.
 * Each returns the process exit status: 0, 1 on an error it reported, 2
 * on a usage error (argp's).
 */
#ifndef TS_CMD_TRACE_H
#define TS_CMD_TRACE_H

#include <stdbool.h>

#include "tasshape/text.h"
#include "tasshape/trace.h"
#include "tasshape/trace_file.h"

int trace_check(int argc, char **argv);
int trace_stats(int argc, char **argv);
int trace_convert(int argc, char **argv);
int trace_plot(int argc, char **argv);
int trace_gen(int argc, char **argv);
int trace_import(int argc, char **argv);
int trace_list(int argc, char **argv);

/*
 * trace_load - load a trace file for a tool (mahimahi, CSV or a Wi-Fi
 * PHY-rate CSV). Prints the error and returns 1 on failure, else 0 with
 * the traces owned by the caller.
 */
int trace_load(const char *path, struct ts_trace **down, struct ts_trace **up,
	       struct ts_trace_file_info *info);

/*
 * trace_write - write @b to @path, or to stdout when @path is NULL or
 * "-". Prints the error and returns 1 on failure, else 0.
 */
int trace_write(const char *path, const struct ts_text *b);

/* "down", "up" or "phy": the name of a direction in messages and output. */
const char *trace_dir_name(int dir, bool phy);

#endif

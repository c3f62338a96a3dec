/* SPDX-License-Identifier: MIT */
/*
 * Reading text files line by line for the trace tools (importers, check,
 * stats): the block reader of the trace loader, with a callback per line.
 */
#ifndef TASSHAPE_TRACE_FILE_H
#define TASSHAPE_TRACE_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "tasshape/err.h"
#include "tasshape/trace.h"

/*
 * Called with each line of the file, without its '\n' (a '\r' before it
 * is kept), and its number from 1. A non-zero return stops the reading
 * and is returned by ts_file_lines.
 */
typedef int (*ts_line_fn)(void *ctx, const char *line, size_t len, unsigned long lineno,
			  struct ts_err *err);

/*
 * ts_file_lines - read @path in 1 MiB blocks and call @fn on every line.
 * A line longer than 65536 bytes is an error ("PATH:LINE: line longer
 * than 65536 bytes: not a text file"). Returns 0, what @fn returned, or
 * -errno with "PATH: cannot open: ..." / "PATH: cannot read: ...".
 */
int ts_file_lines(const char *path, ts_line_fn fn, void *ctx, struct ts_err *err);

/* How ts_trace_load_tool read a file. */
struct ts_trace_file_info {
	enum ts_trace_format fmt; /* TS_FMT_MAHIMAHI or TS_FMT_CSV */
	bool phy;		  /* a Wi-Fi PHY-rate CSV: its phy_mbps column is in *down */
};

/*
 * ts_trace_load_tool - ts_trace_load for the trace tools, which also read
 * a Wi-Fi PHY-rate trace (a CSV whose rate column is phy_mbps, without
 * down_ or up_ columns): its PHY rate is returned as *@down with
 * @info->phy set. Errors and ownership as ts_trace_load.
 */
int ts_trace_load_tool(const char *path, struct ts_trace **down, struct ts_trace **up,
		       struct ts_trace_file_info *info, struct ts_err *err);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Importers: public capacity datasets to tasshape's native CSV. Each
 * format is an incremental parser fed one line at a time (so tests feed
 * strings), checks the dataset's header and quirks, and rejects a file
 * that does not match with a message naming the columns it expected.
 *
 *  mahimahi     UP DOWN | FILE  two mahimahi files (mm-link's order) into
 *                               one CSV, or one file as one direction
 *  gnettrack    FILE   G-NetTrack Pro CSV (UCC 4G/5G datasets)
 *  lumos5g      FILE   Lumos5G 1.0 (one run)
 *  5gophers     FILE   5Gophers 1.0 throughput (one operator's column)
 *  pensieve     FILE   Pensieve "cooked" trace: "time_s bw_Mbps" lines
 *  leoreplayer  BW DELAY  LeoReplayer bw_N.txt + delay_N.txt
 *
 * Errors read "NAME:LINE: what is wrong (expected ...)", as the trace
 * reader's. Details of each format: docs/traces.md.
 */
#ifndef TASSHAPE_TRACE_IMPORT_H
#define TASSHAPE_TRACE_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasshape/text.h"
#include "tasshape/err.h"
#include "tasshape/series.h"
#include "tasshape/time.h"

struct ts_import_opts {
	const char *operator_name; /* 5gophers: Sprint, TMobile, Verizon (the column prefix) */
	uint64_t run;		   /* lumos5g: run_num to take ... */
	bool has_run;		   /* ... when set; else the first run in the file */
	bool keep_idle;		   /* gnettrack: keep rows in State I (idle) */
	bool up;		   /* one mahimahi file, leoreplayer: the trace is the uplink */
	ts_ns_t bin;		   /* mahimahi, leoreplayer: row width; 0: the format's default */
	ts_ns_t delay_interval;	   /* leoreplayer: time per delay line; 0: 10 ms */
};

struct ts_import_fmt {
	const char *name;
	const char *inputs;  /* what the command line takes, e.g. "BW DELAY" */
	const char *summary; /* one line */
	size_t min_inputs, max_inputs;
	const struct imp_ops *ops; /* private */
};

/* The formats, in the order the help lists them. */
size_t ts_import_count(void);
const struct ts_import_fmt *ts_import_at(size_t i);

/*
 * ts_import_names - "mahimahi, gnettrack, ..." from the table into @buf
 * (truncated to @len, always terminated). Returns @buf.
 */
char *ts_import_names(char *buf, size_t len);

struct ts_import;

/*
 * ts_import_new - start importing format @fmt from @ninputs inputs called
 * @names[] (names for messages). Returns 0 with *@out (free with
 * ts_import_free), or -EINVAL (unknown format, wrong number of inputs,
 * bad option) or -ENOMEM with @err set.
 */
int ts_import_new(const char *fmt, const char *const *names, size_t ninputs,
		  const struct ts_import_opts *o, struct ts_import **out, struct ts_err *err);

/*
 * ts_import_line - feed one line (without its '\n'; a '\r' is removed)
 * of input @input. Returns 0, or -EINVAL with "NAME:LINE: ..." in @err,
 * or -ENOMEM. After an error only ts_import_free is allowed.
 */
int ts_import_line(struct ts_import *im, size_t input, const char *line, size_t len,
		   struct ts_err *err);

/*
 * ts_import_finish - the imported trace into @out (empty, initialised by
 * the caller; columns and period set here) and, in @notes, comment lines
 * for the output header saying what was imported and how (rows merged,
 * dropped, carried over). Returns 0, -EINVAL (no rows, ...) or -ENOMEM.
 */
int ts_import_finish(struct ts_import *im, struct ts_series *out, struct ts_text *notes,
		     struct ts_err *err);

void ts_import_free(struct ts_import *im);

#endif

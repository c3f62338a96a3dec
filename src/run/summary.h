/* SPDX-License-Identifier: MIT */
/*
 * The run summary: per direction, what the trace offered, what was
 * delivered, every drop by cause, queueing delay percentiles and the peak
 * queue of each stage with its place (sender or network). Printed for
 * people on stderr and as JSON for scripts.
 */
#ifndef TS_RUN_SUMMARY_H
#define TS_RUN_SUMMARY_H

#include <json-c/json.h>
#include <stdio.h>

#include "tasshape/link.h"

/* What the runtime adds to the model's counters (zero in a simulation). */
struct ts_dir_extra {
	uint64_t kernel_dropped;  /* dropped by the kernel before reaching us (queue full) */
	uint64_t user_dropped;	  /* dropped by the kernel: netlink socket overrun */
	uint64_t no_descriptor;	  /* dropped on arrival: the descriptor pool was empty */
	uint64_t unexplained;	  /* packets seen but not accounted for: must be 0 */
	uint64_t release_err_p50; /* ns: actual verdict time - model release time */
	uint64_t release_err_p99;
	uint64_t release_err_max;
	int have_release_err;
};

struct ts_summary {
	const char *title;
	ts_ns_t start, end; /* run interval, for capacity and rates */
	const struct ts_dir *dir[2];
	struct ts_dir_extra extra[2];
	const struct ts_tsq *tsq; /* the station's TSQ budget (run/tsq.h), or NULL */
	ts_ns_t base_rtt; /* the link's two-way delay, for the fell-behind rule; 0: unknown */
};

/*
 * Did the emulator fall behind (the rule `tasshape exp` flags runs by):
 * release timing error p99 above max(200 us, 2% of the base RTT), or any
 * unexplained or kernel drop. Times in ns.
 */
#define TS_FELL_BEHIND_FLOOR_NS 200000
static inline uint64_t ts_fell_behind_limit(ts_ns_t base_rtt)
{
	uint64_t pct = base_rtt > 0 ? (uint64_t)base_rtt / 50 : 0;

	return pct > TS_FELL_BEHIND_FLOOR_NS ? pct : TS_FELL_BEHIND_FLOOR_NS;
}

void ts_summary_print(FILE *f, const struct ts_summary *s);

/*
 * ts_summary_json_object - the summary as a json-c object (the caller owns
 * it: json_object_put), for writers that embed it; NULL when out of memory.
 */
struct json_object *ts_summary_json_object(const struct ts_summary *s);

/* Writes the summary as one line of JSON. Returns 0, -ENOMEM, or -EIO if writing failed. */
int ts_summary_json(FILE *f, const struct ts_summary *s);

#endif

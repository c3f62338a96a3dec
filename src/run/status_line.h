/* SPDX-License-Identifier: MIT */
/*
 * The live status line: on a terminal, about once a second, one line on
 * stderr redrawn in place (carriage return, erase to the end of line):
 *
 *   tasshape 12.3/60.0s  down 11.9/12.0 Mbit/s q 35ms drop 3  up 0.4/12.0 Mbit/s q 0ms drop 0
 *
 * elapsed / trace length (or --duration), then per direction the
 * throughput and capacity of the last second, the largest link delay of
 * the packets that left the link in it, and its drops. The caller decides
 * whether it is shown (a terminal, not --quiet); ts_progress_end erases it
 * so the summary starts on a clean line.
 */
#ifndef TS_RUN_STATUS_LINE_H
#define TS_RUN_STATUS_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasshape/link.h"

struct ts_progress_dir {
	bool present;
	double cap_bps; /* < 0: unlimited */
	double tput_bps;
	double qdelay_ms;
	uint64_t drops;
};

/*
 * ts_progress_format - the line (without \r or erase) for @elapsed of
 * @total (0: unknown) into @buf. Returns snprintf's count.
 */
int ts_progress_format(char *buf, size_t len, ts_ns_t elapsed, ts_ns_t total,
		       const struct ts_progress_dir d[2]);

struct ts_progress {
	int fd; /* -1: off */
	ts_ns_t origin, total, period;
	ts_ns_t last_t, next;
	uint64_t last_bytes[2], last_drops[2];
	ts_ns_t max_delay[2]; /* since the last line */
	bool drawn;
};

/* Start: draw on @fd (-1: never) every @period, @total the expected length (0: unknown). */
void ts_progress_init(struct ts_progress *p, int fd, ts_ns_t origin, ts_ns_t total, ts_ns_t period);

static inline ts_ns_t ts_progress_next_deadline(const struct ts_progress *p)
{
	return p->fd >= 0 ? p->next : TS_NEVER;
}

/* A packet left direction @dir's link after @delay. */
static inline void ts_progress_link_delay(struct ts_progress *p, int dir, ts_ns_t delay)
{
	if (delay > p->max_delay[dir])
		p->max_delay[dir] = delay;
}

/* Redraw when due, from the directions' cumulative counters. */
void ts_progress_tick(struct ts_progress *p, ts_ns_t now, const struct ts_dir *const dir[2]);

/* Erase the line (if drawn). */
void ts_progress_end(struct ts_progress *p);

/* Delivered bytes and drops of a direction so far (its last pipe with stages). */
void ts_dir_totals(const struct ts_dir *d, uint64_t *bytes_out, uint64_t *drops);

#endif

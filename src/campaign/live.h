/* SPDX-License-Identifier: MIT */
/*
 * The live status line of exp run on a terminal (its text: progress.h):
 * drawn when a run starts and redrawn once a second by a thread of its
 * own while the executor works, erased before any other line is printed.
 * The lock keeps the thread from drawing half-way through another line:
 * ts_exp_live_run_end takes it for the caller's line, and
 * ts_exp_live_run_start and ts_exp_live_stop take it themselves.
 */
#ifndef TS_CAMPAIGN_LIVE_H
#define TS_CAMPAIGN_LIVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "plan/run.h"

struct ts_exp_live {
	FILE *out; /* where the line goes (stderr) */
	bool live; /* draw the line; false: ts_exp_live_* only count */
	pthread_mutex_t lock;
	pthread_t thread;
	bool thread_up, stop;
	const struct ts_exp_run *run; /* the run going on, NULL between runs */
	size_t pos, total, done;
	ts_ns_t start, run_start, planned;
};

/* A line not drawn yet, for @total runs of @planned ns each (the estimate before one ends). */
void ts_exp_live_init(struct ts_exp_live *l, FILE *out, bool live, ts_ns_t planned);

/* The runs start: the clock starts, and with @l->live the redrawing thread. */
void ts_exp_live_start(struct ts_exp_live *l, size_t total);

/* Run @run, @pos of the total, starts: drawn at once. */
void ts_exp_live_run_start(struct ts_exp_live *l, const struct ts_exp_run *run, size_t pos);

/*
 * A run ended: counted, and the lock taken for the caller's line, which
 * ts_exp_live_erase clears room for; ts_exp_live_unlock when printed.
 */
void ts_exp_live_run_end(struct ts_exp_live *l);
void ts_exp_live_erase(struct ts_exp_live *l);
void ts_exp_live_unlock(struct ts_exp_live *l);

/* No run starts any more: the thread is stopped and the line erased. */
void ts_exp_live_stop(struct ts_exp_live *l);

/* The expected time of @run: its length, its delays before and after, 3 s of setting up. */
ts_ns_t ts_exp_live_planned(const struct ts_exp_run *run);

#endif

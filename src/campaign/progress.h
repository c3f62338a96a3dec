/* SPDX-License-Identifier: MIT */
/*
 * Progress of `exp run`, pure: the estimate of the time left and the two
 * line formats (a live status line on a terminal; one line per finished
 * run otherwise, for CI logs). Times are passed in.
 */
#ifndef TS_CAMPAIGN_PROGRESS_H
#define TS_CAMPAIGN_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "plan/run.h"
#include "results/result.h"

/*
 * ts_exp_eta - time left after @done of @total runs took @elapsed: the
 * mean so far times the runs left; before the first run ends, @planned
 * (one run's expected duration) times the runs left, less the current
 * run's @current time so far. Never negative.
 */
ts_ns_t ts_exp_eta(size_t done, size_t total, ts_ns_t elapsed, ts_ns_t current, ts_ns_t planned);

/* "1:02:03" / "2:03" / "0:05" for @t (rounded down to seconds). */
const char *ts_exp_fmt_clock(char *buf, size_t len, ts_ns_t t);

/* The live line, run @pos of @total in this invocation: "exp 3/48 cca=bbr,link=a,test=rrul rep 1  elapsed 2:03  left ~31:10". */
int ts_exp_progress_live(char *buf, size_t len, size_t pos, size_t total,
			 const struct ts_exp_run *run, ts_ns_t elapsed, ts_ns_t eta);

/*
 * The line of a finished run, @pos of @total, that took @took: its outcome
 * and headline numbers from its result @r ("exp 3/48 cca=bbr,link=a,test=rrul
 * rep 1: ok in 12.3 s, up 19.2 Mbit/s, ..."), or, @r NULL, why it has none
 * (@why). Returns whether the run is ok (false without a result).
 */
bool ts_exp_progress_done(char *buf, size_t len, size_t pos, size_t total,
			  const struct ts_exp_run *run, struct ts_exp_result *r, const char *why,
			  ts_ns_t took);

#endif

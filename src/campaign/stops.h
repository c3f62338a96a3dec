/* SPDX-License-Identifier: MIT */
/*
 * Stop signals while a campaign runs (ts_campaign_opts.stop): SIGINT,
 * SIGTERM and SIGHUP end it after the runs under way (the runs, and a
 * guest, are told) instead of killing tasshape half-way through a
 * teardown. One flag per process, as there is one set of handlers.
 */
#ifndef TS_CAMPAIGN_STOPS_H
#define TS_CAMPAIGN_STOPS_H

#include <signal.h>

/* The flag the handlers set to the signal's number; 0 until one comes. */
volatile sig_atomic_t *ts_campaign_stop_flag(void);

/* From now on the three signals set the flag (SA_RESTART). */
void ts_campaign_stops_catch(void);

/* The three signals back at their default action. */
void ts_campaign_stops_release(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The runtime's only clock: CLOCK_MONOTONIC in nanoseconds, read once per
 * event-loop turn and passed to the model as "now". Beside it, the loop's
 * own CPU time, which only meters its polling.
 */
#ifndef TS_RUN_CLOCK_H
#define TS_RUN_CLOCK_H

#include "tasshape/time.h"

ts_ns_t ts_clock_now(void);

/*
 * The calling thread's CPU time in nanoseconds (CLOCK_THREAD_CPUTIME_ID): a
 * system call, so read once per window (run/spin.h), not per turn.
 */
ts_ns_t ts_clock_thread_cpu(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * tasshape's one clock: CLOCK_MONOTONIC in nanoseconds. The runtime reads
 * it once per event-loop turn and passes it to the model as "now"; io's
 * timeouts (proc.c) and exp run's progress read the same. Here, below the
 * runtime, so that every layer that needs the time reads this one. Beside
 * it, the loop's own CPU time, which only meters its polling.
 */
#ifndef TS_IO_CLOCK_H
#define TS_IO_CLOCK_H

#include "tasshape/time.h"

ts_ns_t ts_clock_now(void);

/*
 * The calling thread's CPU time in nanoseconds (CLOCK_THREAD_CPUTIME_ID): a
 * system call, so read once per window (run/spin.h), not per turn.
 */
ts_ns_t ts_clock_thread_cpu(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The runtime's only clock: CLOCK_MONOTONIC in nanoseconds, read once per
 * event-loop turn and passed to the model as "now".
 */
#ifndef TS_RUN_CLOCK_H
#define TS_RUN_CLOCK_H

#include "tasshape/time.h"

ts_ns_t ts_clock_now(void);

#endif

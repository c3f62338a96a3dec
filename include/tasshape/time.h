/* SPDX-License-Identifier: MIT */
/*
 * Model time. The model never reads a clock: every function that needs
 * "now" takes it as a ts_ns_t, nanoseconds on CLOCK_MONOTONIC in the
 * runtime and made-up values in the tests. Naming the clock in the type
 * keeps it from being mixed with wall-clock seconds or milliseconds.
 */
#ifndef TASSHAPE_TIME_H
#define TASSHAPE_TIME_H

#include <stdint.h>

typedef int64_t ts_ns_t;

#define TS_NSEC_PER_USEC 1000LL
#define TS_NSEC_PER_MSEC 1000000LL
#define TS_NSEC_PER_SEC	 1000000000LL

/* "No deadline": later than any time a run can reach (about 292 years). */
#define TS_NEVER INT64_MAX

static inline ts_ns_t ts_min(ts_ns_t a, ts_ns_t b)
{
	return a < b ? a : b;
}

static inline ts_ns_t ts_max(ts_ns_t a, ts_ns_t b)
{
	return a > b ? a : b;
}

#endif

/* SPDX-License-Identifier: MIT */
#include <time.h>

#include "io/clock.h"

ts_ns_t ts_clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts_ns_t)ts.tv_sec * TS_NSEC_PER_SEC + ts.tv_nsec;
}

ts_ns_t ts_clock_thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (ts_ns_t)ts.tv_sec * TS_NSEC_PER_SEC + ts.tv_nsec;
}

/* SPDX-License-Identifier: MIT */
/*
 * The CPU bound of the event loop's poll spin. A deadline nearer than
 * TS_SPIN_NS is waited for by polling (epoll with a zero timeout) rather
 * than by the timer, which wakes tens of microseconds late on a virtual
 * machine. Under SCHED_FIFO nothing of lower priority runs on that CPU
 * while the loop polls, so polling is metered like a token bucket: credit
 * accrues at 1/TS_SPIN_SHARE of the time that passes, up to TS_SPIN_BURST;
 * a spin of W ns is allowed only when the credit holds W, and costs W.
 * Without credit the timer waits instead (a late release rather than a
 * starved CPU). Over any interval T the loop polls at most
 * TS_SPIN_BURST + T / TS_SPIN_SHARE: a quarter of one CPU. The work the
 * shaper does for packets is not metered here; the kernel's real-time
 * throttling bounds it (docs/datapath.md, "Real-time scheduling").
 *
 * Pure: time is passed in, so tests/unit/test_spin.c checks it with
 * made-up times.
 */
#ifndef TS_RUN_SPIN_H
#define TS_RUN_SPIN_H

#include <stdbool.h>

#include "tasshape/time.h"

#define TS_SPIN_SHARE 4			     /* at most 1/4 of one CPU, on average */
#define TS_SPIN_BURST (1 * TS_NSEC_PER_MSEC) /* credit saved while idle, at most */

struct ts_spin {
	ts_ns_t credit; /* ns of polling allowed, times TS_SPIN_SHARE */
	ts_ns_t last;	/* when the credit was last brought up to date */
};

/* A full bucket (TS_SPIN_BURST) at @now. */
void ts_spin_init(struct ts_spin *s, ts_ns_t now);

/*
 * ts_spin_take - may the loop poll for @wait ns from @now? Adds the credit
 * earned since the last call (time going backwards earns nothing), then
 * takes @wait from it if it holds that much. Returns true when it did
 * (the caller polls), false when the caller must use the timer.
 */
bool ts_spin_take(struct ts_spin *s, ts_ns_t now, ts_ns_t wait);

#endif

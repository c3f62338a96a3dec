/* SPDX-License-Identifier: MIT */
/*
 * The CPU bound of the event loop's poll spin. A deadline nearer than
 * the lead (below) is waited for by polling (epoll with a zero timeout)
 * rather than by the timer, which wakes tens of microseconds late on a
 * virtual machine. Under SCHED_FIFO nothing of lower priority runs on that CPU
 * while the loop polls, so polling is metered like a token bucket: credit
 * accrues at 1/TS_SPIN_SHARE of the time that passes, up to TS_SPIN_BURST;
 * a spin of W ns is allowed only when the credit holds W, and costs W.
 * Without credit the timer waits instead (a late release rather than a
 * starved CPU). Over any interval T the loop polls at most
 * TS_SPIN_BURST + T / TS_SPIN_SHARE: a quarter of one CPU. The work the
 * shaper does for packets is not metered here; the kernel bounds it, by
 * its fair server since Linux 6.12 and by real-time throttling before
 * (docs/datapath.md, "It never starves the host"). And a
 * loop busy with packets keeps its polling short (the window, below).
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

/*
 * How early the timer is armed before a deadline (the lead), so that the
 * loop wakes before it and polls the rest of the way. The timer's
 * wake-up latency depends on the machine: a few microseconds on bare
 * metal, 60-130 us on a virtual machine whose host rounds its timers
 * (docs/benchmarks.md, "Waking ahead of the timer"). The lead follows
 * the latency's 90th percentile, learnt from the loop's own wake-ups:
 * each wake later than the lead raises it by TS_SPIN_LEAD_UP, each one
 * earlier lowers it by TS_SPIN_LEAD_DOWN, which settles where one wake in
 * ten is later than the lead (9 * 1 us up per late wake, 1 us down per
 * early one). Bounded to [TS_SPIN_LEAD_MIN, TS_SPIN_LEAD_MAX]; the polling
 * it causes stays within the credit above.
 */
#define TS_SPIN_LEAD_MIN  (10 * TS_NSEC_PER_USEC)
#define TS_SPIN_LEAD_MAX  (200 * TS_NSEC_PER_USEC)
#define TS_SPIN_LEAD_INIT (30 * TS_NSEC_PER_USEC)
#define TS_SPIN_LEAD_UP	  (9 * TS_NSEC_PER_USEC)
#define TS_SPIN_LEAD_DOWN (1 * TS_NSEC_PER_USEC)

/*
 * A loop that is busy with packets polls only for deadlines nearer than
 * TS_SPIN_LEAD_BUSY, as it did before it learnt a lead. A thread that
 * already works most of one CPU would, polling the lead ahead of every
 * deadline, come nearer to the point where the kernel stops a real-time
 * thread to let the CPU's other tasks run (for tens of milliseconds,
 * docs/benchmarks.md, "Waking ahead of the timer"). So the loop reads its
 * thread's CPU time once per TS_SPIN_WINDOW; what it used less what it paid
 * to poll is its work, and after a window whose work exceeded
 * 1/TS_SPIN_BUSY of it the lead is TS_SPIN_LEAD_BUSY for the next window.
 */
#define TS_SPIN_WINDOW	  (100 * TS_NSEC_PER_MSEC)
#define TS_SPIN_BUSY	  2
#define TS_SPIN_LEAD_BUSY (30 * TS_NSEC_PER_USEC)

/*
 * The windows' work is also summed over stretches of at least a second, and
 * the busiest one is kept for the summary (`loop_work_max_permille`): a loop
 * that worked nearly all of a second had no CPU to spare, and a release
 * that was late then says more about the host than about the link.
 */
#define TS_SPIN_SECOND TS_NSEC_PER_SEC

struct ts_spin {
	ts_ns_t credit;				/* ns of polling allowed, times TS_SPIN_SHARE */
	ts_ns_t last;				/* when the credit was last brought up to date */
	ts_ns_t lead;				/* arm the timer this long before a deadline */
	ts_ns_t win_start, win_cpu, win_polled; /* the current window; win_cpu < 0: none yet */
	bool busy;				/* the last window's work was over 1/TS_SPIN_BUSY */
	ts_ns_t sec_start, sec_work;		/* the current second: since when, work so far */
	int work_max;				/* the busiest second's work, permille; -1: none */
	ts_ns_t polled;				/* every spin paid for, in all */
	ts_ns_t spun_for;			/* the deadline whose spin is paid, or TS_NEVER */
};

/*
 * A full bucket (TS_SPIN_BURST) at @now, the lead at TS_SPIN_LEAD_INIT, and
 * not busy until the first whole window says otherwise.
 */
void ts_spin_init(struct ts_spin *s, ts_ns_t now);

/*
 * ts_spin_take - may the loop poll for @wait ns from @now? Adds the credit
 * earned since the last call (time going backwards earns nothing), then
 * takes @wait from it if it holds that much. Returns true when it did (the
 * caller polls), false when the caller must use the timer.
 */
bool ts_spin_take(struct ts_spin *s, ts_ns_t now, ts_ns_t wait);

/*
 * ts_spin_may - would ts_spin_take(@s, @now, @wait) allow it? Changes
 * nothing. The loop arms its timer ahead of a deadline only when it may
 * poll the lead then: a wake-up it could not poll from would be followed
 * by a second one, at the deadline, and a busy loop pays for every timer
 * it arms and every wake-up.
 */
bool ts_spin_may(const struct ts_spin *s, ts_ns_t now, ts_ns_t wait);

/* How far ahead of a deadline to wake: the lead, or TS_SPIN_LEAD_BUSY in a busy window. */
ts_ns_t ts_spin_lead(const struct ts_spin *s);

/*
 * ts_spin_wait - how the loop waits at @now for its earliest deadline @d
 * (TS_NEVER: none). Returns true when it polls: @d is within the lead and
 * the spin is paid for (once per deadline, however many turns the wait
 * takes). Otherwise sets *@arm to the time to arm the timer for: the lead
 * before @d when the credit could poll the lead then, @d itself when it
 * could not, and returns false.
 *
 * Every spin is time the CPU gives to nothing else: under SCHED_FIFO, not
 * to the programs whose packets the loop releases. In a guest in virtual
 * time, with one CPU and a timer that wakes within a few microseconds, a
 * loop that polled whole gaps between releases held that CPU for a whole
 * burst of packets, so the receiving program read each burst at once after
 * its end; Linux's receive-buffer tuning then never grew the window
 * (docs/benchmarks.md, "Sealed guests on a quiet host"). The lead learnt
 * there is TS_SPIN_LEAD_MIN, which leaves most of such a gap asleep
 * (tests/unit/test_spin.c).
 */
bool ts_spin_wait(struct ts_spin *s, ts_ns_t now, ts_ns_t d, ts_ns_t *arm);

/* Is a window over at @now, so that the caller reads its CPU time for ts_spin_window? */
bool ts_spin_window_due(const struct ts_spin *s, ts_ns_t now);

/*
 * ts_spin_window - end the window at @now, the thread's CPU time then
 * being @cpu: judge whether its work (CPU less polling) was busy, add it to
 * the current second (ending that when it is a second long or more, and
 * keeping the busiest), and start the next. The first call only starts one.
 */
void ts_spin_window(struct ts_spin *s, ts_ns_t now, ts_ns_t cpu);

/*
 * ts_spin_learn - the timer armed for @armed woke the loop at @woke: move
 * the lead one step towards the wake-up latency's 90th percentile.
 */
void ts_spin_learn(struct ts_spin *s, ts_ns_t armed, ts_ns_t woke);

#endif

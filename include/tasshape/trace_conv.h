/* SPDX-License-Identifier: MIT */
/*
 * Conversions between the two trace kinds, as text.
 *
 * Rate to mahimahi: one opportunity carries 1500 bytes = 12000 bits, so a
 * rate becomes whole opportunities per millisecond. The capacity of each
 * millisecond [k, k + 1) is integrated exactly and added to a carry; the
 * carry's whole opportunities are written at timestamp k + 1 and the rest
 * (less than one opportunity) moves on to the next millisecond (error
 * diffusion). So the total is preserved to within one opportunity per
 * period, whatever the rate: 6 Mbit/s becomes one opportunity every other
 * millisecond, not 0 or 1 per millisecond by rounding. The last
 * millisecond always gets at least one opportunity, since in mahimahi the
 * last timestamp sets the period (at most 12000 bits more per period). A
 * period that is not whole milliseconds is rounded up.
 *
 * Mahimahi to rows: opportunities are counted in bins (a, b] of the given
 * width (the instant of timestamp k + 1 closes bin [k, k + 1)), so a round
 * trip gives back each bin's capacity; the rate of a bin is its capacity
 * over its length. An opportunity at millisecond 0 counts only in the
 * first pass of a replay and is not counted here (as in ts_trace_stats).
 */
#ifndef TASSHAPE_TRACE_CONV_H
#define TASSHAPE_TRACE_CONV_H

#include "tasshape/text.h"
#include "tasshape/err.h"
#include "tasshape/series.h"
#include "tasshape/trace.h"

/*
 * Most opportunities (lines) a mahimahi text may get: at most 220 MB of
 * text (timestamps of up to 10 digits) built in memory; 240 Gbit of
 * capacity, 100 Mbit/s for 40 minutes. 10,000 Gbit/s for 1 s would be 833
 * million lines.
 */
#define TS_MAHIMAHI_MAX_OPPS 20000000ULL

/*
 * ts_trace_mahimahi_opps - how many opportunities @t becomes as mahimahi:
 * the sum of the counts of an opportunity trace; for a rate trace its
 * capacity over one period in whole 1500-byte opportunities (the carry
 * keeps the total; the forced last line may add one). Saturates at
 * UINT64_MAX. No allocation.
 */
uint64_t ts_trace_mahimahi_opps(const struct ts_trace *t);

/*
 * ts_trace_mahimahi_check - can @t be written as mahimahi? -EINVAL for a
 * period above 49.7 days, -E2BIG for more than TS_MAHIMAHI_MAX_OPPS
 * opportunities, with @err naming the limit; else 0.
 */
int ts_trace_mahimahi_check(const struct ts_trace *t, struct ts_err *err);

/*
 * ts_trace_write_mahimahi - @t (either kind) as mahimahi text, one
 * timestamp per line, after ts_trace_mahimahi_check (before anything is
 * written). Returns 0, or the check's -EINVAL or -E2BIG, or -ENOMEM,
 * with @err set.
 */
int ts_trace_write_mahimahi(const struct ts_trace *t, struct ts_text *out, struct ts_err *err);

/*
 * ts_opps_to_series - rows of width @bin (> 0) over [0, @period) from the
 * opportunity traces @down and @up (either may be NULL; a trace shorter
 * than @period loops, as a replay would). @out must be empty, with the
 * columns of the traces given; its period is set. Memory and time grow
 * with the rows made, not with @period / @bin. Returns 0, -E2BIG (more
 * than 10,000,000 rows, the most a trace may hold) or -ENOMEM.
 */
int ts_opps_to_series(const struct ts_trace *down, const struct ts_trace *up, ts_ns_t bin,
		      ts_ns_t period, struct ts_series *out);

/*
 * ts_rate_to_series - the rows of one or two rate traces (from the same
 * CSV: same times) as a series, with delay and loss when the traces
 * have them. Returns 0 or -ENOMEM.
 */
int ts_rate_to_series(const struct ts_trace *down, const struct ts_trace *up,
		      struct ts_series *out);

#endif

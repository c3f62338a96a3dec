/* SPDX-License-Identifier: MIT */
#include <inttypes.h>

#include "run/fidelity.h"

bool ts_fell_behind(const struct ts_fidelity *f, struct ts_err *why)
{
	bool timing = f->have_release_err && f->release_err_p99_ns > TS_FELL_BEHIND_LIMIT_NS;

	if (!f->unexplained && !f->kernel_drops && !timing)
		return false;
	if (!why)
		return true;
	/* Lost packets first: they are the worse failure, and timing means nothing then. */
	if (f->unexplained)
		ts_err_set(why, "%" PRIu64 " unexplained drops", f->unexplained);
	else if (f->kernel_drops)
		ts_err_set(why, "%" PRIu64 " packets dropped by the kernel", f->kernel_drops);
	else /* to the ns, so that a p99 just above the limit never reads as equal to it */
		ts_err_set(why, "release timing error p99 %" PRIu64 ".%03" PRIu64 " us > %u us",
			   f->release_err_p99_ns / 1000, f->release_err_p99_ns % 1000,
			   TS_FELL_BEHIND_LIMIT_NS / 1000);
	return true;
}

bool ts_loop_saturated(int permille)
{
	return permille >= (int)TS_LOOP_SATURATED_PERMILLE;
}

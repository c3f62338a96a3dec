/* SPDX-License-Identifier: MIT */
/*
 * Per-station figures of the medium for the summaries: what the measured
 * station and each stations= contender delivered, their sum, and how fair
 * the shares were (Jain's index).
 */
#include <string.h>

#include "tasshape/wifi6.h"

void ts_wifi6_station_rates(struct ts_wifi6_station_rates *r, uint64_t station_bytes,
			    const struct ts_wifi6_medium_stats *ms, ts_ns_t dt)
{
	double sum = 0, sq = 0;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	if (dt <= 0)
		return;
	r->n = 1 + ms->stations;
	r->bps[0] = (double)station_bytes * 8e9 / (double)dt;
	/* The contenders send 1500-byte IP packets. */
	for (i = 0; i < ms->stations; i++)
		r->bps[1 + i] = (double)ms->others[i].delivered * 1500 * 8e9 / (double)dt;
	for (i = 0; i < r->n; i++) {
		sum += r->bps[i];
		sq += r->bps[i] * r->bps[i];
	}
	r->medium_bps = sum;
	r->jain = sq > 0 ? sum * sum / ((double)r->n * sq) : 1.0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Per-station figures of the medium for the summaries: what each real
 * station (real=) and each stations= contender delivered and the airtime
 * it took, their sum, and how fair the shares were (Jain's index).
 */
#include <string.h>

#include "tasshape/wifi6.h"

void ts_wifi6_station_rates(struct ts_wifi6_station_rates *r, uint64_t station_bytes,
			    ts_ns_t station_airtime, const struct ts_wifi6_medium_stats *ms,
			    ts_ns_t dt)
{
	unsigned int i, real = ms->real ? ms->real : 1;
	double sum = 0, sq = 0;

	memset(r, 0, sizeof(*r));
	if (dt <= 0)
		return;
	r->n = real + ms->stations;
	if (real == 1) {
		r->bps[0] = (double)station_bytes * 8e9 / (double)dt;
		r->airtime[0] = station_airtime;
	}
	for (i = 0; real > 1 && i < real; i++) {
		r->bps[i] = (double)ms->sta[i].up_bytes * 8e9 / (double)dt;
		r->airtime[i] = ms->sta[i].up_airtime;
	}
	/* The contenders send 1500-byte IP packets. */
	for (i = 0; i < ms->stations; i++) {
		r->bps[real + i] = (double)ms->others[i].delivered * 1500 * 8e9 / (double)dt;
		r->airtime[real + i] = ms->others[i].airtime;
	}
	for (i = 0; i < r->n; i++) {
		sum += r->bps[i];
		sq += r->bps[i] * r->bps[i];
	}
	r->medium_bps = sum;
	r->jain = sq > 0 ? sum * sum / ((double)r->n * sq) : 1.0;
}

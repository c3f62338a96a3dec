/* SPDX-License-Identifier: MIT */
#include "run/spin.h"

/* Credit is kept times TS_SPIN_SHARE so that accrual is exact in integers. */
#define CAP ((ts_ns_t)TS_SPIN_BURST * TS_SPIN_SHARE)

void ts_spin_init(struct ts_spin *s, ts_ns_t now)
{
	s->credit = CAP;
	s->last = now;
}

bool ts_spin_take(struct ts_spin *s, ts_ns_t now, ts_ns_t wait)
{
	if (now > s->last) {
		/* Compare before adding: a long idle gap must not overflow. */
		s->credit = now - s->last >= CAP - s->credit ? CAP : s->credit + (now - s->last);
		s->last = now;
	}
	if (wait < 0)
		wait = 0;
	if (wait > CAP / TS_SPIN_SHARE || wait * TS_SPIN_SHARE > s->credit)
		return false;
	s->credit -= wait * TS_SPIN_SHARE;
	return true;
}

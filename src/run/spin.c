/* SPDX-License-Identifier: MIT */
#include "run/spin.h"

/* Credit is kept times TS_SPIN_SHARE so that accrual is exact in integers. */
#define CAP ((ts_ns_t)TS_SPIN_BURST * TS_SPIN_SHARE)

void ts_spin_init(struct ts_spin *s, ts_ns_t now)
{
	s->credit = CAP;
	s->last = now;
	s->lead = TS_SPIN_LEAD_INIT;
	s->win_start = now;
	s->win_cpu = -1;
	s->win_polled = 0;
	s->busy = false;
	s->sec_start = now;
	s->sec_work = 0;
	s->work_max = -1;
	s->polled = 0;
	s->spun_for = TS_NEVER;
}

ts_ns_t ts_spin_lead(const struct ts_spin *s)
{
	return s->busy && s->lead > TS_SPIN_LEAD_BUSY ? TS_SPIN_LEAD_BUSY : s->lead;
}

bool ts_spin_window_due(const struct ts_spin *s, ts_ns_t now)
{
	return s->win_cpu < 0 || now - s->win_start >= TS_SPIN_WINDOW;
}

void ts_spin_window(struct ts_spin *s, ts_ns_t now, ts_ns_t cpu)
{
	ts_ns_t work;
	int permille;

	if (s->win_cpu < 0) {
		s->sec_start = now;
	} else if (now > s->win_start) {
		work = cpu - s->win_cpu - s->win_polled;
		if (work < 0)
			work = 0; /* a spin paid for but cut short by a packet */
		s->busy = work * TS_SPIN_BUSY > now - s->win_start;
		s->sec_work += work;
		if (now - s->sec_start >= TS_SPIN_SECOND) {
			permille = (int)(s->sec_work * 1000 / (now - s->sec_start));
			if (permille > 1000)
				permille = 1000; /* the CPU time is read a moment after @now */
			if (permille > s->work_max)
				s->work_max = permille;
			s->sec_start = now;
			s->sec_work = 0;
		}
	}
	s->win_start = now;
	s->win_cpu = cpu;
	s->win_polled = 0;
}

void ts_spin_learn(struct ts_spin *s, ts_ns_t armed, ts_ns_t woke)
{
	ts_ns_t lead =
		woke - armed > s->lead ? s->lead + TS_SPIN_LEAD_UP : s->lead - TS_SPIN_LEAD_DOWN;

	if (lead > TS_SPIN_LEAD_MAX)
		lead = TS_SPIN_LEAD_MAX;
	if (lead < TS_SPIN_LEAD_MIN)
		lead = TS_SPIN_LEAD_MIN;
	s->lead = lead;
}

/* The credit at @now: what it held plus what accrued since, up to CAP. */
static ts_ns_t credit_at(const struct ts_spin *s, ts_ns_t now)
{
	if (now <= s->last)
		return s->credit;
	/* Compare before adding: a long idle gap must not overflow. */
	return now - s->last >= CAP - s->credit ? CAP : s->credit + (now - s->last);
}

static bool allowed(ts_ns_t credit, ts_ns_t wait)
{
	return wait <= CAP / TS_SPIN_SHARE && wait * TS_SPIN_SHARE <= credit;
}

bool ts_spin_take(struct ts_spin *s, ts_ns_t now, ts_ns_t wait)
{
	if (now > s->last) {
		s->credit = credit_at(s, now);
		s->last = now;
	}
	if (wait < 0)
		wait = 0;
	if (!allowed(s->credit, wait))
		return false;
	s->credit -= wait * TS_SPIN_SHARE;
	s->win_polled += wait;
	s->polled += wait;
	return true;
}

bool ts_spin_may(const struct ts_spin *s, ts_ns_t now, ts_ns_t wait)
{
	return allowed(credit_at(s, now), wait < 0 ? 0 : wait);
}

bool ts_spin_wait(struct ts_spin *s, ts_ns_t now, ts_ns_t d, ts_ns_t *arm)
{
	ts_ns_t lead = ts_spin_lead(s);

	if (d != TS_NEVER && d - now <= lead &&
	    (d == s->spun_for || ts_spin_take(s, now, d - now))) {
		s->spun_for = d;
		return true;
	}
	*arm = d != TS_NEVER && d - now > lead && ts_spin_may(s, now, lead) ? d - lead : d;
	return false;
}

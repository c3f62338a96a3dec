/* SPDX-License-Identifier: MIT */
/*
 * mac80211's airtime deficit round robin and Airtime Queue Limits over
 * the access point's per-station queues (include/tasshape/wifi6_airtime.h;
 * Linux 6.12 net/mac80211/tx.c: ieee80211_next_txq,
 * __ieee80211_schedule_txq, ieee80211_txq_airtime_check; sta_info.c:
 * ieee80211_sta_register_airtime). One access category: the model's
 * traffic is all best effort.
 */
#include <string.h>

#include "tasshape/wifi6_airtime.h"

#define US 1000LL

void ts_airtime_conf_init(struct ts_airtime_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->weight_us = TS_AIRTIME_WEIGHT_US;
	c->aql_low_us = TS_AQL_TXQ_LIMIT_LOW_US;
	c->aql_high_us = TS_AQL_TXQ_LIMIT_HIGH_US;
	c->aql_threshold_us = TS_AQL_THRESHOLD_US;
}

void ts_airtime_init(struct ts_airtime *a, unsigned int n, const struct ts_airtime_conf *c)
{
	unsigned int k;

	memset(a, 0, sizeof(*a));
	a->conf = *c;
	a->n = n < TS_WIFI6_REAL_MAX ? n : TS_WIFI6_REAL_MAX;
	for (k = 0; k < a->n; k++) {
		a->sta[k].deficit = (int64_t)c->weight_us * US;
		a->sta[k].last_active = TS_NEVER;
	}
}

int64_t ts_airtime_deficit(const struct ts_airtime *a, unsigned int k)
{
	return a->sta[k].deficit - a->sta[k].pending;
}

bool ts_airtime_aql_ok(const struct ts_airtime *a, unsigned int k)
{
	int64_t p = a->sta[k].pending;

	if (!a->conf.aql)
		return true;
	if (p < (int64_t)a->conf.aql_low_us * US)
		return true;
	return a->total_pending < (int64_t)a->conf.aql_threshold_us * US &&
	       p < (int64_t)a->conf.aql_high_us * US;
}

void ts_airtime_pending(struct ts_airtime *a, unsigned int k, int64_t d)
{
	a->sta[k].pending += d;
	a->total_pending += d;
}

/* Was station @k active within the last 100 ms (ieee80211_sta_keep_active)? */
static bool keep_active(const struct ts_airtime *a, unsigned int k, ts_ns_t t)
{
	ts_ns_t la = a->sta[k].last_active;

	return la != TS_NEVER && t <= la + TS_AIRTIME_ACTIVE_NS;
}

static void list_add(struct ts_airtime *a, unsigned int k, bool front)
{
	if (front) {
		memmove(&a->list[1], &a->list[0], a->nlist);
		a->list[0] = (uint8_t)k;
	} else {
		a->list[a->nlist] = (uint8_t)k;
	}
	a->nlist++;
	a->sta[k].listed = true;
}

/* Take the front of the list off it. */
static unsigned int list_pop(struct ts_airtime *a)
{
	unsigned int k = a->list[0];

	a->nlist--;
	memmove(&a->list[0], &a->list[1], a->nlist);
	a->sta[k].listed = false;
	return k;
}

void ts_airtime_schedule(struct ts_airtime *a, unsigned int k, ts_ns_t t)
{
	a->sta[k].last_active = t;
	if (!a->sta[k].listed)
		list_add(a, k, a->conf.flags != 0);
}

void ts_airtime_return(struct ts_airtime *a, unsigned int k, bool queued, ts_ns_t t)
{
	if (a->sta[k].listed)
		return;
	if (queued) {
		ts_airtime_schedule(a, k, t);
		return;
	}
	/* ieee80211_txq_keep_active: still owed airtime, so its deficit keeps being refilled. */
	if (a->conf.flags && ts_airtime_deficit(a, k) < 0 && keep_active(a, k, t))
		list_add(a, k, false);
}

int ts_airtime_next(struct ts_airtime *a)
{
	int head = -1;
	bool found = false;

	while (a->nlist) {
		unsigned int k = a->list[0];
		bool aql = ts_airtime_aql_ok(a, k);
		int64_t deficit = ts_airtime_deficit(a, k);

		if ((int)k == head) {
			if (!found)
				return -1; /* a whole turn and nobody AQL lets through */
			found = false;
		}
		if (head < 0)
			head = (int)k;
		found |= aql;
		/* Without airtime fairness the deficit is never charged, so never negative. */
		if (deficit < 0)
			a->sta[k].deficit += (int64_t)a->conf.weight_us * US;
		if (deficit < 0 || !aql) {
			list_pop(a);
			list_add(a, k, false);
			continue;
		}
		return (int)list_pop(a);
	}
	return -1;
}

void ts_airtime_register(struct ts_airtime *a, unsigned int k, ts_ns_t tx, ts_ns_t rx, ts_ns_t t)
{
	struct ts_airtime_sta *s = &a->sta[k];
	ts_ns_t charge = 0;

	s->tx_airtime += tx;
	s->rx_airtime += rx;
	if (a->conf.flags & TS_AIRTIME_USE_TX)
		charge += tx;
	if (a->conf.flags & TS_AIRTIME_USE_RX)
		charge += rx;
	if (keep_active(a, k, t))
		s->deficit -= charge;
}

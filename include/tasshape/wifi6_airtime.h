/* SPDX-License-Identifier: MIT */
/*
 * mac80211's airtime scheduler for the access point's per-station queues
 * (docs/wifi6-model.md, "Real stations"), as net/mac80211/tx.c of Linux
 * 6.12 has it:
 *
 * - Airtime fairness: a deficit round robin by airtime over the stations
 *   with frames queued (ieee80211_next_txq). Each station's deficit is
 *   charged the airtime of its A-MPDUs (AIRTIME_USE_TX) and of those it
 *   sent the AP (AIRTIME_USE_RX), as ieee80211_sta_register_airtime()
 *   does; a station whose deficit (minus its pending airtime) is negative
 *   gets its airtime_weight (IEEE80211_DEFAULT_AIRTIME_WEIGHT, 256 us) and
 *   goes to the back of the list. A station that was served and still has
 *   frames goes back to the front, so it is served until its deficit runs
 *   out (__ieee80211_schedule_txq). Without flags, a plain round robin.
 * - Airtime Queue Limits (AQL): the airtime of frames handed to the
 *   driver and not yet completed (pending) is bounded per station: below
 *   aql_txq_limit's low value (5000 us) always, below its high value
 *   (12000 us) while the total of all stations is below aql_threshold
 *   (24000 us) (ieee80211_txq_airtime_check).
 *
 * Pure: times are passed in, in nanoseconds; the kernel's microseconds
 * are kept exactly (x 1000).
 */
#ifndef TASSHAPE_WIFI6_AIRTIME_H
#define TASSHAPE_WIFI6_AIRTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "tasshape/time.h"

#define TS_WIFI6_REAL_MAX 8u /* real stations (real=) on one medium */

/* net/mac80211/sta_info.h: what a station's deficit is charged for. */
#define TS_AIRTIME_USE_TX 1u /* AIRTIME_USE_TX: what the AP sent it */
#define TS_AIRTIME_USE_RX 2u /* AIRTIME_USE_RX: what it sent the AP */

/* include/net/cfg80211.h, in microseconds. */
#define TS_AIRTIME_WEIGHT_US	 256u	/* IEEE80211_DEFAULT_AIRTIME_WEIGHT */
#define TS_AQL_TXQ_LIMIT_LOW_US	 5000u	/* IEEE80211_DEFAULT_AQL_TXQ_LIMIT_L */
#define TS_AQL_TXQ_LIMIT_HIGH_US 12000u /* IEEE80211_DEFAULT_AQL_TXQ_LIMIT_H */
#define TS_AQL_THRESHOLD_US	 24000u /* IEEE80211_AQL_THRESHOLD */
/* net/mac80211/ieee80211_i.h ieee80211_sta_keep_active(): active within HZ / 10 */
#define TS_AIRTIME_ACTIVE_NS (100 * TS_NSEC_PER_MSEC)

/* The keys of the wifi6 spec that set the scheduler. */
struct ts_airtime_conf {
	uint32_t flags;		   /* airtime_flags: TS_AIRTIME_USE_*; 0: round robin */
	uint32_t weight_us;	   /* airtime_weight, every station's */
	bool aql;		   /* aql: AQL on */
	uint32_t aql_low_us;	   /* aql_txq_limit=LOW/HIGH */
	uint32_t aql_high_us;	   /* */
	uint32_t aql_threshold_us; /* aql_threshold */
};

void ts_airtime_conf_init(struct ts_airtime_conf *c);

struct ts_airtime_sta {
	int64_t deficit;     /* ns; starts at the weight */
	int64_t pending;     /* ns of airtime handed to the driver, not yet completed */
	ts_ns_t last_active; /* last time it had frames queued */
	ts_ns_t tx_airtime;  /* what the AP sent it (all flags) */
	ts_ns_t rx_airtime;  /* what it sent the AP */
	bool listed;	     /* on the active list */
};

struct ts_airtime {
	struct ts_airtime_conf conf;
	unsigned int n;
	int64_t total_pending; /* ns, all stations */
	unsigned int nlist;    /* the active list: station indices, front first */
	uint8_t list[TS_WIFI6_REAL_MAX];
	struct ts_airtime_sta sta[TS_WIFI6_REAL_MAX];
};

/* @n stations (1..TS_WIFI6_REAL_MAX), each with deficit = weight. */
void ts_airtime_init(struct ts_airtime *a, unsigned int n, const struct ts_airtime_conf *c);

/*
 * ts_airtime_schedule - station @k has frames queued at @t
 * (__ieee80211_schedule_txq): if not listed, it goes to the front of the
 * list with airtime fairness, to the back without.
 */
void ts_airtime_schedule(struct ts_airtime *a, unsigned int k, ts_ns_t t);

/*
 * ts_airtime_next - the station to serve (ieee80211_next_txq), taken off
 * the list, or -1 when none is eligible (all held by AQL).
 */
int ts_airtime_next(struct ts_airtime *a);

/*
 * ts_airtime_return - station @k was served (ieee80211_return_txq): back
 * on the list if it has frames (@queued; at the front with airtime
 * fairness) or, with a negative deficit, if it was active within 100 ms.
 */
void ts_airtime_return(struct ts_airtime *a, unsigned int k, bool queued, ts_ns_t t);

/* ts_airtime_register - station @k's airtime (ieee80211_sta_register_airtime). */
void ts_airtime_register(struct ts_airtime *a, unsigned int k, ts_ns_t tx, ts_ns_t rx, ts_ns_t t);

/* Station @k may be handed more frames (ieee80211_txq_airtime_check); true with AQL off. */
bool ts_airtime_aql_ok(const struct ts_airtime *a, unsigned int k);

/* Station @k's pending airtime changes by @d ns (+ handed to the driver, - completed). */
void ts_airtime_pending(struct ts_airtime *a, unsigned int k, int64_t d);

/* The deficit the scheduler compares (ieee80211_sta_deficit): deficit - pending. */
int64_t ts_airtime_deficit(const struct ts_airtime *a, unsigned int k);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The per-window time series (--stats FILE): every --interval (default
 * 100 ms) of model time, one CSV row per direction with what the link
 * offered and did in that window. Windows are [origin + k*I,
 * origin + (k+1)*I); each event is counted in the window its model time
 * falls in (a window is closed, and its row written, by the first event or
 * loop turn at or after its end), so the rows add up exactly to the run's
 * totals. Columns:
 *
 *   time_s           end of the window, seconds since the link's time 0
 *   dir              uplink / downlink
 *   interval_s       length of the window (the last one may be shorter)
 *   capacity_bps     what the trace offered in the window (empty: unlimited)
 *   throughput_bps   delivered_bytes * 8 / interval
 *   arrived_bytes    bytes that entered the direction
 *   delivered_bytes, delivered_pkts   released by the direction (after the delay line)
 *   queue_bytes, queue_pkts           held by the queues and servers at the window's end
 *                                     (the delay line is not a queue and is not counted)
 *   qdelay_p50_ms, qdelay_max_ms      of the packets that left the link in the window:
 *                                     arrival to the end of their transmission, the
 *                                     delay of mahimahi's log (empty when none left)
 *   drops            every drop of the window, then drop_<cause> per cause
 *
 * With a Wi-Fi MAC (--mac wifi6:...), the MAC's counters of the window, so
 * that a capacity can be derived for any part of the run (a test's
 * measuring window) rather than only for the whole of it, handshakes and
 * closes included. Empty in a direction without the MAC; a channel access
 * counts in the window its exchange began in:
 *
 *   wifi_accesses, wifi_txops, wifi_mpdus    channel accesses, A-MPDUs sent, MPDUs
 *                                            sent (retransmissions included)
 *   wifi_collisions, wifi_failures           A-MPDUs lost to a tie, to collision=
 *   wifi_airtime_ns                          this direction's senders on the air
 *   wifi_busy_ns, wifi_beacons               the medium's (any contender's), the
 *                                            same in both directions' rows
 */
#ifndef TS_RECORD_STATS_OUT_H
#define TS_RECORD_STATS_OUT_H

#include <stdio.h>

#include "tasshape/hist.h"
#include "tasshape/link.h"

struct ts_stats_win {
	uint64_t arr_bytes;
	uint64_t out_pkts, out_bytes;
	uint64_t drops[TS_DROP__COUNT];
	struct ts_hist delay; /* link delay of the packets that left the link */
};

/* A Wi-Fi MAC's counters, since the start: the last row's, to write each window's part. */
struct ts_stats_mac {
	uint64_t accesses, txops, mpdus, collisions, failures, beacons;
	ts_ns_t airtime, busy;
};

struct ts_stats {
	FILE *f;
	bool own;
	const struct ts_dir *dir[2]; /* NULL: no row for that direction */
	ts_ns_t origin, interval;
	ts_ns_t win_start; /* start of the open window */
	struct ts_stats_win w[2];
	bool mac;			 /* a direction has a Wi-Fi MAC: its columns are written */
	struct ts_stats_mac mac_last[2]; /* its counters at the last row's end */
	uint64_t rows;
	int error; /* first write error (negative errno) */
};

/*
 * ts_stats_init - write the header to @f (left open by ts_stats_close)
 * and open the first window at @origin. @dir[i] gives the trace
 * (capacity) and the stages (queue occupancy) of direction i.
 */
void ts_stats_init(struct ts_stats *s, FILE *f, const struct ts_dir *const dir[2], ts_ns_t origin,
		   ts_ns_t interval);

/* Same on a new file at @path. Returns 0 or a negative errno with @err set. */
int ts_stats_open(struct ts_stats *s, const char *path, const struct ts_dir *const dir[2],
		  ts_ns_t origin, ts_ns_t interval, struct ts_err *err);

/* Close (write) every window that ends at or before @t. */
void ts_stats_advance(struct ts_stats *s, ts_ns_t t);

/* End of the open window: when the loop must wake to close it. */
static inline ts_ns_t ts_stats_next_deadline(const struct ts_stats *s)
{
	return s->f ? s->win_start + s->interval : TS_NEVER;
}

/* Events, at model time @t (non-decreasing within a loop turn). */
void ts_stats_arrival(struct ts_stats *s, int dir, uint32_t len, ts_ns_t t);
void ts_stats_delivered(struct ts_stats *s, int dir, uint32_t len, ts_ns_t t);
void ts_stats_link_delay(struct ts_stats *s, int dir, ts_ns_t delay, ts_ns_t t);
void ts_stats_drop(struct ts_stats *s, int dir, enum ts_drop_cause cause, ts_ns_t t);

/*
 * ts_stats_close - close the windows up to @now, write the last partial
 * one (if it has any length), close the file if ts_stats_open opened it.
 * Returns 0 or the first negative errno of a write. Safe when not open.
 */
int ts_stats_close(struct ts_stats *s, ts_ns_t now);

/* Queue occupancy of a direction now: every stage but the delay line. */
void ts_stats_queue(const struct ts_dir *d, uint64_t *bytes, uint64_t *pkts);

#endif

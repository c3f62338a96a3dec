/* SPDX-License-Identifier: MIT */
/*
 * The TCP socket statistics file (--sockstats): one CSV row per socket
 * per sample, keyed by the flow's 5-tuple, with what Flent's
 * --socket-stats and `ss -ti` show. Columns:
 *
 *   time_s            sample time, seconds since the link's time 0
 *   flow              "SRC:SPORT-DST:DPORT" (IPv6 addresses in brackets); protocol is TCP
 *   src,sport,dst,dport,state,cca
 *   cwnd_pkts, ssthresh_pkts (empty while infinite), mss
 *   srtt_ms, rttvar_ms, min_rtt_ms
 *   pacing_rate_bps, delivery_rate_bps (empty when the kernel reports none)
 *   unacked_pkts, inflight_bytes ((unacked - sacked - lost + retrans) * mss: the kernel's
 *                  packets in flight, in bytes)
 *   retrans_pkts (now), total_retrans (since the start), bytes_acked, bytes_sent
 *   bbr_bw_bps, bbr_min_rtt_ms, bbr_pacing_gain, bbr_cwnd_gain (BBR only; gains as
 *                  multipliers, e.g. 2.885)
 *   station_pacing_rate_bps, station_pacing_shift, station_tsq (Wi-Fi station only,
 *                  run/tsq_station.h): the pacing rate and shift the station's TSQ budget used for
 *                  this flow, and "emulated" (pacing_shift=7, 8, tas:...) or "kernel"
 *                  (pacing_shift=kernel: the kernel's own rate and shift 10). With the
 *                  pacing-ratio lever an unpaced socket's pacing_rate_bps is the kernel's
 *                  scaled one; station_pacing_rate_bps is the rate it stands for.
 *   station        the real Wi-Fi station whose namespace holds the socket (--mac
 *                  wifi6:...,real=N): 0 is CMD's first namespace, the only one without real=
 */
#ifndef TS_RECORD_SOCKSTATS_OUT_H
#define TS_RECORD_SOCKSTATS_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "net/sockdiag.h"

/* Write the header line. */
void ts_sockstats_header(FILE *f);

/* The Wi-Fi station's view of a socket (run/tsq_station.h). */
struct ts_sockstats_station {
	uint64_t pacing_rate; /* bytes/s */
	unsigned int shift;
	bool emulated;
};

/* Write one row for socket @st sampled at @t_s seconds; @stn NULL: not a station flow. */
void ts_sockstats_row(FILE *f, double t_s, const struct ts_sockstat *st,
		      const struct ts_sockstats_station *stn);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Link logs in mahimahi's mm-link format (--uplink-log, --downlink-log),
 * so scripts written for mahimahi (mm-throughput-graph, mm-delay-graph,
 * Pantheon's analysis) read them unchanged. One file per direction:
 *
 *   # mahimahi mm-link (Uplink) [TRACE] > FILE
 *   # command line: ...
 *   # queue: ...
 *   # init timestamp: EPOCH_MS       wall clock at the link's time 0
 *   # base timestamp: 0              event times are ms since the link's time 0
 *   T # 1504                         a delivery opportunity
 *   T + SIZE                         an arrival (logged even if then dropped)
 *   T - SIZE DELAY                   a departure from the link; DELAY = T - arrival ms
 *   T d NPKTS NBYTES                 a drop (only with @drops: see below)
 *
 * Sizes follow mahimahi, which counts its 4-byte TUN header on every
 * packet: SIZE = IP length + 4, and one opportunity is 1504 bytes that
 * carry 1500 IP bytes. So mm-throughput-graph's capacity, throughput and
 * utilisation come out as they would from mm-link on the same trace. A
 * rate trace (CSV, const:) has no opportunities of its own: its capacity
 * is written as the equivalent opportunities, one "# 1504" per 1500 IP
 * bytes of capacity, at the millisecond the capacity completes one.
 *
 * Drops: newer mm-link versions log "d" lines, but mm-throughput-graph
 * (every version) stops at an event type it does not know; so they are
 * written only when asked (--log-drops), and the default log is read by
 * every mahimahi script.
 *
 * Ordering: the log is written in time order. A departure is known only
 * when its packet leaves the delay line, up to the propagation delay
 * after it left the link, so events wait in two fixed rings (one for
 * arrivals, drops and opportunities, one for departures) and are merged
 * out once no earlier event can still come: @lag_ns (the largest
 * propagation delay) behind the loop's clock. A ring that fills writes
 * its oldest event early (counted in out_of_order_risk).
 */
#ifndef TS_RECORD_MMLOG_H
#define TS_RECORD_MMLOG_H

#include <stdio.h>

#include "tasshape/trace.h"

#define TS_MM_PACKET_SIZE 1504 /* mahimahi's PACKET_SIZE: 1500 IP bytes + 4 of TUN header */
#define TS_MM_TUN_HDR	  4

struct ts_mm_ev {
	int64_t ms;
	uint32_t a, b; /* '+': size; '#': size; '-': size, delay ms; 'd': packets, bytes */
	char type;
};

struct ts_mm_ring {
	struct ts_mm_ev *ev;
	size_t cap, head, n;
};

struct ts_mmlog_conf {
	const char *link_name;	      /* "Uplink" / "Downlink" */
	const char *path;	      /* for the header line */
	const char *command_line;     /* may be NULL */
	const char *queue;	      /* queue spec, may be NULL */
	const struct ts_trace *trace; /* capacity; NULL: unlimited (no opportunities) */
	ts_ns_t origin;		      /* model time of the link's time 0 */
	int64_t init_epoch_ms;	      /* wall clock at origin, ms since the epoch */
	ts_ns_t lag_ns;		      /* the largest propagation delay of the direction */
	size_t ring;		      /* events each ring holds (0: 65536) */
	bool drops;		      /* write "d" lines */
};

struct ts_mmlog {
	FILE *f;
	bool own;   /* f was opened by ts_mmlog_open */
	bool drops; /* write "d" lines */
	struct ts_mm_ring prompt, dep;
	const struct ts_trace *trace;
	ts_ns_t origin;
	int64_t lag_ms;
	int64_t opp_ms;		    /* first millisecond whose opportunities are not written yet */
	uint64_t opp_acc;	    /* IP bytes of capacity not yet written as opportunities */
	int64_t last_ms;	    /* time of the last line written */
	uint64_t lines;		    /* event lines written */
	uint64_t out_of_order_risk; /* events written early because a ring was full */
	int error;		    /* first write error (negative errno) */
};

/*
 * ts_mmlog_init - start a log on the open stream @f (not closed by
 * ts_mmlog_close) and write its header. Returns 0 or -ENOMEM.
 */
int ts_mmlog_init(struct ts_mmlog *m, FILE *f, const struct ts_mmlog_conf *c);

/* ts_mmlog_open - same on a new file at c->path. Returns 0 or a negative errno with @err set. */
int ts_mmlog_open(struct ts_mmlog *m, const struct ts_mmlog_conf *c, struct ts_err *err);

/* A packet of @len IP bytes arrived at the link at @t. */
void ts_mmlog_arrival(struct ts_mmlog *m, ts_ns_t t, uint32_t len);

/* A packet of @len IP bytes that arrived at @t_arr left the link at @t_dep. */
void ts_mmlog_departure(struct ts_mmlog *m, ts_ns_t t_arr, ts_ns_t t_dep, uint32_t len);

/* @pkts packets of @len IP bytes in all were dropped at @t (logged only with c->drops). */
void ts_mmlog_drop(struct ts_mmlog *m, ts_ns_t t, uint32_t pkts, uint32_t len);

/* Write the opportunities of every complete ms before @now and the events that can no longer be preceded. */
void ts_mmlog_flush(struct ts_mmlog *m, ts_ns_t now);

/*
 * ts_mmlog_close - end of run at @now: write the opportunities up to the
 * last complete ms and every event still waiting, close the file if
 * ts_mmlog_open opened it, free the rings. Returns 0 or the first
 * negative errno of a write. Safe on a zeroed or closed log.
 */
int ts_mmlog_close(struct ts_mmlog *m, ts_ns_t now);

#endif

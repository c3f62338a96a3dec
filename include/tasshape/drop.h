/* SPDX-License-Identifier: MIT */
/*
 * Why a packet was dropped. Every drop in tasshape has exactly one cause
 * and is counted under it, so a run summary can account for every packet
 * the kernel handed over.
 */
#ifndef TASSHAPE_DROP_H
#define TASSHAPE_DROP_H

#include "tasshape/time.h"

struct ts_pkt;

enum ts_drop_cause {
	TS_DROP_LOSS,	   /* random loss model (Bernoulli, Gilbert-Elliott, trace column) */
	TS_DROP_OVERLIMIT, /* tail drop: the queue's packet or byte limit was reached */
	TS_DROP_HEAD,	   /* head drop: an older packet made room for a new one */
	TS_DROP_CODEL,	   /* CoDel control law (RFC 8289) */
	TS_DROP_PIE,	   /* PIE early drop (RFC 8033) */
	TS_DROP_MAC_RETRY, /* Wi-Fi retry limit reached */
	TS_DROP_TRACE_END, /* --once: the trace ended with the packet still queued */
	TS_DROP_NO_DESC,   /* descriptor pool exhausted */
	TS_DROP_SHUTDOWN,  /* still held when the run ended, and policy said drop */
	TS_DROP__COUNT
};

/* Short stable name used in summaries and JSON ("loss", "overlimit", ...). */
const char *ts_drop_name(enum ts_drop_cause cause);

/* Receives a dropped packet, which the callee now owns. */
typedef void (*ts_drop_fn)(void *ctx, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t now);

#endif

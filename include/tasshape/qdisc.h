/* SPDX-License-Identifier: MIT */
/*
 * Queue disciplines: the buffer in front of a server. Each one lives in
 * its own file (q_fifo.c, q_codel.c, q_pie.c, like tc's q_*.c) and
 * exports a const struct ts_qdisc_ops found by name in ts_qdisc_lookup.
 *
 * Contract shared by all of them:
 * - enqueue(q, p, now) takes ownership of @p. It either queues it or
 *   drops it (or drops an older packet instead, for drophead) through
 *   ts_qdisc_drop(), which hands the dropped packet to q->drop.
 * - dequeue(q, now) returns the packet the server transmits next, or
 *   NULL if none; it may drop packets on the way (CoDel) through the
 *   same callback. The server calls it when it starts transmitting.
 * - @now never goes backwards between calls.
 * - q->fifo holds the packets in arrival order and its pkts/bytes are the
 *   backlog; queues that need more state keep it in q->priv.
 */
#ifndef TASSHAPE_QDISC_H
#define TASSHAPE_QDISC_H

#include <stddef.h>
#include <stdint.h>

#include "tasshape/drop.h"
#include "tasshape/err.h"
#include "tasshape/pkt.h"
#include "tasshape/rng.h"
#include "tasshape/spec.h"
#include "tasshape/time.h"

struct ts_qdisc;

struct ts_qdisc_ops {
	const char *name;
	const char *keys; /* accepted spec keys, for messages: "packets, bytes" */
	const char *help; /* one line for --help */
	size_t priv_size;
	/* Parse @spec (its name is already matched), set up q->priv. */
	int (*init)(struct ts_qdisc *q, struct ts_spec *spec, struct ts_err *err);
	void (*enqueue)(struct ts_qdisc *q, struct ts_pkt *p, ts_ns_t now);
	struct ts_pkt *(*dequeue)(struct ts_qdisc *q, ts_ns_t now);
};

struct ts_qdisc {
	const struct ts_qdisc_ops *ops;
	struct ts_fifo fifo;
	ts_drop_fn drop;
	void *drop_ctx;
	struct ts_rng rng;
	char *desc; /* owned, "codel:target=5ms,interval=100ms" as parsed, for logs */
	void *priv; /* priv_size bytes, zeroed, owned */
};

/*
 * The queue a server gets when none is given: a FIFO of 1000 packets, like
 * a txqueuelen of 1000 (and mahimahi's droptail with packets=1000).
 */
#define TS_QDISC_DEFAULT "droptail:packets=1000"

/* Find ops by name; NULL if unknown. */
const struct ts_qdisc_ops *ts_qdisc_lookup(const char *name);

/* The table, in the order help lists it: ops 0..count-1 (NULL past the end). */
size_t ts_qdisc_count(void);
const struct ts_qdisc_ops *ts_qdisc_at(size_t i);

/*
 * ts_qdisc_names - "droptail, drophead, ..." from the table into @buf
 * (truncated to @len, always terminated). Returns @buf.
 */
char *ts_qdisc_names(char *buf, size_t len);

/*
 * ts_qdisc_create - build a queue from a spec string such as
 * "codel:target=5ms" (NULL: TS_QDISC_DEFAULT). @seed seeds q->rng. The drop callback receives
 * every packet the queue drops. Returns 0 or a negative errno with @err
 * set ("unknown queue 'foo' (expected droptail, drophead, ...)").
 */
int ts_qdisc_create(struct ts_qdisc **out, const char *spec, uint64_t seed, ts_drop_fn drop,
		    void *drop_ctx, struct ts_err *err);

/* Free a queue. Packets still queued are handed to @drop with @cause. */
void ts_qdisc_destroy(struct ts_qdisc *q, enum ts_drop_cause cause, ts_ns_t now);

static inline void ts_qdisc_drop(struct ts_qdisc *q, struct ts_pkt *p, enum ts_drop_cause cause,
				 ts_ns_t now)
{
	q->drop(q->drop_ctx, p, cause, now);
}

static inline uint32_t ts_qdisc_pkts(const struct ts_qdisc *q)
{
	return q->fifo.pkts;
}

static inline uint64_t ts_qdisc_bytes(const struct ts_qdisc *q)
{
	return q->fifo.bytes;
}

extern const struct ts_qdisc_ops ts_q_droptail, ts_q_drophead, ts_q_infinite, ts_q_codel, ts_q_pie;

#endif

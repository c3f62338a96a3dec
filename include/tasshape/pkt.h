/* SPDX-License-Identifier: MIT */
/*
 * Packet descriptors. The kernel keeps the packet itself (NFQUEUE holds
 * the skb until we send a verdict); the model only needs its id, length
 * and a few timestamps. Descriptors come from a pool allocated once at
 * start-up, and carry their own list link, so the packet path never calls
 * malloc (STYLE.md, example 9).
 */
#ifndef TASSHAPE_PKT_H
#define TASSHAPE_PKT_H

#include <stddef.h>
#include <stdint.h>

#include "tasshape/time.h"

struct ts_pkt {
	struct ts_pkt *next; /* FIFO / free-list link, owned by whoever holds it */
	uint32_t id;	     /* NFQUEUE packet id (or a test's sequence number) */
	uint32_t len;	     /* IP bytes on the wire: what capacity is charged for */
	uint16_t segs;	     /* wire packets this unit stands for (GSO), >= 1 */
	uint16_t src;	     /* which queue/hook the runtime got it from */
	uint16_t sta;	     /* Wi-Fi real station (wifi6 real=) it comes from or goes to */
	uint32_t hash;	     /* flow hash, for flow-aware queues */
	ts_ns_t t_arrival;   /* when it entered the current pipe */
	ts_ns_t t_enq;	     /* when it entered the current stage's queue */
	ts_ns_t t_due;	     /* stage-private: when it is due to leave */
	uint64_t user;	     /* runtime-private */
};

/* Singly linked FIFO with O(1) push at the tail and pop at the head. */
struct ts_fifo {
	struct ts_pkt *head;
	struct ts_pkt *tail;
	uint32_t pkts;
	uint64_t bytes;
	uint64_t segs; /* wire packets of the descriptors held: what packets= limits count */
};

/* The wire packets @p stands for: its GSO segments, 1 for a plain packet. */
static inline uint32_t ts_pkt_segs(const struct ts_pkt *p)
{
	return p->segs ? p->segs : 1;
}

static inline void ts_fifo_init(struct ts_fifo *f)
{
	f->head = f->tail = NULL;
	f->pkts = 0;
	f->bytes = 0;
	f->segs = 0;
}

static inline void ts_fifo_push(struct ts_fifo *f, struct ts_pkt *p)
{
	p->next = NULL;
	if (f->tail)
		f->tail->next = p;
	else
		f->head = p;
	f->tail = p;
	f->pkts++;
	f->bytes += p->len;
	f->segs += ts_pkt_segs(p);
}

static inline struct ts_pkt *ts_fifo_pop(struct ts_fifo *f)
{
	struct ts_pkt *p = f->head;

	if (!p)
		return NULL;
	f->head = p->next;
	if (!f->head)
		f->tail = NULL;
	p->next = NULL;
	f->pkts--;
	f->bytes -= p->len;
	f->segs -= ts_pkt_segs(p);
	return p;
}

/*
 * A fixed pool of descriptors. ts_pool_init allocates @cap descriptors
 * once (returns 0 or -ENOMEM); ts_pool_get returns NULL when all are in
 * use, and the caller must then drop the packet with a counted cause.
 */
struct ts_pool {
	struct ts_pkt *mem;
	struct ts_pkt *free;
	size_t cap;
	size_t used;
};

int ts_pool_init(struct ts_pool *pool, size_t cap);
void ts_pool_fini(struct ts_pool *pool);

static inline struct ts_pkt *ts_pool_get(struct ts_pool *pool)
{
	struct ts_pkt *p = pool->free;

	if (!p)
		return NULL;
	pool->free = p->next;
	pool->used++;
	p->next = NULL;
	return p;
}

static inline void ts_pool_put(struct ts_pool *pool, struct ts_pkt *p)
{
	p->next = pool->free;
	pool->free = p;
	pool->used--;
}

#endif

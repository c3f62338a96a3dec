/* SPDX-License-Identifier: MIT */
/*
 * The shaper's packet I/O behind one interface, chosen in one place (as
 * redis picks one ae_*.c poller): the real NFQUEUE socket (net/nfq.h) or
 * an in-memory double that a unit test fills with made-up packets and
 * whose verdicts it reads back, so the event loop's turns and its
 * end-of-run policy run without root and without a kernel.
 *
 * Each operation has the contract of the ts_nfq_* function of the same
 * name (net/nfq.h).
 */
#ifndef TS_RUN_PKTIO_H
#define TS_RUN_PKTIO_H

#include <stdbool.h>

#include "net/nfq.h"

struct ts_pktio_ops {
	const char *name;
	int (*fd)(const void *q); /* to poll; -1: nothing to poll (the double) */
	int (*receive)(void *q, ts_nfq_pkt_fn cb, void *ctx);
	int (*verdict)(void *q, uint32_t id, int accept);
	int (*flush)(void *q);
	uint32_t (*pending)(const void *q);
	const struct ts_nfq_stats *(*stats)(const void *q);
	/* The kernel's queue counters; the double reports its own. */
	int (*kstats)(void *q, struct ts_nfq_kstats *ks);
	void (*close)(void *q);
};

/* The real one: @q is a struct ts_nfq. */
extern const struct ts_pktio_ops ts_pktio_nfq;

/* The double: @q is a struct ts_pktio_mem. */
extern const struct ts_pktio_ops ts_pktio_mem_ops;

#define TS_PKTIO_MEM_MAX 4096

struct ts_pktio_verdict {
	uint32_t id;
	int accept;
};

/*
 * An in-memory queue: ts_pktio_mem_push() makes a packet "queued by the
 * kernel"; the next receive hands every pushed packet over, in order;
 * verdicts are appended and moved to @sent by flush, which a test reads.
 * A verdict for an id not held, or a second one, is refused with -ENOENT
 * and counted in stats.nl_errors, as the kernel answers it.
 */
struct ts_pktio_mem {
	struct ts_nfq_pkt in[TS_PKTIO_MEM_MAX];
	unsigned int nin;
	uint32_t next_id;
	bool held[TS_PKTIO_MEM_MAX]; /* by id (ids start at 1 and stay below the max) */
	struct ts_pktio_verdict appended[TS_PKTIO_MEM_MAX], sent[TS_PKTIO_MEM_MAX];
	unsigned int nappended, nsent;
	struct ts_nfq_stats stats;
	struct ts_nfq_kstats kstats;
	int fail_receive; /* nonzero: the next receive returns it (a negative errno) */
};

void ts_pktio_mem_init(struct ts_pktio_mem *m);

/*
 * Queue one packet of @len bytes; returns its id (> 0), or 0 when the
 * double is full (counted as a kernel queue drop, as a full NFQUEUE does).
 */
uint32_t ts_pktio_mem_push(struct ts_pktio_mem *m, uint32_t len);

#endif

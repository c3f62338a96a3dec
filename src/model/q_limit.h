/* SPDX-License-Identifier: MIT */
/*
 * The tail-drop limit shared by the AQM queues (q_codel.c, q_pie.c):
 * packets=N and/or bytes=SIZE. With neither key the queue holds 1000
 * packets, the default of Linux's sch_codel and sch_pie; naming one key
 * makes it the only limit, so "codel:bytes=150KB" is a byte-limited
 * queue rather than a byte limit on top of a hidden packet limit.
 */
#ifndef TS_Q_LIMIT_H
#define TS_Q_LIMIT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "tasshape/qdisc.h"

#define TS_Q_LIMIT_DEFAULT_PKTS 1000

struct ts_q_limit {
	uint64_t pkts;	/* 0 = no packet limit */
	uint64_t bytes; /* 0 = no byte limit */
};

/*
 * ts_q_limit_parse - read packets= and bytes= from @spec into @l.
 * Returns 0, or a negative errno with @err set when a value does not parse
 * or is 0 (an AQM queue without room is a configuration mistake).
 */
static inline int ts_q_limit_parse(struct ts_q_limit *l, struct ts_spec *spec, struct ts_err *err)
{
	/* UINT64_MAX marks "key absent": the getters leave *out alone then. */
	uint64_t pkts = UINT64_MAX, bytes = UINT64_MAX;
	int ret;

	ret = ts_spec_get_u64(spec, "packets", &pkts, err);
	if (ret < 0)
		return ret;
	ret = ts_spec_get_size(spec, "bytes", &bytes, err);
	if (ret < 0)
		return ret;
	if (!pkts || !bytes) {
		ts_err_set(err, "%s: %s must be at least 1 (omit it for no %s limit)", spec->name,
			   !pkts ? "packets" : "bytes", !pkts ? "packet" : "byte");
		return -EINVAL;
	}
	if (pkts == UINT64_MAX && bytes == UINT64_MAX)
		pkts = TS_Q_LIMIT_DEFAULT_PKTS;
	l->pkts = pkts == UINT64_MAX ? 0 : pkts;
	l->bytes = bytes == UINT64_MAX ? 0 : bytes;
	return 0;
}

/* True when queueing @p would take @q over the limit (tail drop it). */
static inline bool ts_q_limit_over(const struct ts_q_limit *l, const struct ts_qdisc *q,
				   const struct ts_pkt *p)
{
	if (l->pkts && q->fifo.segs + ts_pkt_segs(p) > l->pkts) /* GSO units: their segments */
		return true;
	if (l->bytes && q->fifo.bytes + p->len > l->bytes)
		return true;
	return false;
}

#endif

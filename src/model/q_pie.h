/* SPDX-License-Identifier: MIT */
/*
 * Private to the model and its unit tests: a read-only snapshot of the
 * PIE queue's controller state (q_pie.c), so tests can check the drop
 * probability against the RFC 8033 formulas instead of only counting
 * drops. Nothing in the product reads it.
 */
#ifndef TS_Q_PIE_H
#define TS_Q_PIE_H

#include <stdint.h>

#include "tasshape/qdisc.h"

struct ts_pie_state {
	double drop_prob;	 /* PIE->drop_prob_, in [0, 1] */
	ts_ns_t qdelay;		 /* current_qdelay: sojourn of the last dequeued packet */
	ts_ns_t qdelay_old;	 /* PIE->qdelay_old_, stored by the last update */
	ts_ns_t burst_allowance; /* PIE->burst_allowance_ */
	ts_ns_t next_update;	 /* next update due; TS_NEVER before the first call */
	uint64_t updates;	 /* periodic updates applied so far */
	uint64_t steps;		 /* of those, computed one by one (not skipped) */
};

/*
 * ts_pie_state - copy the state of @q, which must be a "pie" queue, into
 * @out. Reads only: it does not run the updates that may be due.
 */
void ts_pie_state(const struct ts_qdisc *q, struct ts_pie_state *out);

#endif

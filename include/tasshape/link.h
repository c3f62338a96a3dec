/* SPDX-License-Identifier: MIT */
/*
 * A link direction built from user options: loss, then a queue and the
 * trace server, then the delay line (docs/design.md). The
 * stages go to the pipe of the place they belong to: trace-driven links
 * sit in the network by default, as in mahimahi and in reality.
 *
 * With a Wi-Fi 6 medium the link is a hybrid bottleneck: the uplink is the
 * station's wifi6 stage (a SENDER stage) followed by the wired hop behind
 * the access point (the other stages); the downlink is the wired hop (the
 * router/ISP queue) followed by the access point's wifi6 stage, last in
 * the network pipe. Both wifi6 stages share the one medium.
 */
#ifndef TASSHAPE_LINK_H
#define TASSHAPE_LINK_H

#include "tasshape/pipe.h"
#include "tasshape/wifi6.h"

struct ts_dir_conf {
	const char *name;	       /* "uplink" / "downlink", for messages */
	const struct ts_trace *trace;  /* capacity; NULL means no capacity limit */
	const char *queue;	       /* queue spec; NULL: TS_QDISC_DEFAULT */
	ts_ns_t delay;		       /* fixed one-way delay, added to the trace's */
	const char *loss;	       /* "bernoulli:p=1%", "ge:p=..,r=..", or NULL */
	uint64_t seed;		       /* this direction's seed */
	bool once;		       /* stop when the trace ends */
	enum ts_place place;	       /* where the capacity, queue, delay, loss sit */
	ts_ns_t origin;		       /* absolute time of trace time 0 */
	struct ts_wifi6 *wifi6;	       /* the Wi-Fi medium both directions share, or NULL */
	enum ts_wifi6_side wifi6_side; /* which side of it this direction is */
	const char *mac_queue;	       /* its driver queue spec; NULL: TS_QDISC_DEFAULT */
};

struct ts_dir {
	const char *name;
	struct ts_pipe pipe[2]; /* indexed by enum ts_place */
	struct ts_stage *rate;	/* the trace server, or NULL */
	struct ts_stage *mac;	/* the wifi6 stage, or NULL */
	const struct ts_trace *trace;
	ts_ns_t origin;
};

/*
 * ts_dir_build - build both pipes of a direction. Every packet given to
 * a pipe later comes back exactly once, through @release or @drop.
 * Returns 0 or a negative errno with @err naming the direction and the
 * bad option.
 */
int ts_dir_build(struct ts_dir *d, const struct ts_dir_conf *conf, ts_release_fn release,
		 ts_drop_fn drop, void *ctx, struct ts_err *err);

/* Drain both pipes (see ts_pipe_drain); the counters stay readable. */
void ts_dir_drain(struct ts_dir *d, ts_ns_t now);

/* Free both pipes; held packets go to the drop callback (SHUTDOWN). */
void ts_dir_fini(struct ts_dir *d, ts_ns_t now);

/* Earliest deadline of either pipe. */
ts_ns_t ts_dir_next_deadline(const struct ts_dir *d);

/* True when a --once trace has ended. */
bool ts_dir_ended(const struct ts_dir *d);

#endif

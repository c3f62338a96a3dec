/* SPDX-License-Identifier: MIT */
/*
 * A pipe is the chain of stages of one direction that sit in one place
 * (all SENDER or all NETWORK stages). The runtime feeds it packets the
 * kernel queued at that place's hook and gets back, through @release,
 * each packet at the model time it is due to leave, and through @drop
 * each packet the model dropped, with its cause. A direction whose
 * stages sit in both places is two pipes: the runtime releases a packet
 * from the sender pipe and the kernel queues it again at the network
 * hook (docs/datapath.md).
 */
#ifndef TASSHAPE_PIPE_H
#define TASSHAPE_PIPE_H

#include "tasshape/hist.h"
#include "tasshape/stage.h"

typedef void (*ts_release_fn)(void *ctx, struct ts_pkt *p, ts_ns_t t);

struct ts_pipe_stats {
	uint64_t pkts_in, bytes_in;
	uint64_t pkts_out, bytes_out;
	uint64_t drops[TS_DROP__COUNT];
	uint64_t drop_bytes[TS_DROP__COUNT];
	struct ts_hist sojourn; /* release time - arrival time, per released packet */
};

struct ts_pipe {
	enum ts_place place;
	unsigned int nstages;
	struct ts_stage *stage[8];
	ts_release_fn release;
	ts_drop_fn drop;
	void *ctx;
	bool drained;
	struct ts_pipe_stats stats;
};

/* Set up an empty pipe; @release and @drop receive every packet exactly once. */
void ts_pipe_init(struct ts_pipe *pipe, enum ts_place place, ts_release_fn release, ts_drop_fn drop,
		  void *ctx);

/*
 * ts_pipe_add - create a stage from @ops and @conf and append it. Returns
 * 0, -E2BIG when the pipe is full, -ENOMEM, or the stage's init error.
 */
int ts_pipe_add(struct ts_pipe *pipe, const struct ts_stage_ops *ops,
		const struct ts_stage_conf *conf, struct ts_err *err);

/*
 * ts_pipe_drain - end of run: every packet the stages still hold goes to
 * @drop (cause SHUTDOWN, or TRACE_END after a --once trace ended). The
 * stages and their counters stay, for the summary; the pipe takes no more
 * packets.
 */
void ts_pipe_drain(struct ts_pipe *pipe, ts_ns_t now);

/* Free all stages (draining first if that was not done). */
void ts_pipe_fini(struct ts_pipe *pipe, ts_ns_t now);

/* A packet arrives at @now. An empty pipe releases it at once. */
void ts_pipe_enqueue(struct ts_pipe *pipe, struct ts_pkt *p, ts_ns_t now);

/* Earliest time any stage needs advancing; TS_NEVER if none. */
ts_ns_t ts_pipe_next_deadline(const struct ts_pipe *pipe);

/* Process everything due at or before @now, in time order. */
void ts_pipe_advance(struct ts_pipe *pipe, ts_ns_t now);

/* Packets and bytes held in the pipe now. */
uint64_t ts_pipe_held_pkts(const struct ts_pipe *pipe);
uint64_t ts_pipe_held_bytes(const struct ts_pipe *pipe);

#endif

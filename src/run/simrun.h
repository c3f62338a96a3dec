/* SPDX-License-Identifier: MIT */
/*
 * tasshape sim's run: the link model alone, without the kernel, against a
 * constant-bit-rate source in each direction, in simulated time (no
 * clock is read), leaving the counters the run summary reads.
 */
#ifndef TS_RUN_SIMRUN_H
#define TS_RUN_SIMRUN_H

#include <stdbool.h>
#include <stdint.h>

#include "link/linkcfg.h"
#include "run/run_summary.h"
#include "tasshape/err.h"
#include "tasshape/pkt.h"

/* What to simulate: the link and each direction's source. */
struct ts_sim_req {
	struct ts_linkcfg *link; /* loaded by ts_sim_setup */
	ts_ns_t duration;	 /* --once may shorten it to the longest trace */
	uint64_t offered;	 /* bit/s; 0: 120% of each direction's mean capacity */
	uint64_t offered_dir[2]; /* one direction's (0: no source), when dir_given */
	bool dir_given[2];
	uint32_t pkt_size;
};

/* The packet descriptors and the two directions. */
struct ts_sim_ctx {
	struct ts_pool pool;
	struct ts_dir *dirs;
};

/* The simulated run: the two directions, their sources and the counters the summary reads. */
struct ts_sim_run {
	struct ts_sim_ctx ctx;
	struct ts_dir dirs[2];
	int built;
	ts_ns_t gap[2]; /* between two packets of each direction's source */
	uint64_t no_desc[2];
	unsigned int real; /* the Wi-Fi hop's real stations (1 without one) */
};

/* ts_sim_init - @r empty, with its descriptor pool. 0, or -ENOMEM (nothing to free then). */
int ts_sim_init(struct ts_sim_run *r);

/*
 * ts_sim_setup - load @q's traces and build both directions; @q->duration
 * becomes the run's length. 0, or a negative errno with @err.
 */
int ts_sim_setup(struct ts_sim_run *r, struct ts_sim_req *q, struct ts_err *err);

/* ts_sim_loop - the run over [0, @duration): event-driven, from one deadline to the next. */
void ts_sim_loop(struct ts_sim_run *r, ts_ns_t duration, uint32_t pkt_size);

/* ts_sim_summary - @r's counters into @sum for [0, @duration). */
void ts_sim_summary(const struct ts_sim_run *r, ts_ns_t duration, struct ts_summary *sum);

/* ts_sim_fini - free what ts_sim_init and ts_sim_setup made. */
void ts_sim_fini(struct ts_sim_run *r, ts_ns_t duration);

#endif

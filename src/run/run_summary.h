/* SPDX-License-Identifier: MIT */
/*
 * The run summary: per direction, what the trace offered, what was
 * delivered, every drop by cause, queueing delay percentiles and the peak
 * queue of each stage with its place (sender or network). Printed for
 * people on stderr and as JSON for scripts.
 */
#ifndef TS_RUN_RUN_SUMMARY_H
#define TS_RUN_RUN_SUMMARY_H

#include <json-c/json.h>
#include <stdio.h>

#include "run/fidelity.h"
#include "tasshape/link.h"

struct ts_rt;

/*
 * One place's share of a direction's release timing (ns), set only where the direction has
 * hooks at both places (the uplink behind a sender hook): which of them came due late.
 */
struct ts_place_timing {
	int have;
	uint64_t releases, verdict_calls;
	uint64_t release_err_p50, release_err_p99, release_err_max;
	uint64_t verdict_call_p50, verdict_call_p99, verdict_call_max;
};

/* What the runtime adds to the model's counters (zero in a simulation). */
struct ts_dir_extra {
	uint64_t kernel_dropped;  /* dropped by the kernel before reaching us (queue full) */
	uint64_t user_dropped;	  /* dropped by the kernel: netlink socket overrun */
	uint64_t ring_dropped;	  /* lost between hooks: a veth's NAPI ring full (net/topo.h) */
	uint64_t no_descriptor;	  /* dropped on arrival: the descriptor pool was empty */
	uint64_t unexplained;	  /* packets seen but not accounted for: must be 0 */
	uint64_t release_err_p50; /* ns: verdict handed to the kernel - model release time */
	uint64_t release_err_p99;
	uint64_t release_err_max;
	int have_release_err;
	uint64_t
		verdict_call_p50; /* ns: a verdict call's duration, the kernel's delivery included */
	uint64_t verdict_call_p99;
	uint64_t verdict_call_max;
	int have_verdict_call;
	struct ts_place_timing place[2]; /* by enum ts_place */
};

struct ts_summary {
	const char *title;
	ts_ns_t start, end; /* run interval, for capacity and rates */
	const struct ts_dir *dir[2];
	struct ts_dir_extra extra[2];
	const struct ts_tsqst *tsq; /* the station's TSQ budget (run/tsq_station.h), or NULL */
	const struct ts_rt *rt;	    /* how the shaper was scheduled (run/rt.h), or NULL */
	/* In virtual time only: the guest CPUs' idle share in the run's busiest second. */
	bool have_cpu_idle;
	uint32_t cpu_idle_permille;
	/*
	 * The loop's timer: its wake-up latency past the time it was armed for
	 * (sleeps only), the lead it had learnt by the end (run/spin.h; a busy
	 * loop arms at most 30 us ahead whatever it learnt), and the time it
	 * polled. Not part of the rule: releases are judged themselves.
	 */
	bool have_timer_late;
	uint64_t timer_late_p50, timer_late_p99, timer_late_max;
	uint64_t timer_lead;
	uint64_t polled; /* ns the loop polled for deadlines, in all (run/spin.h) */
	/*
	 * The loop's work (its thread's CPU time less its polling) in the run's
	 * busiest second, permille of one CPU (run/spin.h); at
	 * TS_LOOP_SATURATED_PERMILLE or more it had none to spare
	 * (run/fidelity.h). Not part of the rule either.
	 */
	bool have_loop_work;
	uint32_t loop_work_max_permille;
	/*
	 * Real time only: the host's steal time over the run (run/cpustat.h), the time
	 * a hypervisor ran something else on this machine's CPUs. Not part of the rule
	 * either, but a run that fell behind while it grew was stopped from outside.
	 */
	bool have_host_steal;
	uint64_t host_steal_ms;
};

/*
 * ts_summary_fidelity - direction @i's counters in the form the one
 * fell-behind rule (run/fidelity.h) judges.
 */
struct ts_fidelity ts_summary_fidelity(const struct ts_summary *s, int i);

/*
 * ts_summary_loop_saturated - did the loop work TS_LOOP_SATURATED_PERMILLE of one CPU or more
 * in its busiest second? Then a direction that fell behind was held back by the host's CPU,
 * and ts_summary_print says so once.
 */
bool ts_summary_loop_saturated(const struct ts_summary *s);

void ts_summary_print(FILE *f, const struct ts_summary *s);

/*
 * ts_summary_json_object - the summary as a json-c object (the caller owns
 * it: json_object_put), for writers that embed it; NULL when out of memory.
 */
struct json_object *ts_summary_json_object(const struct ts_summary *s);

/* Writes the summary as one line of JSON. Returns 0, -ENOMEM, or -EIO if writing failed. */
int ts_summary_json(FILE *f, const struct ts_summary *s);

#endif

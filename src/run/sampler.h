/* SPDX-License-Identifier: MIT */
/*
 * Socket samples taken off the release path (--sockstats).
 *
 * A sock_diag dump walks the kernel's whole TCP established hash, which
 * every network namespace shares unless net.ipv4.tcp_child_ehash_entries
 * gave it its own: on the 2-core development machine 262,144 buckets,
 * walked once per address family, 2-4 ms per dump, however few sockets
 * the namespace has. Made inside the shaper's loop every 50 ms, each dump
 * held every release due meanwhile: release p99 of 1.7-2.9 ms under
 * `exp run`, which always asks for --sockstats (docs/benchmarks.md, "Why
 * exp run fell behind").
 *
 * So a thread of the shaper's process, at normal scheduling, dumps every
 * interval into one of two batches allocated at the start; the loop takes
 * a finished batch without ever blocking (a try-lock) and writes it. A
 * batch the loop has not taken when the next sample is due makes that
 * sample skipped (counted), never a wait of the loop.
 */
#ifndef TS_RUN_SAMPLER_H
#define TS_RUN_SAMPLER_H

#include <stdbool.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "net/sockdiag.h"
#include "tasshape/err.h"
#include "tasshape/time.h"

/* What takes one sample: ts_sockdiag_dump's shape (a fake in the unit tests). */
typedef int (*ts_sampler_dump_fn)(void *ctx, ts_sockdiag_fn cb, void *cb_ctx);

/* One finished sample. */
struct ts_sampler_batch {
	ts_ns_t t;		/* CLOCK_MONOTONIC when the dump began */
	size_t n;		/* sockets in st[] */
	size_t over;		/* sockets reported beyond the batch's capacity, not kept */
	int ret;		/* the dump's return: a count or a negative errno */
	struct ts_sockstat *st; /* capacity: ts_sampler_start's @cap */
};

/* Totals, read after ts_sampler_stop. */
struct ts_sampler_counts {
	uint64_t samples;   /* dumps made */
	uint64_t skipped;   /* samples not taken: the loop still held the previous batch */
	uint64_t truncated; /* samples with more sockets than the capacity */
	int err;	    /* the first failed dump's negative errno, or 0 */
};

struct ts_sampler;

/*
 * ts_sampler_start - start the thread: samples at @first, @first +
 * @interval, ... (CLOCK_MONOTONIC; a time already past is taken at once),
 * each by @dump(@dump_ctx, ...), keeping at most @cap sockets. The thread
 * runs SCHED_OTHER whatever the caller's policy, and on @cpus when that
 * holds any CPU (NULL or empty: the caller's): a real-time loop pinned to
 * one CPU (run/cpupin.h) starts it, and its dumps, long kernel work with
 * softirqs off, must not run on that CPU. Returns 0 and the handle in
 * *@out, or a negative errno with @err set.
 */
int ts_sampler_start(struct ts_sampler **out, ts_sampler_dump_fn dump, void *dump_ctx,
		     ts_ns_t first, ts_ns_t interval, size_t cap, const cpu_set_t *cpus,
		     struct ts_err *err);

/*
 * ts_sampler_take - if a finished batch waits and the lock is free, call
 * @fn(@ctx, batch) with it (under the lock: @fn must not call back in),
 * and return true; else return false at once. Never blocks.
 */
bool ts_sampler_take(struct ts_sampler *s, void (*fn)(void *ctx, const struct ts_sampler_batch *b),
		     void *ctx);

/*
 * ts_sampler_stop - end the thread and wait for it (a dump under way ends
 * first). A batch it finished stays for ts_sampler_take. Idempotent.
 */
void ts_sampler_stop(struct ts_sampler *s);

/* The totals so far (exact after ts_sampler_stop). */
struct ts_sampler_counts ts_sampler_counts(struct ts_sampler *s);

/* Stop, then free everything. NULL is fine. */
void ts_sampler_free(struct ts_sampler *s);

#endif

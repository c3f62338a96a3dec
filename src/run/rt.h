/* SPDX-License-Identifier: MIT */
/*
 * Real-time scheduling of the thread that releases verdicts (the event
 * loop, run/shaper.c). A release is only as punctual as the wake-up that
 * sends it: as SCHED_OTHER the loop waits behind every runnable process of
 * its CPU (release p99 4.16 ms with two busy loops on a 2-core host, 0.19
 * ms as SCHED_FIFO; docs/datapath.md, "Real-time scheduling").
 *
 * The loop runs SCHED_FIFO at a modest priority, as chronyd does with -P
 * and -m (SCHED_FIFO and mlockall), with SCHED_RESET_ON_FORK so that every
 * process started while it runs gets normal scheduling back, and with its
 * memory locked (no page fault on the packet path). Where the kernel
 * refuses (no CAP_SYS_NICE, no real-time budget: kernel.sched_rt_runtime_us
 * or the cgroup's cpu.rt_runtime_us at 0, a container), the run goes on
 * with normal scheduling and the reason is kept for the summary and the
 * manifest.
 */
#ifndef TS_RUN_RT_H
#define TS_RUN_RT_H

#include <json-c/json.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "link/linkcfg.h"
#include "run/awake.h"
#include "run/cpupin.h"
#include "tasshape/err.h"

/* TS_RT_PRIO_DEFAULT and TS_RT_PRIO_MAX: the link options' range, link/linkcfg.h. */

struct ts_rt {
	int want;	       /* --rt-priority asked: 1..TS_RT_PRIO_MAX, 0: off */
	int prio;	       /* SCHED_FIFO priority in force, 0: normal scheduling */
	bool locked;	       /* mlockall in force */
	bool entered;	       /* ts_rt_enter ran (the manifest's first write comes before) */
	bool left;	       /* ts_rt_leave ran: prio and locked still say how the run went */
	char note[256];	       /* why the run went without what was asked; "" when it did not */
	struct ts_awake awake; /* the CPUs kept out of idle while the loop runs (run/awake.h) */
	int old_policy;	       /* restored by ts_rt_leave */
	struct sched_param old_param;
	int pin;	    /* set by the caller before ts_rt_enter: --shaper-cpu, or OFF */
	int cpu;	    /* the CPU the loop is pinned to (run/cpupin.h), -1: not pinned */
	cpu_set_t others;   /* the process's other CPUs: where the deliveries go */
	cpu_set_t old_cpus; /* the thread's CPUs before, restored by ts_rt_leave */
	/* The veths' rps_cpus as written ("": not steered, run/cpupin.h) and why not ("": no note). */
	char rps_cpus[TS_CPUMASK_HEX_MAX];
	char rps_note[320];
	/*
	 * One CPU in virtual time with --gso or a Wi-Fi MAC: the deliveries run in NAPI threads
	 * ("down", "up" or "both", run/napi.h; "": none), and why not or what went wrong ("": no
	 * note). By the session.
	 */
	char napi[48];
	char napi_note[320];
};

/* --rt-priority as given (@want: 0 off, else the priority); nothing changes yet. */
void ts_rt_init(struct ts_rt *rt, int want);

/*
 * ts_rt_enter - the calling thread to SCHED_FIFO rt->want (with
 * SCHED_RESET_ON_FORK), its memory locked, the CPUs kept out of idle
 * (run/awake.h) and, unless rt->pin is TS_SHAPER_CPU_OFF, once it is
 * real-time on a host with two CPUs or more, pinned to one of them
 * (rt->cpu, run/cpupin.h; the caller then steers the deliveries to
 * rt->others). Without CAP_SYS_NICE it takes what RLIMIT_RTPRIO allows:
 * a priority below rt->want when the limit is lower (ts_rt_within;
 * rt->prio then says which). Never fails the run: what
 * the kernel refused is written to rt->note and the thread keeps (or gets
 * back) normal scheduling. Returns 0 when everything asked is in force,
 * a negative errno otherwise (the first refusal).
 */
int ts_rt_enter(struct ts_rt *rt);

/*
 * ts_rt_within - the SCHED_FIFO priority to ask for when @want was refused
 * for want of CAP_SYS_NICE: an unprivileged thread may take a real-time
 * priority up to its RLIMIT_RTPRIO, @rtprio (sched(7)), so @want when the
 * limit allows it, else the limit itself, else 0 (none: RLIMIT_RTPRIO 0).
 * Pure.
 */
int ts_rt_within(int want, unsigned long long rtprio);

/*
 * ts_rt_unpin - the loop back on the CPUs it had before ts_rt_enter pinned
 * it (rt->cpu -1, rt->others empty); nothing when it was not pinned. For a
 * caller whose steering failed: a pinned loop that still does the
 * deliveries is worse off than one that can move.
 */
void ts_rt_unpin(struct ts_rt *rt);

/*
 * Back to the scheduling before ts_rt_enter, memory unlocked, the CPUs
 * free to idle (teardown needs none of it). rt->prio and rt->locked keep saying how the run went.
 */
void ts_rt_leave(struct ts_rt *rt);

/*
 * ts_rt_budget - the kernel's real-time budget: kernel.sched_rt_runtime_us
 * (-1: no throttling), or -ENOENT when it cannot be read. Used by
 * ts_rt_enter and `tasshape doctor`.
 */
long ts_rt_budget(void);

/*
 * ts_rt_probe - would ts_rt_enter at TS_RT_PRIO_DEFAULT succeed here? Tries
 * it on the calling thread and puts everything back. Returns the SCHED_FIFO
 * priority granted (below the default when RLIMIT_RTPRIO is lower), or a
 * negative errno with the reason in @why (`tasshape doctor`); @why is set
 * either way (empty when nothing was refused).
 */
int ts_rt_probe(struct ts_err *why);

/* {"requested","policy","priority","memory_locked","note"} for the summary and manifest. */
struct json_object *ts_rt_json(const struct ts_rt *rt, bool *nomem);

/* One line for the human summary: "SCHED_FIFO 10, memory locked" or the refusal. */
void ts_rt_describe(const struct ts_rt *rt, char *buf, size_t len);

#endif

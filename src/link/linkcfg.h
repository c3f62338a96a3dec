/* SPDX-License-Identifier: MIT */
/*
 * The link as the user described it on the command line, and turning that
 * into traces and model directions. Shared by the wrapper, attach and sim,
 * so every subcommand reads link options the same way.
 */
#ifndef TS_LINK_LINKCFG_H
#define TS_LINK_LINKCFG_H

#include <stdio.h>

#include "tasshape/link.h"

enum { TS_UP = 0, TS_DOWN = 1 };

/*
 * 10: above every SCHED_OTHER process, below the kernel's threaded
 * interrupt handlers (SCHED_FIFO 50), which deliver the very packets the
 * shaper queues, and below its per-CPU stop/watchdog threads (99); it
 * leaves the priorities around it to the user's own real-time tasks.
 */
#define TS_RT_PRIO_DEFAULT 10
#define TS_RT_PRIO_MAX	   49 /* --rt-priority at most: still below threaded interrupts */

/* --shaper-cpu's two words; a CPU number is itself (run/cpupin.h). */
#define TS_SHAPER_CPU_AUTO (-1)
#define TS_SHAPER_CPU_OFF  (-2)

/* Strings a configuration owns, one per link key at most (link/grammar.h checks). */
#define TS_LINKCFG_NSTR 24

struct ts_linkcfg {
	/* What the user wrote; NULL when not given. */
	const char *trace;	  /* --trace: CSV with both directions, mahimahi, or const:RATE */
	const char *dir_trace[2]; /* --uplink-trace / --downlink-trace */
	const char *queue[2];	  /* --queue sets both */
	const char *loss[2];	  /* --loss sets both */
	ts_ns_t delay;		  /* --delay: one-way, each direction */
	uint64_t seed;
	bool once;
	bool gso; /* --gso: GSO super-packets reach the shaper whole (NFQA_CFG_F_GSO) */
	enum ts_place place[2]; /* --uplink-at / --downlink-at */
	const char *mac;	/* --mac: "wifi6:phy=1201mbit,..." (a Wi-Fi hop), or NULL */
	const char *mac_queue;	/* --mac-queue: the Wi-Fi driver queues; NULL: default */
	/*
	 * --rt-priority: SCHED_FIFO priority of the shaper's loop (run/rt.h),
	 * 0: off. Not the link's but read with its options, so that an
	 * experiment's [link NAME] section can carry it to the wrapper.
	 */
	int rt_priority;
	/* --shaper-cpu: TS_SHAPER_CPU_AUTO, TS_SHAPER_CPU_OFF or a CPU (run/cpupin.h). Likewise. */
	int shaper_cpu;

	/*
	 * The strings above, as ts_linkcfg_set copied them: one per key (by
	 * enum ts_linkkey_id, link/grammar.h), so that --queue's one copy
	 * serves both directions and a key given again frees only its own.
	 */
	char *str[TS_LINKCFG_NSTR];

	/* Loaded by ts_linkcfg_load. */
	struct ts_trace *owned[6]; /* --trace, --uplink-trace, --downlink-trace: two each at most */
	const struct ts_trace *cap[2]; /* capacity per direction, NULL: unlimited */
	struct ts_wifi6 *wifi6;	       /* the medium of --mac (a reference), or NULL */
};

/*
 * Defaults: no trace, 1000-packet droptail, no delay or loss, seed 1, network placement,
 * real-time shaper (TS_RT_PRIO_DEFAULT).
 */
void ts_linkcfg_init(struct ts_linkcfg *cfg);

/*
 * ts_linkcfg_check - what can be said wrong before any file is read:
 * --once with a constant rate, --mac-queue without --mac. Returns 0 or
 * -EINVAL with @err set.
 */
int ts_linkcfg_check(const struct ts_linkcfg *cfg, struct ts_err *err);

/*
 * ts_linkcfg_stations - the real Wi-Fi stations of @cfg's hop (--mac
 * wifi6:...,real=N): N, or 1 without --mac or when its spec does not parse
 * (ts_linkcfg_check says why). Reads the options only: no file, loaded or not.
 */
unsigned int ts_linkcfg_stations(const struct ts_linkcfg *cfg);

/* Warnings about a valid but questionable link (an infinite queue), one line each to @f. */
void ts_linkcfg_warn(const struct ts_linkcfg *cfg, FILE *f);

/*
 * ts_linkcfg_load - ts_linkcfg_check, then read the traces named in @cfg. A mahimahi file given to
 * --trace serves both directions (as mm-link with the same file twice);
 * a CSV gives each direction its column. With --mac, also build the Wi-Fi
 * medium both directions will share (and load its PHY-rate trace).
 * Returns 0 or a negative errno with @err saying which file and line,
 * which direction has no capacity, or which --mac key is wrong. On
 * success, the warnings of ts_linkcfg_warn go to stderr.
 */
int ts_linkcfg_load(struct ts_linkcfg *cfg, struct ts_err *err);

/* Build direction @dir (TS_UP or TS_DOWN) into @d. Same contract as ts_dir_build. */
int ts_linkcfg_build(const struct ts_linkcfg *cfg, int dir, struct ts_dir *d, ts_ns_t origin,
		     ts_release_fn release, ts_drop_fn drop, void *ctx, struct ts_err *err);

/*
 * ts_linkcfg_linger - the default --linger of the drain at the end of a
 * run (docs/datapath.md, "Ending a run"): the longest a packet can be
 * held, a full queue (packets=N counted as N full-size packets, bytes=SIZE
 * as is, 1000 packets by default; with --mac the larger of the driver
 * queue and the link queue) emptied at the trace's mean rate plus the
 * one-way delay, for both directions, twice (the last data and the close
 * handshake may each meet full queues), plus TS_LINGER_BASE for the
 * kernel's retransmission timers; at most TS_LINGER_MAX (also the answer
 * for an infinite queue or a trace with no capacity). Needs the traces
 * loaded.
 */
ts_ns_t ts_linkcfg_linger(const struct ts_linkcfg *cfg);

#define TS_LINGER_BASE	     (1 * TS_NSEC_PER_SEC)
#define TS_LINGER_MAX	     (60 * TS_NSEC_PER_SEC)
#define TS_LINGER_MTU	     1500u
#define TS_LINGER_QUEUE_PKTS 1000u

/*
 * ts_linkcfg_unload - free what ts_linkcfg_load read (traces, the Wi-Fi
 * medium) and keep the options, so the configuration can be loaded again.
 */
void ts_linkcfg_unload(struct ts_linkcfg *cfg);

/* ts_linkcfg_unload, and free the strings ts_linkcfg_set copied. */
void ts_linkcfg_free(struct ts_linkcfg *cfg);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The shaper: the link model driven by real packets. Each place a
 * direction's stages sit in is one NFQUEUE hook (docs/datapath.md):
 *
 *   UP_SENDER     inner namespace, mangle POSTROUTING -o veth: the station's
 *                 egress; held packets stay charged to their socket (TSQ)
 *   UP_NETWORK    outer namespace, mangle PREROUTING -i veth: after the link
 *   DOWN_NETWORK  inner namespace, mangle PREROUTING -i veth: after the link
 *
 * A packet the kernel queues at a hook enters that hook's pipe at the
 * time of the loop turn that read it; the model's release is its
 * NF_ACCEPT verdict and its drops are NF_DROP, so every packet handed over
 * gets exactly one verdict. A packet released by the sender pipe is queued
 * again by the kernel at the network hook, as a new packet.
 */
#ifndef TS_RUN_SHAPER_H
#define TS_RUN_SHAPER_H

#include <stdbool.h>
#include <sys/types.h>

#include "net/nfq.h"
#include "run/linkcfg.h"
#include "run/obs.h"
#include "run/summary.h"
#include "run/tsq.h"

enum ts_hook_id { TS_H_UP_SENDER, TS_H_UP_NETWORK, TS_H_DOWN_NETWORK, TS_H__COUNT };

struct ts_shaper;

struct ts_hook {
	struct ts_shaper *sh;
	struct ts_nfq *nfq; /* NULL: this hook is not used */
	int dir;	    /* TS_UP or TS_DOWN */
	enum ts_place place;
	uint16_t qnum;
	int netns_fd; /* namespace the queue lives in (not owned) */
	uint64_t seen, accepted, dropped;
	struct ts_nfq_kstats kstats; /* read at the end */
};

/* Why ts_shaper_run returned. */
enum ts_stop {
	TS_STOP_NONE,	  /* (not a reason: the run goes on) */
	TS_STOP_CHILD,	  /* the wrapped command exited */
	TS_STOP_SIGNAL,	  /* SIGINT / SIGTERM / SIGHUP with no child to forward it to */
	TS_STOP_DURATION, /* --duration elapsed */
	TS_STOP_TRACE,	  /* a --once trace ended */
};

#define TS_RELEASE_BATCH 8192

/* How long CMD has to exit after SIGTERM when --duration or --once ends the run. */
#define TS_TERM_GRACE (2 * TS_NSEC_PER_SEC)

/*
 * Deadlines nearer than this are waited for by polling, not by the timer:
 * a timerfd wakes tens of microseconds late on a virtual machine.
 */
#define TS_SPIN_NS (30 * TS_NSEC_PER_USEC)

struct ts_shaper {
	struct ts_linkcfg *cfg;
	struct ts_dir dir[2];
	bool built[2];
	struct ts_hook hook[TS_H__COUNT];
	struct ts_pool pool;
	uint64_t no_desc[2];
	ts_ns_t origin, now, end;
	int epfd, tfd, sfd;
	ts_ns_t armed; /* deadline the timerfd is armed for, TS_NEVER if none */
	pid_t child;
	int child_status; /* wait status */
	bool child_done;
	unsigned int signals; /* terminating signals received */
	int stop_reason;      /* set when --duration or a --once trace ended the run */
	bool child_killed;    /* CMD did not end within TS_TERM_GRACE of SIGTERM */
	bool quiet;
	/* Release timing: model release time vs the clock right after the verdicts went out. */
	struct ts_hist release_err[2];
	unsigned int nrel;
	ts_ns_t rel_t[TS_RELEASE_BATCH];
	uint8_t rel_dir[TS_RELEASE_BATCH];
	int fatal; /* a negative errno from the packet path (netlink failure) */
	/*
	 * Captures, logs, time series, socket samples, status line (run/obs.h);
	 * NULL when none is asked for, so the packet path only tests a pointer.
	 * Not owned.
	 */
	struct ts_obs *obs;
	struct ts_tsq *tsq; /* the station's TSQ budget (run/tsq.h), or NULL */
};

/*
 * ts_shaper_init - build both directions from @cfg (traces loaded), with
 * model time 0 at @origin, and a pool of @pool_size descriptors. Opens
 * no socket yet. Returns 0 or a negative errno with @err set.
 */
int ts_shaper_init(struct ts_shaper *sh, struct ts_linkcfg *cfg, ts_ns_t origin, size_t pool_size,
		   struct ts_err *err);

/* True when the hook's pipe has stages, so its queue and rule are needed. */
bool ts_shaper_needs(const struct ts_shaper *sh, enum ts_hook_id id);

/*
 * ts_shaper_open - open hook @id's NFQUEUE socket inside namespace
 * @netns_fd, binding the first free queue number from @qbase on (queue
 * numbers are per namespace and another shaper may own some). The rule
 * that feeds it is the caller's to install, after this succeeds, with
 * sh->hook[id].qnum. Returns 0 or a negative errno with @err set.
 */
int ts_shaper_open(struct ts_shaper *sh, enum ts_hook_id id, int netns_fd, uint16_t qbase,
		   uint32_t maxlen, unsigned int nfq_flags, struct ts_err *err);

/*
 * ts_shaper_run - the event loop: epoll over the queues, a signalfd
 * (@sigfd, SIGINT/SIGTERM/SIGHUP/SIGCHLD already blocked by the caller)
 * and one absolute timerfd at the earliest model deadline. Runs until the
 * child @child (0: none) exits, a terminating signal arrives with no
 * child, @duration (0: none) has passed, or a --once trace has ended.
 * When one of the last two ends the run while the child still runs, it
 * gets SIGTERM (SIGKILL after TS_TERM_GRACE) and the link keeps shaping
 * until it has exited; the reason returned is still the duration or trace.
 * With a child, SIGINT/SIGTERM/SIGHUP sent to tasshape are forwarded to it
 * (a terminal's own Ctrl-C already reached it), and the run ends when it
 * exits; a third one kills it. Returns the reason (>= 0) or a negative
 * errno with @err set.
 */
int ts_shaper_run(struct ts_shaper *sh, int sigfd, pid_t child, ts_ns_t duration,
		  struct ts_err *err);

/*
 * ts_shaper_finish - the end-of-run policy: every packet still held by the
 * model is dropped (cause "shutdown": the link it was waiting for no
 * longer exists) and gets its NF_DROP verdict; then the kernel's
 * per-queue counters are read. Call before closing sockets or removing
 * namespaces.
 */
void ts_shaper_finish(struct ts_shaper *sh);

/* Fill a summary (the directions stay owned by @sh). */
void ts_shaper_summary(struct ts_shaper *sh, struct ts_summary *s, const char *title);

/* Close sockets and free everything. Safe after a failed init. */
void ts_shaper_fini(struct ts_shaper *sh);

#endif

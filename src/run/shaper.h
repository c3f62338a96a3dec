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

#include <netinet/in.h>
#include <stdbool.h>
#include <sys/types.h>

#include "net/nfq.h"
#include "link/linkcfg.h"
#include "run/pktio.h"
#include "run/spin.h"
#include "run/cpustat.h"
#include "run/obs.h"
#include "run/run_summary.h"
#include "run/tsq_station.h"

/*
 * The hooks: station 0's sender hook (CMD's namespace), the link
 * namespace's two, then the sender hooks of Wi-Fi stations 1 .. real-1
 * (wifi6 real=), each in its own namespace, feeding the uplink's sender
 * pipe with the packet's station set.
 */
enum ts_hook_id {
	TS_H_UP_SENDER,
	TS_H_UP_NETWORK,
	TS_H_DOWN_NETWORK,
	TS_H_UP_STA1,
	TS_H__COUNT = TS_H_UP_STA1 + TS_WIFI6_REAL_MAX - 1
};

/* The sender hook of Wi-Fi station @k (0 .. TS_WIFI6_REAL_MAX - 1). */
static inline enum ts_hook_id ts_hook_of_station(unsigned int k)
{
	return k ? (enum ts_hook_id)(TS_H_UP_STA1 + k - 1) : TS_H_UP_SENDER;
}

struct ts_shaper;

struct ts_hook {
	struct ts_shaper *sh;
	const struct ts_pktio_ops *io; /* NULL: this hook is not used */
	void *q;		       /* the backend's queue (run/pktio.h) */
	int dir;		       /* TS_UP or TS_DOWN */
	enum ts_place place;
	uint16_t sta; /* the Wi-Fi station whose sender hook this is (0 for the others) */
	uint16_t qnum;
	int netns_fd; /* namespace the queue lives in (not owned) */
	uint64_t seen, accepted, dropped;
	struct ts_nfq_kstats kstats; /* read at the end */
};

/*
 * Where the run is (ts_shaper_policy): shaping; asking CMD to end because
 * --duration or a --once trace ended it; draining (CMD is gone, the link
 * keeps shaping until the queues are empty and the connections closed, at
 * most --linger); done.
 */
enum ts_phase { TS_PH_RUN, TS_PH_ENDING, TS_PH_DRAIN, TS_PH_DONE };

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
 * Drain: the queues count as empty once nothing is held and nothing
 * arrived for TS_DRAIN_QUIET (a packet released at the sender hook, or a
 * socket's last ACK, takes microseconds to be queued at the next hook);
 * the inner namespace's sockets are counted at most every TS_DRAIN_POLL,
 * and the queues must stay quiet TS_DRAIN_CLOSED after the count found
 * every connection closed.
 */
#define TS_DRAIN_QUIET (2 * TS_NSEC_PER_MSEC)
/*
 * After the count found every connection closed, the queues must stay quiet
 * this long: a socket's last ACK (or RST) is sent as it closes and crosses
 * the veth in a softirq that a busy host may defer to ksoftirqd for a few
 * milliseconds. While a count walked the host's TCP hash (2-8 ms) that walk
 * hid the wait; with the namespace's own table it takes 75 us, and t_drain
 * on a host with load average 7-10 then lost such an ACK in 2 of 10 runs.
 */
#define TS_DRAIN_CLOSED (10 * TS_NSEC_PER_MSEC)
#define TS_DRAIN_POLL	(5 * TS_NSEC_PER_MSEC)

/* ts_shaper_turn's @ready: bit i for hook i, and the signal fd. */
#define TS_READY_HOOKS	((1u << TS_H__COUNT) - 1)
#define TS_READY_SIGNAL (1u << TS_H__COUNT)

struct ts_shaper {
	struct ts_linkcfg *cfg;
	struct ts_dir dir[2];
	bool built[2];
	struct ts_hook hook[TS_H__COUNT];
	struct ts_pool pool;
	uint64_t no_desc[2];
	ts_ns_t origin, now, end;
	ts_ns_t (*clock)(void); /* read after the verdicts went out; ts_clock_now by default */
	int epfd, tfd, sfd;
	ts_ns_t armed;	     /* deadline the timerfd is armed for, TS_NEVER if none */
	struct ts_spin spin; /* the poll spin's CPU bound (run/spin.h) */
	pid_t child;
	int child_status; /* wait status (of all CMDs: the first that failed, else the first's) */
	bool child_done;  /* every CMD exited */
	/*
	 * With real Wi-Fi stations (wifi6 real=), CMD runs once per station:
	 * @child is station 0's, these the others'. The run's CMD is done when
	 * all have exited.
	 */
	pid_t more[TS_WIFI6_REAL_MAX - 1];
	int more_status[TS_WIFI6_REAL_MAX - 1];
	bool more_done[TS_WIFI6_REAL_MAX - 1];
	unsigned int nmore;
	int main_status;
	bool main_done;
	/* The real stations' addresses, to give each downlink packet its station. */
	unsigned int nsta;
	uint32_t sta_v4[TS_WIFI6_REAL_MAX]; /* network order */
	struct in6_addr sta_v6[TS_WIFI6_REAL_MAX];
	unsigned int signals; /* terminating signals received */
	int stop_reason;      /* set when --duration or a --once trace ended the run */
	bool child_killed;    /* CMD did not end within TS_TERM_GRACE of SIGTERM */
	int kill_sig;	      /* signal the policy wants sent to CMD (0: none) */
	enum ts_phase phase;
	/* The drain (docs/datapath.md, "End of a run"). */
	ts_ns_t linger; /* most time the drain may take; 0: no drain */
	ts_ns_t drain_start, drain_end, last_arrival, next_sock_check;
	ts_ns_t closed_at; /* when the count first found no open connection; TS_NEVER: not yet */
	unsigned int drain_signals; /* signals received when the drain began */
	int (*sockets)(void *ctx);  /* connections not yet closed; NULL: do not wait for them */
	void *sockets_ctx;
	int sockets_open;    /* last count (-1: not counted yet) */
	bool drain_complete; /* the drain ended with empty queues and closed connections */
	bool check;	     /* conservation check every turn (ts_shaper_check) */
	bool quiet;
	/*
	 * Release timing: the time a packet's verdict was handed to the kernel minus the
	 * model's release time (flush_all says which clock reading a packet gets), and per
	 * direction the duration of the verdict calls themselves, which include the kernel's
	 * delivery of the packets downstream (docs/experiments.md, "Fidelity").
	 */
	struct ts_hist release_err[2];
	struct ts_hist verdict_call[2];
	/*
	 * The same by the hook's place (enum ts_place): the uplink behind a sender hook has
	 * hooks at both, whose releases come due in different patterns (a Wi-Fi station's
	 * A-MPDU at its BlockAck at the sender, the wired hop's packets one by one behind it).
	 */
	struct ts_hist release_err_place[2][2];
	struct ts_hist verdict_call_place[2][2];
	struct ts_hist timer_late; /* the timer's wake-up latency, sleeps only */
	unsigned int nrel;
	ts_ns_t rel_t[TS_RELEASE_BATCH];
	uint8_t rel_dir[TS_RELEASE_BATCH];
	uint8_t rel_hook[TS_RELEASE_BATCH];
	int fatal; /* a negative errno from the packet path (netlink failure) */
	/*
	 * In virtual time (run/cpustat.h): @cpustat reads the guest CPUs' counters (NULL: not
	 * in virtual time, nothing measured), once a second of the run after the verdicts went
	 * out; @vcpu_min_idle is the lowest idle share of those windows, in permille (-1: no
	 * window yet), reported in the summary.
	 */
	int (*cpustat)(struct ts_cpustat *c);
	struct ts_cpustat vcpu_last;
	ts_ns_t vcpu_last_t; /* TS_NEVER: no reading yet */
	int vcpu_min_idle;
	/*
	 * In virtual time the loop never polls ahead of a deadline (no lead, run/spin.h): the
	 * guest's timer wakes it after the same few thousand instructions every time, and each
	 * poll (epoll_wait and a clock read, both system calls there) was guest CPU taken from
	 * the packets: 10,000 instructions a packet at 150 Mbit/s.
	 */
	bool no_poll;
	/*
	 * Captures, logs, time series, socket samples, status line (run/obs.h);
	 * NULL when none is asked for, so the packet path only tests a pointer.
	 * Not owned.
	 */
	struct ts_obs *obs;
	struct ts_tsqst *tsq; /* the station's TSQ budget (run/tsq_station.h), or NULL */
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

/* Feed hook @id from another backend (a test's in-memory double); @q is not owned. */
void ts_shaper_use(struct ts_shaper *sh, enum ts_hook_id id, const struct ts_pktio_ops *io,
		   void *q);

/*
 * The event loop, split as redis ae.c splits aeMain / aeProcessEvents so
 * that a unit test drives turns with made-up times through the in-memory
 * packet I/O (run/pktio.h):
 *
 *   ts_shaper_begin   the run's state: CMD's pid, --duration, the phase
 *   ts_shaper_turn    one turn at time @now: read the ready queues, advance
 *                     the model to @now, send the due verdicts, record
 *   ts_shaper_policy  the end-of-run policy after a turn: go on, ask CMD to
 *                     end, drain, or stop
 *   ts_shaper_run     the real loop: epoll over the queues, the signalfd and
 *                     one absolute timerfd, reading the clock once per turn
 */

/* Set the run's state (no system call). @child 0: none; @duration 0: none. */
void ts_shaper_begin(struct ts_shaper *sh, pid_t child, ts_ns_t duration);

/*
 * ts_shaper_turn - one loop turn at time @now (non-decreasing): receive
 * from the hooks whose bit is set in @ready (TS_READY_HOOKS: all), advance
 * both directions to @now, flush every verdict, then the recording. In
 * check mode, verify conservation (ts_shaper_check). Returns 0 or a
 * negative errno with @err set (netlink failure, or a conservation check
 * that failed).
 */
int ts_shaper_turn(struct ts_shaper *sh, ts_ns_t now, unsigned int ready, struct ts_err *err);

/* A terminating signal reached tasshape (@from_kernel: a terminal's Ctrl-C). */
void ts_shaper_on_signal(struct ts_shaper *sh, int signo, bool from_kernel);

/* CMD exited with wait status @status. */
void ts_shaper_on_child_exit(struct ts_shaper *sh, int status);

/*
 * ts_shaper_policy - what the run does after the turn at @now. Without
 * CMD (attach) a signal or --duration or a --once trace ends the run at
 * once. With CMD: the run ends when it has exited; when --duration or a
 * --once trace ends first, it is asked to end (sh->kill_sig = SIGTERM;
 * SIGKILL after TS_TERM_GRACE) and the link keeps shaping meanwhile. Once
 * CMD is gone the link drains: it keeps shaping until nothing is held,
 * nothing arrived for TS_DRAIN_QUIET and sh->sockets() reports no open
 * connection, or until sh->linger has passed, or a new signal arrives.
 * Signals for CMD are left in sh->kill_sig for the caller to send.
 * Returns the reason the run ended (> 0), or 0 to go on.
 */
int ts_shaper_policy(struct ts_shaper *sh, ts_ns_t now);

/* The earliest time the loop must wake: the model, the recording, the policy. */
ts_ns_t ts_shaper_deadline(const struct ts_shaper *sh);

/*
 * ts_shaper_check - conservation: for each pipe, in = out + dropped (by
 * cause) + held; over the hooks, packets seen = accepted + dropped + held
 * by the model, which is also the number of descriptors in use; no
 * verdict refused by the kernel (a second verdict for one id). Returns 0,
 * or -EPROTO with @err saying which count disagrees.
 */
int ts_shaper_check(const struct ts_shaper *sh, struct ts_err *err);

/*
 * ts_shaper_run - the real loop over ts_shaper_turn and ts_shaper_policy:
 * epoll over the queues, a signalfd (@sigfd, SIGINT/SIGTERM/SIGHUP/SIGCHLD
 * already blocked by the caller) and one absolute timerfd at the earliest
 * deadline. With a child, SIGINT/SIGTERM/SIGHUP sent to tasshape are
 * forwarded to it (a terminal's own Ctrl-C already reached it); a third
 * one kills it. Returns the reason (>= 0) or a negative errno with @err set.
 */
int ts_shaper_run(struct ts_shaper *sh, int sigfd, pid_t child, ts_ns_t duration,
		  struct ts_err *err);

/*
 * ts_shaper_finish - after the loop (and the drain): every packet still held by the
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

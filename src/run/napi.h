/* SPDX-License-Identifier: MIT */
/*
 * The kernel threads that run a link's NAPI (threaded NAPI, named
 * "napi/LINK-ID" by the kernel), given real-time priority. A guest in
 * virtual time hands the shaper's deliveries to such threads (net/topo.h,
 * ts_topo_defer_rx); as normal tasks they would wait behind every process
 * the run starts, their link's ring of 256 packets would fill, and the
 * packets beyond would be lost outside the model. One priority below the
 * loop, they run as soon as the loop sleeps, as the softirq work they
 * replace would.
 */
#ifndef TS_RUN_NAPI_H
#define TS_RUN_NAPI_H

#include <stdbool.h>
#include <stddef.h>

#include "tasshape/err.h"

enum { TS_NAPI_UP = 1, TS_NAPI_DOWN = 2 };

/*
 * ts_napi_dirs - which directions' deliveries a guest in virtual time hands
 * to NAPI threads (TS_NAPI_* bits), for a link with --gso (@gso), a Wi-Fi
 * MAC (@wifi6) and a downlink network hook (@down_hook). The downlink with
 * --gso or a Wi-Fi MAC: the station's work (the ACKs of an access point's
 * A-MPDU, each running the station's TCP) leaves the verdict call. The
 * uplink behind a Wi-Fi MAC: the server gets GRO as a real receiver has
 * it, so the packets released before its thread runs (an A-MPDU's, when no
 * slower wire spaces them) are merged and ACKed once; with --gso too,
 * though its units are cut at the veth and merged again, because the
 * station's A-MPDU is released in one call at its BlockAck and its
 * receivers' work in that call delayed the access point's deliveries due
 * meanwhile (docs/kernels.md, "The paper's Wi-Fi regime"). Pure.
 */
unsigned int ts_napi_dirs(bool gso, bool wifi6, bool down_hook);

/* ts_napi_label - "up", "down", "both" or "" for TS_NAPI_* bits @dirs. Pure. */
const char *ts_napi_label(unsigned int dirs);

/*
 * ts_napi_thread_of - whether a task with command name @comm (as in
 * /proc/PID/comm, without the newline; the kernel cuts it to 15 bytes)
 * and flags @flags (/proc/PID/stat's ninth field) is the NAPI thread of
 * link @dev: a kernel thread (PF_KTHREAD; a process may name itself
 * anything) named "napi/DEV-" and the id, as far as 15 bytes hold. Pure.
 */
int ts_napi_thread_of(const char *comm, unsigned long flags, const char *dev);

/*
 * ts_napi_rt - SCHED_FIFO @prio for the NAPI threads of the links in
 * @devs (@n names). Returns how many threads it changed, or a negative
 * errno (reading /proc, or sched_setscheduler refused) with @why set.
 */
int ts_napi_rt(const char *const *devs, size_t n, int prio, struct ts_err *why);

#endif

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

#include <stddef.h>

#include "tasshape/err.h"

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

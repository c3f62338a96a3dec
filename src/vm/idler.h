/* SPDX-License-Identifier: MIT */
/*
 * A sealed guest's CPU kept out of idle while CMD runs (docs/kernels.md,
 * "What breaks determinism").
 *
 * In virtual time QEMU (7.2, and upstream since) jumps the guest's clock to
 * its next timer when every vCPU has halted. The jump is computed by QEMU's
 * main-loop thread from the clock as the vCPU thread last published it, and
 * the vCPU thread publishes the instructions of its current stretch only
 * after it has left the guest: when the main loop looks in the few
 * microseconds between the guest's HLT and that accounting, the clock
 * overshoots the timer by the stretch's unaccounted instructions (11 ns in
 * one measured case), and every event after it moves. How often the main
 * loop looks then depends on the host's scheduling, so one boot in several
 * differed, more often on a loaded host.
 *
 * A vCPU that never halts never jumps: a SCHED_IDLE process at nice 19
 * takes the time the guest would idle, executing instructions that advance
 * the clock by one nanosecond each as idle time would have. Any other task
 * preempts it at once on wake-up; it costs wall time (about 0.6 s per
 * second of guest idle time under TCG here), not guest time. Its CPU time
 * is idle time to run/cpustat.h, which finds it by TS_AWAKE_VCLOCK_IDLER.
 */
#ifndef TS_VM_IDLER_H
#define TS_VM_IDLER_H

#include <sys/types.h>

/*
 * ts_vm_idler_start - fork the idler and write its PID to
 * TS_AWAKE_VCLOCK_IDLER. Returns its PID, or a negative errno (the guest
 * then halts when idle, as before: a run still completes, its bytes may
 * differ from another boot's). Ended with the rest of the guest's processes.
 */
pid_t ts_vm_idler_start(void);

#endif

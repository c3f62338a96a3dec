/* SPDX-License-Identifier: MIT */
/*
 * How idle the CPUs were over a run, from /proc/stat. In virtual time
 * (a guest under QEMU's -icount, src/vm/) the guest's CPU executes 1e9
 * instructions per second of its clock whatever the host does (idle time
 * passes in the guest's clock but costs no wall time): a run whose CPU was
 * never idle was paced by that budget
 * (the senders could not send faster), not by the emulated link, though
 * the shaper may have kept its timing. The share measured here goes into
 * the summary, beside the fell-behind rule's verdict (run/fidelity.h),
 * which a saturated guest's release timing meets in the runs measured
 * (docs/benchmarks.md, "Virtual time").
 */
#ifndef TS_RUN_CPUSTAT_H
#define TS_RUN_CPUSTAT_H

#include <stdint.h>

struct ts_cpustat {
	uint64_t idle;	/* idle + iowait, in USER_HZ ticks, all CPUs */
	uint64_t total; /* user + nice + system + idle + iowait + irq + softirq + steal */
	uint64_t steal; /* time a hypervisor ran something else on this machine's CPUs */
};

/*
 * ts_cpustat_parse - the aggregate "cpu " line of /proc/stat in @text
 * (NUL-terminated; the first line). Returns 0, or -EINVAL when it is not
 * there or has fewer than the 8 fields above. Guest time is counted in user
 * and nice already, so it is not added again. Pure.
 */
int ts_cpustat_parse(const char *text, struct ts_cpustat *c);

/*
 * ts_cpustat_pid_ticks - utime + stime (fields 14 and 15) of a process's
 * /proc/PID/stat line @text, in USER_HZ ticks as /proc/stat counts. The
 * command name (field 2) may hold spaces and parentheses: the fields are
 * counted from its last ')'. Returns 0, or -EINVAL. Pure.
 */
int ts_cpustat_pid_ticks(const char *text, uint64_t *ticks);

/*
 * ts_cpustat_read - /proc/stat now. In a sealed guest the idler's CPU time
 * (TS_AWAKE_VCLOCK_IDLER, vm/idler.h), counted by /proc/stat as nice time,
 * is idle time: it runs only when the guest would have halted. Returns 0 or
 * a negative errno.
 */
int ts_cpustat_read(struct ts_cpustat *c);

/*
 * ts_cpustat_idle_permille - the idle share of the interval from @a to @b,
 * in permille (rounded down), or -1 when no tick passed (nothing to judge)
 * or the counters went backwards. Idle up to 2% above the total is all idle
 * (an idler's precise ticks against /proc/stat's sampled ones). Pure.
 */
int ts_cpustat_idle_permille(const struct ts_cpustat *a, const struct ts_cpustat *b);

/*
 * ts_cpustat_steal_ms - the steal time from @a to @b in milliseconds, at @hz
 * ticks per second (sysconf(_SC_CLK_TCK)), or -1 when the counter went
 * backwards or @hz is not positive. A virtual machine's hypervisor takes a
 * CPU back for tens of milliseconds at a time, and a real-time loop on it
 * stops meanwhile: the run summary says how much it took (run_summary.h).
 * Pure.
 */
int64_t ts_cpustat_steal_ms(const struct ts_cpustat *a, const struct ts_cpustat *b, long hz);

#endif

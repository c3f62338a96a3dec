/* SPDX-License-Identifier: MIT */
/*
 * One CPU for the loop, the deliveries on the others. A verdict call also
 * delivers its packets: the kernel forwards each one across a veth whose
 * backlog it drains on the calling CPU, which runs the receiver's TCP and
 * wakes the receiving process inside the shaper's thread (docs/experiments.md,
 * "What the release error measures"). At 100 Mbit/s with 8 CUBIC flows
 * each way that took the loop to 89-93% of one CPU, and a real-time thread
 * that leaves less than 5% of its CPU to the CPU's normal tasks is stopped
 * by the kernel for about 50 ms (its fair server, or real-time throttling
 * before Linux 6.12): release p99 of 47-48 ms. With the loop pinned to one
 * CPU and the two veths that deliver (the inner and the outer end) steering
 * their receive work to the other CPUs by RPS, the loop's work was 76% and
 * its p99 147-161 us in three runs of three (docs/benchmarks.md, "One CPU
 * for the loop").
 *
 * This file only chooses: the loop's CPU is the highest one the process
 * may use (or the one --shaper-cpu names), the others take the deliveries;
 * with fewer than two CPUs nothing is pinned. Two runs side by side would
 * both take the highest: the option is how a user gives them different ones
 * (and exp's rtt_fair gives its four far-side wrappers "off"). run/rt.c
 * applies it with the real-time priority (a pinned SCHED_OTHER thread
 * could not escape a busy CPU), net/topo.c writes the mask to the veths.
 * Only the two ends that deliver to a receiver steer: a release of the
 * sender stages (--uplink-at sender, the Wi-Fi station) goes on to the link
 * namespace's hook inside the verdict call, as before, which is light work.
 *
 * Pure: tests/unit/test_cpupin.c.
 */
#ifndef TS_RUN_CPUPIN_H
#define TS_RUN_CPUPIN_H

#include <sched.h>
#include <stddef.h>

/*
 * ts_cpupin_choose - the CPU for the loop out of @allowed: @want, or the
 * highest when @want is negative (--shaper-cpu auto); in @others every
 * other CPU of @allowed. Returns the CPU, -ERANGE when @allowed holds fewer
 * than two CPUs, or -ENOENT when @want is not in @allowed (@others is then
 * empty).
 */
int ts_cpupin_choose(const cpu_set_t *allowed, int want, cpu_set_t *others);

/*
 * ts_cpumask_hex - @set as the kernel's bitmap text for rps_cpus: 32-bit
 * groups in hex, highest first, separated by commas, leading zero groups
 * left out ("2", "1,00000000"). Returns the length, or -ENOSPC when @len is
 * too small (@buf then holds "").
 */
int ts_cpumask_hex(const cpu_set_t *set, char *buf, size_t len);

/* The longest ts_cpumask_hex text, with its NUL: 8 digits and a comma per 32 CPUs. */
#define TS_CPUMASK_HEX_MAX (CPU_SETSIZE / 32 * 9)

/*
 * ts_cpulist - @set as a CPU list for people, as taskset -c and
 * /proc/PID/status's Cpus_allowed_list write it ("0", "0-3,6"; "" when
 * empty). Returns the length, or -ENOSPC when @len is too small (@buf "").
 */
int ts_cpulist(const cpu_set_t *set, char *buf, size_t len);

#endif

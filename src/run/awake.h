/* SPDX-License-Identifier: MIT */
/*
 * Keeping the CPUs out of idle while the shaper runs. A release is sent
 * by a wake-up, and a wake-up is only as quick as the CPU that takes it:
 * a CPU in a deep C-state needs tens to hundreds of microseconds to come
 * back, and a virtual machine's CPU that idles with HLT leaves the guest
 * until the host schedules it again. Measured on the 2-core virtual
 * machine of docs/benchmarks.md (no cpuidle driver, so idle is HLT):
 * `exp run` at 20 Mbit/s with the shaper SCHED_FIFO had release p99
 * 203-852 us on an idle host and 135-262 us with both CPUs busy; with two
 * SCHED_IDLE polling threads instead of the busy loops, 150-223 us.
 *
 * Two ways, as real-time tools do it:
 *   pm_qos  where a cpuidle driver manages the idle states, a CPU latency
 *           request of 0 us on /dev/cpu_dma_latency (the kernel's PM QoS
 *           interface, which cyclictest uses) keeps every CPU in its
 *           polling state, for as long as the file stays open;
 *   poll    without one (default_idle: HLT), one SCHED_IDLE thread per
 *           CPU the process may use, spinning: the lowest class there
 *           is, which every other task preempts at once, so it takes
 *           only time nobody wants and never delays or starves anything;
 *           what it costs is power, for the length of the run.
 * Asked with the real-time shaper (--rt-priority), off with
 * --rt-priority off; what was in force goes to the summary and manifest.
 */
#ifndef TS_RUN_AWAKE_H
#define TS_RUN_AWAKE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define TS_AWAKE_MAX_THREADS 256

/*
 * On the kernel command line of a guest in virtual time (src/vm/vm.c): its
 * clock counts instructions and jumps over idle time, so a wake-up is never
 * late there, and the host's ways below are off in such a guest.
 */
#define TS_AWAKE_VCLOCK_PARAM "tasshape.clock=virtual"

/*
 * In a sealed guest, the PID of the process that keeps its CPU out of idle
 * while CMD runs (src/vm/idler.h: QEMU's jump over idle time races with its
 * own accounting). Its CPU time is the guest's idle time (run/cpustat.h).
 */
#define TS_AWAKE_VCLOCK_IDLER "/run/tasshape-idler.pid"

enum ts_awake_mode {
	TS_AWAKE_OFF = 0, /* not asked, or neither way was possible (note says why) */
	TS_AWAKE_PM_QOS,  /* /dev/cpu_dma_latency held at 0 */
	TS_AWAKE_POLL,	  /* SCHED_IDLE polling threads */
};

struct ts_awake {
	enum ts_awake_mode mode;
	int qos_fd; /* -1 when not held */
	int nthreads;
	atomic_bool stop;
	pthread_t *threads; /* allocated once at start, not on the packet path */
	char note[160];	    /* why it is off although asked; "" otherwise */
};

/*
 * ts_awake_choose - the way for a host whose cpuidle driver is @driver
 * (the contents of /sys/devices/system/cpu/cpuidle/current_driver without
 * the newline; NULL when the file does not exist). Pure.
 */
enum ts_awake_mode ts_awake_choose(const char *driver);

/* Is TS_AWAKE_VCLOCK_PARAM a word of the kernel command line @cmdline? Pure. */
bool ts_awake_vclock(const char *cmdline);

/* Whether this kernel runs in virtual time (a tasshape guest under -icount): /proc/cmdline. */
bool ts_awake_in_vclock(void);

/* ts_awake_choose for this host's cpuidle driver (`tasshape doctor`); off in virtual time. */
enum ts_awake_mode ts_awake_host(void);

/* "off", "pm_qos" or "poll". */
const char *ts_awake_mode_name(enum ts_awake_mode m);

/* Nothing in force. */
void ts_awake_init(struct ts_awake *a);

/*
 * ts_awake_start - keep the CPUs awake the way ts_awake_choose picks for
 * this host. Never fails the run: on a refusal a->mode is TS_AWAKE_OFF and
 * a->note says why. Returns 0 or the first negative errno.
 */
int ts_awake_start(struct ts_awake *a);

/* Let the CPUs idle again; a->mode keeps saying what was in force. */
void ts_awake_stop(struct ts_awake *a);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * host_watch - how much CPU the host took from this machine while a timed
 * integration test ran (tests/integration/timed.sh, docs/reliability.md,
 * "Host stalls in CI").
 *
 * One thread per online CPU (at most TS_HW_MAX_CPUS), pinned to it and
 * SCHED_FIFO 1 when allowed: above every normal task, so the test's own load
 * (iperf3, busy loops) cannot delay it, and below the shaper's real-time loop
 * (SCHED_FIFO 10), which it never preempts. Each wakes every millisecond at an
 * absolute deadline and records how late it woke. Nothing else the tests run
 * is real-time and nothing holds a CPU with interrupts off for milliseconds,
 * so a wake-up 10 ms late means the CPU itself did not run: the hypervisor
 * gave the virtual CPU to someone else. The steal time of /proc/stat (which a
 * hypervisor reports) is read at the start and at the end as a second witness.
 *
 * On SIGTERM or SIGINT (also sent when its parent dies: a wrapper that ctest
 * killed at its timeout) it prints one JSON line and exits 0:
 *   {"cpus":2,"fifo":true,"seconds":12.345,"max_late_us":812,
 *    "worst_at_s":3.210,"stalls":1,"stalled_ms":95.1,"steal_ms":120}
 * stalls: wake-ups late by TS_HW_STALL_NS or more; stalled_ms: their
 * lateness summed; worst_at_s: when the latest wake-up was due, from start.
 * Exit 2 on a usage or setup error.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "run/cpustat.h"

#define TS_HW_MAX_CPUS	64
#define TS_HW_PERIOD_NS 1000000LL
#define TS_HW_STALL_NS	10000000LL

struct hw_cpu {
	pthread_t thread;
	int cpu;
	int64_t max_late_ns;
	int64_t worst_at_ns; /* deadline of the latest wake-up, from start */
	long stalls;
	int64_t stalled_ns;
};

static atomic_bool hw_stop;
static int64_t hw_start_ns;

static int64_t hw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *hw_watch(void *arg)
{
	struct hw_cpu *c = arg;
	int64_t next = hw_now();

	while (!atomic_load(&hw_stop)) {
		struct timespec ts;
		int64_t late;

		next += TS_HW_PERIOD_NS;
		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		late = hw_now() - next;
		if (late > c->max_late_ns) {
			c->max_late_ns = late;
			c->worst_at_ns = next - hw_start_ns;
		}
		if (late >= TS_HW_STALL_NS) {
			c->stalls++;
			c->stalled_ns += late;
		}
		/* Once late by a period, start again from now: one stall is one
		 * late wake-up, not a burst of make-up ones. */
		if (late >= TS_HW_PERIOD_NS)
			next += late - late % TS_HW_PERIOD_NS;
	}
	return NULL;
}

/* The host-wide steal time in milliseconds (run/cpustat.h), or -1 if /proc/stat has none. */
static long long hw_steal_ms(void)
{
	static const struct ts_cpustat zero;
	struct ts_cpustat c;

	if (ts_cpustat_read(&c) < 0)
		return -1;
	return (long long)ts_cpustat_steal_ms(&zero, &c, sysconf(_SC_CLK_TCK));
}

/* Starts one watcher per CPU this process may run on; returns how many. */
static int hw_start(struct hw_cpu *cpus, bool *fifo)
{
	cpu_set_t allowed;
	int n = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return -errno;
	*fifo = true;
	for (int cpu = 0; cpu < CPU_SETSIZE && n < TS_HW_MAX_CPUS; cpu++) {
		struct sched_param sp = {.sched_priority = 1};
		pthread_attr_t a;
		cpu_set_t one;
		int rc;

		if (!CPU_ISSET(cpu, &allowed))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pthread_attr_init(&a);
		pthread_attr_setaffinity_np(&a, sizeof(one), &one);
		pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&a, SCHED_FIFO);
		pthread_attr_setschedparam(&a, &sp);
		cpus[n].cpu = cpu;
		rc = pthread_create(&cpus[n].thread, &a, hw_watch, &cpus[n]);
		if (rc == EPERM) { /* no real-time rights: watch at normal priority */
			*fifo = false;
			pthread_attr_setinheritsched(&a, PTHREAD_INHERIT_SCHED);
			rc = pthread_create(&cpus[n].thread, &a, hw_watch, &cpus[n]);
		}
		pthread_attr_destroy(&a);
		if (rc != 0)
			return -rc;
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	struct hw_cpu cpus[TS_HW_MAX_CPUS];
	struct hw_cpu sum = {0};
	long long steal0, steal1;
	sigset_t set;
	bool fifo = false;
	int n, sig;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: host_watch (prints a JSON line on SIGTERM)\n");
		return 2;
	}
	memset(cpus, 0, sizeof(cpus));
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* the threads inherit the mask */
	/* A wrapper killed at ctest's timeout never sends SIGTERM: its death does. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() == 1)
		return 2;
	hw_start_ns = hw_now();
	steal0 = hw_steal_ms();
	n = hw_start(cpus, &fifo);
	if (n <= 0) {
		fprintf(stderr, "host_watch: cannot start a watcher: %s\n", strerror(-n));
		atomic_store(&hw_stop, true);
		return 2;
	}
	sigwait(&set, &sig);
	atomic_store(&hw_stop, true);
	for (int i = 0; i < n; i++) {
		pthread_join(cpus[i].thread, NULL);
		if (cpus[i].max_late_ns > sum.max_late_ns) {
			sum.max_late_ns = cpus[i].max_late_ns;
			sum.worst_at_ns = cpus[i].worst_at_ns;
		}
		sum.stalls += cpus[i].stalls;
		sum.stalled_ns += cpus[i].stalled_ns;
	}
	steal1 = hw_steal_ms();
	printf("{\"cpus\":%d,\"fifo\":%s,\"seconds\":%.3f,\"max_late_us\":%lld,"
	       "\"worst_at_s\":%.3f,\"stalls\":%ld,\"stalled_ms\":%.1f,\"steal_ms\":%lld}\n",
	       n, fifo ? "true" : "false", (double)(hw_now() - hw_start_ns) / 1e9,
	       (long long)(sum.max_late_ns / 1000), (double)sum.worst_at_ns / 1e9, sum.stalls,
	       (double)sum.stalled_ns / 1e6, steal0 < 0 || steal1 < 0 ? -1 : steal1 - steal0);
	return 0;
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/awake.h"

#define CPUIDLE_DRIVER "/sys/devices/system/cpu/cpuidle/current_driver"
#define PM_QOS_PATH    "/dev/cpu_dma_latency"

enum ts_awake_mode ts_awake_choose(const char *driver)
{
	/*
	 * "none" (CONFIG_CPU_IDLE without a driver, as in most virtual
	 * machines) and no file at all both mean default_idle, which no PM QoS
	 * request changes: only something runnable keeps the CPU from HLT.
	 */
	if (!driver || !driver[0] || !strcmp(driver, "none"))
		return TS_AWAKE_POLL;
	return TS_AWAKE_PM_QOS;
}

const char *ts_awake_mode_name(enum ts_awake_mode m)
{
	switch (m) {
	case TS_AWAKE_PM_QOS:
		return "pm_qos";
	case TS_AWAKE_POLL:
		return "poll";
	default:
		return "off";
	}
}

void ts_awake_init(struct ts_awake *a)
{
	memset(a, 0, sizeof(*a));
	a->qos_fd = -1;
	atomic_init(&a->stop, false);
}

/* The cpuidle driver's name into @buf, or NULL when the file cannot be read. */
static const char *cpuidle_driver(char *buf, size_t len)
{
	const char *ret = NULL;
	FILE *f = fopen(CPUIDLE_DRIVER, "re");

	if (!f)
		return NULL;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = buf;
	}
	fclose(f);
	return ret;
}

/* The spin-wait hint: gives the core's resources to its sibling thread, and saves power. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

bool ts_awake_vclock(const char *cmdline)
{
	size_t n = strlen(TS_AWAKE_VCLOCK_PARAM);
	const char *p;

	for (p = cmdline; (p = strstr(p, TS_AWAKE_VCLOCK_PARAM)); p += n)
		if ((p == cmdline || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return true;
	return false;
}

bool ts_awake_in_vclock(void)
{
	char buf[4096];
	bool ret = false;
	FILE *f = fopen("/proc/cmdline", "re");

	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f))
		ret = ts_awake_vclock(buf);
	fclose(f);
	return ret;
}

enum ts_awake_mode ts_awake_host(void)
{
	char buf[64];

	if (ts_awake_in_vclock())
		return TS_AWAKE_OFF;
	return ts_awake_choose(cpuidle_driver(buf, sizeof(buf)));
}

struct poller {
	struct ts_awake *a;
	int cpu;
};

static void *poll_cpu(void *arg)
{
	struct poller p = *(struct poller *)arg;
	struct sched_param sp = {.sched_priority = 0};
	cpu_set_t set;

	free(arg);
	/* First leave whatever class the creator had: a polling thread above SCHED_IDLE would
	 * take CPU time from real work. */
	if (sched_setscheduler(0, SCHED_IDLE, &sp) < 0)
		return NULL;
	CPU_ZERO(&set);
	CPU_SET(p.cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!atomic_load_explicit(&p.a->stop, memory_order_relaxed))
		cpu_relax();
	return NULL;
}

static int start_pollers(struct ts_awake *a)
{
	cpu_set_t set;
	pthread_attr_t attr;
	int cpu, ret = 0;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return -errno;
	a->threads = calloc(TS_AWAKE_MAX_THREADS, sizeof(*a->threads));
	if (!a->threads)
		return -ENOMEM;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (cpu = 0; cpu < CPU_SETSIZE && a->nthreads < TS_AWAKE_MAX_THREADS; cpu++) {
		struct poller *p;
		int err;

		if (!CPU_ISSET(cpu, &set))
			continue;
		p = malloc(sizeof(*p));
		if (!p) {
			ret = -ENOMEM;
			break;
		}
		p->a = a;
		p->cpu = cpu;
		err = pthread_create(&a->threads[a->nthreads], &attr, poll_cpu, p);
		if (err) {
			free(p);
			ret = -err;
			break;
		}
		a->nthreads++;
	}
	pthread_attr_destroy(&attr);
	return ret;
}

int ts_awake_start(struct ts_awake *a)
{
	int32_t zero = 0;
	int ret = 0;

	a->mode = ts_awake_host();
	if (a->mode == TS_AWAKE_OFF) {
		snprintf(a->note, sizeof(a->note), "not needed: a guest in virtual time");
		return 0;
	}
	if (a->mode == TS_AWAKE_PM_QOS) {
		a->qos_fd = open(PM_QOS_PATH, O_WRONLY | O_CLOEXEC);
		if (a->qos_fd < 0 || write(a->qos_fd, &zero, sizeof(zero)) != sizeof(zero)) {
			ret = -errno;
			snprintf(a->note, sizeof(a->note), "%s: %s", PM_QOS_PATH, strerror(errno));
			if (a->qos_fd >= 0)
				close(a->qos_fd);
			a->qos_fd = -1;
			a->mode = TS_AWAKE_OFF;
		}
		return ret;
	}
	ret = start_pollers(a);
	if (ret < 0) {
		snprintf(a->note, sizeof(a->note), "polling threads: %s", strerror(-ret));
		ts_awake_stop(a);
		a->mode = TS_AWAKE_OFF;
	}
	return ret;
}

void ts_awake_stop(struct ts_awake *a)
{
	int i;

	atomic_store(&a->stop, true);
	for (i = 0; i < a->nthreads; i++)
		pthread_join(a->threads[i], NULL);
	a->nthreads = 0;
	free(a->threads);
	a->threads = NULL;
	if (a->qos_fd >= 0)
		close(a->qos_fd); /* the request ends with the file */
	a->qos_fd = -1;
}

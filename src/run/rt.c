/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "io/json.h"
#include "run/cpupin.h"
#include "run/rt.h"

#define RT_RUNTIME_PATH "/proc/sys/kernel/sched_rt_runtime_us"

void ts_rt_init(struct ts_rt *rt, int want)
{
	memset(rt, 0, sizeof(*rt));
	rt->want = want;
	rt->pin = TS_SHAPER_CPU_OFF;
	rt->cpu = -1;
	ts_awake_init(&rt->awake);
}

long ts_rt_budget(void)
{
	char buf[32], *end;
	FILE *f = fopen(RT_RUNTIME_PATH, "re");
	long v = -ENOENT;

	if (!f)
		return -ENOENT;
	if (fgets(buf, sizeof(buf), f)) {
		errno = 0;
		v = strtol(buf, &end, 10);
		if (errno || end == buf || (*end && *end != '\n') || v < -1)
			v = -ENOENT;
	}
	fclose(f);
	return v;
}

/* RLIMIT_MEMLOCK for the note: what mlockall ran into without CAP_IPC_LOCK. */
static void memlock_limit(char *buf, size_t len)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%" PRIu64 " KiB", (uint64_t)rl.rlim_cur / 1024);
}

/*
 * The real-time loop to one CPU, so that the veths can take the deliveries
 * elsewhere (run/cpupin.h). Only the calling thread: CMD and the servers
 * were started before and keep every CPU. Not pinned is no failure: the
 * loop then runs as it did before, on any CPU.
 */
static void pin(struct ts_rt *rt)
{
	cpu_set_t allowed, one;
	char list[160];
	int cpu;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0) {
		snprintf(rt->rps_note, sizeof(rt->rps_note), "sched_getaffinity: %s",
			 strerror(errno));
		return;
	}
	cpu = ts_cpupin_choose(&allowed, rt->pin, &rt->others);
	if (cpu < 0 && ts_cpulist(&allowed, list, sizeof(list)) < 0)
		snprintf(list, sizeof(list), "%d CPUs", CPU_COUNT(&allowed));
	if (cpu == -ENOENT)
		snprintf(rt->rps_note, sizeof(rt->rps_note),
			 "--shaper-cpu %d is not among the CPUs tasshape may use (%s)", rt->pin,
			 list);
	else if (cpu == -ERANGE && rt->pin >= 0) /* auto on one CPU: nothing to say */
		snprintf(rt->rps_note, sizeof(rt->rps_note),
			 "--shaper-cpu %d: tasshape may use one CPU only (%s)", rt->pin, list);
	if (cpu < 0)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0) {
		snprintf(rt->rps_note, sizeof(rt->rps_note), "sched_setaffinity: %s",
			 strerror(errno));
		CPU_ZERO(&rt->others);
		return;
	}
	rt->old_cpus = allowed;
	rt->cpu = cpu;
}

/* The thread back on the CPUs it had before pin(); rt->cpu still says where it ran. */
static void restore_cpus(const struct ts_rt *rt)
{
	if (rt->cpu >= 0)
		sched_setaffinity(0, sizeof(rt->old_cpus), &rt->old_cpus);
}

void ts_rt_unpin(struct ts_rt *rt)
{
	restore_cpus(rt);
	rt->cpu = -1;
	CPU_ZERO(&rt->others);
}

/*
 * Why SCHED_FIFO was refused (@ret, a negative errno), into rt->note.
 * Without CAP_SYS_NICE (a rootless run, docs/rootless.md) RLIMIT_RTPRIO is
 * the limit; fifo_enter asked within it, so it is named when it is 0.
 */
static void fifo_refused(struct ts_rt *rt, int ret)
{
	struct rlimit rl;

	/* fifo_enter asked within a limit above 0: only a limit of 0 is the limit's doing. */
	if (ret == -EPERM && getrlimit(RLIMIT_RTPRIO, &rl) == 0 && rl.rlim_cur == 0)
		snprintf(rt->note, sizeof(rt->note),
			 "SCHED_FIFO %d refused: %s (no CAP_SYS_NICE, and RLIMIT_RTPRIO is %llu: "
			 "limits.conf's rtprio)",
			 rt->want, strerror(-ret), (unsigned long long)rl.rlim_cur);
	else
		snprintf(rt->note, sizeof(rt->note), "SCHED_FIFO %d refused: %s%s", rt->want,
			 strerror(-ret),
			 ret == -EPERM ? " (no CAP_SYS_NICE, or no real-time budget in this "
					 "cgroup: cpu.rt_runtime_us)"
				       : "");
}

int ts_rt_within(int want, unsigned long long rtprio)
{
	if (want <= 0)
		return 0;
	return rtprio >= (unsigned long long)want ? want : (int)rtprio;
}

/*
 * SCHED_FIFO at rt->want, or, refused without CAP_SYS_NICE, at the highest
 * priority RLIMIT_RTPRIO allows: a user granted `rtprio 5` asks for 5 and
 * gets it, rather than asking for 10 and running with normal scheduling.
 * rt->prio is what is in force. 0 or a negative errno (rt->note says why).
 */
static int fifo_enter(struct ts_rt *rt)
{
	struct sched_param sp = {.sched_priority = rt->want};
	struct rlimit rl;
	int ret;

	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0) {
		rt->prio = rt->want;
		return 0;
	}
	ret = -errno;
	if (ret == -EPERM && getrlimit(RLIMIT_RTPRIO, &rl) == 0) {
		sp.sched_priority = ts_rt_within(rt->want, rl.rlim_cur);
		if (sp.sched_priority > 0 && sp.sched_priority < rt->want &&
		    sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0) {
			rt->prio = sp.sched_priority;
			return 0;
		}
	}
	fifo_refused(rt, ret);
	return ret;
}

int ts_rt_enter(struct ts_rt *rt)
{
	char lim[32];
	int ret = 0;

	rt->entered = true;
	if (!rt->want)
		return 0;
	/* Before the priority: its threads are then created as SCHED_OTHER and drop to SCHED_IDLE. */
	ts_awake_start(&rt->awake);
	rt->old_policy = sched_getscheduler(0);
	if (rt->old_policy < 0 || sched_getparam(0, &rt->old_param) < 0) {
		ret = -errno;
		snprintf(rt->note, sizeof(rt->note), "sched_getscheduler: %s", strerror(errno));
		return ret;
	}
	/*
	 * Without group scheduling the kernel accepts SCHED_FIFO at a zero
	 * budget and then never runs the task: ask first rather than hang.
	 */
	if (ts_rt_budget() == 0) {
		snprintf(rt->note, sizeof(rt->note),
			 "kernel.sched_rt_runtime_us is 0: real-time tasks get no CPU time");
		return -EPERM;
	}
	ret = fifo_enter(rt);
	if (ret < 0)
		return ret;
	if (rt->pin != TS_SHAPER_CPU_OFF)
		pin(rt);
	/*
	 * MCL_CURRENT faults in the descriptor pool (64 bytes each: 12 MiB at
	 * the default 196,608) and the NFQUEUE buffers once, before the first
	 * packet, rather than on the packet path; MCL_FUTURE keeps later
	 * mappings (captures, logs) resident too. Children do not inherit it.
	 */
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0) {
		ret = -errno;
		memlock_limit(lim, sizeof(lim));
		snprintf(rt->note, sizeof(rt->note),
			 "memory not locked: mlockall: %s (RLIMIT_MEMLOCK %s, no CAP_IPC_LOCK?)",
			 strerror(errno), lim);
		return ret;
	}
	rt->locked = true;
	return 0;
}

void ts_rt_leave(struct ts_rt *rt)
{
	if (rt->left)
		return;
	rt->left = true;
	ts_awake_stop(&rt->awake);
	if (rt->locked)
		munlockall();
	if (rt->prio)
		sched_setscheduler(0, rt->old_policy, &rt->old_param);
	restore_cpus(rt); /* rt->cpu and rt->others still say how the run went */
}

int ts_rt_probe(struct ts_err *why)
{
	struct ts_rt rt;
	int ret;

	ts_rt_init(&rt, TS_RT_PRIO_DEFAULT);
	ret = ts_rt_enter(&rt);
	ts_rt_leave(&rt);
	ts_err_set(why, "%s", rt.note);
	return ret < 0 ? ret : rt.prio;
}

void ts_rt_describe(const struct ts_rt *rt, char *buf, size_t len)
{
	char pinned[32], list[160], steer[sizeof(rt->napi) + sizeof(rt->napi_note) + 40] = "";
	char below[64] = "";

	if (rt->cpu >= 0)
		snprintf(pinned, sizeof(pinned), "on CPU %d", rt->cpu);
	else
		snprintf(pinned, sizeof(pinned), "on any CPU");
	if (rt->rps_cpus[0] && ts_cpulist(&rt->others, list, sizeof(list)) >= 0)
		snprintf(steer, sizeof(steer), ", deliveries on CPU %s", list);
	else if (rt->rps_note[0])
		snprintf(steer, sizeof(steer), ", deliveries not steered: %s", rt->rps_note);
	else if (rt->napi[0])
		snprintf(steer, sizeof(steer), ", deliveries in a NAPI thread (%s)%s%s", rt->napi,
			 rt->napi_note[0] ? ": " : "", rt->napi_note);
	else if (rt->napi_note[0])
		snprintf(steer, sizeof(steer), ", deliveries in the loop: %s", rt->napi_note);
	if (rt->prio && rt->prio < rt->want)
		snprintf(below, sizeof(below), " (asked %d: RLIMIT_RTPRIO allows %d)", rt->want,
			 rt->prio);
	if (!rt->want)
		snprintf(buf, len, "normal (--rt-priority off)");
	else if (rt->prio)
		snprintf(buf, len, "SCHED_FIFO %d%s, memory %s, %s%s, CPUs kept awake: %s%s%s",
			 rt->prio, below, rt->locked ? "locked" : "not locked", pinned, steer,
			 ts_awake_mode_name(rt->awake.mode), rt->awake.note[0] ? ": " : "",
			 rt->awake.note);
	else
		snprintf(buf, len, "normal: %s", rt->note);
}

struct json_object *ts_rt_json(const struct ts_rt *rt, bool *nomem)
{
	struct json_object *o = json_object_new_object();

	if (!o) {
		*nomem = true;
		return NULL;
	}
	ts_json_put(o, "requested",
		    rt->want ? json_object_new_int(rt->want) : json_object_new_string("off"),
		    nomem);
	if (rt->entered) {
		ts_json_put(o, "policy",
			    json_object_new_string(rt->prio ? "SCHED_FIFO" : "SCHED_OTHER"), nomem);
		ts_json_put(o, "priority", json_object_new_int(rt->prio), nomem);
		ts_json_put(o, "memory_locked", json_object_new_boolean(rt->locked), nomem);
		/* "pm_qos", "poll" or "off" (run/awake.h), and why it is off when asked. */
		ts_json_put(o, "cpu_awake",
			    json_object_new_string(ts_awake_mode_name(rt->awake.mode)), nomem);
		if (rt->awake.note[0])
			ts_json_put(o, "cpu_awake_note", json_object_new_string(rt->awake.note),
				    nomem);
		/* run/cpupin.h: the loop's CPU (null: any), the veths' rps_cpus or why not. */
		if (rt->cpu >= 0)
			ts_json_put(o, "cpu", json_object_new_int(rt->cpu), nomem);
		else if (json_object_object_add(o, "cpu", NULL) < 0)
			*nomem = true;
		if (rt->rps_cpus[0])
			ts_json_put(o, "rps_cpus", json_object_new_string(rt->rps_cpus), nomem);
		else if (rt->rps_note[0])
			ts_json_put(o, "rps_note", json_object_new_string(rt->rps_note), nomem);
		/* One CPU in virtual time with --gso: the deliveries a NAPI thread runs, or why not. */
		if (rt->napi[0])
			ts_json_put(o, "napi_threads", json_object_new_string(rt->napi), nomem);
		if (rt->napi_note[0])
			ts_json_put(o, "napi_note", json_object_new_string(rt->napi_note), nomem);
	}
	if (rt->note[0])
		ts_json_put(o, "note", json_object_new_string(rt->note), nomem);
	else if (json_object_object_add(o, "note", NULL) < 0)
		*nomem = true;
	return o;
}

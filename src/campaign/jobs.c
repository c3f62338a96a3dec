/* SPDX-License-Identifier: MIT */
/*
 * exp run --jobs N: up to N runs at once on one host. Each run is carried
 * out by its own worker process, so it gets its own namespaces, links and
 * addresses (the executor names them after its process id), and the
 * worker is pinned, before it starts anything, to two CPUs no other job
 * uses: the shaper and the run's iperf3, irtt and ping inherit that. More
 * jobs than half the CPUs are refused (ts_campaign_check_jobs): a shaper
 * competing for its CPU releases packets late, and the link is no longer
 * the one asked. Runs in guests in virtual time take one CPU each (QEMU's
 * one vCPU thread): their results do not depend on the host's CPUs at all.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "campaign/driver.h"
#include "results/rundir.h"

#define CPUS_PER_JOB 2 /* the shaper, and the flows it shapes */

size_t ts_campaign_cpus(const struct ts_campaign *c, int *cpu, size_t max)
{
	cpu_set_t set;
	size_t n = 0;
	int k;

	if (c->o.cpus) {
		for (n = 0; n < c->o.ncpus && n < max; n++)
			cpu[n] = c->o.cpus[n];
		return n;
	}
	if (sched_getaffinity(0, sizeof(set), &set) < 0) {
		long on = sysconf(_SC_NPROCESSORS_ONLN);

		for (k = 0; k < on && n < max; k++)
			cpu[n++] = k;
		return n;
	}
	for (k = 0; k < CPU_SETSIZE && n < max; k++)
		if (CPU_ISSET(k, &set))
			cpu[n++] = k;
	return n;
}

int ts_campaign_check_jobs(unsigned jobs, unsigned per_job, size_t ncpus, struct ts_err *err)
{
	size_t per = per_job ? per_job : CPUS_PER_JOB;

	if (jobs <= 1 || jobs * per <= ncpus)
		return 0;
	if (per == 1)
		ts_err_set(err,
			   "--jobs %u: this host lets tasshape use %zu CPUs, one per guest in "
			   "virtual time: at most %zu jobs here",
			   jobs, ncpus, ncpus);
	else
		ts_err_set(
			err,
			"--jobs %u: this host lets tasshape use %zu CPUs, and each run needs %d "
			"of its own (the shaper, and the flows it shapes): at most %zu jobs here "
			"(runs in guests in virtual time, [kernel NAME] clock = virtual, need "
			"one). A shaper that competes for its CPU releases packets late and "
			"emulates another link than the one asked for",
			jobs, ncpus, CPUS_PER_JOB, ncpus / CPUS_PER_JOB);
	return -EINVAL;
}

struct slot {
	pid_t pid; /* 0: free */
	const struct ts_exp_run *run;
	size_t pos;
	ts_ns_t start; /* ts_campaign_now when the worker was started */
};

/* The worker: pinned to its CPUs, it carries @run out and exits 0, or 1 when it could not. */
static pid_t start_job(struct ts_campaign *c, const struct ts_exp_run *run, const int *cpu,
		       size_t slot)
{
	/* Not io/proc.h: the worker runs this process's code (the campaign), not a program. */
	pid_t pid = fork();

	if (pid == 0) {
		char result[4096];
		cpu_set_t set;
		size_t k;
		int rc;

		CPU_ZERO(&set);
		for (k = 0; k < c->per_job; k++)
			CPU_SET(cpu[slot * c->per_job + k], &set);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			rc = ts_campaign_fail(c, -errno,
					      "--jobs: cannot pin run %u to its CPUs: %s",
					      run->index, strerror(errno));
		else
			rc = ts_campaign_one_run(c, run, result, sizeof(result));
		/* The parent reports only that the run failed: the reason is said here. */
		if (rc && c->rep && c->rep->notice)
			c->rep->notice(c->rep->ctx, c->v->msg);
		fflush(NULL);
		_exit(rc ? 1 : 0);
	}
	return pid;
}

static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};
enum { NSTOP = sizeof(stop_sigs) / sizeof(stop_sigs[0]) };

/* The jobs under way: a slot per job, the runs started so far, the stop asked. */
struct pool {
	struct ts_campaign *c;
	struct slot *slots;
	unsigned jobs;
	int cpu[CPU_SETSIZE];
	size_t next;	/* the next run of the plan to look at */
	size_t pos;	/* runs started, for the progress report */
	size_t running; /* slots with a worker */
	size_t total;
	const volatile sig_atomic_t *stop;
	bool forwarded; /* the stop signal passed on to the workers */
};

/*
 * The stop signals interrupt waitpid (no SA_RESTART while the jobs run), so that they are
 * passed on to the jobs at once, not when the next job ends by itself. @saved: as they were.
 */
static void stop_interrupts(struct sigaction saved[NSTOP])
{
	size_t i;

	for (i = 0; i < NSTOP; i++) {
		struct sigaction sa;

		sigaction(stop_sigs[i], NULL, &saved[i]);
		sa = saved[i];
		sa.sa_flags &= ~SA_RESTART;
		if (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN)
			sigaction(stop_sigs[i], &sa, NULL);
	}
}

/* Fill the free slots, in run order, unless stopped; a fork that fails ends the filling. */
static int fill_slots(struct pool *p)
{
	const struct ts_exp_matrix *plan = p->c->plan;
	struct slot *s;
	size_t k;

	for (k = 0; k < p->jobs && !*p->stop; k++) {
		s = &p->slots[k];
		if (s->pid)
			continue;
		while (p->next < plan->nruns && !ts_campaign_selected(p->c, &plan->runs[p->next]))
			p->next++;
		if (p->next == plan->nruns)
			break;
		s->run = &plan->runs[p->next++];
		s->pos = ++p->pos;
		s->start = ts_campaign_now(p->c);
		s->pid = start_job(p->c, s->run, p->cpu, k);
		if (s->pid < 0) {
			s->pid = 0;
			return ts_campaign_fail(p->c, -errno, "--jobs: fork: %s", strerror(errno));
		}
		p->running++;
	}
	return 0;
}

/*
 * A signal sent to tasshape alone (kill PID, not a terminal's ^C to the group) must still
 * end the runs under way, guests included.
 */
static void forward_stop(struct pool *p)
{
	size_t k;

	for (k = 0; k < p->jobs; k++)
		if (p->slots[k].pid > 0)
			kill(p->slots[k].pid, (int)*p->stop);
	p->forwarded = true;
}

/* Worker @pid ended with @status: its slot freed, its run counted and reported. */
static int reap(struct pool *p, pid_t pid, int status)
{
	struct ts_campaign *c = p->c;
	struct slot *s;
	size_t k;
	int ret = 0;

	for (k = 0; k < p->jobs && p->slots[k].pid != pid; k++)
		;
	if (k == p->jobs)
		return 0; /* not one of the jobs */
	s = &p->slots[k];
	p->running--;
	s->pid = 0;
	if (*p->stop && WIFSIGNALED(status) && WTERMSIG(status) == (int)*p->stop)
		; /* stopped as asked: its run is recorded as not run, or not at all */
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		ret = ts_campaign_fail(c, -EIO,
				       "--jobs: run %u (%s rep %u) could not be carried out",
				       s->run->index, s->run->config_id, s->run->rep);
	c->v->carried++;
	if (c->rep && c->rep->run_end) {
		char result[4096];
		size_t n;

		ts_rundir_path(result, sizeof(result) - 12, c->o.out, s->run->config_id,
			       s->run->rep);
		n = strlen(result);
		snprintf(result + n, sizeof(result) - n, "/result.json");
		c->rep->run_end(c->rep->ctx, s->run, s->pos, p->total, result,
				ts_campaign_now(c) - s->start);
	}
	return ret;
}

int ts_campaign_jobs(struct ts_campaign *c, size_t total)
{
	static const volatile sig_atomic_t never;
	struct sigaction saved[NSTOP];
	struct pool p = {.c = c, .jobs = c->o.jobs, .total = total};
	int ret = 0, r, status;
	pid_t pid;
	size_t i;

	p.stop = c->o.stop ? c->o.stop : &never;
	ts_campaign_cpus(c, p.cpu, CPU_SETSIZE);
	p.slots = calloc(p.jobs, sizeof(*p.slots));
	if (!p.slots)
		return ts_campaign_fail(c, -ENOMEM, "out of memory");
	stop_interrupts(saved);
	for (;;) {
		if (!ret)
			ret = fill_slots(&p);
		if (!p.running)
			break;
		if (*p.stop && !p.forwarded)
			forward_stop(&p);
		pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue; /* a stop signal: fill_slots starts nothing more */
			ret = ts_campaign_fail(c, -errno, "--jobs: waitpid: %s", strerror(errno));
			break;
		}
		r = reap(&p, pid, status);
		if (r)
			ret = r;
	}
	for (i = 0; i < NSTOP; i++)
		sigaction(stop_sigs[i], &saved[i], NULL);
	free(p.slots);
	return ret;
}

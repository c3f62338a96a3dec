/* SPDX-License-Identifier: MIT */
/*
 * exp run --jobs N: up to N runs at once on one host. Each run is carried
 * out by its own child process, so it gets its own namespaces, links and
 * addresses (the executor names them after its process id), and the child
 * is pinned, before it starts anything, to two CPUs no other job uses: the
 * shaper and the run's iperf3, irtt and ping inherit that. More jobs than
 * half the CPUs this process may use are refused: a shaper competing for
 * its CPU releases packets late, and the link is no longer the one asked.
 * Runs in guests in virtual time take one CPU each (QEMU's one vCPU
 * thread): their results do not depend on the host's CPUs at all.
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

#include "cli/cli.h"
#include "cli/cmd_exp_results.h"

#define CPUS_PER_JOB 2 /* the shaper, and the flows it shapes */

static size_t per_job(const struct exp_results *x)
{
	return x->cpus_per_job ? x->cpus_per_job : CPUS_PER_JOB;
}

/* The CPUs this process may run on, in order; their count. */
static size_t usable_cpus(int *cpu, size_t max)
{
	cpu_set_t set;
	size_t n = 0;
	int c;

	if (sched_getaffinity(0, sizeof(set), &set) < 0) {
		long k = sysconf(_SC_NPROCESSORS_ONLN);

		for (c = 0; c < k && n < max; c++)
			cpu[n++] = c;
		return n;
	}
	for (c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpu[n++] = c;
	return n;
}

int exp_results_check_jobs(const struct exp_results *x)
{
	int cpu[CPU_SETSIZE];
	size_t n = usable_cpus(cpu, CPU_SETSIZE);

	if (x->jobs <= 1 || x->jobs * per_job(x) <= n)
		return 0;
	if (per_job(x) == 1)
		return ts_cli_error("--jobs %u: this host lets tasshape use %zu CPUs, one per "
				    "guest in virtual time: at most %zu jobs here",
				    x->jobs, n, n);
	return ts_cli_error(
		"--jobs %u: this host lets tasshape use %zu CPUs, and each run needs %d "
		"of its own (the shaper, and the flows it shapes): at most %zu jobs here "
		"(runs in guests in virtual time, [kernel NAME] clock = virtual, need one). "
		"A shaper that competes for its CPU releases packets late and emulates "
		"another link than the one asked for",
		x->jobs, n, CPUS_PER_JOB, n / CPUS_PER_JOB);
}

struct slot {
	pid_t pid; /* 0: free */
	const struct ts_exp_run *run;
	size_t pos;
	struct timespec start;
};

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static pid_t start_job(const struct exp_job_ops *ops, const struct ts_exp_run *run, const int *cpu,
		       size_t slot, size_t per)
{
	pid_t pid = fork();

	if (pid == 0) {
		char result[4096];
		cpu_set_t set;
		int k, rc;

		CPU_ZERO(&set);
		for (k = 0; k < (int)per; k++)
			CPU_SET(cpu[slot * per + (size_t)k], &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			ts_cli_error("--jobs: cannot pin run %u to its CPUs: %s", run->index,
				     strerror(errno));
			_exit(1);
		}
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		rc = ops->run(ops->ctx, run, result, sizeof(result));
		fflush(NULL);
		_exit(rc ? 1 : 0);
	}
	return pid;
}

int exp_results_run_jobs(const struct exp_results *x, const struct ts_exp_matrix *plan,
			 const struct exp_job_ops *ops, volatile sig_atomic_t *stop)
{
	static const int stop_sigs[] = {SIGINT, SIGTERM, SIGHUP};
	enum { NSTOP = sizeof(stop_sigs) / sizeof(stop_sigs[0]) };
	struct sigaction saved[NSTOP];
	int cpu[CPU_SETSIZE];
	struct slot *slots;
	size_t i, next = 0, pos = 0, running = 0, todo = 0, k;
	bool forwarded = false;
	int ret = 0;

	usable_cpus(cpu, CPU_SETSIZE);
	slots = calloc(x->jobs, sizeof(*slots));
	if (!slots)
		return ts_cli_error("out of memory");
	/*
	 * The stop signals interrupt waitpid below (no SA_RESTART while the jobs run), so that
	 * they are passed on to the jobs at once, not when the next job ends by itself.
	 */
	for (i = 0; i < NSTOP; i++) {
		struct sigaction sa;

		sigaction(stop_sigs[i], NULL, &saved[i]);
		sa = saved[i];
		sa.sa_flags &= ~SA_RESTART;
		if (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN)
			sigaction(stop_sigs[i], &sa, NULL);
	}
	for (i = 0; i < plan->nruns; i++)
		todo += ops->wanted(ops->ctx, &plan->runs[i]);
	for (;;) {
		int status;
		pid_t pid;

		/* Fill the free slots, in run order, unless stopped or a run could not start. */
		for (k = 0; k < x->jobs && !*stop && !ret; k++) {
			if (slots[k].pid)
				continue;
			while (next < plan->nruns && !ops->wanted(ops->ctx, &plan->runs[next]))
				next++;
			if (next == plan->nruns)
				break;
			slots[k].run = &plan->runs[next++];
			slots[k].pos = ++pos;
			clock_gettime(CLOCK_MONOTONIC, &slots[k].start);
			slots[k].pid = start_job(ops, slots[k].run, cpu, k, per_job(x));
			if (slots[k].pid < 0) {
				ret = ts_cli_error("--jobs: fork: %s", strerror(errno));
				slots[k].pid = 0;
				break;
			}
			running++;
		}
		if (!running)
			break;
		if (*stop && !forwarded) {
			/*
			 * A signal sent to tasshape alone (kill PID, not a terminal's ^C to the
			 * group) must still end the runs under way, guests included.
			 */
			for (k = 0; k < x->jobs; k++)
				if (slots[k].pid > 0)
					kill(slots[k].pid, (int)*stop);
			forwarded = true;
		}
		pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue; /* a stop signal: the loop above starts nothing more */
			ret = ts_cli_error("--jobs: waitpid: %s", strerror(errno));
			break;
		}
		for (k = 0; k < x->jobs && slots[k].pid != pid; k++)
			;
		if (k == x->jobs)
			continue; /* not one of the jobs */
		running--;
		slots[k].pid = 0;
		if (*stop && WIFSIGNALED(status) && WTERMSIG(status) == (int)*stop)
			; /* stopped as asked: its run is recorded as not run, or not at all */
		else if (!WIFEXITED(status) || WEXITSTATUS(status))
			ret = ts_cli_error("--jobs: run %u (%s rep %u) could not be carried out",
					   slots[k].run->index, slots[k].run->config_id,
					   slots[k].run->rep);
		ops->finished(ops->ctx, slots[k].run, slots[k].pos, todo, since(&slots[k].start));
	}
	for (i = 0; i < NSTOP; i++)
		sigaction(stop_sigs[i], &saved[i], NULL);
	free(slots);
	return ret ? 1 : 0;
}

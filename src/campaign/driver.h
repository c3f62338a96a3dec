/* SPDX-License-Identifier: MIT */
/*
 * The driver's own state, shared by its files: campaign.c (the checks,
 * the run loop, the verdict), select.c (shards and resume) and jobs.c
 * (the job pool). Not for callers outside src/campaign/.
 */
#ifndef TS_CAMPAIGN_DRIVER_H
#define TS_CAMPAIGN_DRIVER_H

#include "campaign/campaign.h"

struct ts_campaign {
	const struct ts_exp_matrix *plan;
	struct ts_campaign_opts o; /* shard {1, 1} when none; jobs at least 1 */
	const struct ts_campaign_executor *ex;
	const struct ts_campaign_report *rep;
	struct ts_campaign_verdict *v;
	struct ts_exp_summary skips; /* congestion controls this host cannot run */
	unsigned per_job;	     /* CPUs per job: 1 for guests in virtual time, else 2 */
};

/* The executor's clock (ts_campaign_executor.now), or the host's monotonic clock. */
ts_ns_t ts_campaign_now(const struct ts_campaign *c);

/* A line for the user through rep->notice ("exp: ..."). */
void ts_campaign_notice(struct ts_campaign *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Record the campaign's failure @err (negative) with its message, unless one is; returns @err. */
int ts_campaign_fail(struct ts_campaign *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Is @run this invocation's to carry out: in the shard, not done when resuming, cca runnable? */
bool ts_campaign_selected(const struct ts_campaign *c, const struct ts_exp_run *run);

/*
 * Resuming: may o.out be resumed with the plan? The recorded spec hash and
 * run list must match (unless --force); the recorded shard is taken when
 * none was given. 0 or -errno (ts_campaign_fail).
 */
int ts_campaign_check_resume(struct ts_campaign *c);

/* After experiment.json is written (with its shard, in one write): the spec copied beside it. */
int ts_campaign_after_plan(struct ts_campaign *c);

/* Before @run: resuming, its partial directory is removed. 0 or -errno. */
int ts_campaign_before_run(struct ts_campaign *c, const struct ts_exp_run *run);

/* After @run wrote @rundir: its Flent file, then its done record. 0 or -errno. */
int ts_campaign_after_run(struct ts_campaign *c, const struct ts_exp_run *run, const char *rundir);

/*
 * Carry out @run into OUT/ID/rep-K/, its result.json path in @result. 0
 * when it ran or was recorded as not run; -errno when it could not be set
 * up (ts_campaign_fail).
 */
int ts_campaign_one_run(struct ts_campaign *c, const struct ts_exp_run *run, char *result,
			size_t rlen);

/* The CPUs the pool hands out (o.cpus, or those this process may use); their count. */
size_t ts_campaign_cpus(const struct ts_campaign *c, int *cpu, size_t max);

/*
 * The selected runs, in order, up to o.jobs at once, each by a worker
 * process pinned to per_job CPUs of its own; nothing new starts once
 * *o.stop is set. 0, or -errno when a run could not be carried out or a
 * worker could not start.
 */
int ts_campaign_jobs(struct ts_campaign *c, size_t total);

#endif

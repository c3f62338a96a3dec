/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp run: the options, the spec and the checks read here; the
 * campaign (src/campaign/campaign.h) checks the rest before the first
 * run, carries the runs out and summarises the directory; this file
 * prints its progress, the summary, the checks and the verdict, and
 * returns the exit status the verdict gives.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_exp.h"
#include "cli/cmd_exp_results.h"
#include "campaign/campaign.h"
#include "campaign/progress.h"
#include "io/invoker.h"
#include "net/userns.h"
#include "results/checks.h"
#include "results/result.h"
#include "run/clock.h"

#define MAX_CHECKS 64

enum {
	OPT_OUT = 0x600,
	OPT_CHECK,
	OPT_STRICT,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
};

struct run_args {
	struct plan_args plan;
	const char *out;
	size_t nchecks;
	char *checks[MAX_CHECKS];
	bool strict;
	int progress;		/* 1 live line, 0 a line per run, -1: a live line on a terminal */
	struct exp_results res; /* --shard, --jobs, resume (cmd_exp_resume.c) */
};

static const struct argp_option run_options[] = {
	{"out", OPT_OUT, "DIR", 0,
	 "Write the results into DIR (created; refused when it exists and is not empty)", 0},
	{"check", OPT_CHECK, "EXPR", 0,
	 "A check over the summary, e.g. 'rrul[cca=bbr].ping_icmp_ms.p95 < "
	 "rrul[cca=cubic].ping_icmp_ms.p95' (repeatable; exit 1 when one fails)",
	 0},
	{"strict", OPT_STRICT, NULL, 0,
	 "Fail instead of skipping an unavailable congestion control, and fail when a run's "
	 "emulator fell behind",
	 0},
	{"progress", OPT_PROGRESS, NULL, 0, "A live status line even when stderr is no terminal",
	 0},
	{"no-progress", OPT_NO_PROGRESS, NULL, 0,
	 "One line per finished run even on a terminal (what CI logs get)", 0},
	{0}};

static error_t run_parse(int key, char *arg, struct argp_state *state)
{
	struct run_args *a = state->input;

	ts_cli_check_path(state, run_options, key, arg);
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->plan;
		state->child_inputs[1] = &a->res;
		break;
	case OPT_OUT:
		a->out = arg;
		break;
	case OPT_CHECK:
		if (a->nchecks == MAX_CHECKS)
			argp_error(state, "--check: at most %d", MAX_CHECKS);
		a->checks[a->nchecks++] = arg;
		break;
	case OPT_STRICT:
		a->strict = true;
		break;
	case OPT_PROGRESS:
		a->progress = 1;
		break;
	case OPT_NO_PROGRESS:
		a->progress = 0;
		break;
	case ARGP_KEY_END:
		if (!a->out)
			argp_error(state, "--out DIR is required");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- progress ----------------------------------------------------------------------------- */

struct progress {
	bool live;
	pthread_mutex_t lock;
	pthread_t thread;
	bool thread_up, stop;
	const struct ts_exp_run *run; /* the run going on, NULL between runs */
	size_t pos, total, done;
	ts_ns_t start, run_start, planned;
};

static void live_draw(struct progress *p)
{
	char line[512];
	ts_ns_t now = ts_clock_now();

	if (!p->run)
		return;
	ts_exp_progress_live(
		line, sizeof(line), p->pos, p->total, p->run, now - p->start,
		ts_exp_eta(p->done, p->total, now - p->start, now - p->run_start, p->planned));
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
}

static void live_erase(struct progress *p)
{
	if (p->live) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

/*
 * A user without root or sudo: enter a user namespace before the first
 * run (single-threaded still), as the wrapper does; every run's wrapper
 * and agents then run rootless inside it. 0, or 1 after the message.
 */
static int exp_rootless(void)
{
	struct ts_userns uns;
	struct ts_err err = {{0}};

	if (!ts_userns_wanted())
		return 0;
	if (ts_userns_enter(&uns, false, &err) < 0) {
		ts_cli_error("%s", err.msg);
		return 1;
	}
	ts_invoker_set_rootless();
	return 0;
}

/* The live line is redrawn once a second while the executor works. */
static void *live_loop(void *arg)
{
	struct progress *p = arg;
	struct timespec tick = {1, 0};
	sigset_t stop;

	/*
	 * A stop signal must reach the thread that runs the campaign: a run in a guest blocks it
	 * there and waits for it on a signalfd, which a signal taken by this thread never
	 * reaches (the guest would run on to its end).
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	for (;;) {
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&p->lock);
		if (p->stop) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		live_draw(p);
		pthread_mutex_unlock(&p->lock);
	}
}

/* One line for a finished run: its outcome and headline numbers, read back from its result. */
static void run_line(const struct ts_exp_run *run, size_t pos, size_t total, const char *path,
		     ts_ns_t took)
{
	struct ts_exp_result r;
	struct ts_err err;
	char extra[512];

	if (ts_exp_result_load(&r, path, &err) < 0) {
		fprintf(stderr, "exp %zu/%zu %s rep %u: no result: %s\n", pos, total,
			run->config_id, run->rep, err.msg);
		return;
	}
	ts_exp_result_headline(&r, extra, sizeof(extra));
	fprintf(stderr, "exp %zu/%zu %s rep %u: %s in %.1f s%s%s%s\n", pos, total, run->config_id,
		run->rep, r.ok ? "ok" : "FAILED", (double)took / TS_NSEC_PER_SEC, extra,
		r.ok ? "" : ": ", r.ok ? "" : (r.error ? r.error : "no reason given"));
	fflush(stderr);
	ts_exp_result_free(&r);
}

/* ---- the campaign's report (campaign.h) ---------------------------------------------------- */

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

struct report {
	struct progress p;
	bool every_line; /* --jobs: runs overlap, so every finished run gets its line */
};

static void rep_notice(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "tasshape: %s\n", msg);
}

/*
 * The runs start: stop signals end the campaign after the runs under way (the runs, and a
 * guest, are told), and the live line is drawn from here on.
 */
static void rep_begin(void *ctx, size_t total)
{
	struct report *r = ctx;
	struct sigaction sa = {.sa_handler = on_stop, .sa_flags = SA_RESTART};

	r->p.total = total;
	r->p.start = ts_clock_now();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (r->p.live && pthread_create(&r->p.thread, NULL, live_loop, &r->p) == 0)
		r->p.thread_up = true;
}

static void rep_run_start(void *ctx, const struct ts_exp_run *run, size_t pos, size_t total)
{
	struct report *r = ctx;

	(void)total;
	pthread_mutex_lock(&r->p.lock);
	r->p.run = run;
	r->p.pos = pos;
	r->p.run_start = ts_clock_now();
	if (r->p.live)
		live_draw(&r->p);
	pthread_mutex_unlock(&r->p.lock);
}

static void rep_run_end(void *ctx, const struct ts_exp_run *run, size_t pos, size_t total,
			const char *result, ts_ns_t took)
{
	struct report *r = ctx;

	pthread_mutex_lock(&r->p.lock);
	r->p.run = NULL;
	r->p.done++;
	if (!r->p.live || r->every_line) {
		live_erase(&r->p);
		run_line(run, pos, total, result, took);
	} else {
		struct ts_exp_result res;
		struct ts_err err;

		/* On a terminal only failures get a line of their own. */
		if (ts_exp_result_load(&res, result, &err) < 0 || !res.ok) {
			live_erase(&r->p);
			run_line(run, pos, total, result, took);
		}
		if (res.path)
			ts_exp_result_free(&res);
	}
	pthread_mutex_unlock(&r->p.lock);
}

static void rep_end(void *ctx)
{
	struct report *r = ctx;

	if (r->p.thread_up) {
		pthread_mutex_lock(&r->p.lock);
		r->p.stop = true;
		pthread_mutex_unlock(&r->p.lock);
		pthread_join(r->p.thread, NULL);
		r->p.thread_up = false;
	}
	live_erase(&r->p);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

/* The summary's table, and where its files are. */
static void rep_summary(void *ctx, const struct ts_exp_summary *s, const char *out)
{
	(void)ctx;
	ts_exp_summary_write_md(s, stdout);
	printf("\nsummaries: %s/summary.json, .csv, .md\n", out);
}

/* What the verdict says beyond the exit status: failed runs, an emulator behind, TCG. */
static void print_verdict(const struct ts_campaign_verdict *v)
{
	const char *strict = v->strict ? " (--strict: failing)" : "";

	if (v->failed)
		fprintf(stderr, "tasshape: exp: %u of %u runs failed (see summary.md)\n", v->failed,
			v->runs);
	if (v->fell_behind)
		fprintf(stderr, "tasshape: exp: the emulator fell behind in %u of %u runs%s\n",
			v->fell_behind, v->runs, strict);
	if (v->tcg)
		fprintf(stderr,
			"tasshape: exp: %u of %zu configurations ran in a VM under TCG "
			"(software emulation: coarser timing, flag tcg)%s\n",
			v->tcg, v->nconfigs, strict);
}

/* The checks parsed into *@checks (freed by the caller) and resolved against @plan; 1 if not. */
static int load_checks(const struct run_args *a, const struct ts_exp_matrix *plan,
		       struct ts_exp_check **checks)
{
	struct ts_err err;
	struct ts_exp_point *pts;
	int ret = 1;

	if (ts_exp_checks_parse(a->checks, a->nchecks, checks, &err) < 0)
		return ts_cli_error("%s", err.msg);
	pts = ts_exp_matrix_points(plan);
	if (!pts)
		return 1;
	if (ts_exp_checks_resolve(*checks, a->nchecks, pts, plan->nconfigs, &err) < 0)
		ts_cli_error("%s", err.msg);
	else
		ret = 0;
	free(pts);
	return ret;
}

int exp_run(int argc, char **argv)
{
	struct argp_child children[] = {
		{&exp_plan_argp, 0, NULL, 0}, {&exp_results_argp, 0, NULL, 0}, {0}};
	struct argp argp = {
		run_options,
		run_parse,
		"SPEC",
		"Carry out every run SPEC expands to (see 'exp list') into --out DIR, "
		"OUT/<config-id>/rep-<k>/ each, then write summary.json, summary.csv and "
		"summary.md and evaluate the checks. Exit 0 when every run and check "
		"passed (a skipped congestion control is reported, not a failure), 1 "
		"otherwise, 64 for a usage error (an option, the spec or a check). "
		"docs/experiments.md has the spec, the "
		"metrics and the check grammar.",
		children,
		NULL,
		NULL};
	struct run_args a = {.progress = -1};
	struct ts_exp_check *checks = NULL;
	struct ts_exp_spec spec;
	struct ts_exp_matrix plan;
	struct report rep = {.p = {.lock = PTHREAD_MUTEX_INITIALIZER}};
	const struct ts_campaign_report cb = {&rep,	   rep_notice, rep_begin,  rep_run_start,
					      rep_run_end, rep_end,    rep_summary};
	struct ts_campaign_opts o;
	struct ts_campaign_verdict v;
	char sha[2 * TS_SHA256_LEN + 1];
	int ret = TS_EXIT_USAGE, have_plan = 0;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return TS_EXIT_USAGE;
	/* Everything that can be wrong with the request is found here, before any run. */
	a.plan.kernel_files = true;
	if (exp_load_plan(&a.plan, &spec, &plan, sha))
		goto out;
	have_plan = 1;
	if (load_checks(&a, &plan, &checks))
		goto out;

	o = (struct ts_campaign_opts){.out = a.out,
				      .spec_path = a.plan.spec_path,
				      .spec_sha256 = spec.sha256,
				      .shard = a.res.shard,
				      .shard_given = a.res.shard_given,
				      .jobs = a.res.jobs,
				      .resume = a.res.resume,
				      .force = a.res.force,
				      .strict = a.strict,
				      .checks = checks,
				      .nchecks = a.nchecks,
				      .checks_out = stdout,
				      .stop = &stop_signal};
	rep.every_line = a.res.jobs > 1;
	rep.p.live = a.progress == 1 || (a.progress == -1 && isatty(STDERR_FILENO));
	rep.p.planned = plan.runs[0].length + 2 * plan.runs[0].delay + 3 * TS_NSEC_PER_SEC;
	/* Not root: the campaign runs in a user namespace of its own (docs/rootless.md). */
	if (exp_rootless())
		goto out;
	if (ts_campaign_run(&plan, &o, &ts_campaign_exec, &cb, &v)) {
		ret = ts_cli_error("%s", v.msg);
		goto out;
	}
	print_verdict(&v);
	ret = ts_campaign_status(&v);
out:
	free(checks);
	if (have_plan) {
		ts_exp_matrix_free(&plan);
		ts_exp_spec_free(&spec);
	}
	return ret;
}

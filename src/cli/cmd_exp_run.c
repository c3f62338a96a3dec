/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp run: everything is checked before the first run (spec,
 * links, checks, congestion controls, the output directory); then each
 * planned run is handed to the executor (ts_exp_exec_run) in order, into
 * OUT/<config-id>/rep-<k>/; then the directory is summarised from its
 * result.json files and the checks evaluated on that summary.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_exp.h"
#include "cli/cmd_exp_results.h"
#include "campaign/progress.h"
#include "results/result.h"
#include "results/stats.h"
#include "results/summary.h"
#include "vm/vm.h"
#include "io/outfile.h"

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

static ts_ns_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts_ns_t)ts.tv_sec * TS_NSEC_PER_SEC + ts.tv_nsec;
}

/* An empty or new directory (lock_out creates it, with its parents). */
static int prepare_out(const char *out)
{
	struct dirent *e;
	struct stat st;
	int empty = 1;
	DIR *d;

	if (stat(out, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return ts_cli_error("--out %s: exists and is not a directory", out);
		d = opendir(out);
		if (!d)
			return ts_cli_error("--out %s: %s", out, strerror(errno));
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				empty = 0;
		closedir(d);
		if (!empty)
			return ts_cli_error(
				"--out %s: not empty (results are never mixed): to finish the "
				"experiment it holds use 'tasshape exp resume %s', or give a new "
				"directory",
				out, out);
	}
	return 0;
}

/*
 * Create or check OUT (ts_out_mkdir) and lock it for this run (@fd holds
 * the lock until exit): a second run given the same directory fails at once
 * instead of mixing its results in.
 */
static int lock_out(const char *out, int *fd)
{
	struct ts_err err;

	*fd = ts_out_mkdir(out, &err);
	if (*fd < 0 || ts_out_lock(*fd, out, &err) < 0)
		return ts_cli_error("--out %s", err.msg);
	return 0;
}

/*
 * Probe each distinct congestion control once. Unavailable ones are
 * reported with the reason and recorded as skipped in @sum; --strict makes
 * that an error. Returns 1 on a --strict failure.
 */
static int probe_ccas(const struct ts_exp_matrix *plan, struct ts_exp_summary *sum, bool strict)
{
	const struct ts_exp_axis *axis = ts_exp_spec_axis(plan->spec, "cca");
	bool probed[TS_EXP_MAX_VALUES] = {false};
	size_t i, j;
	int bad = 0;

	for (i = 0; i < plan->nconfigs; i++) {
		const char *cca = plan->configs[i].tmpl.cca;
		char why[512] = "";

		/* Under a [kernel NAME] the guest's kernel is asked, at the run (exec_vm.h). */
		if (plan->configs[i].tmpl.vm)
			continue;
		/* A run's cca is one of the axis's values (the same string): one probe each. */
		for (j = 0; j < axis->nvalues && axis->values[j] != cca; j++)
			;
		if (j == axis->nvalues || probed[j])
			continue;
		probed[j] = true;
		if (ts_exp_cca_probe(cca, why, sizeof(why)) == 0)
			continue;
		if (!why[0])
			snprintf(why, sizeof(why), "%s: not available", cca);
		if (strict) {
			ts_cli_error("exp: cca=%s cannot run: %s (--strict)", cca, why);
			bad = 1;
		} else {
			fprintf(stderr, "tasshape: exp: skipping cca=%s: %s\n", cca, why);
		}
		if (ts_exp_summary_skip(sum, cca, why) < 0)
			return ts_cli_error("out of memory");
	}
	return bad;
}

/*
 * Every [kernel NAME] the plan boots must be a bzImage (and its modules directory readable)
 * before anything runs; image = debian is fetched at its first run (cached after). 1 on error.
 */
static int check_kernels(const struct ts_exp_matrix *plan)
{
	char version[256], sha[65];
	struct ts_err err;
	size_t i;

	for (i = 0; i < plan->nconfigs; i++) {
		const struct ts_exp_kernel *k = plan->configs[i].tmpl.vm;

		if (!k || !strcmp(k->image, "debian"))
			continue;
		if (ts_vm_kernel_identify(k->image, version, sha, &err) < 0)
			return ts_cli_error("%s:%u: [kernel %s]: image: %s", plan->spec->path,
					    k->line, k->name, err.msg);
		if (k->modules && access(k->modules, R_OK | X_OK) < 0)
			return ts_cli_error("%s:%u: [kernel %s]: modules: %s: %s", plan->spec->path,
					    k->line, k->name, k->modules, strerror(errno));
	}
	return 0;
}

/*
 * Does every configuration run in a guest in virtual time ([kernel NAME] clock = virtual)?
 * Then a job needs one CPU, QEMU's vCPU thread, and the host's load cannot change a result.
 */
static bool all_virtual(const struct ts_exp_matrix *plan)
{
	size_t i;

	for (i = 0; i < plan->nconfigs; i++) {
		const struct ts_exp_kernel *k = plan->configs[i].tmpl.vm;

		if (!k || !k->clock || strcmp(k->clock, "virtual"))
			return false;
	}
	return plan->nconfigs > 0;
}

/* Is @run's congestion control one the host cannot run? (A VM's kernel is asked in the VM.) */
static bool cca_skipped(const struct ts_exp_summary *sum, const struct ts_exp_run *run)
{
	size_t i;

	for (i = 0; !run->vm && i < sum->nskipped; i++)
		if (!strcmp(sum->skipped[i].cca, run->cca))
			return true;
	return false;
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
	ts_ns_t now = mono_now();

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
	char err[512], extra[512] = "";
	double up = 0, down = 0;
	size_t i, n = 0;
	int nup = 0, ndown = 0;

	if (ts_exp_result_load(&r, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "exp %zu/%zu %s rep %u: no result: %s\n", pos, total,
			run->config_id, run->rep, err);
		return;
	}
	for (i = 0; i < r.nflows; i++) {
		if (r.flows[i].up) {
			up += r.flows[i].throughput_mbps;
			nup++;
		} else {
			down += r.flows[i].throughput_mbps;
			ndown++;
		}
	}
	if (nup)
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, ", up %.2f Mbit/s", up);
	if (ndown && n < sizeof(extra))
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, ", down %.2f Mbit/s", down);
	if (r.nicmp && n < sizeof(extra)) {
		ts_stats_sort(r.icmp_ms, r.nicmp);
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, ", ICMP p95 %.1f ms",
				      ts_stats_quantile(r.icmp_ms, r.nicmp, 0.95));
	}
	for (i = 0; i < r.nflags && n < sizeof(extra); i++)
		n += (size_t)snprintf(extra + n, sizeof(extra) - n, "%s%s", i ? " " : "; ",
				      r.flags[i]);
	fprintf(stderr, "exp %zu/%zu %s rep %u: %s in %.1f s%s%s%s\n", pos, total, run->config_id,
		run->rep, r.ok ? "ok" : "FAILED", (double)took / TS_NSEC_PER_SEC, extra,
		r.ok ? "" : ": ", r.ok ? "" : (r.error ? r.error : "no reason given"));
	fflush(stderr);
	ts_exp_result_free(&r);
}

/* ---- the runs ----------------------------------------------------------------------------- */

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static int mkdir_one(const char *path)
{
	struct ts_err err;
	int fd = ts_out_mkdir(path, &err);

	if (fd < 0)
		return ts_cli_error("%s", err.msg);
	close(fd);
	return 0;
}

/* Carry out one run into OUT/ID/rep-K/; 1 when it could not even be set up. */
static int one_run(const struct run_args *a, const struct ts_exp_run *run, char *result,
		   size_t rlen)
{
	char dir[4096], err[1024] = "";
	int n, ret;

	if (exp_results_before_run(&a->res, run, a->out))
		return 1;
	n = snprintf(dir, sizeof(dir), "%s/%s", a->out, run->config_id);
	if (n < 0 || (size_t)n >= sizeof(dir) || mkdir_one(dir))
		return n < 0 || (size_t)n >= sizeof(dir) ? ts_cli_error("--out: path too long") : 1;
	snprintf(dir + n, sizeof(dir) - (size_t)n, "/rep-%u", run->rep);
	if (mkdir_one(dir))
		return 1;
	n = snprintf(result, rlen, "%.4000s/result.json", dir);
	if (n < 0 || (size_t)n >= rlen)
		return ts_cli_error("--out: path too long");
	ret = ts_exp_exec_run(run, dir, err, sizeof(err));
	if (ret < 0) {
		/* Recorded as a failed run, so the summary and the exit status say so. */
		if (!err[0])
			snprintf(err, sizeof(err), "the run could not start: %s", strerror(-ret));
		if (ts_exp_result_write_unrun(run, result, err) < 0)
			return ts_cli_error("%s: cannot write", result);
		return 0; /* never started: not done, so resume tries it again */
	}
	if (access(result, F_OK) < 0) {
		/* Success without a result would vanish from the summary: a failure, not done. */
		if (ts_exp_result_write_unrun(run, result,
					      "the executor reported success but wrote no "
					      "result.json") < 0)
			return ts_cli_error("%s: cannot write", result);
		return 0;
	}
	return exp_results_after_run(run, dir);
}

/* --jobs N (cmd_exp_jobs.c): the same steps per run, several runs at once. */
struct job_ctx {
	const struct run_args *a;
	const struct ts_exp_summary *skips;
	struct progress *p;
};

static bool job_wanted(void *ctx, const struct ts_exp_run *run)
{
	const struct job_ctx *j = ctx;

	return !cca_skipped(j->skips, run) && exp_results_selected(&j->a->res, run, j->a->out);
}

static int job_run(void *ctx, const struct ts_exp_run *run, char *result, size_t rlen)
{
	const struct job_ctx *j = ctx;

	return one_run(j->a, run, result, rlen);
}

static void job_finished(void *ctx, const struct ts_exp_run *run, size_t pos, size_t total,
			 double took_s)
{
	const struct job_ctx *j = ctx;
	char result[4096];

	snprintf(result, sizeof(result), "%.2000s/%.1000s/rep-%u/result.json", j->a->out,
		 run->config_id, run->rep);
	pthread_mutex_lock(&j->p->lock);
	j->p->done++;
	live_erase(j->p);
	run_line(run, pos, total, result, (ts_ns_t)(took_s * TS_NSEC_PER_SEC));
	pthread_mutex_unlock(&j->p->lock);
}

static int run_all(const struct run_args *a, const struct ts_exp_matrix *plan,
		   const struct ts_exp_summary *skips, struct progress *p)
{
	size_t i, todo = 0, pos = 0;

	if (a->res.jobs > 1) {
		struct job_ctx j = {a, skips, p};
		struct exp_job_ops ops = {&j, job_wanted, job_run, job_finished};

		p->start = mono_now();
		return exp_results_run_jobs(&a->res, plan, &ops, &stop_signal);
	}

	for (i = 0; i < plan->nruns; i++)
		todo += !cca_skipped(skips, &plan->runs[i]) &&
			exp_results_selected(&a->res, &plan->runs[i], a->out);
	p->total = todo;
	p->start = mono_now();
	for (i = 0; i < plan->nruns && !stop_signal; i++) {
		const struct ts_exp_run *run = &plan->runs[i];
		char result[4096];
		ts_ns_t t0;

		if (cca_skipped(skips, run) || !exp_results_selected(&a->res, run, a->out))
			continue;
		pos++;
		pthread_mutex_lock(&p->lock);
		p->run = run;
		p->pos = pos;
		p->run_start = t0 = mono_now();
		if (p->live)
			live_draw(p);
		pthread_mutex_unlock(&p->lock);
		if (one_run(a, run, result, sizeof(result)))
			return 1;
		pthread_mutex_lock(&p->lock);
		p->run = NULL;
		p->done++;
		if (!p->live) {
			run_line(run, pos, todo, result, mono_now() - t0);
		} else {
			struct ts_exp_result r;
			char err[256];

			/* On a terminal only failures get a line of their own. */
			if (ts_exp_result_load(&r, result, err, sizeof(err)) < 0 || !r.ok) {
				live_erase(p);
				run_line(run, pos, todo, result, mono_now() - t0);
			}
			if (r.path)
				ts_exp_result_free(&r);
		}
		pthread_mutex_unlock(&p->lock);
	}
	return 0;
}

static int write_experiment(const char *out, const struct ts_exp_matrix *plan,
			    const struct ts_exp_summary *sum)
{
	char path[4096];
	struct ts_err err;
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/experiment.json", out);
	f = ts_out_fopen(path, &err);
	if (!f)
		return ts_cli_error("%s", err.msg);
	ret = ts_exp_matrix_write_json(plan, sum, f);
	if (fclose(f) || ret < 0)
		return ts_cli_error("%s: write error", path);
	return 0;
}

/* Summarise OUT again from its files, write the summaries, print the table; 1 on error. */
static int summarise(const char *out, struct ts_exp_summary *s)
{
	char err[1024], path[4096];
	int ret;

	ts_exp_summary_init(s, NULL);
	if (ts_exp_summary_from_dir(s, out, err, sizeof(err)) < 0 ||
	    ts_exp_summary_write_all(s, out, err, sizeof(err)) < 0)
		return ts_cli_error("%s", err);
	ret = ts_exp_summary_write_md(s, stdout);
	snprintf(path, sizeof(path), "%s/summary.json", out);
	printf("\nsummaries: %s, .csv, .md\n", path);
	return ret < 0;
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
	struct ts_exp_point *pts = NULL;
	struct ts_exp_summary skips, sum;
	struct ts_exp_spec spec;
	struct ts_exp_matrix plan;
	struct progress prog = {.lock = PTHREAD_MUTEX_INITIALIZER};
	struct sigaction sa = {.sa_handler = on_stop, .sa_flags = SA_RESTART};
	char sha[2 * TS_SHA256_LEN + 1];
	int ret = EX_USAGE, have_plan = 0, have_sum = 0, out_fd = -1;
	size_t i;

	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return EX_USAGE;
	ts_exp_summary_init(&skips, NULL);
	/* Everything that can be wrong with the request is found here, before any run. */
	if (exp_load_plan(&a.plan, &spec, &plan, sha))
		goto out;
	have_plan = 1;
	if (exp_parse_checks(a.checks, a.nchecks, &checks))
		goto out;
	pts = ts_exp_matrix_points(&plan);
	if (!pts || exp_resolve_checks(checks, a.nchecks, pts, plan.nconfigs))
		goto out;
	ret = 1;
	a.res.cpus_per_job = all_virtual(&plan) ? 1 : 0;
	if (exp_results_check_jobs(&a.res))
		goto out;
	if (geteuid() != 0) {
		ts_cli_error("exp run needs root (namespaces, iptables, NFQUEUE); 'exp list' shows "
			     "the plan without it");
		goto out;
	}
	if (check_kernels(&plan))
		goto out;
	if (a.res.resume ? exp_results_check_resume(&a.res, a.out, &plan, spec.sha256)
			 : prepare_out(a.out))
		goto out;
	if (lock_out(a.out, &out_fd))
		goto out;
	if (probe_ccas(&plan, &skips, a.strict))
		goto out;
	if (write_experiment(a.out, &plan, &skips) ||
	    exp_results_after_plan(&a.res, a.out, a.plan.spec_path))
		goto out;

	prog.live = a.progress == 1 || (a.progress == -1 && isatty(STDERR_FILENO));
	prog.planned = plan.runs[0].length + 2 * plan.runs[0].delay + 3 * TS_NSEC_PER_SEC;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (prog.live && pthread_create(&prog.thread, NULL, live_loop, &prog) == 0)
		prog.thread_up = true;
	i = (size_t)run_all(&a, &plan, &skips, &prog);
	if (prog.thread_up) {
		pthread_mutex_lock(&prog.lock);
		prog.stop = true;
		pthread_mutex_unlock(&prog.lock);
		pthread_join(prog.thread, NULL);
	}
	live_erase(&prog);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (i)
		goto out;
	if (stop_signal)
		fprintf(stderr,
			"tasshape: exp: stopped by signal %d after %zu of %zu runs; "
			"summarising those\n",
			(int)stop_signal, prog.done, prog.total);

	have_sum = 1;
	if (summarise(a.out, &sum))
		goto out;
	ret = 0;
	if (a.nchecks && exp_eval_checks(checks, a.nchecks, &sum))
		ret = 1;
	if (sum.failed) {
		fprintf(stderr, "tasshape: exp: %u of %u runs failed (see summary.md)\n",
			sum.failed, sum.runs);
		ret = 1;
	}
	if (sum.fell_behind) {
		fprintf(stderr, "tasshape: exp: the emulator fell behind in %u of %u runs%s\n",
			sum.fell_behind, sum.runs, a.strict ? " (--strict: failing)" : "");
		if (a.strict)
			ret = 1;
	}
	/*
	 * A guest under TCG (exec_vm.h) times its packets in software: like an emulator that fell
	 * behind, its figures are reported and flagged, and --strict fails on them.
	 */
	{
		unsigned tcg = 0;
		size_t c, f;

		for (c = 0; c < sum.nconfigs; c++)
			for (f = 0; f < sum.configs[c].nflags; f++)
				tcg += !strcmp(sum.configs[c].flags[f], "tcg");
		if (tcg) {
			fprintf(stderr,
				"tasshape: exp: %u of %zu configurations ran in a VM under TCG "
				"(software emulation: coarser timing, flag tcg)%s\n",
				tcg, sum.nconfigs, a.strict ? " (--strict: failing)" : "");
			if (a.strict)
				ret = 1;
		}
	}
	if (stop_signal)
		ret = 128 + (int)stop_signal;
out:
	if (out_fd >= 0)
		close(out_fd);
	if (have_sum)
		ts_exp_summary_free(&sum);
	ts_exp_summary_free(&skips);
	free(pts);
	free(checks);
	if (have_plan) {
		ts_exp_matrix_free(&plan);
		ts_exp_spec_free(&spec);
	}
	return ret;
}

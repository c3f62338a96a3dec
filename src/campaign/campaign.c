/* SPDX-License-Identifier: MIT */
/*
 * The campaign: the checks before the first run, the run loop, the
 * summary and the verdict (campaign.h). Runs go to the executor in run
 * order, into OUT/<config-id>/rep-<k>/; a run that could not start is
 * recorded as a failed one, so the summary and the exit status say so.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "campaign/driver.h"
#include "io/outfile.h"
#include "io/clock.h"
#include "results/checks.h"
#include "results/result.h"
#include "results/rundir.h"
#include "vm/vm.h"

void ts_campaign_notice(struct ts_campaign *c, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	if (!c->rep || !c->rep->notice)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->rep->notice(c->rep->ctx, msg);
}

int ts_campaign_fail(struct ts_campaign *c, int err, const char *fmt, ...)
{
	va_list ap;

	if (c->v->err)
		return err;
	c->v->err = err;
	va_start(ap, fmt);
	vsnprintf(c->v->msg, sizeof(c->v->msg), fmt, ap);
	va_end(ap);
	return err;
}

ts_ns_t ts_campaign_now(const struct ts_campaign *c)
{
	return c->ex->now ? c->ex->now(c->ex->ctx) : ts_clock_now();
}

/* ---- before the first run ----------------------------------------------------------------- */

/*
 * Every [kernel NAME] the plan boots must be a bzImage (and its modules directory readable)
 * before anything runs; image = debian is fetched at its first run (cached after).
 */
static int check_kernels(struct ts_campaign *c)
{
	const struct ts_exp_matrix *plan = c->plan;
	char version[256], sha[65];
	struct ts_err err;
	size_t i;
	int ret;

	for (i = 0; i < plan->nconfigs; i++) {
		const struct ts_exp_kernel *k = plan->configs[i].tmpl.vm;

		if (!k || !strcmp(k->image, "debian"))
			continue;
		ret = ts_vm_kernel_identify(k->image, version, sha, &err);
		if (ret < 0)
			return ts_campaign_fail(c, ret, "%s:%u: [kernel %s]: image: %s",
						plan->spec->path, k->line, k->name, err.msg);
		if (k->modules && access(k->modules, R_OK | X_OK) < 0)
			return ts_campaign_fail(c, -errno, "%s:%u: [kernel %s]: modules: %s: %s",
						plan->spec->path, k->line, k->name, k->modules,
						strerror(errno));
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

static int check_jobs(struct ts_campaign *c)
{
	int cpu[CPU_SETSIZE];
	struct ts_err err;
	size_t n = ts_campaign_cpus(c, cpu, CPU_SETSIZE);
	int ret = ts_campaign_check_jobs(c->o.jobs, c->per_job, n, &err);

	return ret ? ts_campaign_fail(c, ret, "%s", err.msg) : 0;
}

/* An empty or new directory (lock_out creates it, with its parents). */
static int prepare_out(struct ts_campaign *c)
{
	const char *out = c->o.out;
	struct dirent *e;
	struct stat st;
	int empty = 1;
	DIR *d;

	if (stat(out, &st) < 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return ts_campaign_fail(c, -ENOTDIR, "--out %s: exists and is not a directory",
					out);
	d = opendir(out);
	if (!d)
		return ts_campaign_fail(c, -errno, "--out %s: %s", out, strerror(errno));
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	closedir(d);
	if (!empty)
		return ts_campaign_fail(c, -EEXIST,
					"--out %s: not empty (results are never mixed): to finish "
					"the experiment it holds use 'tasshape exp resume %s', or "
					"give a new directory",
					out, out);
	return 0;
}

/*
 * Create or check OUT (ts_out_mkdir) and lock it for the campaign (*@fd holds the lock): a
 * second run given the same directory fails at once instead of mixing its results in.
 */
static int lock_out(struct ts_campaign *c, int *fd)
{
	struct ts_err err;
	int ret;

	*fd = ts_out_mkdir(c->o.out, &err);
	if (*fd < 0)
		return ts_campaign_fail(c, *fd, "--out %s", err.msg);
	ret = ts_out_lock(*fd, c->o.out, &err);
	return ret < 0 ? ts_campaign_fail(c, ret, "--out %s", err.msg) : 0;
}

/*
 * Probe each distinct congestion control once, in the order the configurations name them.
 * Unavailable ones are reported with the reason and recorded as skipped; --strict makes that
 * a failure (the first one is the verdict's message, the others are reported).
 */
static int probe_ccas(struct ts_campaign *c)
{
	const struct ts_exp_matrix *plan = c->plan;
	size_t i, j;
	int ret = 0, r;

	for (i = 0; i < plan->nconfigs; i++) {
		const char *cca = plan->configs[i].tmpl.cca;
		struct ts_err why = {""};

		/* Under a [kernel NAME] the guest's kernel is asked, at the run (exec_vm.h). */
		if (plan->configs[i].tmpl.vm)
			continue;
		for (j = 0; j < i; j++)
			if (!plan->configs[j].tmpl.vm && !strcmp(plan->configs[j].tmpl.cca, cca))
				break;
		if (j < i)
			continue; /* probed already */
		if (c->ex->cca_probe(c->ex->ctx, cca, &why) == 0)
			continue;
		if (!why.msg[0])
			ts_err_set(&why, "%s: not available", cca);
		if (c->o.strict && !ret)
			ret = ts_campaign_fail(c, -ENOENT, "exp: cca=%s cannot run: %s (--strict)",
					       cca, why.msg);
		else if (c->o.strict)
			ts_campaign_notice(c, "exp: cca=%s cannot run: %s (--strict)", cca,
					   why.msg);
		else
			ts_campaign_notice(c, "exp: skipping cca=%s: %s", cca, why.msg);
		r = ts_exp_summary_skip(&c->skips, cca, why.msg);
		if (r < 0)
			return ts_campaign_fail(c, r, "out of memory");
		c->v->skipped_ccas++;
	}
	return ret;
}

/*
 * @text, the plan's record, as OUT/experiment.json in one atomic write: a
 * shard's record carries its "shard" (ts_expdir_write sets it on the parsed
 * record), so the file is never written twice and a crash leaves either no
 * record or a whole one, never a half file that resume or merge would read.
 */
static int put_experiment(struct ts_campaign *c, const char *path, const char *text, size_t len)
{
	struct ts_expdir rec = {.shard = c->o.shard};
	struct ts_err e;
	int ret;

	if (c->o.shard.n <= 1) {
		ret = ts_out_write_whole(path, text, len, &e);
		return ret < 0 ? ts_campaign_fail(c, ret, "%s", e.msg) : 0;
	}
	rec.doc = json_tokener_parse(text);
	if (!rec.doc)
		return ts_campaign_fail(c, -ENOMEM, "%s: out of memory", path);
	ret = ts_expdir_write(c->o.out, &rec, &e);
	json_object_put(rec.doc);
	return ret < 0 ? ts_campaign_fail(c, ret, "%s", e.msg) : 0;
}

static int write_experiment(struct ts_campaign *c)
{
	char path[4096], *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", c->o.out, TS_EXPDIR_FILE);
	f = open_memstream(&text, &len);
	if (!f)
		return ts_campaign_fail(c, -ENOMEM, "%s: out of memory", path);
	ret = ts_exp_matrix_write_json(c->plan, &c->skips, f);
	if (fclose(f) || ret < 0)
		ret = ts_campaign_fail(c, -ENOMEM, "%s: out of memory", path);
	else
		ret = put_experiment(c, path, text, len);
	free(text);
	return ret;
}

/* Everything that can be wrong with the request, found before any run; @fd locks OUT. */
static int check_all(struct ts_campaign *c, int *fd)
{
	int ret;

	c->per_job = all_virtual(c->plan) ? 1 : 2;
	ret = check_jobs(c);
	if (!ret && c->ex->check) {
		struct ts_err err = {""};

		ret = c->ex->check(c->ex->ctx, &err);
		if (ret)
			ts_campaign_fail(c, ret, "%s", err.msg);
	}
	if (!ret)
		ret = check_kernels(c);
	if (!ret)
		ret = c->o.resume ? ts_campaign_check_resume(c) : prepare_out(c);
	if (!ret)
		ret = lock_out(c, fd);
	if (!ret)
		ret = probe_ccas(c);
	if (!ret)
		ret = write_experiment(c);
	if (!ret)
		ret = ts_campaign_after_plan(c);
	return ret;
}

/* ---- the runs ----------------------------------------------------------------------------- */

static int mkdir_one(struct ts_campaign *c, const char *path)
{
	struct ts_err err;
	int fd = ts_out_mkdir(path, &err);

	if (fd < 0)
		return ts_campaign_fail(c, fd, "%s", err.msg);
	close(fd);
	return 0;
}

static bool stopped(const struct ts_campaign *c)
{
	return c->o.stop && *c->o.stop;
}

/*
 * Did a stop signal make the run that just ended fail? Slurm, Kubernetes and a terminal's ^C
 * signal every process of the job, the run's iperf3, irtt and ping too, so a run that failed
 * while one came failed because of it, most likely. Kept as done, it would stay a failure
 * through every resume; recorded as not run instead (*@unrun, no done record), resume carries
 * it out again. A run that succeeded is kept: its tools were not disturbed. 0 or an error.
 */
static int stopped_failure(struct ts_campaign *c, const struct ts_exp_run *run, const char *result,
			   bool *unrun)
{
	struct ts_exp_result r;
	struct ts_err err;
	char why[160];
	bool ok = false;

	*unrun = false;
	if (!stopped(c))
		return 0;
	if (ts_exp_result_load(&r, result, &err) == 0) {
		ok = r.ok;
		ts_exp_result_free(&r);
	}
	if (ok)
		return 0;
	*unrun = true;
	snprintf(why, sizeof(why),
		 "stopped by signal %d while under way: it failed then; exp resume runs it again",
		 (int)*c->o.stop);
	if (ts_exp_result_write_unrun(run, result, why) < 0)
		return ts_campaign_fail(c, -EIO, "%s: cannot write", result);
	return 0;
}

int ts_campaign_one_run(struct ts_campaign *c, const struct ts_exp_run *run, char *result,
			size_t rlen)
{
	char dir[4096], *rep;
	struct ts_err err = {""};
	bool unrun;
	int n, ret;

	ret = ts_campaign_before_run(c, run);
	if (ret)
		return ret;
	if (ts_rundir_path(dir, sizeof(dir), c->o.out, run->config_id, run->rep))
		return ts_campaign_fail(c, -ENAMETOOLONG, "--out: path too long");
	/* The configuration's directory, then the run's in it. */
	rep = strrchr(dir, '/');
	*rep = '\0';
	ret = mkdir_one(c, dir);
	*rep = '/';
	if (!ret)
		ret = mkdir_one(c, dir);
	if (ret)
		return ret;
	n = snprintf(result, rlen, "%.4000s/result.json", dir);
	if (n < 0 || (size_t)n >= rlen)
		return ts_campaign_fail(c, -ENAMETOOLONG, "--out: path too long");
	ret = c->ex->run(c->ex->ctx, run, dir, &err);
	if (ret < 0) {
		/* Recorded as a failed run, so the summary and the exit status say so. */
		if (!err.msg[0])
			ts_err_set(&err, "the run could not start: %s", strerror(-ret));
		if (ts_exp_result_write_unrun(run, result, err.msg) < 0)
			return ts_campaign_fail(c, -EIO, "%s: cannot write", result);
		return 0; /* never started: not done, so resume tries it again */
	}
	if (access(result, F_OK) < 0) {
		/* Success without a result would vanish from the summary: a failure, not done. */
		if (ts_exp_result_write_unrun(run, result,
					      "the executor reported success but wrote no "
					      "result.json") < 0)
			return ts_campaign_fail(c, -EIO, "%s: cannot write", result);
		return 0;
	}
	ret = stopped_failure(c, run, result, &unrun);
	if (ret || unrun)
		return ret;
	return ts_campaign_after_run(c, run, dir);
}

/* One run after the other, in run order, until the end or a stop signal. */
static int run_in_order(struct ts_campaign *c, size_t total)
{
	const struct ts_campaign_report *rep = c->rep;
	size_t i, pos = 0;
	int ret;

	for (i = 0; i < c->plan->nruns && !stopped(c); i++) {
		const struct ts_exp_run *run = &c->plan->runs[i];
		char result[4096];
		ts_ns_t t0;

		if (!ts_campaign_selected(c, run))
			continue;
		pos++;
		if (rep && rep->run_start)
			rep->run_start(rep->ctx, run, pos, total);
		t0 = ts_campaign_now(c);
		ret = ts_campaign_one_run(c, run, result, sizeof(result));
		if (ret)
			return ret;
		c->v->carried++;
		if (rep && rep->run_end)
			rep->run_end(rep->ctx, run, pos, total, result, ts_campaign_now(c) - t0);
	}
	return 0;
}

static int run_all(struct ts_campaign *c)
{
	const struct ts_campaign_report *rep = c->rep;
	size_t i, total = 0;
	int ret;

	for (i = 0; i < c->plan->nruns; i++)
		total += ts_campaign_selected(c, &c->plan->runs[i]);
	c->v->selected = total;
	if (rep && rep->begin)
		rep->begin(rep->ctx, total);
	ret = c->o.jobs > 1 ? ts_campaign_jobs(c, total) : run_in_order(c, total);
	if (rep && rep->end)
		rep->end(rep->ctx);
	if (c->o.stop)
		c->v->stop_signal = (int)*c->o.stop;
	return ret;
}

/* ---- the verdict -------------------------------------------------------------------------- */

/* The summary's counts and the checks that failed into the verdict. */
static void judge(struct ts_campaign *c, const struct ts_exp_summary *s)
{
	struct ts_campaign_verdict *v = c->v;
	size_t i, f;

	v->runs = s->runs;
	v->failed = s->failed;
	v->fell_behind = s->fell_behind;
	v->nconfigs = s->nconfigs;
	/*
	 * A guest under TCG (exec_vm.h) times its packets in software: like an emulator that fell
	 * behind, its figures are reported and flagged, and --strict fails on them.
	 */
	for (i = 0; i < s->nconfigs; i++)
		for (f = 0; f < s->configs[i].nflags; f++)
			v->tcg += !strcmp(s->configs[i].flags[f], "tcg");
	if (c->o.nchecks)
		v->checks_failed =
			ts_exp_checks_eval(c->o.checks, c->o.nchecks, s, c->o.checks_out);
}

int ts_campaign_run(const struct ts_exp_matrix *plan, const struct ts_campaign_opts *o,
		    const struct ts_campaign_executor *ex, const struct ts_campaign_report *rep,
		    struct ts_campaign_verdict *v)
{
	struct ts_campaign c = {plan, *o, ex, rep, v, {0}, 2};
	struct ts_exp_summary sum;
	struct ts_err err;
	int fd = -1, ret;

	memset(v, 0, sizeof(*v));
	v->strict = o->strict;
	if (!c.o.shard.n)
		c.o.shard.i = c.o.shard.n = 1;
	if (!c.o.jobs)
		c.o.jobs = 1;
	ts_exp_summary_init(&c.skips, NULL);
	ret = check_all(&c, &fd);
	if (!ret)
		ret = run_all(&c);
	if (ret)
		goto out;
	if (v->stop_signal)
		ts_campaign_notice(&c,
				   "exp: stopped by signal %d after %zu of %zu runs; "
				   "summarising those",
				   v->stop_signal, v->carried, v->selected);
	ret = ts_campaign_summarise(o->out, &sum, &err);
	if (ret) {
		ts_campaign_fail(&c, ret, "%s", err.msg);
		goto out;
	}
	if (rep && rep->summary)
		rep->summary(rep->ctx, &sum, o->out);
	judge(&c, &sum);
	ts_exp_summary_free(&sum);
out:
	if (fd >= 0)
		close(fd);
	ts_exp_summary_free(&c.skips);
	return v->err;
}

int ts_campaign_status(const struct ts_campaign_verdict *v)
{
	int ret = 0;

	if (v->err)
		return 1;
	if (v->checks_failed || v->failed)
		ret = 1;
	if (v->strict && (v->fell_behind || v->tcg))
		ret = 1;
	if (v->stop_signal)
		ret = 128 + v->stop_signal;
	return ret;
}

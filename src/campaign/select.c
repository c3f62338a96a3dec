/* SPDX-License-Identifier: MIT */
/*
 * Which runs an invocation carries out, and what outlives it: --shard i/N
 * (a slice of the run order), resume (keep the runs whose done record is
 * intact, redo the rest), the spec kept beside the results (spec.ini),
 * and after each run its Flent file and then its done record.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "campaign/driver.h"
#include "results/done.h"
#include "results/flent.h"
#include "results/rundir.h"
#include "run/manifest.h"

/* Is @run's congestion control one the host cannot run? (A VM's kernel is asked in the VM.) */
static bool cca_skipped(const struct ts_exp_summary *sum, const struct ts_exp_run *run)
{
	size_t i;

	for (i = 0; !run->vm && i < sum->nskipped; i++)
		if (!strcmp(sum->skipped[i].cca, run->cca))
			return true;
	return false;
}

bool ts_campaign_selected(const struct ts_campaign *c, const struct ts_exp_run *run)
{
	char dir[PATH_MAX];
	struct ts_err why;

	if (cca_skipped(&c->skips, run))
		return false;
	if ((run->index - 1) % c->o.shard.n != c->o.shard.i - 1)
		return false;
	if (!c->o.resume)
		return true;
	/* A path too long for a run directory holds no run: run it, and its start says why. */
	if (ts_rundir_path(dir, sizeof(dir), c->o.out, run->config_id, run->rep))
		return true;
	return ts_done_check(dir, &why) != TS_DONE_OK;
}

/* The recorded runs of @rec against the plan's: the first difference, for the message. */
static int same_runs(const struct ts_expdir *rec, const struct ts_exp_matrix *plan,
		     struct ts_err *why)
{
	size_t i;

	if (rec->n != plan->nruns) {
		ts_err_set(why, "%zu runs recorded, the spec now expands to %zu", rec->n,
			   plan->nruns);
		return 0;
	}
	for (i = 0; i < rec->n; i++) {
		const struct ts_exp_run *r = &plan->runs[i];

		if (strcmp(rec->runs[i].id, r->config_id) || rec->runs[i].rep != r->rep ||
		    rec->runs[i].index != r->index) {
			ts_err_set(why, "run %zu was %s rep %u, is now %s rep %u", i + 1,
				   rec->runs[i].id, rec->runs[i].rep, r->config_id, r->rep);
			return 0;
		}
	}
	return 1;
}

int ts_campaign_check_resume(struct ts_campaign *c)
{
	const char *out = c->o.out, *sha = c->o.spec_sha256;
	struct ts_expdir rec;
	struct ts_err err, why;
	int ret;

	ret = ts_expdir_read(out, &rec, &err);
	if (ret)
		return ts_campaign_fail(c, ret, "exp resume: %s", err.msg);
	if (!c->o.shard_given)
		c->o.shard = rec.shard;
	if (rec.shard.i != c->o.shard.i || rec.shard.n != c->o.shard.n) {
		ret = ts_campaign_fail(c, -EINVAL, "exp resume: %s ran shard %u/%u, not %u/%u", out,
				       rec.shard.i, rec.shard.n, c->o.shard.i, c->o.shard.n);
		goto out;
	}
	if (strcmp(rec.spec_sha256, sha ? sha : "")) {
		if (!c->o.force) {
			ret = ts_campaign_fail(
				c, -EINVAL,
				"exp resume: the spec differs from the one %s was run with "
				"(SHA-256 %.16s..., recorded %.16s...): resuming would mix "
				"results of two experiments; use --force to resume anyway",
				out, sha ? sha : "?", rec.spec_sha256);
			goto out;
		}
		ts_campaign_notice(c, "exp resume: the spec differs from the recorded one "
				      "(--force: resuming anyway)");
	}
	if (!same_runs(&rec, c->plan, &why)) {
		if (!c->o.force) {
			ret = ts_campaign_fail(
				c, -EINVAL,
				"exp resume: %s planned other runs (%s): give the same options "
				"(--only, --repetitions, ...) as the first run, or --force",
				out, why.msg);
			goto out;
		}
		ts_campaign_notice(c, "exp resume: %s (--force: resuming anyway)", why.msg);
	}
out:
	ts_expdir_free(&rec);
	return ret;
}

int ts_campaign_after_plan(struct ts_campaign *c)
{
	const char *out = c->o.out;
	char copy[PATH_MAX];
	struct ts_err err;
	int ret;

	if (snprintf(copy, sizeof(copy), "%s/%s", out, TS_EXPDIR_SPEC) >= (int)sizeof(copy))
		return ts_campaign_fail(c, -ENAMETOOLONG, "--out %s: path too long", out);
	/* The spec beside its results: resume and the curious need no other file. */
	if (!c->o.resume || access(copy, F_OK) != 0) {
		ret = ts_expdir_copy_spec(out, c->o.spec_path, &err);
		if (ret)
			return ts_campaign_fail(c, ret, "%s", err.msg);
	}
	return 0;
}

int ts_campaign_before_run(struct ts_campaign *c, const struct ts_exp_run *run)
{
	struct ts_expdir_run r = {(char *)run->config_id, run->rep, run->index};
	struct ts_err why;
	int ret;

	if (!c->o.resume)
		return 0;
	ret = ts_expdir_prepare_run(c->o.out, &r, &why);
	if (ret < 0)
		return ts_campaign_fail(c, ret, "exp resume: %s", why.msg);
	if (why.msg[0])
		ts_campaign_notice(c, "exp resume: redoing %s", why.msg);
	return 0;
}

int ts_campaign_after_run(struct ts_campaign *c, const struct ts_exp_run *run, const char *rundir)
{
	struct ts_err err;
	int ret;

	ret = ts_flent_export_run(rundir, ts_build_version(), &err);
	if (ret < 0)
		/* The run's own results stand; only its Flent view is missing, and says why. */
		ts_campaign_notice(c, "exp: %s: no Flent file: %s", rundir, err.msg);
	/* Last: from here on the run counts as done, and resume keeps it. */
	ret = ts_done_write(rundir, run->config_id, run->rep, &err);
	if (ret)
		return ts_campaign_fail(c, ret, "exp: %s", err.msg);
	return 0;
}

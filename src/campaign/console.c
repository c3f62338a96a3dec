/* SPDX-License-Identifier: MIT */
/* What exp run shows on its console while a campaign runs (console.h). */
#include <unistd.h>

#include "campaign/console.h"
#include "campaign/progress.h"
#include "campaign/stops.h"
#include "results/result.h"

/* The line of a finished run into @line, read back from its result; whether it is ok. */
static bool run_line(char *line, size_t len, const struct ts_exp_run *run, size_t pos, size_t total,
		     const char *path, ts_ns_t took)
{
	struct ts_exp_result r;
	struct ts_err err;
	bool ok;

	if (ts_exp_result_load(&r, path, &err) < 0)
		return ts_exp_progress_done(line, len, pos, total, run, NULL, err.msg, took);
	ok = ts_exp_progress_done(line, len, pos, total, run, &r, NULL, took);
	ts_exp_result_free(&r);
	return ok;
}

/* The runs start: stop signals end the campaign after the runs under way (stops.h). */
static void con_begin(void *ctx, size_t total)
{
	struct ts_campaign_console *c = ctx;

	ts_campaign_stops_catch();
	ts_exp_live_start(&c->live, total);
}

static void con_run_start(void *ctx, const struct ts_exp_run *run, size_t pos, size_t total)
{
	struct ts_campaign_console *c = ctx;

	(void)total;
	ts_exp_live_run_start(&c->live, run, pos);
}

/* Every run gets its line, but on a terminal without --jobs only a failed one does. */
static void con_run_end(void *ctx, const struct ts_exp_run *run, size_t pos, size_t total,
			const char *result, ts_ns_t took)
{
	struct ts_campaign_console *c = ctx;
	char line[1024];
	bool ok = run_line(line, sizeof(line), run, pos, total, result, took);

	ts_exp_live_run_end(&c->live);
	if (!c->live.live || c->every_line || !ok) {
		ts_exp_live_erase(&c->live);
		fprintf(c->live.out, "%s\n", line);
		fflush(c->live.out);
	}
	ts_exp_live_unlock(&c->live);
}

static void con_end(void *ctx)
{
	struct ts_campaign_console *c = ctx;

	ts_exp_live_stop(&c->live);
	ts_campaign_stops_release();
}

void ts_campaign_console_init(struct ts_campaign_console *c, FILE *out, int progress, unsigned jobs,
			      const struct ts_exp_matrix *plan, struct ts_campaign_report *rep)
{
	bool live = progress == 1 || (progress == -1 && isatty(fileno(out)));

	c->every_line = jobs > 1;
	ts_exp_live_init(&c->live, out, live, ts_exp_live_planned(&plan->runs[0]));
	rep->ctx = c;
	rep->begin = con_begin;
	rep->run_start = con_run_start;
	rep->run_end = con_run_end;
	rep->end = con_end;
}

void ts_campaign_verdict_print(const struct ts_campaign_verdict *v, FILE *f)
{
	const char *strict = v->strict ? " (--strict: failing)" : "";

	if (v->failed)
		fprintf(f, "tasshape: exp: %u of %u runs failed (see summary.md)\n", v->failed,
			v->runs);
	if (v->fell_behind)
		fprintf(f, "tasshape: exp: the emulator fell behind in %u of %u runs%s\n",
			v->fell_behind, v->runs, strict);
	if (v->tcg)
		fprintf(f,
			"tasshape: exp: %u of %zu configurations ran in a VM under TCG "
			"(software emulation: coarser timing, flag tcg)%s\n",
			v->tcg, v->nconfigs, strict);
}

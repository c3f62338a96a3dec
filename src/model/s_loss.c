/* SPDX-License-Identifier: MIT */
/*
 * Random loss, decided when a packet enters the direction, as netem does.
 *
 *   bernoulli:p=P                 each packet lost with probability P
 *   ge:p=P,r=R[,1-h=L_B][,1-k=L_G] Gilbert-Elliott with netem's "gemodel"
 *                                 parameters: P = P(good -> bad),
 *                                 R = P(bad -> good) (default 1 - P),
 *                                 1-h = loss in the bad state (default
 *                                 100%), 1-k = loss in the good state
 *                                 (default 0).
 *
 * A packet is lost with the loss probability of the state it finds; the
 * chain then takes one step. Long-run loss is
 *   r/(p+r) * (1-k) + p/(p+r) * (1-h).
 * When the trace has a loss column, its value for the current row is
 * used instead (Bernoulli). All choices come from the stage's seeded
 * generator, so a seed reproduces the same losses.
 */
#include <errno.h>
#include <string.h>

#include "tasshape/stage.h"
#include "tasshape/text.h"
#include "tasshape/units.h"

enum loss_model {
	LOSS_BERNOULLI,
	LOSS_GE,
	LOSS_TRACE,
};

/* Indexed by enum loss_model; the trace's loss column has no spec name. */
static const struct ts_loss_model loss_models[] = {
	[LOSS_BERNOULLI] = {"bernoulli", "p", "bernoulli:p=P"},
	[LOSS_GE] = {"ge", "p, r, 1-h, 1-k", "ge:p=P,r=R[,1-h=..][,1-k=..] (Gilbert-Elliott)"},
};

#define LOSS_NAMED (sizeof(loss_models) / sizeof(loss_models[0]))

size_t ts_loss_model_count(void)
{
	return LOSS_NAMED;
}

const struct ts_loss_model *ts_loss_model_at(size_t i)
{
	return i < LOSS_NAMED ? &loss_models[i] : NULL;
}

static const char *loss_help(const void *ctx, size_t i)
{
	(void)ctx;
	return loss_models[i].help;
}

/* "bernoulli:p=P or ge:p=P,r=R..." for messages. */
static const char *loss_expected(char *buf, size_t len)
{
	return ts_join(buf, len, LOSS_NAMED, loss_help, NULL, " or ");
}

struct loss_priv {
	enum loss_model model;
	uint32_t p, r, loss_bad, loss_good; /* ppm */
	bool bad;
	const struct ts_trace *trace;
	ts_ns_t origin;
	struct ts_rng rng;
};

static int loss_init(struct ts_stage *st, const struct ts_stage_conf *conf, struct ts_err *err)
{
	struct loss_priv *lp = st->priv;
	struct ts_spec *spec = conf->spec;
	char expected[160];
	uint32_t ppm;
	size_t i;
	int ret = 0;

	ts_rng_seed(&lp->rng, conf->seed);
	lp->origin = conf->origin;
	if (!spec) {
		if (!ts_trace_loss_at(conf->trace, 0, &ppm)) {
			ts_err_set(err, "loss: needs a model (%s) or a trace with a loss column",
				   loss_expected(expected, sizeof(expected)));
			return -EINVAL;
		}
		lp->model = LOSS_TRACE;
		lp->trace = conf->trace;
		return 0;
	}
	for (i = 0; i < LOSS_NAMED && strcmp(spec->name, loss_models[i].name); i++)
		;
	if (i == LOSS_NAMED) {
		ts_err_set(err, "unknown loss model '%s' (expected %s)", spec->name,
			   loss_expected(expected, sizeof(expected)));
		return -EINVAL;
	}
	lp->model = (enum loss_model)i;
	lp->p = TS_PPM_ONE + 1; /* "not given" */
	lp->r = TS_PPM_ONE + 1;
	lp->loss_bad = TS_PPM_ONE;
	lp->loss_good = 0;
	ret = ts_spec_get_ppm(spec, "p", &lp->p, err);
	if (ret < 0)
		return ret;
	if (lp->model == LOSS_GE) {
		ret = ts_spec_get_ppm(spec, "r", &lp->r, err);
		if (!ret)
			ret = ts_spec_get_ppm(spec, "1-h", &lp->loss_bad, err);
		if (!ret)
			ret = ts_spec_get_ppm(spec, "1-k", &lp->loss_good, err);
		if (ret < 0)
			return ret;
	}
	ret = ts_spec_check_used(spec, loss_models[lp->model].keys, err);
	if (ret < 0)
		return ret;
	if (lp->p > TS_PPM_ONE) {
		ts_err_set(err, "%s: needs p=PROBABILITY (e.g. p=1%%)", spec->name);
		return -EINVAL;
	}
	if (lp->r > TS_PPM_ONE)
		lp->r = TS_PPM_ONE - lp->p; /* netem's default */
	if (lp->model == LOSS_GE && !lp->p && !lp->r) {
		ts_err_set(err, "ge: p and r cannot both be 0 (the chain would never move)");
		return -EINVAL;
	}
	return 0;
}

int ts_loss_spec_check(const char *spec_str, struct ts_err *err)
{
	struct loss_priv lp = {0};
	struct ts_stage st = {.ops = &ts_s_loss, .priv = &lp};
	struct ts_stage_conf conf = {0};
	struct ts_spec spec;
	int ret;

	ret = ts_spec_parse(&spec, spec_str, err);
	if (ret < 0)
		return ret;
	conf.spec = &spec;
	return loss_init(&st, &conf, err);
}

static bool loss_decide(struct loss_priv *lp, ts_ns_t now)
{
	bool lost;
	uint32_t ppm;

	switch (lp->model) {
	case LOSS_BERNOULLI:
		return ts_rng_chance_ppm(&lp->rng, lp->p);
	case LOSS_TRACE:
		if (!ts_trace_loss_at(lp->trace, now - lp->origin, &ppm))
			return false;
		return ts_rng_chance_ppm(&lp->rng, ppm);
	case LOSS_GE:
		lost = ts_rng_chance_ppm(&lp->rng, lp->bad ? lp->loss_bad : lp->loss_good);
		if (ts_rng_chance_ppm(&lp->rng, lp->bad ? lp->r : lp->p))
			lp->bad = !lp->bad;
		return lost;
	}
	return false;
}

static void loss_enqueue(struct ts_stage *st, struct ts_pkt *p, ts_ns_t now)
{
	if (loss_decide(st->priv, now))
		ts_stage_drop(st, p, TS_DROP_LOSS, now);
	else
		ts_stage_emit(st, p, now);
}

static ts_ns_t loss_next_deadline(const struct ts_stage *st)
{
	(void)st;
	return TS_NEVER;
}

static void loss_advance(struct ts_stage *st, ts_ns_t now)
{
	(void)st;
	(void)now;
}

const struct ts_stage_ops ts_s_loss = {
	.name = "loss",
	.keys = "p, r, 1-h, 1-k",
	.priv_size = sizeof(struct loss_priv),
	.init = loss_init,
	.enqueue = loss_enqueue,
	.next_deadline = loss_next_deadline,
	.advance = loss_advance,
};

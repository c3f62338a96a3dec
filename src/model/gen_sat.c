/* SPDX-License-Identifier: MIT */
/*
 * Starlink as a slot process. Starlink reassigns satellites to a user
 * terminal on a global 15 s schedule, at 12, 27, 42 and 57 s past each
 * minute (Mohan et al., WWW'24; the offsets cake-autorate uses), and
 * throughput and latency change at those instants. The model: each slot
 * draws its own capacity (lognormal around the medians, the down and up
 * draws independent) and its own base one-way delay (uniform in
 * [delay-min, delay-max], 12.5 to 22.5 ms for a 25 to 45 ms base RTT);
 * within a slot the capacity wanders a little (lognormal, AR(1) with the
 * coherence time) and the delay jitters uniformly; each reconfiguration
 * starts with a short outage (uniform in [outage-min, outage-max]) while
 * the terminal repoints. Delays are rounded to 0.1 ms, rates to 1 kbit/s.
 */
#include <errno.h>
#include <stdlib.h>

#include "gen_priv.h"

enum {
	S_DOWN,
	S_UP,
	S_SIGMA,
	S_WOBBLE,
	S_COHERENCE,
	S_DELAY_MIN,
	S_DELAY_MAX,
	S_JITTER,
	S_SLOT,
	S_FIRST,
	S_OUTAGE_MIN,
	S_OUTAGE_MAX,
	S_STEP,
};

/* Uniform in [lo, hi], rounded to @res. */
static ts_ns_t uniform_ns(struct ts_rng *r, ts_ns_t lo, ts_ns_t hi, ts_ns_t res)
{
	ts_ns_t v = lo + (ts_ns_t)(((__int128)(hi - lo) * gm_uniform(r)) >> 32);

	return (v + res / 2) / res * res;
}

static uint64_t kbit(uint64_t bps, q32_t f)
{
	return gm_scale((bps + 500) / 1000, f) * 1000;
}

static int check(const struct ts_gen_model *m, const int64_t *v, ts_ns_t duration,
		 struct ts_err *err)
{
	int ret = gen_check_step(m, v[S_STEP], duration, err);

	if (ret)
		return ret;
	if (v[S_SLOT] < v[S_STEP] || v[S_SLOT] % TS_NSEC_PER_MSEC) {
		ts_err_set(err, "%s: slot must be whole milliseconds, at least one step", m->name);
		return -EINVAL;
	}
	if (v[S_FIRST] >= v[S_SLOT] || v[S_FIRST] % TS_NSEC_PER_MSEC) {
		ts_err_set(err, "%s: first must be whole milliseconds, shorter than slot", m->name);
		return -EINVAL;
	}
	if (v[S_DELAY_MIN] > v[S_DELAY_MAX] || v[S_OUTAGE_MIN] > v[S_OUTAGE_MAX]) {
		ts_err_set(err, "%s: delay-min must be <= delay-max, outage-min <= outage-max",
			   m->name);
		return -EINVAL;
	}
	if (v[S_OUTAGE_MAX] >= v[S_SLOT]) {
		ts_err_set(err, "%s: outage-max must be shorter than slot", m->name);
		return -EINVAL;
	}
	return 0;
}

int gen_starlink_run(const struct ts_gen_model *m, const struct gen_args *a, struct ts_series *out,
		     struct ts_err *err)
{
	const int64_t *v = a->v;
	q32_t sigma = q32_from_micro(v[S_SIGMA]), wobble = q32_from_micro(v[S_WOBBLE]);
	struct ts_rng rslot, rwob, rjit, rout;
	struct gm_ar1 wob;
	struct ts_series base;
	struct gen_iv *iv = NULL;
	size_t niv = 0;
	ts_ns_t s, e;
	int ret;

	ret = check(m, v, a->duration, err);
	if (ret)
		return ret;
	ts_rng_seed(&rslot, ts_rng_derive(a->seed, 1));
	ts_rng_seed(&rwob, ts_rng_derive(a->seed, 2));
	ts_rng_seed(&rjit, ts_rng_derive(a->seed, 3));
	ts_rng_seed(&rout, ts_rng_derive(a->seed, 4));
	gm_ar1_init(&wob, v[S_STEP], v[S_COHERENCE], &rwob);
	ts_series_init(&base, out->cols);
	base.period = a->duration;
	/* Every reconfiguration has an outage: at most one interval per slot. */
	iv = calloc((size_t)(a->duration / v[S_SLOT]) + 2, sizeof(*iv));
	ret = -ENOMEM;
	if (!iv)
		goto out;
	/* Slots: [0, first), then [first + k * slot, ...); first == 0 skips the empty one. */
	for (s = 0; s < a->duration; s = e) {
		q32_t fd = gm_exp(gm_mul(sigma, gm_normal(&rslot)));
		q32_t fu = gm_exp(gm_mul(sigma, gm_normal(&rslot)));
		ts_ns_t delay = uniform_ns(&rslot, v[S_DELAY_MIN], v[S_DELAY_MAX], 100000);
		ts_ns_t t;

		e = s < v[S_FIRST] ? v[S_FIRST] : s + v[S_SLOT];
		if (e > a->duration)
			e = a->duration;
		for (t = s; t < e; t += v[S_STEP]) {
			q32_t w = gm_exp(gm_mul(wobble, gm_ar1_next(&wob, &rwob)));
			struct ts_series_row row = {.t = t};
			ts_ns_t d = delay + uniform_ns(&rjit, -v[S_JITTER], v[S_JITTER], 100000);

			row.down = kbit((uint64_t)v[S_DOWN], gm_mul(fd, w));
			row.up = kbit((uint64_t)v[S_UP], gm_mul(fu, w));
			row.delay = d < 0 ? 0 : d;
			ret = ts_series_add(&base, &row);
			if (ret)
				goto out;
		}
		if (s > 0) {
			ts_ns_t len = uniform_ns(&rout, v[S_OUTAGE_MIN], v[S_OUTAGE_MAX],
						 TS_NSEC_PER_MSEC);

			iv[niv].start = s;
			iv[niv].end = s + len < a->duration ? s + len : a->duration;
			niv++;
		}
	}
	ret = gen_overlay_zero(&base, iv, niv, out);
out:
	if (ret == -ENOMEM)
		ts_err_set(err, "%s: out of memory", m->name);
	free(iv);
	ts_series_fini(&base);
	return ret;
}

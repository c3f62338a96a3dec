/* SPDX-License-Identifier: MIT */
/*
 * Markov-modulated cellular (and GEO) capacity. A hidden state (for
 * example good, fair, poor and cell-edge coverage) changes at random: the
 * time in a state is geometric with the state's mean dwell time (the
 * discrete form of an exponential dwell), and the next state is drawn from
 * the state's row of transition weights. Within a state the rate is
 * lognormal around the state's median, median * exp(sigma * z), where z
 * is a Gauss-Markov (AR(1)) process with the model's coherence time, so
 * rates wander rather than jump every row; up and down share z, since
 * both follow the same radio conditions. Outages (handovers, mmWave
 * blockages) start as a Poisson process with a per-state mean interval
 * and last a lognormal time clipped to [min, max]; both rates are then 0.
 */
#include <errno.h>
#include <stdlib.h>

#include "gen_priv.h"

#define CELL_MAX 4

struct gen_cell_state {
	const char *name;
	uint32_t down_kbps, up_kbps; /* medians */
	uint32_t sigma_milli;	     /* lognormal sigma (natural log) x 1000 */
	uint32_t dwell_ms;	     /* mean time in the state */
	uint32_t outage_every_ms;    /* mean time between outages in the state; 0: none */
	uint8_t next[CELL_MAX];	     /* weights of the next state */
};

struct gen_cell_preset {
	int nstates, start;
	struct gen_cell_state st[CELL_MAX];
	uint32_t outage_median_ms, outage_sigma_milli, outage_min_ms, outage_max_ms;
	uint32_t max_kbps; /* rates are clipped here */
};

/*
 * LTE while driving, set to the range of the public LTE drive traces
 * (mahimahi's TMobile-LTE-driving: mean 12.8 Mbit/s, 1 s peak 59.5;
 * ATT-LTE-driving: mean 5.2): good, fair, poor and cell-edge coverage;
 * handover interruptions of tens of ms, rarely a second or two.
 */
const struct gen_cell_preset gen_preset_lte_driving = {
	.nstates = 4,
	.start = 1,
	.st = {{"good", 24000, 7000, 400, 12000, 25000, {0, 1, 0, 0}},
	       {"fair", 12000, 4000, 500, 20000, 25000, {4, 0, 6, 0}},
	       {"poor", 4000, 1500, 600, 12000, 20000, {0, 6, 0, 4}},
	       {"edge", 800, 300, 800, 5000, 15000, {0, 0, 1, 0}}},
	.outage_median_ms = 60,
	.outage_sigma_milli = 800,
	.outage_min_ms = 20,
	.outage_max_ms = 2000,
	.max_kbps = 150000,
};

/* 5G mid-band walking: hundreds of Mbit/s near a cell, LTE fallback at times. */
const struct gen_cell_preset gen_preset_5g_mid_walking = {
	.nstates = 4,
	.start = 1,
	.st = {{"nr-good", 380000, 45000, 350, 30000, 0, {0, 1, 0, 0}},
	       {"nr-mid", 170000, 25000, 450, 30000, 120000, {5, 0, 5, 0}},
	       {"nr-edge", 50000, 8000, 600, 15000, 60000, {0, 6, 0, 4}},
	       {"lte", 25000, 6000, 500, 10000, 0, {0, 2, 8, 0}}},
	.outage_median_ms = 50,
	.outage_sigma_milli = 500,
	.outage_min_ms = 20,
	.outage_max_ms = 500,
	.max_kbps = 1200000,
};

/*
 * 5G mid-band (non-standalone) while driving, aimed at the spread of the
 * Irish 5G driving traces (p10/p50/p90 about 0.9/9.6/103 Mbit/s): NR
 * good and mid, LTE anchor only, and poor coverage.
 */
const struct gen_cell_preset gen_preset_5g_mid_driving = {
	.nstates = 4,
	.start = 1,
	.st = {{"nr-good", 150000, 25000, 450, 9000, 20000, {0, 1, 0, 0}},
	       {"nr-mid", 40000, 8000, 600, 8000, 15000, {4, 0, 6, 0}},
	       {"lte", 8000, 2500, 700, 22000, 20000, {0, 5, 0, 5}},
	       {"poor", 1200, 400, 900, 12000, 10000, {0, 0, 1, 0}}},
	.outage_median_ms = 80,
	.outage_sigma_milli = 800,
	.outage_min_ms = 20,
	.outage_max_ms = 3000,
	.max_kbps = 600000,
};

/*
 * 5G mmWave while driving (the shape of 5Gophers' Verizon drives: peaks
 * near 1.7 Gbit/s, exact-zero outages): line of sight, a reflected path,
 * and LTE fallback; blockages (a truck, a building corner) drop the link
 * to zero for hundreds of ms to seconds, in the mmWave states only.
 */
const struct gen_cell_preset gen_preset_5g_mmwave_driving = {
	.nstates = 3,
	.start = 0,
	.st = {{"los", 1250000, 60000, 250, 6000, 8000, {0, 7, 3}},
	       {"nlos", 400000, 30000, 500, 5000, 6000, {6, 0, 4}},
	       {"lte", 40000, 8000, 600, 10000, 0, {5, 5, 0}}},
	.outage_median_ms = 500,
	.outage_sigma_milli = 700,
	.outage_min_ms = 100,
	.outage_max_ms = 5000,
	.max_kbps = 2000000,
};

/*
 * GEO satellite (Viasat-like: median RTT 630 ms, about 20 Mbit/s down):
 * a normal and a busy-hour beam state; the delay column carries the
 * one-way delay.
 */
const struct gen_cell_preset gen_preset_geo = {
	.nstates = 2,
	.start = 0,
	.st = {{"normal", 21000, 3000, 150, 120000, 0, {0, 1}},
	       {"busy", 9000, 1500, 250, 40000, 0, {1, 0}}},
	.max_kbps = 100000,
};

/* Parameter indexes, in the order of CELL_PARAMS in trace_gen.c. */
enum { P_SCALE, P_UP_SCALE, P_DWELL_SCALE, P_OUTAGE_SCALE, P_STEP, P_COHERENCE, P_DELAY, P_JITTER };

static int pick_next(const struct gen_cell_preset *p, int cur, struct ts_rng *r)
{
	unsigned int total = 0, u;
	int i;

	for (i = 0; i < p->nstates; i++)
		total += p->st[cur].next[i];
	u = (unsigned int)ts_rng_below(r, total);
	for (i = 0; i < p->nstates; i++) {
		if (u < p->st[cur].next[i])
			return i;
		u -= p->st[cur].next[i];
	}
	return cur;
}

static uint64_t cell_rate(uint32_t median_kbps, q32_t f, uint32_t max_kbps)
{
	uint64_t kbps = gm_scale(median_kbps, f);

	return (kbps > max_kbps ? max_kbps : kbps) * 1000;
}

static int add_outage(struct gen_iv **iv, size_t *n, size_t *cap, ts_ns_t start, ts_ns_t end)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct gen_iv *p = realloc(*iv, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*iv = p;
		*cap = c;
	}
	(*iv)[*n].start = start;
	(*iv)[*n].end = end;
	(*n)++;
	return 0;
}

/* A lognormal outage length in whole ms, clipped to the preset's range. */
static ts_ns_t outage_len(const struct gen_cell_preset *p, struct ts_rng *r)
{
	q32_t f =
		gm_exp(gm_mul(q32_from_micro((int64_t)p->outage_sigma_milli * 1000), gm_normal(r)));
	uint64_t ms = gm_scale(p->outage_median_ms, f);

	if (ms < p->outage_min_ms)
		ms = p->outage_min_ms;
	if (ms > p->outage_max_ms)
		ms = p->outage_max_ms;
	return (ts_ns_t)ms * TS_NSEC_PER_MSEC;
}

int gen_cell_run(const struct ts_gen_model *m, const struct gen_args *a, struct ts_series *out,
		 struct ts_err *err)
{
	const struct gen_cell_preset *p = m->preset;
	bool has_delay = m->cols & TS_COL_DELAY;
	ts_ns_t step = a->v[P_STEP], t;
	q32_t scale = q32_from_micro(a->v[P_SCALE]);
	q32_t up_scale = gm_mul(scale, q32_from_micro(a->v[P_UP_SCALE]));
	q32_t dwell_scale = q32_from_micro(a->v[P_DWELL_SCALE]);
	q32_t outage_scale = q32_from_micro(a->v[P_OUTAGE_SCALE]);
	struct ts_rng rs, rf, ro, rd;
	struct gm_ar1 fade, jit;
	struct ts_series base;
	struct gen_iv *iv = NULL;
	size_t niv = 0, cap = 0;
	int state = p->start, ret;

	ret = gen_check_step(m, step, a->duration, err);
	if (ret)
		return ret;
	if (dwell_scale <= 0) {
		ts_err_set(err, "%s: dwell-scale must be > 0", m->name);
		return -EINVAL;
	}
	/* One stream per random process: changing one leaves the others alone. */
	ts_rng_seed(&rs, ts_rng_derive(a->seed, 1));
	ts_rng_seed(&rf, ts_rng_derive(a->seed, 2));
	ts_rng_seed(&ro, ts_rng_derive(a->seed, 3));
	ts_rng_seed(&rd, ts_rng_derive(a->seed, 4));
	gm_ar1_init(&fade, step, a->v[P_COHERENCE], &rf);
	gm_ar1_init(&jit, step, a->v[P_COHERENCE], &rd);
	ts_series_init(&base, out->cols);
	base.period = out->period;
	for (t = 0; t < a->duration; t += step) {
		const struct gen_cell_state *st = &p->st[state];
		q32_t sigma = q32_from_micro((int64_t)st->sigma_milli * 1000);
		q32_t f = gm_exp(gm_mul(sigma, gm_ar1_next(&fade, &rf)));
		struct ts_series_row row = {.t = t};
		ts_ns_t every = (ts_ns_t)st->outage_every_ms * TS_NSEC_PER_MSEC;
		ts_ns_t dwell = (ts_ns_t)st->dwell_ms * TS_NSEC_PER_MSEC;

		row.down = cell_rate(st->down_kbps, gm_mul(f, scale), p->max_kbps);
		row.up = cell_rate(st->up_kbps, gm_mul(f, up_scale), p->max_kbps);
		if (has_delay) {
			__int128 d = a->v[P_DELAY] +
				     (((__int128)a->v[P_JITTER] * gm_ar1_next(&jit, &rd)) >> 32);

			/* to 0.1 ms, as a ping would report it */
			d = (d + 50000) / 100000 * 100000;
			row.delay = d < 0 ? 0 : (ts_ns_t)d;
		}
		ret = ts_series_add(&base, &row);
		if (ret)
			goto out;
		/* An outage starting in this step, at a whole millisecond. */
		if (every && gm_chance(&ro, gm_mul(gm_div(step, every), outage_scale))) {
			ts_ns_t at = t + (ts_ns_t)ts_rng_below(
						 &ro, (uint64_t)(step / TS_NSEC_PER_MSEC)) *
						 TS_NSEC_PER_MSEC;
			ts_ns_t end = at + outage_len(p, &ro);

			ret = add_outage(&iv, &niv, &cap, at,
					 end < a->duration ? end : a->duration);
			if (ret)
				goto out;
		}
		if (gm_chance(&rs, gm_div(step, gm_mul(dwell, dwell_scale))))
			state = pick_next(p, state, &rs);
	}
	ret = gen_overlay_zero(&base, iv, niv, out);
out:
	if (ret == -ENOMEM)
		ts_err_set(err, "%s: out of memory", m->name);
	free(iv);
	ts_series_fini(&base);
	return ret;
}

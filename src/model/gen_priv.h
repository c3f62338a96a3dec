/* SPDX-License-Identifier: MIT */
/*
 * Private to the trace generators (trace_gen.c and the gen_*.c models).
 *
 * The generators compute in fixed point (Q32: int64_t with 32 fraction
 * bits) with integer operations only, never with double or libm: the
 * same seed and parameters then give byte-identical files on every
 * machine, whatever its libm, FMA contraction or compiler flags.
 */
#ifndef TASSHAPE_GEN_PRIV_H
#define TASSHAPE_GEN_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "tasshape/err.h"
#include "tasshape/rng.h"
#include "tasshape/series.h"
#include "tasshape/trace_gen.h"

typedef int64_t q32_t;

#define Q32_ONE ((q32_t)1 << 32)

/* A parameter value in Q32 from micro-units (TS_GP_NUM values). */
static inline q32_t q32_from_micro(int64_t micro)
{
	return (q32_t)(((__int128)micro << 32) / 1000000);
}

/* a * b, both Q32 (truncated toward zero). */
q32_t gm_mul(q32_t a, q32_t b);

/* a / b, both Q32, b != 0 (truncated toward zero). */
q32_t gm_div(q32_t a, q32_t b);

/* 2^x for x in Q32; saturates at INT64_MAX above 2^31, 0 below 2^-32. */
q32_t gm_exp2(q32_t x);

/* e^x for x in Q32 (same range as gm_exp2 after scaling by log2(e)). */
q32_t gm_exp(q32_t x);

/* log2(x) for x > 0 in Q32, to 2^-32. */
q32_t gm_log2(q32_t x);

/* log10(x) for x > 0 in Q32. */
q32_t gm_log10(q32_t x);

/* sqrt(x) for x >= 0 in Q32 (floor). */
q32_t gm_sqrt(q32_t x);

/* Uniform in [0, 1), Q32. */
q32_t gm_uniform(struct ts_rng *r);

/*
 * Standard normal variate, Q32: the Irwin-Hall approximation (the sum of
 * 12 uniforms minus 6), exact mean 0 and variance 1, tails cut at +-6.
 * Good enough for fading and shadowing, and integer-only.
 */
q32_t gm_normal(struct ts_rng *r);

/* True with probability @p (Q32, clamped to [0, 1]). */
bool gm_chance(struct ts_rng *r, q32_t p);

/* round(v * f) for v >= 0 and f >= 0 (Q32); saturates at UINT64_MAX. */
uint64_t gm_scale(uint64_t v, q32_t f);

/*
 * An AR(1) process z' = a z + sqrt(1 - a^2) e, e standard normal: a
 * stationary standard normal sequence whose correlation decays as
 * exp(-dt / tau) (Gauss-Markov fading, shadowing).
 */
struct gm_ar1 {
	q32_t a, b, z;
};

/* Correlation time @tau_ns, one step of @step_ns; z starts stationary. */
void gm_ar1_init(struct gm_ar1 *p, int64_t step_ns, int64_t tau_ns, struct ts_rng *r);

/* Advance one step and return the new z. */
q32_t gm_ar1_next(struct gm_ar1 *p, struct ts_rng *r);

/*
 * A parsed parameter set: values of the model's table, in its order (see
 * struct ts_gen_param for the units).
 */
struct gen_args {
	uint64_t seed;
	ts_ns_t duration;
	const int64_t *v;
};

/*
 * gen_check_step - a row interval must be whole milliseconds and give at
 * most 10 million rows over @duration. Returns 0 or -EINVAL with @err set.
 */
int gen_check_step(const struct ts_gen_model *m, ts_ns_t step, ts_ns_t duration,
		   struct ts_err *err);

/* Model entry points: fill @out (columns already set by the model). */
int gen_cell_run(const struct ts_gen_model *m, const struct gen_args *a, struct ts_series *out,
		 struct ts_err *err);
int gen_starlink_run(const struct ts_gen_model *m, const struct gen_args *a, struct ts_series *out,
		     struct ts_err *err);
int gen_wifi_run(const struct ts_gen_model *m, const struct gen_args *a, struct ts_series *out,
		 struct ts_err *err);
int gen_const_run(const struct ts_gen_model *m, const struct gen_args *a, struct ts_series *out,
		  struct ts_err *err);

/* The cellular models' presets (gen_cell.c), opaque to the table that names them (trace_gen.c). */
struct gen_cell_preset;
extern const struct gen_cell_preset gen_preset_lte_driving, gen_preset_5g_mid_walking,
	gen_preset_5g_mid_driving, gen_preset_5g_mmwave_driving, gen_preset_geo;

/*
 * Zero intervals (outages) laid over a series: @iv holds @n [start, end)
 * pairs sorted by start (they may overlap). Both rates are 0 inside, the
 * delay and loss stay. @out must be empty and gets the period of @in.
 */
struct gen_iv {
	ts_ns_t start, end;
};
int gen_overlay_zero(const struct ts_series *in, const struct gen_iv *iv, size_t n,
		     struct ts_series *out);

#endif

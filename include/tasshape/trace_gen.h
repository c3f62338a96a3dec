/* SPDX-License-Identifier: MIT */
/*
 * Trace generators: documented stochastic models of cellular, satellite
 * and Wi-Fi links that write native CSV traces. Reproducible: the same
 * model, seed, duration and parameters give byte-identical output on
 * every machine (integer arithmetic only, see src/model/gen_priv.h).
 * The models and their parameters are described in docs/traces.md.
 */
#ifndef TASSHAPE_TRACE_GEN_H
#define TASSHAPE_TRACE_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "tasshape/text.h"
#include "tasshape/err.h"
#include "tasshape/series.h"
#include "tasshape/time.h"

/* How a KEY=VALUE parameter is written and stored (as an int64_t). */
enum ts_gp_type {
	TS_GP_RATE, /* "25mbit" (ts_parse_rate), stored in bit/s */
	TS_GP_TIME, /* "100ms" (ts_parse_time), stored in ns */
	TS_GP_NUM,  /* a non-negative decimal "0.35", stored in millionths */
	TS_GP_INT,  /* a non-negative integer "2" */
};

struct ts_gen_param {
	const char *key;
	enum ts_gp_type type;
	const char *def; /* default, written as a user would */
	const char *help;
};

struct gen_args; /* private to the generators */

struct ts_gen_model {
	const char *name;
	const char *summary; /* one line */
	const struct ts_gen_param *params;
	size_t nparams;
	unsigned int cols;  /* TS_COL_* of the output */
	const void *preset; /* model-specific constants (the states of a preset) */
	int (*run)(const struct ts_gen_model *m, const struct gen_args *a, struct ts_series *out,
		   struct ts_err *err);
};

/* The models, in the order `tasshape trace gen --list` shows them. */
size_t ts_gen_count(void);
const struct ts_gen_model *ts_gen_at(size_t i);

/* The model called @name, or NULL. */
const struct ts_gen_model *ts_gen_find(const char *name);

/*
 * ts_gen_series - run model @name with @seed for @duration (> 0, at most
 * 49.7 days) and the @nkv parameters "KEY=VALUE" in @kv (later ones win;
 * others keep their defaults) into @out, which the caller initialises
 * empty and frees. Returns 0 or -EINVAL (unknown model or key, bad
 * value; @err says which and what is expected) or -ENOMEM.
 */
int ts_gen_series(const char *name, uint64_t seed, ts_ns_t duration, const char *const *kv,
		  size_t nkv, struct ts_series *out, struct ts_err *err);

/*
 * ts_gen_csv - as ts_gen_series, written as a native CSV trace into @out
 * with comment lines naming the command that regenerates it and the
 * model. Returns as ts_gen_series.
 */
int ts_gen_csv(const char *name, uint64_t seed, ts_ns_t duration, const char *const *kv, size_t nkv,
	       struct ts_text *out, struct ts_err *err);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The generator registry: model table, KEY=VALUE parameters, and the
 * CSV output with a header that names the command regenerating it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_priv.h"
#include "trace_read_priv.h"
#include "tasshape/units.h"

/* Rows a generator may write: 10 million rows is about 250 MB of CSV. */
#define GEN_MAX_STEPS 10000000LL

/* Parameters of the Markov-modulated cellular models (gen_cell.c reads them by index). */
#define CELL_PARAMS(step, coherence)                                                               \
	{"scale", TS_GP_NUM, "1", "multiplies the median down and up rates of every state"},       \
		{"up-scale", TS_GP_NUM, "1", "multiplies the median up rates once more"},          \
		{"dwell-scale", TS_GP_NUM, "1", "multiplies the mean dwell time of every state"},  \
		{"outage-scale", TS_GP_NUM, "1", "multiplies how often outages start (0: none)"},  \
		{"step", TS_GP_TIME, step, "time between rows"},                                   \
	{                                                                                          \
		"coherence", TS_GP_TIME, coherence,                                                \
			"correlation time of the fading within a state"                            \
	}

static const struct ts_gen_param lte_params[] = {CELL_PARAMS("100ms", "1500ms")};
static const struct ts_gen_param mid_walk_params[] = {CELL_PARAMS("100ms", "3s")};
static const struct ts_gen_param mid_drive_params[] = {CELL_PARAMS("100ms", "1s")};
static const struct ts_gen_param mmw_params[] = {CELL_PARAMS("50ms", "500ms")};
static const struct ts_gen_param geo_params[] = {
	CELL_PARAMS("100ms", "5s"),
	{"delay", TS_GP_TIME, "315ms", "base one-way delay (half the RTT)"},
	{"jitter", TS_GP_TIME, "3ms", "standard deviation of the delay around its base"},
};

static const struct ts_gen_param starlink_params[] = {
	{"down", TS_GP_RATE, "100mbit", "median downlink capacity of a slot"},
	{"up", TS_GP_RATE, "12mbit", "median uplink capacity of a slot"},
	{"sigma", TS_GP_NUM, "0.3", "lognormal spread of the capacity from slot to slot"},
	{"wobble", TS_GP_NUM, "0.1", "lognormal spread of the capacity within a slot"},
	{"coherence", TS_GP_TIME, "2s", "correlation time of the variation within a slot"},
	{"delay-min", TS_GP_TIME, "12.5ms", "smallest base one-way delay of a slot"},
	{"delay-max", TS_GP_TIME, "22.5ms", "largest base one-way delay of a slot"},
	{"jitter", TS_GP_TIME, "1ms", "largest delay variation within a slot (uniform +-)"},
	{"slot", TS_GP_TIME, "15s", "time between reconfigurations"},
	{"first", TS_GP_TIME, "12s",
	 "first reconfiguration after the trace start (12s: the trace starts at :00)"},
	{"outage-min", TS_GP_TIME, "40ms", "shortest outage at a reconfiguration"},
	{"outage-max", TS_GP_TIME, "120ms", "longest outage at a reconfiguration"},
	{"step", TS_GP_TIME, "100ms", "time between rows"},
};

#define WIFI_COMMON                                                                                \
	{"width", TS_GP_INT, "80", "channel width in MHz: 20, 40, 80 or 160"},                     \
		{"ss", TS_GP_INT, "2", "spatial streams, 1 to 4"},                                 \
		{"gi", TS_GP_TIME, "800ns", "guard interval: 800ns, 1600ns or 3200ns"},            \
	{                                                                                          \
		"step", TS_GP_TIME, "100ms", "time between rows"                                   \
	}

static const struct ts_gen_param wifi_static_params[] = {
	WIFI_COMMON,
	{"snr", TS_GP_NUM, "38", "mean SNR in dB"},
	{"shadow", TS_GP_NUM, "2", "standard deviation of the SNR in dB (shadowing, fading)"},
	{"coherence", TS_GP_TIME, "2s", "correlation time of the SNR variation"},
};

static const struct ts_gen_param wifi_walk_params[] = {
	WIFI_COMMON,
	{"snr1m", TS_GP_NUM, "61", "SNR in dB at 1 m from the access point"},
	{"shadow", TS_GP_NUM, "3", "standard deviation of the shadowing in dB"},
	{"coherence", TS_GP_TIME, "3s", "correlation time of the shadowing"},
	{"start", TS_GP_NUM, "2", "distance from the access point at the start, in m"},
	{"speed", TS_GP_NUM, "0.8", "walking speed away from the access point, in m/s"},
	{"ple", TS_GP_NUM, "3.3", "path loss exponent (2 free space, 3 to 4 indoors)"},
};

static const struct ts_gen_param const_params[] = {
	{"down", TS_GP_RATE, "25mbit", "downlink capacity"},
	{"up", TS_GP_RATE, "25mbit", "uplink capacity"},
	{"delay", TS_GP_TIME, "0ms", "one-way delay (0: no delay column)"},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct ts_gen_model models[] = {
	{"lte-driving",
	 "LTE while driving: Markov-modulated lognormal rates (4 states), handover outages",
	 lte_params, N(lte_params), TS_COL_DOWN | TS_COL_UP, &gen_preset_lte_driving, gen_cell_run},
	{"5g-mid-walking",
	 "5G mid-band (3.5 GHz) while walking: Markov-modulated lognormal rates (4 states)",
	 mid_walk_params, N(mid_walk_params), TS_COL_DOWN | TS_COL_UP, &gen_preset_5g_mid_walking,
	 gen_cell_run},
	{"5g-mid-driving",
	 "5G mid-band (NSA) while driving: Markov-modulated lognormal rates (4 states), "
	 "handover outages",
	 mid_drive_params, N(mid_drive_params), TS_COL_DOWN | TS_COL_UP, &gen_preset_5g_mid_driving,
	 gen_cell_run},
	{"5g-mmwave-driving",
	 "5G mmWave while driving: line of sight, reflected and LTE states, blockages to zero",
	 mmw_params, N(mmw_params), TS_COL_DOWN | TS_COL_UP, &gen_preset_5g_mmwave_driving,
	 gen_cell_run},
	{"starlink",
	 "Starlink LEO: a new capacity and base delay every 15 s slot, a short outage at each "
	 "reconfiguration",
	 starlink_params, N(starlink_params), TS_COL_DOWN | TS_COL_UP | TS_COL_DELAY, NULL,
	 gen_starlink_run},
	{"geo", "GEO satellite: ~630 ms RTT, ~20 Mbit/s down, a congested state at busy hours",
	 geo_params, N(geo_params), TS_COL_DOWN | TS_COL_UP | TS_COL_DELAY, &gen_preset_geo,
	 gen_cell_run},
	{"wifi6-static", "Wi-Fi 6 PHY rate of a station that does not move (SNR-driven MCS)",
	 wifi_static_params, N(wifi_static_params), TS_COL_DOWN | TS_COL_PHY, NULL, gen_wifi_run},
	{"wifi6-walking",
	 "Wi-Fi 6 PHY rate of a station walking away from the access point (path loss, MCS "
	 "steps)",
	 wifi_walk_params, N(wifi_walk_params), TS_COL_DOWN | TS_COL_PHY, NULL, gen_wifi_run},
	{"const", "A constant rate in each direction", const_params, N(const_params),
	 TS_COL_DOWN | TS_COL_UP, NULL, gen_const_run},
};

size_t ts_gen_count(void)
{
	return N(models);
}

const struct ts_gen_model *ts_gen_at(size_t i)
{
	return i < N(models) ? &models[i] : NULL;
}

const struct ts_gen_model *ts_gen_find(const char *name)
{
	size_t i;

	for (i = 0; i < N(models); i++)
		if (!strcmp(models[i].name, name))
			return &models[i];
	return NULL;
}

static int gen_value(const struct ts_gen_param *p, const char *s, int64_t *out, struct ts_err *err)
{
	struct ts_err inner;
	uint64_t u = 0;
	ts_ns_t ns = 0;
	int ret;

	inner.msg[0] = '\0';
	switch (p->type) {
	case TS_GP_RATE:
		ret = ts_parse_rate(s, &u, 1, &inner);
		*out = (int64_t)u;
		break;
	case TS_GP_TIME:
		ret = ts_parse_time(s, &ns, &inner);
		*out = ns;
		break;
	case TS_GP_INT:
		ret = ts_parse_u64(s, &u, &inner);
		if (!ret && u > INT32_MAX)
			ret = -ERANGE;
		*out = (int64_t)u;
		break;
	default:
		ret = tr_parse_decimal(s, strlen(s), 6, INT64_MAX, &u);
		if (ret)
			snprintf(inner.msg, sizeof(inner.msg),
				 "expected a non-negative decimal number such as 0.5, got '%s'", s);
		*out = (int64_t)u;
		break;
	}
	if (ret)
		ts_err_set(err, "%s: %s", p->key, inner.msg[0] ? inner.msg : "value out of range");
	return ret ? -EINVAL : 0;
}

static void list_keys(const struct ts_gen_model *m, char *buf, size_t size)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < m->nparams && used < size; i++) {
		int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", m->params[i].key);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* Parse defaults, then @kv; @given[i] is the text in force for parameter i. */
static int gen_parse(const struct ts_gen_model *m, const char *const *kv, size_t nkv, int64_t *v,
		     const char **given, struct ts_err *err)
{
	size_t i, k;
	int ret;

	for (k = 0; k < m->nparams; k++) {
		given[k] = m->params[k].def;
		ret = gen_value(&m->params[k], given[k], &v[k], err);
		if (ret)
			return ret; /* a bad default: a bug, but say which */
	}
	for (i = 0; i < nkv; i++) {
		const char *eq = strchr(kv[i], '=');
		size_t klen = eq ? (size_t)(eq - kv[i]) : 0;
		char keys[512];

		for (k = 0; eq && k < m->nparams; k++)
			if (strlen(m->params[k].key) == klen &&
			    !strncmp(m->params[k].key, kv[i], klen))
				break;
		if (!eq || k == m->nparams) {
			list_keys(m, keys, sizeof(keys));
			ts_err_set(err, "%s: %s '%s'; %s takes %s", m->name,
				   eq ? "unknown parameter" : "expected KEY=VALUE, got", kv[i],
				   m->name, keys);
			return -EINVAL;
		}
		ret = gen_value(&m->params[k], eq + 1, &v[k], err);
		if (ret)
			return ret;
		given[k] = eq + 1;
	}
	return 0;
}

static void list_models(char *buf, size_t size)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < N(models) && used < size; i++) {
		int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", models[i].name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static int gen_run(const char *name, uint64_t seed, ts_ns_t duration, const char *const *kv,
		   size_t nkv, struct ts_series *out, const char **given, struct ts_err *err)
{
	const struct ts_gen_model *m = ts_gen_find(name);
	int64_t v[32];
	struct gen_args a;
	char names[512];
	int ret;

	if (!m) {
		list_models(names, sizeof(names));
		ts_err_set(err, "unknown model '%s'; expected one of %s", name, names);
		return -EINVAL;
	}
	if (duration <= 0 || duration > TR_PERIOD_MAX) {
		ts_err_set(err, "%s: the duration must be > 0 and at most 49.7 days", name);
		return -EINVAL;
	}
	ret = gen_parse(m, kv, nkv, v, given, err);
	if (ret)
		return ret;
	a.seed = seed;
	a.duration = duration;
	a.v = v;
	ts_series_init(out, m->cols);
	out->period = duration;
	return m->run(m, &a, out, err);
}

int gen_check_step(const struct ts_gen_model *m, ts_ns_t step, ts_ns_t duration, struct ts_err *err)
{
	if (step < TS_NSEC_PER_MSEC || step % TS_NSEC_PER_MSEC) {
		ts_err_set(err, "%s: step must be a whole number of milliseconds >= 1ms", m->name);
		return -EINVAL;
	}
	if (duration / step > GEN_MAX_STEPS) {
		ts_err_set(err, "%s: more than %lld rows; use a longer step or a shorter duration",
			   m->name, GEN_MAX_STEPS);
		return -EINVAL;
	}
	return 0;
}

int ts_gen_series(const char *name, uint64_t seed, ts_ns_t duration, const char *const *kv,
		  size_t nkv, struct ts_series *out, struct ts_err *err)
{
	const char *given[32];

	return gen_run(name, seed, duration, kv, nkv, out, given, err);
}

int ts_gen_csv(const char *name, uint64_t seed, ts_ns_t duration, const char *const *kv, size_t nkv,
	       struct ts_text *out, struct ts_err *err)
{
	const struct ts_gen_model *m;
	struct ts_series s;
	struct ts_text head;
	const char *given[32];
	size_t i;
	int ret;

	ts_series_init(&s, 0);
	ts_text_init(&head);
	ret = gen_run(name, seed, duration, kv, nkv, &s, given, err);
	if (ret)
		goto out;
	m = ts_gen_find(name);
	ts_text_printf(&head, "tasshape trace gen %s --seed %llu --duration ", name,
		       (unsigned long long)seed);
	ts_text_fixed(&head, (unsigned long long)duration, 9);
	ts_text_add(&head, "s", 1);
	for (i = 0; i < nkv; i++)
		ts_text_printf(&head, " %s", kv[i]);
	ts_text_printf(&head, "\nmodel: %s\nparameters:", m->summary);
	for (i = 0; i < m->nparams; i++)
		ts_text_printf(&head, " %s=%s", m->params[i].key, given[i]);
	ret = head.oom ? -ENOMEM : ts_series_write_csv(&s, head.p, out);
	if (ret == -ENOMEM)
		ts_err_set(err, "%s: out of memory", name);
	else if (ret)
		ts_err_set(err, "%s: generated an empty trace", name);
out:
	ts_text_fini(&head);
	ts_series_fini(&s);
	return ret;
}

int gen_overlay_zero(const struct ts_series *in, const struct gen_iv *iv, size_t n,
		     struct ts_series *out)
{
	size_t i = 0, j = 0;
	ts_ns_t t = 0;
	int ret;

	out->period = in->period;
	while (t < in->period) {
		struct ts_series_row row;
		ts_ns_t next;
		bool inside;

		while (i + 1 < in->n && in->rows[i + 1].t <= t)
			i++;
		while (j < n && iv[j].end <= t)
			j++;
		inside = j < n && iv[j].start <= t;
		row = in->rows[i];
		row.t = t;
		if (inside) {
			row.down = 0;
			row.up = 0;
		}
		ret = ts_series_add(out, &row);
		if (ret)
			return ret;
		next = i + 1 < in->n ? in->rows[i + 1].t : in->period;
		if (j < n) {
			ts_ns_t edge = inside ? iv[j].end : iv[j].start;

			if (edge > t && edge < next)
				next = edge;
		}
		t = next;
	}
	return 0;
}

int gen_const_run(const struct ts_gen_model *m, const struct gen_args *a, struct ts_series *out,
		  struct ts_err *err)
{
	struct ts_series_row row = {.t = 0, .down = (uint64_t)a->v[0], .up = (uint64_t)a->v[1]};
	int ret;

	if (a->v[2] > 0) {
		out->cols |= TS_COL_DELAY;
		row.delay = a->v[2];
	}
	ret = ts_series_add(out, &row);
	if (ret)
		ts_err_set(err, "%s: out of memory", m->name);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/* Reading result.json with json-c. Unknown fields are ignored: the schema grows by adding. */
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/infile.h"
#include "io/json.h"
#include "results/result.h"

static int rerr(struct ts_err *err, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int rerr(struct ts_err *err, const char *name, const char *fmt, ...)
{
	char what[TS_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	ts_err_vformat(what, sizeof(what), fmt, ap);
	va_end(ap);
	ts_err_set(err, "%s: %s", name, what);
	return -EINVAL;
}

static json_object *get(json_object *o, const char *key, json_type type)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

/*
 * @o[@key] as a number into *@out, @dflt when absent or not a number (null).
 * JSON has no NaN or infinity, but json-c reads "NaN", "Infinity" and
 * "-Infinity" as numbers: such a value is refused, naming the file and the
 * field (@where, e.g. "flows[0]: ", then @key), so that it is not mistaken
 * for a missing one nor carried into a statistic.
 */
static int num(const struct ts_exp_result *r, json_object *o, const char *where, const char *key,
	       double dflt, double *out, struct ts_err *err)
{
	json_object *v;
	double x;

	*out = dflt;
	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return 0;
	x = json_object_get_double(v);
	if (!isfinite(x))
		return rerr(err, r->path, "%s\"%s\": expected a finite number, got %s", where, key,
			    json_object_get_string(v));
	*out = x;
	return 0;
}

/* @o[@key] as a whole number from 0 to @max (0 when absent), or -EINVAL naming the field. */
static int whole(const struct ts_exp_result *r, json_object *o, const char *key, double max,
		 double *out, struct ts_err *err)
{
	int ret = num(r, o, "", key, 0, out, err);

	if (!ret && (*out < 0 || *out > max || *out != floor(*out)))
		ret = rerr(err, r->path, "\"%s\": expected a whole number from 0 to %.0f", key,
			   max);
	return ret;
}

static char *dupstr(json_object *o, const char *key)
{
	json_object *v = get(o, key, json_type_string);

	return v ? strdup(json_object_get_string(v)) : NULL;
}

static int read_flows(struct ts_exp_result *r, json_object *root, struct ts_err *err)
{
	json_object *flows = get(root, "flows", json_type_array);
	size_t i, n;

	if (!flows)
		return r->ok ? rerr(err, r->path, "no \"flows\" array") : 0;
	n = json_object_array_length(flows);
	r->flows = calloc(n ? n : 1, sizeof(*r->flows));
	if (!r->flows)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		json_object *f = json_object_array_get_idx(flows, i);
		json_object *dir = get(f, "dir", json_type_string);
		char where[32];
		int ret;

		if (!dir || (strcmp(json_object_get_string(dir), "up") &&
			     strcmp(json_object_get_string(dir), "down")))
			return rerr(err, r->path, "flows[%zu]: \"dir\" must be up or down", i);
		r->flows[i].up = !strcmp(json_object_get_string(dir), "up");
		snprintf(where, sizeof(where), "flows[%zu]: ", i);
		ret = num(r, f, where, "throughput_mbps", -1, &r->flows[i].throughput_mbps, err);
		if (!ret)
			ret = num(r, f, where, "retransmits", 0, &r->flows[i].retransmits, err);
		if (ret)
			return ret;
		/*
		 * A failed run's flow may have no measurement (its iperf3 failed or was
		 * interrupted): read, so that the directory is still summarised, with no
		 * number (failed runs enter no metric).
		 */
		if (r->flows[i].throughput_mbps < 0 && !r->ok)
			r->flows[i].throughput_mbps = NAN;
		else if (r->flows[i].throughput_mbps < 0)
			return rerr(err, r->path,
				    "flows[%zu]: no \"throughput_mbps\" (expected a number >= 0)",
				    i);
	}
	r->nflows = n;
	return 0;
}

/* Element @i of the number array @a: a finite number, or NAN. (null reads as 0, as before.) */
static double sample(json_object *a, size_t i)
{
	double x = json_object_get_double(json_object_array_get_idx(a, i));

	return isfinite(x) ? x : NAN;
}

/* Append the samples of latency[@k] (@lat) inside its loaded window to @arr. */
static int add_samples(struct ts_exp_result *r, size_t k, json_object *lat, double **arr, size_t *n,
		       int icmp, struct ts_err *err)
{
	json_object *s = get(lat, "samples", json_type_object);
	json_object *t = get(s, "t", json_type_array), *rtt = get(s, "rtt_ms", json_type_array);
	json_object *win = get(lat, "loaded", json_type_object);
	double from, to;
	char where[48];
	size_t i, m;
	double *a;
	int ret;

	if (!t || !rtt || json_object_array_length(t) != json_object_array_length(rtt))
		return rerr(err, r->path,
			    "latency[%zu]: \"samples\" needs \"t\" and \"rtt_ms\" arrays of one "
			    "length",
			    k);
	snprintf(where, sizeof(where), "latency[%zu].loaded: ", k);
	ret = num(r, win, where, "from_s", -1e300, &from, err);
	if (!ret)
		ret = num(r, win, where, "to_s", 1e300, &to, err);
	if (ret)
		return ret;
	m = json_object_array_length(t);
	a = realloc(*arr, (*n + m + 1) * sizeof(double));
	if (!a)
		return -ENOMEM;
	*arr = a;
	for (i = 0; i < m; i++) {
		double ti = sample(t, i), ri = sample(rtt, i);

		if (isnan(ti) || isnan(ri))
			return rerr(err, r->path,
				    "latency[%zu].samples: \"%s\"[%zu]: expected a finite number",
				    k, isnan(ti) ? "t" : "rtt_ms", i);
		if (icmp && (r->min_rtt_ms < 0 || ri < r->min_rtt_ms))
			r->min_rtt_ms = ri;
		if (ti >= from && ti <= to)
			a[(*n)++] = ri;
	}
	return 0;
}

static int read_latency(struct ts_exp_result *r, json_object *root, struct ts_err *err)
{
	json_object *lat = get(root, "latency", json_type_array);
	size_t i;

	r->icmp_ms = calloc(1, sizeof(double));
	r->udp_ms = calloc(1, sizeof(double));
	if (!r->icmp_ms || !r->udp_ms)
		return -ENOMEM;
	for (i = 0; lat && i < json_object_array_length(lat); i++) {
		json_object *l = json_object_array_get_idx(lat, i);
		json_object *kind = get(l, "kind", json_type_string);
		int ret;

		if (!kind)
			return rerr(err, r->path, "latency[%zu]: no \"kind\"", i);
		if (!strcmp(json_object_get_string(kind), "icmp"))
			ret = add_samples(r, i, l, &r->icmp_ms, &r->nicmp, 1, err);
		else if (!strcmp(json_object_get_string(kind), "udp"))
			ret = add_samples(r, i, l, &r->udp_ms, &r->nudp, 0, err);
		else
			continue; /* a kind this version does not summarise */
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int read_fidelity(struct ts_exp_result *r, json_object *root, struct ts_err *err)
{
	json_object *fid = get(root, "fidelity", json_type_object);
	static const char *const dirs[2] = {"up", "down"};
	int d, ret = 0;

	for (d = 0; d < 2 && !ret; d++) {
		json_object *f = get(fid, dirs[d], json_type_object);
		struct ts_exp_res_fidelity *x = &r->fidelity[d];
		const struct {
			const char *key;
			double dflt, *to;
		} keys[] = {
			{"release_err_p50_us", 0, &x->release_err_p50_us},
			{"release_err_p99_us", 0, &x->release_err_p99_us},
			{"release_err_max_us", 0, &x->release_err_max_us},
			{"unexplained_drops", 0, &x->unexplained_drops},
			{"kernel_drops", 0, &x->kernel_drops},
			{"no_descriptor", 0, &x->no_descriptor},
			{"utilisation", -1, &x->utilisation},
		};
		char where[32];
		size_t k;

		if (!f)
			continue;
		x->present = true;
		snprintf(where, sizeof(where), "fidelity.%s: ", dirs[d]);
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]) && !ret; k++)
			ret = num(r, f, where, keys[k].key, keys[k].dflt, keys[k].to, err);
	}
	return ret;
}

static int read_root(struct ts_exp_result *r, json_object *root, struct ts_err *err)
{
	json_object *axes = get(root, "axes", json_type_object), *flags, *ok;
	double version, rep, index, seed;
	int ret;

	if (!json_object_is_type(root, json_type_object))
		return rerr(err, r->path, "expected a JSON object");
	if (num(r, root, "", "version", 0, &version, err) || version != 1)
		return rerr(err, r->path, "\"version\": expected 1");
	r->id = dupstr(root, "id");
	r->test = dupstr(root, "test");
	if (!r->id || !axes)
		return rerr(err, r->path, "expected \"id\" (a string) and \"axes\" (an object)");
	/* A cast of a double out of the type's range is undefined: the range is checked first. */
	ret = whole(r, root, "rep", UINT_MAX, &rep, err);
	if (!ret)
		ret = whole(r, root, "index", UINT_MAX, &index, err);
	if (!ret)
		ret = whole(r, root, "seed", 18446744073709549568.0, &seed, err);
	if (ret)
		return ret;
	r->rep = (unsigned)rep;
	r->index = (unsigned)index;
	r->seed = (uint64_t)seed;
	ok = get(root, "ok", json_type_boolean);
	if (!ok)
		return rerr(err, r->path, "expected \"ok\": true or false");
	r->ok = json_object_get_boolean(ok);
	r->error = dupstr(root, "error");
	json_object_object_foreach(axes, key, val)
	{
		if (r->naxes == TS_EXP_MAX_AXES || !json_object_is_type(val, json_type_string))
			return rerr(err, r->path, "\"axes\": at most %d string values",
				    TS_EXP_MAX_AXES);
		r->axes[r->naxes].axis = strdup(key);
		r->axes[r->naxes].value = strdup(json_object_get_string(val));
		r->naxes++;
		if (!r->axes[r->naxes - 1].axis || !r->axes[r->naxes - 1].value)
			return -ENOMEM;
	}
	flags = get(root, "flags", json_type_array);
	for (size_t i = 0; flags && i < json_object_array_length(flags); i++) {
		json_object *f = json_object_array_get_idx(flags, i);

		if (json_object_is_type(f, json_type_string)) {
			ret = ts_exp_result_flag(r, json_object_get_string(f));
			if (ret < 0)
				return ret;
		}
	}
	ret = read_flows(r, root, err);
	if (ret < 0)
		return ret;
	ret = read_latency(r, root, err);
	if (ret < 0)
		return ret;
	return read_fidelity(r, root, err);
}

int ts_exp_result_parse(struct ts_exp_result *r, const char *name, const char *json,
			struct ts_err *err)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *root = NULL;
	int ret;

	memset(r, 0, sizeof(*r));
	r->min_rtt_ms = -1;
	r->path = strdup(name);
	if (!tok || !r->path) {
		ret = -ENOMEM;
		goto out;
	}
	root = json_tokener_parse_ex(tok, json, (int)strlen(json));
	if (!root) {
		ret = rerr(err, name, "not JSON: %s",
			   json_tokener_error_desc(json_tokener_get_error(tok)));
		goto out;
	}
	ret = read_root(r, root, err);
out:
	if (ret == -ENOMEM)
		rerr(err, name, "out of memory");
	json_object_put(root);
	if (tok)
		json_tokener_free(tok);
	if (ret < 0) {
		ret = ret == -ENOMEM ? -ENOMEM : -EINVAL;
		ts_exp_result_free(r);
	}
	return ret;
}

int ts_exp_result_load(struct ts_exp_result *r, const char *path, struct ts_err *err)
{
	char *text = NULL;
	size_t len;
	int ret;

	memset(r, 0, sizeof(*r));
	/* A results directory is anyone's: only a regular file, and no larger than the limit. */
	ret = ts_in_read(path, TS_IN_JSON_MAX, &text, &len, err);
	if (ret < 0)
		return ret;
	ret = ts_exp_result_parse(r, path, text, err);
	free(text);
	return ret;
}

void ts_exp_result_free(struct ts_exp_result *r)
{
	size_t i;

	for (i = 0; i < r->naxes; i++) {
		free((char *)r->axes[i].axis);
		free((char *)r->axes[i].value);
	}
	for (i = 0; i < r->nflags; i++)
		free(r->flags[i]);
	free(r->path);
	free(r->id);
	free(r->test);
	free(r->error);
	free(r->flows);
	free(r->icmp_ms);
	free(r->udp_ms);
	memset(r, 0, sizeof(*r));
}

int ts_exp_result_flag(struct ts_exp_result *r, const char *flag)
{
	size_t i;

	for (i = 0; i < r->nflags; i++)
		if (!strcmp(r->flags[i], flag))
			return 0;
	if (r->nflags == TS_EXP_MAX_FLAGS)
		return 0; /* the union stays bounded; the file keeps them all */
	r->flags[r->nflags] = strdup(flag);
	if (!r->flags[r->nflags])
		return -ENOMEM;
	r->nflags++;
	return 0;
}

const char *ts_exp_result_axis(const struct ts_exp_result *r, const char *axis)
{
	size_t i;

	for (i = 0; i < r->naxes; i++)
		if (!strcmp(r->axes[i].axis, axis))
			return r->axes[i].value;
	return NULL;
}

bool ts_exp_result_fell_behind(const struct ts_exp_result *r)
{
	size_t i;

	for (i = 0; i < r->nflags; i++)
		if (!strncmp(r->flags[i], "fell_behind", 11))
			return true;
	return false;
}

int ts_exp_result_write_unrun(const struct ts_exp_run *run, const char *path, const char *error)
{
	json_object *o = json_object_new_object(), *axes = json_object_new_object();
	json_object *flags = json_object_new_array();
	bool nomem = false;
	struct ts_err err;
	size_t i;
	int ret;

	for (i = 0; i < run->naxes; i++)
		ts_json_put(axes, run->axes[i].axis, json_object_new_string(run->axes[i].value),
			    &nomem);
	ts_json_append(flags, json_object_new_string("not_run"), &nomem);
	ts_json_put(o, "version", json_object_new_int(1), &nomem);
	ts_json_put(o, "id", json_object_new_string(run->config_id), &nomem);
	ts_json_put(o, "rep", json_object_new_int((int)run->rep), &nomem);
	ts_json_put(o, "index", json_object_new_int((int)run->index), &nomem);
	ts_json_put(o, "seed", json_object_new_uint64(run->seed), &nomem);
	ts_json_put(o, "axes", axes, &nomem);
	ts_json_put(o, "test", json_object_new_string(run->test), &nomem);
	ts_json_put(o, "ok", json_object_new_boolean(0), &nomem);
	ts_json_put(o, "error", json_object_new_string(error), &nomem);
	ts_json_put(o, "flags", flags, &nomem);
	ts_json_put(o, "flows", json_object_new_array(), &nomem);
	ts_json_put(o, "latency", json_object_new_array(), &nomem);
	ret = nomem ? -ENOMEM : ts_json_write_file(path, o, JSON_C_TO_STRING_PRETTY, &err);
	json_object_put(o);
	return ret;
}

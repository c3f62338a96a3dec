/* SPDX-License-Identifier: MIT */
/* Typed getters over parsed result files (see rjson.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "results/rjson.h"
#include "io/infile.h"

static struct json_object *get(const struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object))
		return NULL;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

double ts_rj_num(const struct json_object *o, const char *key, double fallback)
{
	struct json_object *v = get(o, key);

	double x;

	if (!v ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return fallback;
	x = json_object_get_double(v);
	return isfinite(x) ? x : fallback;
}

const char *ts_rj_str(const struct json_object *o, const char *key, const char *fallback)
{
	struct json_object *v = get(o, key);

	if (v && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return fallback;
}

struct json_object *ts_rj_arr(const struct json_object *o, const char *key, size_t *n)
{
	struct json_object *v = get(o, key);

	if (!v || !json_object_is_type(v, json_type_array)) {
		if (n)
			*n = 0;
		return NULL;
	}
	if (n)
		*n = json_object_array_length(v);
	return v;
}

struct json_object *ts_rj_obj(const struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_object) ? v : NULL;
}

int ts_rj_nums(const struct json_object *a, size_t n, double **out)
{
	double *d;
	size_t i;

	*out = NULL;
	if (!a || n == 0)
		return 0;
	d = malloc(n * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);

		if (e && (json_object_is_type(e, json_type_double) ||
			  json_object_is_type(e, json_type_int)))
			d[i] = json_object_get_double(e);
		else
			d[i] = NAN;
		if (!isfinite(d[i]))
			d[i] = NAN;
	}
	*out = d;
	return 0;
}

size_t ts_rj_count_objects(const char *text, size_t len)
{
	bool in_string = false;
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (in_string) {
			if (text[i] == '\\')
				i++; /* an escaped quote does not end the string */
			else if (text[i] == '"')
				in_string = false;
		} else if (text[i] == '"') {
			in_string = true;
		} else if (text[i] == '{') {
			n++;
		}
	}
	return n;
}

int ts_rj_load(const char *path, struct json_object **out, struct ts_err *err)
{
	struct json_tokener *tok = NULL;
	struct json_object *o = NULL;
	char *text = NULL;
	size_t len;
	int ret;

	*out = NULL;
	ret = ts_in_read(path, TS_IN_JSON_MAX, &text, &len, err);
	if (ret == -ENOENT) {
		ts_err_set(err, "%s: does not exist", path);
		return ret;
	}
	if (ret < 0)
		return ret == -ENOMEM ? ret : -EINVAL;
	ret = -EINVAL;
	if (ts_rj_count_objects(text, len) > TS_RJ_MAX_OBJECTS) {
		ts_err_set(
			err,
			"%s: more than %d JSON objects, the most tasshape reads from one file (the "
			"experiment.json of a matrix of %d configurations and %d runs has fewer)",
			path, TS_RJ_MAX_OBJECTS, TS_EXP_MAX_CONFIGS, TS_EXP_MAX_RUNS);
		goto out;
	}
	tok = json_tokener_new();
	if (!tok || len > INT_MAX) {
		ret = -ENOMEM;
		ts_err_set(err, "%s: out of memory", path);
		goto out;
	}
	o = json_tokener_parse_ex(tok, text, (int)len);
	if (!o) {
		ts_err_set(err, "%s: not valid JSON (%s)", path,
			   json_tokener_error_desc(json_tokener_get_error(tok)));
	} else if (!json_object_is_type(o, json_type_object)) {
		ts_err_set(err, "%s: expected a JSON object at the top", path);
	} else {
		*out = o;
		o = NULL;
		ret = 0;
	}
out:
	json_object_put(o);
	if (tok)
		json_tokener_free(tok);
	free(text);
	return ret;
}

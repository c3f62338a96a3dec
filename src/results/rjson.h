/* SPDX-License-Identifier: MIT */
/*
 * Small typed getters over a parsed result.json (json-c), shared by the
 * readers of per-run results (Flent export, report, merge): a missing or
 * mistyped key reads as the fallback, so each reader decides what is
 * required and says so in its own error.
 */
#ifndef TS_RESULTS_RJSON_H
#define TS_RESULTS_RJSON_H

#include <stddef.h>

#include <json-c/json.h>

/* @o[@key] as a number (int or double), or @fallback. */
double ts_rj_num(const struct json_object *o, const char *key, double fallback);

/* @o[@key] as a string, or @fallback. The string belongs to @o. */
const char *ts_rj_str(const struct json_object *o, const char *key, const char *fallback);

/* @o[@key] when it is an array (NULL otherwise); its length in *@n. */
struct json_object *ts_rj_arr(const struct json_object *o, const char *key, size_t *n);

/* @o[@key] when it is an object, else NULL. */
struct json_object *ts_rj_obj(const struct json_object *o, const char *key);

/*
 * ts_rj_nums - the numbers of array @a (length @n) into a new array
 * *@out (caller frees); a non-number element reads as NAN. Returns 0 or
 * -ENOMEM. An empty @a gives *@out = NULL.
 */
int ts_rj_nums(const struct json_object *a, size_t n, double **out);

/*
 * ts_rj_load - parse the JSON file @path into *@out (caller puts).
 * Returns 0, -ENOENT when it does not exist, -EINVAL with @err naming the
 * file and the reason when it is not a regular file, is larger than
 * TS_IN_JSON_MAX (io/infile.h), does not parse or is not an object.
 */
int ts_rj_load(const char *path, struct json_object **out, char *err, size_t errlen);

#endif

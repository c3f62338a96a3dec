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

#include "tasshape/err.h"

#include <json-c/json.h>

#include "plan/matrix.h"

/*
 * The most JSON objects ts_rj_load parses from one file, counted in the
 * text before json-c builds any. json-c gives every object a hash table of
 * its own (about 1 KiB with its keys), so the 64 MiB a file may hold
 * (TS_IN_JSON_MAX) of small objects takes gigabytes: a 38 MB
 * experiment.json of 10^6 configurations took 1.8 GB. The largest record
 * tasshape writes is the experiment.json of the largest matrix: two objects
 * per configuration, one per run, a few more (a result.json, a done record
 * or a manifest has far fewer).
 */
#define TS_RJ_MAX_OBJECTS (2 * TS_EXP_MAX_CONFIGS + TS_EXP_MAX_RUNS + 4096)

/*
 * @o[@key] as a number (int or double), or @fallback. JSON has no NaN or
 * infinity (json-c reads them all the same): such a value is mistyped and
 * reads as @fallback too.
 */
double ts_rj_num(const struct json_object *o, const char *key, double fallback);

/* @o[@key] as a string, or @fallback. The string belongs to @o. */
const char *ts_rj_str(const struct json_object *o, const char *key, const char *fallback);

/* @o[@key] when it is an array (NULL otherwise); its length in *@n. */
struct json_object *ts_rj_arr(const struct json_object *o, const char *key, size_t *n);

/* @o[@key] when it is an object, else NULL. */
struct json_object *ts_rj_obj(const struct json_object *o, const char *key);

/*
 * ts_rj_nums - the numbers of array @a (length @n) into a new array
 * *@out (caller frees); a non-number or non-finite element reads as NAN. Returns 0 or
 * -ENOMEM. An empty @a gives *@out = NULL.
 */
int ts_rj_nums(const struct json_object *a, size_t n, double **out);

/*
 * ts_rj_count_objects - the '{' of @text (@len bytes) outside JSON strings:
 * how many objects json-c would build from it, counted without building them.
 */
size_t ts_rj_count_objects(const char *text, size_t len);

/*
 * ts_rj_load - parse the JSON file @path into *@out (caller puts).
 * Returns 0, -ENOENT when it does not exist, -EINVAL with @err naming the
 * file and the reason when it is not a regular file, is larger than
 * TS_IN_JSON_MAX (io/infile.h), holds more than TS_RJ_MAX_OBJECTS objects,
 * does not parse or is not an object.
 */
int ts_rj_load(const char *path, struct json_object **out, struct ts_err *err);

#endif

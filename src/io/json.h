/* SPDX-License-Identifier: MIT */
/*
 * The few lines every json-c writer of the runtime shares. A writer
 * builds its object with ts_json_put and checks one flag at the end
 * rather than every allocation, so its shape stays readable.
 */
#ifndef TS_IO_JSON_H
#define TS_IO_JSON_H

#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "io/outfile.h"

/* How every file is written: no "\/" for the paths people read, which json-c does by default. */
#define TS_JSON_PLAIN (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
#define TS_JSON_PRETTY                                                                             \
	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Adds @v (owned) to @o under @key; a NULL @v or a failure sets *@nomem and frees @v. */
static inline void ts_json_put(struct json_object *o, const char *key, struct json_object *v,
			       bool *nomem)
{
	if (!o || !v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		*nomem = true;
	}
}

/* Adds JSON null under @key (a value that is missing by intent); a failure sets *@nomem. */
static inline void ts_json_put_null(struct json_object *o, const char *key, bool *nomem)
{
	if (!o || json_object_object_add(o, key, NULL) < 0)
		*nomem = true;
}

/* Appends @v (owned) to the array @a; same failure rule as ts_json_put. */
static inline void ts_json_append(struct json_object *a, struct json_object *v, bool *nomem)
{
	if (!a || !v || json_object_array_add(a, v) < 0) {
		json_object_put(v);
		*nomem = true;
	}
}

/* Appends JSON null to the array @a; a failure sets *@nomem. */
static inline void ts_json_append_null(struct json_object *a, bool *nomem)
{
	if (!a || json_object_array_add(a, NULL) < 0)
		*nomem = true;
}

/*
 * ts_json_built - the end of a builder: @o when nothing failed, else NULL
 * with @o freed, which the caller's ts_json_put or ts_json_append counts
 * as its own failure.
 */
static inline struct json_object *ts_json_built(struct json_object *o, bool nomem)
{
	if (!nomem)
		return o;
	json_object_put(o);
	return NULL;
}

/* Counters are uint64_t; none reaches 2^63 in a run, but clamp rather than wrap. */
static inline struct json_object *ts_json_count(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

/* Adds the string @s under @key, or JSON null when @s is NULL. */
static inline void ts_json_put_str(struct json_object *o, const char *key, const char *s,
				   bool *nomem)
{
	if (!s) {
		if (!o || json_object_object_add(o, key, NULL) < 0)
			*nomem = true;
		return;
	}
	ts_json_put(o, key, json_object_new_string(s), nomem);
}

/*
 * ts_json_write - write @o (not freed) to @f as one JSON text and a newline
 * in @flags' style. Returns 0 or -EIO.
 */
static inline int ts_json_write(FILE *f, struct json_object *o, int flags)
{
	const char *s = json_object_to_json_string_ext(o, flags);

	if (!s || fprintf(f, "%s\n", s) < 0 || ferror(f))
		return -EIO;
	return 0;
}

/*
 * ts_json_write_file - @o (not freed) as the file @path in @flags' style,
 * whole or not at all, created as every output is (io/outfile.h: no
 * link followed, another user's file not replaced). 0 or -errno, @err set.
 */
static inline int ts_json_write_file(const char *path, struct json_object *o, int flags,
				     struct ts_err *err)
{
	const char *s = json_object_to_json_string_ext(o, flags);

	if (!s) {
		ts_err_set(err, "%s: out of memory", path);
		return -ENOMEM;
	}
	return ts_out_write_whole(path, s, strlen(s), err);
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * "NAME[:KEY=VALUE[,KEY=VALUE...]]" specifications. The string is copied
 * into the spec and cut in place (':', ',' and '=' become NULs), so keys
 * and values need no allocation. Values are only split here; their units
 * are checked by the getter the stage asks with, and keys no getter asked
 * for are reported by ts_spec_check_used, which catches typos such as
 * "codel:targt=5ms" instead of silently using the default.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "tasshape/spec.h"
#include "tasshape/units.h"

#define SPEC_FORM "NAME[:KEY=VALUE[,KEY=VALUE...]]"
#define SPEC_EG	  "codel:target=5ms,interval=100ms"

/* Check the characters and the length; returns the length or -EINVAL. */
static int spec_check_chars(const char *s, struct ts_err *err)
{
	size_t i;

	for (i = 0; i < TS_SPEC_MAX_LEN && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c > ' ' && c < 0x7f)
			continue;
		/* The part before is printable, so it can be quoted as is. */
		ts_err_set(err,
			   "spec '%.*s' is followed by %s (byte 0x%02x at offset %zu): expected "
			   "%s without spaces, e.g. %s",
			   (int)(i < 60 ? i : 60), s,
			   c == ' ' ? "a space" : "a control or non-ASCII character", c, i,
			   SPEC_FORM, SPEC_EG);
		return -EINVAL;
	}
	if (i == TS_SPEC_MAX_LEN) {
		ts_err_set(err, "spec '%.40s...' is too long (at most %d characters)", s,
			   TS_SPEC_MAX_LEN - 1);
		return -EINVAL;
	}
	if (!i) {
		ts_err_set(err, "empty spec (expected %s, e.g. %s)", SPEC_FORM, SPEC_EG);
		return -EINVAL;
	}
	return (int)i;
}

/*
 * spec_split_pair - add the pair @pair (NUL-terminated, inside t->buf)
 * to @t. Returns 0 or -EINVAL with @err set.
 */
static int spec_split_pair(struct ts_spec *t, char *pair, struct ts_err *err)
{
	char *eq;
	unsigned int i;

	if (!*pair) {
		ts_err_set(err, "%s: empty KEY=VALUE pair (expected %s, e.g. %s)", t->name,
			   SPEC_FORM, SPEC_EG);
		return -EINVAL;
	}
	eq = strchr(pair, '=');
	if (!eq) {
		ts_err_set(err, "%s: '%s' has no value (expected %s=VALUE)", t->name, pair, pair);
		return -EINVAL;
	}
	*eq = '\0';
	if (eq == pair) {
		ts_err_set(err, "%s: empty key before '=%s' (expected KEY=VALUE)", t->name, eq + 1);
		return -EINVAL;
	}
	if (!eq[1]) {
		ts_err_set(err, "%s: key '%s' has an empty value (expected %s=VALUE)", t->name,
			   pair, pair);
		return -EINVAL;
	}
	for (i = 0; i < t->nargs; i++) {
		if (!strcmp(t->arg[i].key, pair)) {
			ts_err_set(err, "%s: key '%s' is given twice", t->name, pair);
			return -EINVAL;
		}
	}
	if (t->nargs == TS_SPEC_MAX_ARGS) {
		ts_err_set(err, "%s: too many KEY=VALUE pairs (at most %d)", t->name,
			   TS_SPEC_MAX_ARGS);
		return -EINVAL;
	}
	t->arg[t->nargs].key = pair;
	t->arg[t->nargs].val = eq + 1;
	t->arg[t->nargs].used = false;
	t->nargs++;
	return 0;
}

int ts_spec_parse(struct ts_spec *spec, const char *s, struct ts_err *err)
{
	struct ts_spec t; /* parsed here, copied to @spec only on success */
	char *colon, *p, *comma;
	unsigned int i;
	int ret;

	ret = spec_check_chars(s ? s : "", err);
	if (ret < 0)
		return ret;
	memset(&t, 0, sizeof(t));
	memcpy(t.buf, s, (size_t)ret + 1);
	t.name = t.buf;
	colon = strchr(t.buf, ':');
	if (colon)
		*colon = '\0';
	if (!*t.name) {
		ts_err_set(err, "'%s': empty name before ':' (expected %s, e.g. %s)", s, SPEC_FORM,
			   SPEC_EG);
		return -EINVAL;
	}
	if (strpbrk(t.name, "=,")) {
		ts_err_set(err,
			   "'%s': a ':' must separate the name from KEY=VALUE pairs "
			   "(expected %s, e.g. %s)",
			   s, SPEC_FORM, SPEC_EG);
		return -EINVAL;
	}
	if (colon && !colon[1]) {
		ts_err_set(err,
			   "'%s': nothing after ':' (expected KEY=VALUE pairs or no ':', "
			   "e.g. %s)",
			   s, SPEC_EG);
		return -EINVAL;
	}
	for (p = colon ? colon + 1 : NULL; p; p = comma ? comma + 1 : NULL) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		ret = spec_split_pair(&t, p, err);
		if (ret < 0)
			return ret;
	}
	/* The pointers are into t.buf: move them to spec->buf. */
	*spec = t;
	spec->name = spec->buf;
	for (i = 0; i < t.nargs; i++) {
		spec->arg[i].key = spec->buf + (t.arg[i].key - t.buf);
		spec->arg[i].val = spec->buf + (t.arg[i].val - t.buf);
	}
	return 0;
}

/* The value of @key, marked used, or NULL when absent. */
static const char *spec_take(struct ts_spec *spec, const char *key)
{
	unsigned int i;

	for (i = 0; i < spec->nargs; i++) {
		if (!strcmp(spec->arg[i].key, key)) {
			spec->arg[i].used = true;
			return spec->arg[i].val;
		}
	}
	return NULL;
}

/* Prefix a units parser's message with the spec and key; returns @ret. */
static int spec_fail(const struct ts_spec *spec, const char *key, int ret,
		     const struct ts_err *inner, struct ts_err *err)
{
	if (ret < 0)
		ts_err_set(err, "%s: %s: %s", spec->name, key, inner->msg);
	return ret;
}

int ts_spec_get_time(struct ts_spec *spec, const char *key, ts_ns_t *out, struct ts_err *err)
{
	const char *v = spec_take(spec, key);
	struct ts_err e;

	if (!v)
		return 0;
	return spec_fail(spec, key, ts_parse_time(v, out, &e), &e, err);
}

int ts_spec_get_rate(struct ts_spec *spec, const char *key, uint64_t *out, struct ts_err *err)
{
	const char *v = spec_take(spec, key);
	struct ts_err e;

	if (!v)
		return 0;
	return spec_fail(spec, key, ts_parse_rate(v, out, 0, &e), &e, err);
}

int ts_spec_get_size(struct ts_spec *spec, const char *key, uint64_t *out, struct ts_err *err)
{
	const char *v = spec_take(spec, key);
	struct ts_err e;

	if (!v)
		return 0;
	return spec_fail(spec, key, ts_parse_size(v, out, &e), &e, err);
}

int ts_spec_get_ppm(struct ts_spec *spec, const char *key, uint32_t *out, struct ts_err *err)
{
	const char *v = spec_take(spec, key);
	struct ts_err e;

	if (!v)
		return 0;
	return spec_fail(spec, key, ts_parse_ppm(v, out, &e), &e, err);
}

int ts_spec_get_u64(struct ts_spec *spec, const char *key, uint64_t *out, struct ts_err *err)
{
	const char *v = spec_take(spec, key);
	struct ts_err e;

	if (!v)
		return 0;
	return spec_fail(spec, key, ts_parse_u64(v, out, &e), &e, err);
}

int ts_spec_check_used(const struct ts_spec *spec, const char *known, struct ts_err *err)
{
	unsigned int i;

	for (i = 0; i < spec->nargs; i++) {
		if (spec->arg[i].used)
			continue;
		if (known && *known)
			ts_err_set(err, "%s: unknown key '%s' (expected %s)", spec->name,
				   spec->arg[i].key, known);
		else
			ts_err_set(err, "%s: unknown key '%s' (%s takes no keys)", spec->name,
				   spec->arg[i].key, spec->name);
		return -EINVAL;
	}
	return 0;
}

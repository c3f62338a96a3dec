/* SPDX-License-Identifier: MIT */
/*
 * The pure part of net/userns.h: a rootless run's uid or gid map from
 * the user's id and the subordinate ranges of /etc/subuid or /etc/subgid
 * (subuid(5): "OWNER:START:COUNT", OWNER a login name or a decimal uid).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "net/userns.h"

/* The largest id a map may name: (uint32_t)-1 means "no id" to the kernel. */
#define ID_LAST 4294967294u

/* The decimal number in @s .. @end: digits only, at most ID_LAST + 1. 0 or -EINVAL. */
static int parse_num(const char *s, const char *end, uint64_t *out)
{
	uint64_t v = 0;

	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > (uint64_t)ID_LAST + 1)
			return -EINVAL;
	}
	*out = v;
	return 0;
}

/* Whether the owner field @o of @olen bytes names the user @name or @id. */
static bool owner_is(const char *o, size_t olen, const char *name, uint32_t id)
{
	char num[16];
	int n = snprintf(num, sizeof(num), "%u", id);

	if (name && *name && strlen(name) == olen && !memcmp(o, name, olen))
		return true;
	return (size_t)n == olen && !memcmp(o, num, olen);
}

/* [a, a+na) and [b, b+nb) share an id. */
static bool overlap(uint64_t a, uint64_t na, uint64_t b, uint64_t nb)
{
	return a < b + nb && b < a + na;
}

/* One line of this user's, "START:COUNT" at @p .. @end: checked and appended to @m. */
static int add_range(const char *p, const char *end, const char *path, unsigned int lineno,
		     uint32_t id, struct ts_idmap *m, struct ts_err *err)
{
	const char *colon = memchr(p, ':', (size_t)(end - p));
	uint64_t start, count, inside = 1;
	size_t i;

	if (!colon || parse_num(p, colon, &start) < 0 || parse_num(colon + 1, end, &count) < 0 ||
	    count == 0 || start + count - 1 > ID_LAST) {
		ts_err_set(err,
			   "%s:%u: expected OWNER:START:COUNT with decimal START and a COUNT of "
			   "at least 1 ending at or below %u",
			   path, lineno, ID_LAST);
		return -EINVAL;
	}
	if (overlap(start, count, id, 1)) {
		ts_err_set(err, "%s:%u: the range %llu-%llu holds the user's own id %u", path,
			   lineno, (unsigned long long)start,
			   (unsigned long long)(start + count - 1), id);
		return -EINVAL;
	}
	for (i = 1; i < m->n; i++) {
		inside += m->r[i].count;
		if (overlap(start, count, m->r[i].outside, m->r[i].count)) {
			ts_err_set(err, "%s:%u: the range overlaps an earlier one of the same user",
				   path, lineno);
			return -EINVAL;
		}
	}
	if (m->n == TS_IDMAP_MAX || inside + count - 1 > ID_LAST) {
		ts_err_set(err, "%s:%u: more than %d ranges (or ids) for one user", path, lineno,
			   TS_IDMAP_MAX - 1);
		return -EINVAL;
	}
	m->r[m->n++] = (struct ts_idmap_range){(uint32_t)inside, (uint32_t)start, (uint32_t)count};
	return 0;
}

int ts_idmap_build(const char *text, size_t len, const char *path, const char *name, uint32_t id,
		   struct ts_idmap *m, struct ts_err *err)
{
	const char *p = text, *end = text + len, *eol, *colon;
	unsigned int lineno = 0;
	int ret;

	m->n = 1;
	m->r[0] = (struct ts_idmap_range){0, id, 1};
	for (; p < end; p = eol + (eol < end)) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		lineno++;
		if (eol == p || *p == '#')
			continue;
		colon = memchr(p, ':', (size_t)(eol - p));
		if (!colon || !owner_is(p, (size_t)(colon - p), name, id))
			continue;
		ret = add_range(colon + 1, eol, path, lineno, id, m, err);
		if (ret < 0)
			return ret;
	}
	return (int)m->n;
}

int ts_idmap_format(const struct ts_idmap *m, char *buf, size_t size)
{
	size_t i, off = 0;
	int w;

	if (size)
		buf[0] = '\0';
	for (i = 0; i < m->n; i++) {
		w = snprintf(buf + off, size - off, "%u %u %u\n", m->r[i].inside, m->r[i].outside,
			     m->r[i].count);
		if (w < 0 || (size_t)w >= size - off)
			return -ENOSPC;
		off += (size_t)w;
	}
	return (int)off;
}

/* One id of @s .. @end into *@out: digits only, at most ID_LAST. 0 or -EINVAL. */
static int parse_id(const char *s, const char *end, uint32_t *out)
{
	uint64_t v;

	if (parse_num(s, end, &v) < 0 || v > ID_LAST)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int ts_userns_env_parse(const char *v, uid_t *uid, gid_t *gid, struct ts_err *err)
{
	const char *colon = strchr(v, ':');
	uint32_t u, g;

	if (!colon || parse_id(v, colon, &u) < 0 || parse_id(colon + 1, v + strlen(v), &g) < 0) {
		ts_err_set(err, "%s='%.40s': expected UID:GID, two decimal ids", TS_ROOTLESS_ENV,
			   v);
		return -EINVAL;
	}
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return 0;
}

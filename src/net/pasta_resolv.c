/* SPDX-License-Identifier: MIT */
/*
 * The resolv.conf a rootless run's CMD sees with --outside pasta
 * (net/pasta.h): the host's, with loopback name servers replaced by the
 * address pasta forwards to them.
 */
#include <errno.h>
#include <string.h>

#include "net/pasta.h"

/* Whether @addr (@len bytes) is a loopback address: 127.0.0.0/8 or ::1. */
static bool loopback(const char *addr, size_t len)
{
	return (len >= 4 && !memcmp(addr, "127.", 4)) || (len == 3 && !memcmp(addr, "::1", 3));
}

/* Append @n bytes of @s to @out (@size) at *@off; false when it does not fit. */
static bool put(char *out, size_t size, size_t *off, const char *s, size_t n)
{
	if (*off + n >= size)
		return false;
	memcpy(out + *off, s, n);
	*off += n;
	out[*off] = '\0';
	return true;
}

/* The address of a "nameserver ADDR" line @p .. @eol into @a, @alen; false when it is not one. */
static bool nameserver(const char *p, const char *eol, const char **a, size_t *alen)
{
	static const char kw[] = "nameserver";
	const char *q = p + sizeof(kw) - 1, *e;

	if ((size_t)(eol - p) <= sizeof(kw) || memcmp(p, kw, sizeof(kw) - 1) ||
	    (*q != ' ' && *q != '\t'))
		return false;
	while (q < eol && (*q == ' ' || *q == '\t'))
		q++;
	for (e = q; e < eol && *e != ' ' && *e != '\t' && *e != '\r'; e++)
		;
	*a = q;
	*alen = (size_t)(e - q);
	return true;
}

int ts_pasta_resolv(const char *text, size_t len, const char *dns, char *out, size_t size)
{
	const char *p = text, *end = text + len, *eol, *a;
	size_t off = 0, alen;
	bool changed = false, ok = true;

	if (size)
		out[0] = '\0';
	for (; p < end && ok; p = eol + (eol < end)) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if (nameserver(p, eol, &a, &alen) && loopback(a, alen)) {
			/* One line for the forwarder, however many loopback servers there were. */
			if (!changed)
				ok = put(out, size, &off, "nameserver ", 11) &&
				     put(out, size, &off, dns, strlen(dns)) &&
				     put(out, size, &off, "\n", 1);
			changed = true;
			continue;
		}
		ok = put(out, size, &off, p, (size_t)(eol - p)) && put(out, size, &off, "\n", 1);
	}
	if (!ok)
		return -ENOSPC;
	return changed ? (int)off : 0;
}

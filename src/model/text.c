/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/text.h"

void ts_text_init(struct ts_text *b)
{
	memset(b, 0, sizeof(*b));
}

void ts_text_fini(struct ts_text *b)
{
	free(b->p);
	ts_text_init(b);
}

/* Make room for @more bytes and a NUL. */
static int buf_reserve(struct ts_text *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->oom)
		return -ENOMEM;
	if (more > SIZE_MAX / 2 - b->len)
		goto oom;
	while (cap < b->len + more + 1)
		cap *= 2;
	if (cap == b->cap)
		return 0;
	p = realloc(b->p, cap);
	if (!p)
		goto oom;
	b->p = p;
	b->cap = cap;
	return 0;
oom:
	b->oom = true;
	return -ENOMEM;
}

int ts_text_add(struct ts_text *b, const char *s, size_t len)
{
	if (buf_reserve(b, len))
		return -ENOMEM;
	memcpy(b->p + b->len, s, len);
	b->len += len;
	b->p[b->len] = '\0';
	return 0;
}

int ts_text_printf(struct ts_text *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_reserve(b, (size_t)n)) {
		b->oom = true;
		return -ENOMEM;
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

int ts_text_fixed(struct ts_text *b, unsigned long long v, int digits)
{
	unsigned long long div = 1, frac;
	int i;

	for (i = 0; i < digits; i++)
		div *= 10;
	frac = v % div;
	if (!frac)
		return ts_text_printf(b, "%llu", v / div);
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	return ts_text_printf(b, "%llu.%0*llu", v / div, digits, frac);
}

char *ts_join(char *buf, size_t len, size_t n, const char *(*at)(const void *ctx, size_t i),
	      const void *ctx, const char *sep)
{
	size_t i, used = 0;
	int w;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++) {
		w = snprintf(buf + used, len - used, "%s%s", i ? sep : "", at(ctx, i));
		if (w < 0)
			break;
		used += (size_t)w;
	}
	return buf;
}

/* SPDX-License-Identifier: MIT */
/* The quoting of strings into gnuplot scripts (see gnuplot.h); pure, so it is unit-tested and fuzzed. */
#include <errno.h>

#include "io/gnuplot.h"

/*
 * Length of the valid UTF-8 sequence at @s (1-4), or 0: not valid (a
 * stray continuation byte, overlong, a surrogate, beyond U+10FFFF,
 * truncated) or a C1 control (U+0080-U+009F).
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int cp, min;
	size_t n, i;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	cp = s[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	min = n == 2 ? 0xa0 : n == 3 ? 0x800 : 0x10000;
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int ts_gnuplot_quote(struct ts_text *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	ts_text_add(b, "'", 1);
	while (*p) {
		size_t n = *p >= 0x80 ? utf8_len(p) : 1;

		if (*p == '\'')
			ts_text_add(b, "''", 2);
		else if (!n || *p < 0x20 || *p == 0x7f || *p == '`')
			ts_text_add(b, "?", 1);
		else
			ts_text_add(b, (const char *)p, n);
		p += n ? n : 1;
	}
	ts_text_add(b, "'", 1);
	return b->oom ? -ENOMEM : 0;
}

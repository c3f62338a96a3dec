/* SPDX-License-Identifier: MIT */
/* Literal text in Markdown (see md.h); pure, so it is unit-tested and fuzzed. */
#include "io/md.h"

void ts_md_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		case '`':
			fputs("&#96;", f);
			break;
		case '\\':
		case '|':
		case '[':
		case ']':
			fputc('\\', f);
			fputc(c, f);
			break;
		case '\n':
		case '\r':
		case '\t':
			fputc(' ', f);
			break;
		default:
			fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
		}
	}
}

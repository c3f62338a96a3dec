/* SPDX-License-Identifier: MIT */
/*
 * Literal text in Markdown (io/md_escape.c): what comes from a results directory (an id, a
 * test name) is written so that no viewer renders it as HTML, a link, an image or a new table
 * cell. Exact outputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/md.h"
#include "tsu.h"

static void print_escaped(FILE *f, const void *s)
{
	ts_md_escape(f, s);
}

/* ts_md_escape of @s as a string (a static buffer). */
static const char *esc(const char *s)
{
	static char out[1024];
	char *buf = tsu_capture(print_escaped, s);

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	snprintf(out, sizeof(out), "%s", buf);
	free(buf);
	return out;
}

static void test_cases(void)
{
	CU_ASSERT_STRING_EQUAL(esc(""), "");
	CU_ASSERT_STRING_EQUAL(esc("cca=bbr,link=fiveg,test=rrul"), "cca=bbr,link=fiveg,test=rrul");
	CU_ASSERT_STRING_EQUAL(esc("tcp_1up"), "tcp_1up");
	CU_ASSERT_STRING_EQUAL(esc("<img src=x onerror=alert(1)>|x"),
			       "&lt;img src=x onerror=alert(1)&gt;\\|x");
	CU_ASSERT_STRING_EQUAL(esc("a&b \"q\" 'r'"), "a&amp;b &quot;q&quot; &#39;r&#39;");
	CU_ASSERT_STRING_EQUAL(esc("`code`"), "&#96;code&#96;");
	CU_ASSERT_STRING_EQUAL(esc("![x](http://e/p.png)"), "!\\[x\\](http://e/p.png)");
	/* A backslash of the data cannot escape the cell's end: \| would be a pipe. */
	CU_ASSERT_STRING_EQUAL(esc("a\\|b"), "a\\\\\\|b");
	CU_ASSERT_STRING_EQUAL(esc("a\\"), "a\\\\");
	/* Line breaks would end the row or heading; other controls are shown as '?'. */
	CU_ASSERT_STRING_EQUAL(esc("a\nb\r\tc"), "a b  c");
	CU_ASSERT_STRING_EQUAL(esc("\x01\x1b[31m\x7f"), "??\\[31m?");
	CU_ASSERT_STRING_EQUAL(esc("\xc2\xb5s \xe2\x82\xac"), "\xc2\xb5s \xe2\x82\xac");
}

/* No byte of any input makes raw HTML, a code span, a bare pipe or a line break. */
static void test_every_byte(void)
{
	char in[3] = "x";
	int c;

	for (c = 1; c < 256; c++) {
		const char *o;
		size_t i;

		in[1] = (char)c;
		o = esc(in);
		CU_ASSERT_PTR_NULL(strpbrk(o, "<>`\"'\n\r"));
		for (i = 0; o[i]; i++) {
			if (o[i] == '|' || o[i] == '[' || o[i] == ']')
				CU_ASSERT(i > 0 && o[i - 1] == '\\');
			if (o[i] == '&')
				CU_ASSERT(
					!strncmp(o + i, "&amp;", 5) || !strncmp(o + i, "&lt;", 4) ||
					!strncmp(o + i, "&gt;", 4) ||
					!strncmp(o + i, "&quot;", 6) ||
					!strncmp(o + i, "&#39;", 5) || !strncmp(o + i, "&#96;", 5));
		}
	}
}

static const struct tsu_test tests[] = {
	{"exact cases", test_cases},
	{"every byte", test_every_byte},
};

TSU_MAIN("markdown text", tests)

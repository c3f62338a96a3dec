/* SPDX-License-Identifier: MIT */
/*
 * ts_gnuplot_quote (io/gnuplot_quote.c), byte by byte: what may pass into
 * a gnuplot single-quoted string and what is replaced, so that no string
 * from a results directory can end the string or the command.
 */
#include <stdlib.h>
#include <string.h>

#include "io/gnuplot.h"
#include "tsu.h"

/* @s quoted, as a new string (the test frees it). */
static char *quote(const char *s)
{
	struct ts_text b;
	char *out;

	ts_text_init(&b);
	TSU_EQ(ts_gnuplot_quote(&b, s), 0);
	out = strdup(b.p ? b.p : "");
	ts_text_fini(&b);
	return out;
}

static void expect(const char *in, const char *want)
{
	char *got = quote(in);

	if (strcmp(got, want))
		fprintf(stderr, "\n  quote(\"%s\") = [%s], expected [%s]\n", in, got, want);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
}

/* Every single byte 1..255: kept (printable ASCII but ' and `), doubled (') or '?'. */
static void test_every_byte(void)
{
	int c, kept = 0, replaced = 0;

	for (c = 1; c < 256; c++) {
		char in[2] = {(char)c, 0}, want[8];

		if (c == '\'')
			strcpy(want, "''''");
		else if (c < 0x20 || c == 0x7f || c == '`' || c >= 0x80)
			strcpy(want, "'?'"), replaced++;
		else
			snprintf(want, sizeof(want), "'%c'", c), kept++;
		expect(in, want);
	}
	TSU_EQ(kept, 93); /* 0x20..0x7e is 95 bytes, without ' and ` */
	TSU_EQ(replaced,
	       161); /* 31 controls (1..0x1f), DEL, ` and the 128 bytes 0x80..0xff alone */
}

/* What the attacks of a results directory would need, and what they get. */
static void test_attacks(void)
{
	expect("", "''");
	expect("a'b", "'a''b'");
	expect("x'\n!touch /tmp/m #", "'x''?!touch /tmp/m #'");
	expect("EOD\r\n!id", "'EOD?\?!id'");
	expect("`id`", "'?id?'");
	expect("$(id) @m \\ \"", "'$(id) @m \\ \"'");
	expect("a\\", "'a\\'"); /* not a line continuation: the quote follows */
	expect("''", "''''''");
}

/* Valid UTF-8 is kept; stray, overlong, surrogate, too large, truncated and C1 are not. */
static void test_utf8(void)
{
	expect("\xc2\xb5s", "'\xc2\xb5s'");		  /* U+00B5 micro sign */
	expect("\xe2\x82\xac", "'\xe2\x82\xac'");	  /* U+20AC euro */
	expect("\xf0\x9f\x93\x88", "'\xf0\x9f\x93\x88'"); /* U+1F4C8 */
	expect("\xc2\x85", "'?\?'");			  /* U+0085 NEL, a C1 control */
	expect("\xc0\xaf", "'?\?'");			  /* overlong '/' */
	expect("\xe0\x80\xaf", "'?\?\?'");		  /* overlong '/' in three */
	expect("\xed\xa0\x80", "'?\?\?'");		  /* surrogate U+D800 */
	expect("\xf4\x90\x80\x80", "'?\?\?\?'");	  /* U+110000 */
	expect("\xe2\x82", "'?\?'");			  /* truncated at the end */
	expect("\xe2\x82'", "'?\?'''");			  /* truncated by a quote */
	expect("\x80x", "'?x'");			  /* a stray continuation byte */
}

static const struct tsu_test tests[] = {
	{"every byte", test_every_byte},
	{"attacks", test_attacks},
	{"UTF-8", test_utf8},
};

TSU_MAIN("gnuplot_quote", tests)

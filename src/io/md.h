/* SPDX-License-Identifier: MIT */
/*
 * Text from a results directory in a Markdown document (summary.md,
 * report.md). A configuration id, a test name, a flag or a skipped
 * control's reason comes from files anyone may have written, and a
 * Markdown viewer renders raw HTML (<img src=x onerror=...>), links and
 * images (a tracking pixel) and splits a table row at every '|'. So every
 * such string goes through one function, which writes it as literal text.
 */
#ifndef TS_IO_MD_H
#define TS_IO_MD_H

#include <stdio.h>

/*
 * ts_md_escape - write @s to @f as literal Markdown text, usable in a table
 * cell, a heading or an image's alternative text:
 *   & < > " ' `   as the HTML entities &amp; &lt; &gt; &quot; &#39; &#96;
 *                 (no tag, no autolink, no code span can start)
 *   \ | [ ]       backslash-escaped (a '|' does not end the cell, a '['
 *                 starts no link or image, a '\' escapes nothing of ours)
 *   newline, carriage return, tab  as a space (a line break would end the
 *                 row or heading); any other control character and DEL as '?'
 * Everything else, UTF-8 included, is written as it is.
 */
void ts_md_escape(FILE *f, const char *s);

#endif

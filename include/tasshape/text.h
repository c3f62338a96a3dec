/* SPDX-License-Identifier: MIT */
/*
 * A growable text buffer: generators, importers and converters write
 * their output here, so the model never opens a file for writing and the
 * unit tests compare strings. Only integers are formatted into it (no
 * floating point, no locale), which keeps outputs byte-identical across
 * machines.
 */
#ifndef TASSHAPE_TEXT_H
#define TASSHAPE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

struct ts_text {
	char *p;    /* NUL-terminated text, or NULL while empty */
	size_t len; /* bytes of text, without the NUL */
	size_t cap;
	bool oom; /* an allocation failed: the text is incomplete */
};

/* An empty buffer. */
void ts_text_init(struct ts_text *b);

/* Free the text; the buffer is empty again. */
void ts_text_fini(struct ts_text *b);

/*
 * ts_text_printf - append formatted text. Returns 0, or -ENOMEM (and sets
 * b->oom, which stays set so a caller may check once at the end).
 */
int ts_text_printf(struct ts_text *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ts_text_add - append @len bytes of @s. Returns 0 or -ENOMEM (as above). */
int ts_text_add(struct ts_text *b, const char *s, size_t len);

/*
 * ts_text_fixed - append the decimal @v / 10^@digits with the fraction's
 * trailing zeros removed: (12500000, 6) is "12.5", (3, 0) is "3",
 * (1000, 3) is "1". Exact, for any @digits <= 18. Returns as above.
 */
int ts_text_fixed(struct ts_text *b, unsigned long long v, int digits);

/*
 * ts_join - @at(@ctx, 0) .. @at(@ctx, @n - 1) separated by @sep into @buf
 * (truncated to @len, always terminated when @len > 0): the name lists of
 * the plug-in tables for messages and help. Returns @buf.
 */
char *ts_join(char *buf, size_t len, size_t n, const char *(*at)(const void *ctx, size_t i),
	      const void *ctx, const char *sep);

#endif

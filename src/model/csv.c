/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"

char ts_csv_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool ts_csv_ieq(const char *s, size_t len, const char *word)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!word[i] || ts_csv_lower(s[i]) != word[i])
			return false;
	return word[len] == '\0';
}

bool ts_csv_icontains(const char *s, size_t len, const char *word)
{
	size_t i, wlen = strlen(word);

	for (i = 0; i + wlen <= len; i++)
		if (ts_csv_ieq(s + i, wlen, word))
			return true;
	return false;
}

static bool csv_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

void ts_csv_trim_blanks(const char **s, size_t *len)
{
	while (*len && csv_blank((*s)[0])) {
		(*s)++;
		(*len)--;
	}
	while (*len && csv_blank((*s)[*len - 1]))
		(*len)--;
}

void ts_csv_trim(const char **s, size_t *len)
{
	ts_csv_trim_blanks(s, len);
	if (*len >= 2 && (*s)[0] == '"' && (*s)[*len - 1] == '"') {
		(*s)++;
		*len -= 2;
	}
}

size_t ts_csv_count_fields(const char *s, size_t len)
{
	size_t n = 1;
	const char *p = s, *end = s + len, *comma;

	while ((comma = memchr(p, ',', (size_t)(end - p)))) {
		n++;
		p = comma + 1;
	}
	return n;
}

bool ts_csv_field(const char *s, size_t len, size_t k, const char **f, size_t *flen)
{
	const char *end = s + len, *comma;

	for (;;) {
		comma = memchr(s, ',', (size_t)(end - s));
		if (!k)
			break;
		if (!comma)
			return false;
		s = comma + 1;
		k--;
	}
	*f = s;
	*flen = (size_t)((comma ? comma : end) - s);
	ts_csv_trim(f, flen);
	return true;
}

static int csv_cmp_ns(const void *a, const void *b)
{
	ts_ns_t x = *(const ts_ns_t *)a, y = *(const ts_ns_t *)b;

	return (x > y) - (x < y);
}

static ts_ns_t csv_row_t(const void *rows, size_t i, size_t size, size_t t_offset)
{
	ts_ns_t t;

	memcpy(&t, (const char *)rows + i * size + t_offset, sizeof(t));
	return t;
}

int ts_median_gap(const void *rows, size_t n, size_t size, size_t t_offset, ts_ns_t *out)
{
	ts_ns_t *iv;
	size_t i;

	if (n < 2)
		return -EINVAL;
	iv = malloc((n - 1) * sizeof(*iv));
	if (!iv)
		return -ENOMEM;
	for (i = 1; i < n; i++)
		iv[i - 1] =
			csv_row_t(rows, i, size, t_offset) - csv_row_t(rows, i - 1, size, t_offset);
	qsort(iv, n - 1, sizeof(*iv), csv_cmp_ns);
	*out = iv[(n - 2) / 2];
	free(iv);
	return 0;
}

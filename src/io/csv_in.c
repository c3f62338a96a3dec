/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/csv_in.h"
#include "io/infile.h"

int ts_csv_in_split(const char *line, size_t len, struct ts_csv_in_fields *out, const char *name,
		    unsigned long lineno, struct ts_err *err)
{
	size_t start = 0, i;

	if (len && line[len - 1] == '\n')
		len--;
	if (len && line[len - 1] == '\r')
		len--;
	out->n = 0;
	if (len > TS_CSV_IN_LINE_MAX) {
		ts_err_set(err, "%s:%lu: line of %zu bytes, expected at most %d", name, lineno, len,
			   TS_CSV_IN_LINE_MAX);
		return -EINVAL;
	}
	if (memchr(line, '\0', len)) {
		ts_err_set(err, "%s:%lu: a NUL byte, expected text", name, lineno);
		return -EINVAL;
	}
	for (i = 0; i <= len; i++) {
		if (i < len && line[i] != ',')
			continue;
		if (out->n == TS_CSV_IN_COLS_MAX) {
			ts_err_set(err, "%s:%lu: more than %d fields, expected at most %d", name,
				   lineno, TS_CSV_IN_COLS_MAX, TS_CSV_IN_COLS_MAX);
			return -EINVAL;
		}
		out->f[out->n] = line + start;
		out->len[out->n++] = i - start;
		start = i + 1;
	}
	return 0;
}

bool ts_csv_in_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(s, word, len);
}

int ts_csv_in_columns(const struct ts_csv_in_fields *h, const char *const *want,
		      const bool *required, size_t ncols, int *col, const char *name,
		      struct ts_err *err)
{
	size_t k, i;

	for (k = 0; k < ncols; k++) {
		col[k] = -1;
		for (i = 0; i < h->n; i++) {
			if (!ts_csv_in_is(h->f[i], h->len[i], want[k]))
				continue;
			if (col[k] >= 0) {
				ts_err_set(err, "%s:1: column %s given twice, expected once", name,
					   want[k]);
				return -EINVAL;
			}
			col[k] = (int)i;
		}
		if (col[k] < 0 && required[k]) {
			ts_err_set(err,
				   "%s:1: no column %s in the header (expected the header "
				   "tasshape writes)",
				   name, want[k]);
			return -EINVAL;
		}
	}
	return 0;
}

static bool digits(const char *s, size_t len, size_t *i)
{
	size_t start = *i;

	while (*i < len && s[*i] >= '0' && s[*i] <= '9')
		(*i)++;
	return *i > start;
}

bool ts_csv_in_num(const char *s, size_t len, double *out)
{
	char buf[65], *end;
	size_t i = 0;
	double v;

	/* The grammar first: strtod alone would take blanks, signs, hex, inf and nan. */
	if (!len || len >= sizeof(buf) || !digits(s, len, &i))
		return false;
	if (i < len && s[i] == '.') {
		i++;
		if (!digits(s, len, &i))
			return false;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		if (!digits(s, len, &i))
			return false;
	}
	if (i != len)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtod(buf, &end);
	if (end != buf + len || !isfinite(v))
		return false;
	*out = v;
	return true;
}

bool ts_csv_in_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* One line of @f into @buf (at most @cap bytes, its '\n' not stored): its length, -1 at EOF. */
static long read_line(FILE *f, char *buf, size_t cap, bool *toolong)
{
	size_t len = 0;
	int c;

	*toolong = false;
	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (len == cap) {
			*toolong = true;
			return (long)len;
		}
		buf[len++] = (char)c;
	}
	return c == EOF && !len ? -1 : (long)len;
}

int ts_csv_in_file(const char *path, ts_csv_in_line_fn fn, void *ctx, struct ts_err *err)
{
	char buf[TS_CSV_IN_LINE_MAX + 1]; /* the line and a '\r' */
	unsigned long lineno = 0;
	bool toolong;
	int ret = 0;
	long len;
	FILE *f;
	int fd;

	/* Only a regular file: a FIFO planted in a results directory would wait forever. */
	fd = ts_in_open(path, err);
	if (fd < 0)
		return fd;
	f = fdopen(fd, "re");
	if (!f) {
		ret = -errno;
		ts_err_set(err, "%s: cannot open: %s", path, strerror(errno));
		close(fd);
		return ret;
	}
	while (!ret && (len = read_line(f, buf, sizeof(buf), &toolong)) >= 0) {
		lineno++;
		if (toolong) {
			ts_err_set(err, "%s:%lu: line longer than %d bytes, expected at most %d",
				   path, lineno, TS_CSV_IN_LINE_MAX, TS_CSV_IN_LINE_MAX);
			ret = -EINVAL;
			break;
		}
		ret = fn(ctx, buf, (size_t)len, lineno, err);
	}
	if (!ret && ferror(f)) {
		ret = -EIO;
		ts_err_set(err, "%s: read error", path);
	}
	fclose(f);
	return ret;
}

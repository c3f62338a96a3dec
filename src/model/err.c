/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/err.h"

#define ELLIPSIS " ... "

void ts_err_vformat(char *buf, size_t len, const char *fmt, va_list ap)
{
	size_t keep, head, tail, e = sizeof(ELLIPSIS) - 1;
	char *full = NULL;
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(buf, len, fmt, ap);
	/* Too long: the whole message once more, then its start and its end. */
	if (n >= 0 && (size_t)n >= len && len > e + 2 && vasprintf(&full, fmt, ap2) == n) {
		keep = len - 1 - e;
		head = keep / 2;
		tail = keep - head;
		memcpy(buf, full, head);
		memcpy(buf + head, ELLIPSIS, e);
		memcpy(buf + head + e, full + (size_t)n - tail, tail);
		buf[len - 1] = '\0';
	}
	free(full);
	va_end(ap2);
}

void ts_err_set(struct ts_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	ts_err_vformat(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

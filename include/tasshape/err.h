/* SPDX-License-Identifier: MIT */
/*
 * Error messages for parsers and constructors. A function that can fail
 * on user input fills a caller-owned struct ts_err with one line saying
 * what was wrong and what was expected, and returns a negative errno.
 * The caller decides where the line goes (stderr, a test assertion).
 */
#ifndef TASSHAPE_ERR_H
#define TASSHAPE_ERR_H

#include <stdarg.h>
#include <stddef.h>

#define TS_ERR_MAX 512

struct ts_err {
	char msg[TS_ERR_MAX];
};

/*
 * ts_err_set - format a message into @err (which may be NULL), as
 * ts_err_vformat does. Returns nothing.
 */
void ts_err_set(struct ts_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * ts_err_vformat - format into @buf (@len > 0 bytes, always terminated).
 * A message longer than @len - 1 keeps its start and its end with " ... "
 * between: a long value quoted in the middle must not cut off the reason
 * and the expectation that follow it. Returns nothing.
 */
void ts_err_vformat(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif

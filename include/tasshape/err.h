/* SPDX-License-Identifier: MIT */
/*
 * Error messages for parsers and constructors. A function that can fail
 * on user input fills a caller-owned struct ts_err with one line saying
 * what was wrong and what was expected, and returns a negative errno.
 * The caller decides where the line goes (stderr, a test assertion).
 */
#ifndef TASSHAPE_ERR_H
#define TASSHAPE_ERR_H

#include <stddef.h>

#define TS_ERR_MAX 512

struct ts_err {
	char msg[TS_ERR_MAX];
};

/*
 * ts_err_set - format a message into @err (which may be NULL).
 * Returns nothing; truncates silently at TS_ERR_MAX - 1 characters.
 */
void ts_err_set(struct ts_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

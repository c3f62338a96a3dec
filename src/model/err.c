/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>

#include "tasshape/err.h"

void ts_err_set(struct ts_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* SPDX-License-Identifier: MIT */
/*
 * Usage errors: one message format and one exit status (TS_EXIT_USAGE) for
 * every command, whether argp or the command itself found the mistake, so
 * a script can tell "you called it wrong" from "it ran and failed".
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"

int ts_cli_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("tasshape: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return TS_EXIT_USAGE;
}

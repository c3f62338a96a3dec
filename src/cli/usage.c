/* SPDX-License-Identifier: MIT */
/*
 * Errors of the front end: one message format and one exit status (TS_EXIT_USAGE) for
 * every command, whether argp or the command itself found the mistake, so
 * a script can tell "you called it wrong" from "it ran and failed".
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"

/* "tasshape: MSG\n" on stderr: the one format of both kinds of error. */
static void __attribute__((format(printf, 1, 0))) say(const char *fmt, va_list ap)
{
	fputs("tasshape: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int ts_cli_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	return TS_EXIT_USAGE;
}

int ts_cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	return 1;
}

/* SPDX-License-Identifier: MIT */
/* The path of a run's directory (rundir.h). */
#include <errno.h>
#include <stdio.h>

#include "results/rundir.h"

/* 0 when snprintf's result @n fitted @len bytes, else -ENAMETOOLONG. */
static int fitted(int n, size_t len)
{
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int ts_rundir_path(char *buf, size_t len, const char *out, const char *id, unsigned rep)
{
	if (!out)
		return fitted(snprintf(buf, len, "%s/" TS_RUNDIR_PREFIX "%u", id, rep), len);
	return fitted(snprintf(buf, len, "%s/%s/" TS_RUNDIR_PREFIX "%u", out, id, rep), len);
}

int ts_rundir_name(char *buf, size_t len, unsigned rep)
{
	return fitted(snprintf(buf, len, TS_RUNDIR_PREFIX "%u", rep), len);
}

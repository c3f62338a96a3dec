/* SPDX-License-Identifier: MIT */
/* The flows' stations on a link with real Wi-Fi stations (contract in flowsta.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan/flowsta.h"

/* One word of the list, "1" in " 1 ": digits only, below TS_EXP_MAX_STATIONS. */
static int parse_one(const char *p, const char *end, unsigned *out, struct ts_err *err)
{
	unsigned v = 0;
	const char *q;

	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	for (q = p; q < end && isdigit((unsigned char)*q) && v < TS_EXP_MAX_STATIONS; q++)
		v = v * 10 + (unsigned)(*q - '0');
	if (p == end || q != end || v >= TS_EXP_MAX_STATIONS) {
		ts_err_set(err,
			   "flow_stations: '%.*s' is no station (expected numbers from 0 to %d, "
			   "comma-separated)",
			   (int)(end - p), p, TS_EXP_MAX_STATIONS - 1);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int ts_exp_flow_stations_parse(const char *value, unsigned *out, size_t *n, struct ts_err *err)
{
	const char *p = value;

	*n = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);

		if (*n == TS_EXP_MAX_FLOW_STATIONS) {
			ts_err_set(err, "flow_stations: more than %d values",
				   TS_EXP_MAX_FLOW_STATIONS);
			return -EINVAL;
		}
		if (parse_one(p, end, &out[*n], err) < 0)
			return -EINVAL;
		(*n)++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int ts_exp_flow_stations_check(const unsigned *fs, size_t n, unsigned stations, struct ts_err *err)
{
	size_t i;

	if (n && stations <= 1) {
		ts_err_set(err, "flow_stations: the link has one station (expected mac = "
				"wifi6:...,real=N with N of 2 or more)");
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		if (fs[i] >= stations) {
			ts_err_set(err,
				   "flow_stations: station %u, but the link has %u (expected 0 to "
				   "%u)",
				   fs[i], stations, stations - 1);
			return -EINVAL;
		}
	return 0;
}

unsigned ts_exp_flow_station(const struct ts_exp_run *run, size_t k)
{
	if (run->stations <= 1)
		return 0;
	if (run->nflow_stations)
		return run->flow_stations[k % run->nflow_stations];
	return (unsigned)(k % run->stations);
}

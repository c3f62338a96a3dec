/* SPDX-License-Identifier: MIT */
/* A finished run's headline numbers, for exp run's line per run (results/result.h). */
#include <math.h>
#include <stdio.h>

#include "results/result.h"
#include "results/stats.h"

void ts_exp_result_headline(struct ts_exp_result *r, char *buf, size_t len)
{
	double up = 0, down = 0;
	size_t i, n = 0;
	int nup = 0, ndown = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < r->nflows; i++) {
		if (isnan(r->flows[i].throughput_mbps))
			continue; /* a failed run's flow that was not measured */
		if (r->flows[i].up) {
			up += r->flows[i].throughput_mbps;
			nup++;
		} else {
			down += r->flows[i].throughput_mbps;
			ndown++;
		}
	}
	if (nup && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", up %.2f Mbit/s", up);
	if (ndown && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", down %.2f Mbit/s", down);
	if (r->nicmp && n < len) {
		ts_stats_sort(r->icmp_ms, r->nicmp);
		n += (size_t)snprintf(buf + n, len - n, ", ICMP p95 %.1f ms",
				      ts_stats_quantile(r->icmp_ms, r->nicmp, 0.95));
	}
	for (i = 0; i < r->nflags && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "; ", r->flags[i]);
}

/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "campaign/progress.h"

ts_ns_t ts_exp_eta(size_t done, size_t total, ts_ns_t elapsed, ts_ns_t current, ts_ns_t planned)
{
	ts_ns_t per, left;

	if (done >= total)
		return 0;
	per = done ? (elapsed - current) / (ts_ns_t)done : planned;
	left = per * (ts_ns_t)(total - done) - current;
	return left > 0 ? left : 0;
}

const char *ts_exp_fmt_clock(char *buf, size_t len, ts_ns_t t)
{
	long long s = t > 0 ? (long long)(t / TS_NSEC_PER_SEC) : 0;

	if (s >= 3600)
		snprintf(buf, len, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%lld:%02lld", s / 60, s % 60);
	return buf;
}

bool ts_exp_progress_done(char *buf, size_t len, size_t pos, size_t total,
			  const struct ts_exp_run *run, struct ts_exp_result *r, const char *why,
			  ts_ns_t took)
{
	char extra[512];

	if (!r) {
		snprintf(buf, len, "exp %zu/%zu %s rep %u: no result: %s", pos, total,
			 run->config_id, run->rep, why);
		return false;
	}
	ts_exp_result_headline(r, extra, sizeof(extra));
	snprintf(buf, len, "exp %zu/%zu %s rep %u: %s in %.1f s%s%s%s", pos, total, run->config_id,
		 run->rep, r->ok ? "ok" : "FAILED", (double)took / TS_NSEC_PER_SEC, extra,
		 r->ok ? "" : ": ", r->ok ? "" : (r->error ? r->error : "no reason given"));
	return r->ok;
}

int ts_exp_progress_live(char *buf, size_t len, size_t pos, size_t total,
			 const struct ts_exp_run *run, ts_ns_t elapsed, ts_ns_t eta)
{
	char e[32], l[32];

	return snprintf(buf, len, "exp %zu/%zu %s rep %u  elapsed %s  left ~%s", pos, total,
			run->config_id, run->rep, ts_exp_fmt_clock(e, sizeof(e), elapsed),
			ts_exp_fmt_clock(l, sizeof(l), eta));
}

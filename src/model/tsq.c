/* SPDX-License-Identifier: MIT */
/*
 * The station's TCP Small Queues budget (include/tasshape/tsq.h,
 * docs/wifi6-model.md): the pacing_shift= parameter, BBR's state from its
 * gains, the kernel's limit, and the part of a flow's station queue the
 * emulator holds uncharged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/tsq.h"

void ts_tsq_conf_init(struct ts_tsq_conf *c)
{
	c->mode = TS_TSQ_FIXED;
	c->shift = TS_TSQ_MAC80211_SHIFT;
	c->startup = c->steady = TS_TSQ_MAC80211_SHIFT;
}

/* A shift from @s up to @end: digits only, 1 to 20. */
static int parse_shift(const char *s, const char *end, unsigned int *out)
{
	unsigned int v = 0;

	if (s == end || end - s > 2)
		return -EINVAL;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned int)(*s - '0');
	}
	if (v < TS_TSQ_SHIFT_MIN || v > TS_TSQ_SHIFT_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

int ts_tsq_conf_parse(struct ts_tsq_conf *c, const char *val, struct ts_err *err)
{
	const char *slash;
	struct ts_tsq_conf n = *c;

	if (!strcmp(val, "kernel")) {
		n.mode = TS_TSQ_KERNEL;
	} else if (!strncmp(val, "tas:", 4)) {
		slash = strchr(val + 4, '/');
		if (!slash || parse_shift(val + 4, slash, &n.startup) < 0 ||
		    parse_shift(slash + 1, slash + 1 + strlen(slash + 1), &n.steady) < 0)
			goto bad;
		n.mode = TS_TSQ_TAS;
	} else {
		if (parse_shift(val, val + strlen(val), &n.shift) < 0)
			goto bad;
		n.mode = TS_TSQ_FIXED;
	}
	*c = n;
	return 0;
bad:
	ts_err_set(err,
		   "pacing_shift: '%s' (expected a shift from %u to %u such as 7 (mac80211) or 8, "
		   "'kernel', or tas:STARTUP/STEADY such as tas:8/8)",
		   val, TS_TSQ_SHIFT_MIN, TS_TSQ_SHIFT_MAX);
	return -EINVAL;
}

const char *ts_tsq_conf_str(const struct ts_tsq_conf *c, char *buf, size_t len)
{
	switch (c->mode) {
	case TS_TSQ_KERNEL:
		snprintf(buf, len, "kernel");
		break;
	case TS_TSQ_TAS:
		snprintf(buf, len, "tas:%u/%u", c->startup, c->steady);
		break;
	default:
		snprintf(buf, len, "%u", c->shift);
	}
	return buf;
}

enum ts_bbr_phase ts_tsq_bbr_phase(uint32_t pacing_gain)
{
	/* PROBE_BW cycles 1.25, 0.75 and 1.0 (v1) or 1.25, 0.9 and 1.0 (v3); PROBE_RTT uses 1.0. */
	if (pacing_gain > 320)
		return TS_BBR_STARTUP;
	if (pacing_gain < 192)
		return TS_BBR_DRAIN;
	return TS_BBR_STEADY;
}

const char *ts_bbr_phase_name(enum ts_bbr_phase ph)
{
	static const char *const names[] = {"none", "startup", "drain", "steady"};

	return (unsigned int)ph < 4 ? names[ph] : "?";
}

unsigned int ts_tsq_shift(const struct ts_tsq_conf *c, enum ts_bbr_phase phase)
{
	switch (c->mode) {
	case TS_TSQ_FIXED:
		return c->shift;
	case TS_TSQ_TAS:
		return phase == TS_BBR_STARTUP || phase == TS_BBR_DRAIN ? c->startup : c->steady;
	default:
		return TS_TSQ_KERNEL_SHIFT;
	}
}

uint32_t ts_tsq_ratio(uint32_t ratio, unsigned int shift)
{
	return ts_tsq_ratio_scaled(ratio, shift, 1, 1);
}

uint32_t ts_tsq_ratio_scaled(uint32_t ratio, unsigned int shift, uint64_t num, uint64_t den)
{
	uint64_t r = ratio;

	if (shift <= TS_TSQ_KERNEL_SHIFT)
		r <<= TS_TSQ_KERNEL_SHIFT - shift;
	else
		r >>= shift - TS_TSQ_KERNEL_SHIFT;
	if (num && den)
		r = (r * num + den / 2) / den; /* ratios are at most 1000 << 9: no overflow */
	if (r > TS_TSQ_RATIO_MAX)
		r = TS_TSQ_RATIO_MAX;
	return r ? (uint32_t)r : 1;
}

uint32_t ts_tsq_head(unsigned int major, unsigned int minor)
{
	return major < 6 || (major == 6 && minor < 3) ? TS_TSQ_HEAD_OLD : TS_TSQ_HEAD;
}

void ts_tsq_gso_scale(uint32_t mss, uint32_t head, uint32_t segs, uint64_t *num, uint64_t *den)
{
	if (!mss || !head) {
		*num = *den = 1;
		return;
	}
	if (!segs)
		segs = TS_TSQ_GSO_MAX / mss ? TS_TSQ_GSO_MAX / mss : 1;
	*num = (uint64_t)segs * mss + head;
	*den = (uint64_t)segs * (mss + head);
}

uint64_t ts_tsq_tso_truesize(uint64_t rate, unsigned int shift, uint32_t mss, uint32_t min_rtt_us)
{
	uint64_t bytes = rate >> shift, segs;
	uint32_t r = min_rtt_us >> 9;

	if (!mss)
		return 0;
	if (r < 32)
		bytes += TS_TSQ_GSO_MAX >> r;
	if (bytes > TS_TSQ_GSO_MAX)
		bytes = TS_TSQ_GSO_MAX;
	segs = bytes / mss;
	if (segs < 2)
		segs = 2;
	return segs * (mss + TS_TSQ_SEG_OVERHEAD);
}

uint64_t ts_tsq_limit(uint64_t rate, unsigned int shift, uint64_t truesize, bool unpaced,
		      uint64_t lob)
{
	uint64_t limit = rate >> shift;

	if (limit < 2 * truesize)
		limit = 2 * truesize;
	if (unpaced && lob && limit > lob)
		limit = lob;
	return limit;
}

void ts_tsq_plan(const struct ts_tsq_sock *s, const struct ts_tsq_env *env, unsigned int shift,
		 struct ts_tsq_plan *out)
{
	uint64_t rate = s->pacing_rate, ts_k, ts_s;
	bool unpaced = !s->paced;

	memset(out, 0, sizeof(*out));
	if (unpaced) {
		bool ss = s->cwnd < s->ssthresh / 2;
		uint32_t found = ss ? env->ss_ratio : env->ca_ratio;
		uint32_t applied = ss ? env->ss_applied : env->ca_applied;

		if (applied && found != applied)
			rate = (uint64_t)((unsigned __int128)rate * found / applied);
	}
	out->rate = rate;
	out->shift = shift;
	ts_k = ts_tsq_tso_truesize(s->pacing_rate, s->kernel_shift, s->mss, s->min_rtt_us);
	ts_s = ts_tsq_tso_truesize(rate, shift, s->mss, s->min_rtt_us);
	out->kernel_budget =
		ts_tsq_limit(s->pacing_rate, s->kernel_shift, ts_k, unpaced,
			     env->lob_applied ? env->lob_applied : env->limit_output_bytes);
	out->budget = ts_tsq_limit(rate, shift, ts_s, unpaced, env->limit_output_bytes);
	if (env->gso_num && env->gso_den)
		out->budget =
			(uint64_t)((unsigned __int128)out->budget * env->gso_num / env->gso_den);
	if (out->budget > out->kernel_budget && s->mss)
		out->uncharged = (out->budget - out->kernel_budget) *
				 (s->mss + TS_TSQ_WIRE_OVERHEAD) / (s->mss + TS_TSQ_SEG_OVERHEAD);
}

/* Account the time since the last change at the values in force. */
static void qstat_span(struct ts_tsq_qstat *q, ts_ns_t now)
{
	double dt;

	if (!q->started) {
		q->started = true;
		q->t_first = q->t_last = now;
		return;
	}
	if (now <= q->t_last)
		return;
	dt = (double)(now - q->t_last);
	q->area_bytes += (double)q->bytes * dt;
	if (q->rate) {
		q->area_ms += (double)q->bytes * 1e3 / (double)q->rate * dt;
		q->t_rate += now - q->t_last;
	}
	q->t_last = now;
}

static void qstat_peak(struct ts_tsq_qstat *q)
{
	if (q->bytes > q->peak_bytes)
		q->peak_bytes = q->bytes;
	if (q->rate) {
		double ms = (double)q->bytes * 1e3 / (double)q->rate;

		if (ms > q->peak_ms)
			q->peak_ms = ms;
	}
}

void ts_tsq_qstat_set(struct ts_tsq_qstat *q, ts_ns_t now, uint64_t bytes)
{
	qstat_span(q, now);
	q->bytes = bytes;
	qstat_peak(q);
}

void ts_tsq_qstat_rate(struct ts_tsq_qstat *q, ts_ns_t now, uint64_t rate)
{
	qstat_span(q, now);
	q->rate = rate;
	qstat_peak(q);
}

double ts_tsq_qstat_mean_bytes(const struct ts_tsq_qstat *q)
{
	ts_ns_t span = q->t_last - q->t_first;

	return span > 0 ? q->area_bytes / (double)span : (double)q->bytes;
}

double ts_tsq_qstat_mean_ms(const struct ts_tsq_qstat *q)
{
	return q->t_rate > 0 ? q->area_ms / (double)q->t_rate : 0.0;
}

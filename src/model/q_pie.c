/* SPDX-License-Identifier: MIT */
/*
 * PIE, Proportional Integral controller Enhanced (RFC 8033). Arriving
 * packets are dropped at random with probability drop_prob, which a PI
 * controller updates every tupdate from the queueing delay: up while the
 * delay is above target or rising, down otherwise, scaled down while
 * drop_prob is small (the RFC's autotuning) and decayed by 2% per update
 * once the queue has stayed empty. A burst allowance (max_burst) protects
 * the start of a congestion episode from early drops.
 *
 * The delay is measured with timestamps: the sojourn of the packet last
 * dequeued, 0 once the queue is empty (RFC 8033 sections 4.3 and 5.2 allow
 * timestamps in place of the departure-rate estimate; Linux's sch_pie does
 * the same by default). The periodic update has no timer here: every
 * enqueue and dequeue first runs the updates that fell due since the last
 * call, each as if at its own time, which gives the timer's result since
 * the queue state cannot change between calls.
 *
 * Keys: target (15ms), tupdate (15ms), alpha (0.125), beta (1.25),
 * max_burst (150ms), packets/bytes tail-drop limit (1000 packets when
 * neither is given). Only RFC 8033 section 4 is implemented; the optional
 * section 5 features are not (docs/queues.md).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "q_limit.h"
#include "q_pie.h"
#include "tasshape/qdisc.h"

#define PIE_TARGET    (15 * TS_NSEC_PER_MSEC)  /* QDELAY_REF, RFC 8033 section 4.2 */
#define PIE_TUPDATE   (15 * TS_NSEC_PER_MSEC)  /* T_UPDATE, section 4.2 */
#define PIE_MAX_BURST (150 * TS_NSEC_PER_MSEC) /* MAX_BURST, section 4.4 */
#define PIE_ALPHA     0.125		       /* Hz, section 4.2 */
#define PIE_BETA      1.25		       /* Hz, section 4.2 */
/* Section 4.1's MEAN_PKTSIZE: one MTU of IP bytes, as Linux uses the MTU. */
#define PIE_MEAN_PKTSIZE 1500
/* Bound for the times, so that sums of them and a run's clock cannot overflow. */
#define PIE_TIME_MAX (3600 * TS_NSEC_PER_SEC)
/* Digits a decimal key may have: below 2^53, so the mantissa is exact. */
#define PIE_DEC_DIGITS 15

struct pie_priv {
	struct ts_q_limit limit;
	ts_ns_t target;
	ts_ns_t tupdate;
	ts_ns_t max_burst;
	double alpha;
	double beta;
	/* RFC 8033 state, same names. */
	double drop_prob;
	ts_ns_t qdelay; /* current_qdelay */
	ts_ns_t qdelay_old;
	ts_ns_t burst_allowance;
	ts_ns_t next_update; /* TS_NEVER until the first call starts the clock */
	uint64_t updates;
	uint64_t steps;
};

/*
 * pie_get_decimal - read @key as a plain decimal ("0.125", "2", ".5") into
 * *out; leave *out unchanged when absent. Returns 0 or -EINVAL with @err
 * set. No strtod: it depends on the locale and accepts exponents, hex,
 * "inf" and "nan". At most 15 significant digits form an integer that a
 * double holds exactly, and the single division by an exact power of ten
 * gives the nearest double to the decimal, as strtod would.
 */
static int pie_get_decimal(struct ts_spec *spec, const char *key, double *out, struct ts_err *err)
{
	const char *v = NULL, *s;
	unsigned int i, ndig = 0, nfrac = 0;
	bool dot = false, any = false;
	uint64_t mant = 0;
	double scale = 1.0;

	for (i = 0; i < spec->nargs; i++) {
		if (!strcmp(spec->arg[i].key, key)) {
			spec->arg[i].used = true;
			v = spec->arg[i].val;
			break;
		}
	}
	if (!v)
		return 0;
	for (s = v; *s; s++) {
		if (*s == '.' && !dot) {
			dot = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			goto bad;
		any = true;
		if (dot)
			nfrac++;
		if (!mant && *s == '0' && !dot)
			continue; /* a leading zero of the integer part */
		mant = mant * 10 + (uint64_t)(*s - '0');
		if (++ndig > PIE_DEC_DIGITS)
			goto bad;
	}
	if (!any)
		goto bad;
	for (i = 0; i < nfrac; i++)
		scale *= 10.0; /* exact: 10^15 < 2^53 */
	*out = (double)mant / scale;
	return 0;
bad:
	ts_err_set(err,
		   "%s: %s: '%s' is not a plain decimal (expected digits with an optional '.', "
		   "at most %d digits, e.g. %s=%s)",
		   spec->name, key, v, PIE_DEC_DIGITS, key,
		   !strcmp(key, "beta") ? "1.25" : "0.125");
	return -EINVAL;
}

static int pie_init(struct ts_qdisc *q, struct ts_spec *spec, struct ts_err *err)
{
	struct pie_priv *pp = q->priv;
	int ret;

	pp->target = PIE_TARGET;
	pp->tupdate = PIE_TUPDATE;
	pp->max_burst = PIE_MAX_BURST;
	pp->alpha = PIE_ALPHA;
	pp->beta = PIE_BETA;
	ret = ts_spec_get_time(spec, "target", &pp->target, err);
	if (ret < 0)
		return ret;
	ret = ts_spec_get_time(spec, "tupdate", &pp->tupdate, err);
	if (ret < 0)
		return ret;
	ret = ts_spec_get_time(spec, "max_burst", &pp->max_burst, err);
	if (ret < 0)
		return ret;
	ret = pie_get_decimal(spec, "alpha", &pp->alpha, err);
	if (ret < 0)
		return ret;
	ret = pie_get_decimal(spec, "beta", &pp->beta, err);
	if (ret < 0)
		return ret;
	if (pp->target <= 0 || pp->tupdate <= 0 || pp->target > PIE_TIME_MAX ||
	    pp->tupdate > PIE_TIME_MAX || pp->max_burst > PIE_TIME_MAX) {
		ts_err_set(err,
			   "%s: target and tupdate must be above 0, and target, tupdate and "
			   "max_burst at most 3600s (defaults target=15ms, tupdate=15ms, "
			   "max_burst=150ms)",
			   spec->name);
		return -EINVAL;
	}
	ret = ts_q_limit_parse(&pp->limit, spec, err);
	if (ret < 0)
		return ret;
	pp->burst_allowance = pp->max_burst; /* section 4.4: initialised to MAX_BURST */
	pp->next_update = TS_NEVER;
	return 0;
}

/*
 * One periodic update (RFC 8033 section 4.2, with section 4.4's burst
 * allowance countdown). Delays are in ns and alpha, beta in Hz, hence the
 * division by 1e9. Autotuning: the smaller drop_prob, the smaller the step,
 * so a light congestion is met with gentle drops.
 */
static void pie_update(struct pie_priv *pp)
{
	double p = (pp->alpha * (double)(pp->qdelay - pp->target) +
		    pp->beta * (double)(pp->qdelay - pp->qdelay_old)) /
		   1e9;
	double dp = pp->drop_prob;

	if (dp < 0.000001)
		p /= 2048;
	else if (dp < 0.00001)
		p /= 512;
	else if (dp < 0.0001)
		p /= 128;
	else if (dp < 0.001)
		p /= 32;
	else if (dp < 0.01)
		p /= 8;
	else if (dp < 0.1)
		p /= 2;
	dp += p;
	/* Congestion gone (no delay in two samples): decay exponentially. */
	if (pp->qdelay == 0 && pp->qdelay_old == 0)
		dp *= 0.98;
	if (dp < 0)
		dp = 0;
	if (dp > 1)
		dp = 1;
	pp->drop_prob = dp;
	pp->qdelay_old = pp->qdelay;
	pp->burst_allowance = ts_max(0, pp->burst_allowance - pp->tupdate);
}

/*
 * pie_catch_up - run the updates due at or before @now, in order. The first
 * call of the queue's life starts the clock instead. When an update leaves
 * drop_prob and qdelay_old as they were, every later one until @now does
 * the same (the queue state is constant between calls), so they are
 * skipped in one step and only the burst allowance is counted down: an
 * idle gap of any length then costs O(1).
 */
static void pie_catch_up(struct pie_priv *pp, ts_ns_t now)
{
	if (pp->next_update == TS_NEVER) {
		pp->next_update = now + pp->tupdate;
		return;
	}
	while (pp->next_update <= now) {
		double dp = pp->drop_prob;
		ts_ns_t old = pp->qdelay_old;
		ts_ns_t n;

		pie_update(pp);
		pp->next_update += pp->tupdate;
		pp->updates++;
		pp->steps++;
		if (pp->drop_prob != dp || pp->qdelay_old != old || pp->next_update > now)
			continue;
		n = (now - pp->next_update) / pp->tupdate + 1;
		pp->burst_allowance = pp->burst_allowance / pp->tupdate < n
					      ? 0
					      : pp->burst_allowance - n * pp->tupdate;
		pp->next_update += n * pp->tupdate;
		pp->updates += (uint64_t)n;
	}
}

/*
 * The enqueue-side decision: RFC 8033 section 4.4 (no early drop while
 * burst allowance is left), then section 4.1's work-conserving safeguard
 * (low delay and low drop_prob, or at most two packets' worth of bytes
 * queued), then a random drop with probability drop_prob. The generator
 * is only drawn from when the outcome is in doubt.
 */
static bool pie_drop_early(struct ts_qdisc *q, const struct pie_priv *pp)
{
	if (pp->burst_allowance > 0)
		return false;
	if (pp->qdelay_old < pp->target / 2 && pp->drop_prob < 0.2)
		return false;
	if (q->fifo.bytes <= 2 * PIE_MEAN_PKTSIZE)
		return false;
	if (pp->drop_prob <= 0)
		return false;
	return ts_rng_double(&q->rng) < pp->drop_prob;
}

static void pie_enqueue(struct ts_qdisc *q, struct ts_pkt *p, ts_ns_t now)
{
	struct pie_priv *pp = q->priv;

	pie_catch_up(pp, now);
	if (ts_q_limit_over(&pp->limit, q, p)) {
		ts_qdisc_drop(q, p, TS_DROP_OVERLIMIT, now);
	} else if (pie_drop_early(q, pp)) {
		ts_qdisc_drop(q, p, TS_DROP_PIE, now);
	} else {
		p->t_enq = now;
		ts_fifo_push(&q->fifo, p);
	}
	/* Section 4.4: congestion is over, so the next burst is protected again. */
	if (pp->drop_prob == 0 && pp->qdelay < pp->target / 2 && pp->qdelay_old < pp->target / 2)
		pp->burst_allowance = pp->max_burst;
}

static struct ts_pkt *pie_dequeue(struct ts_qdisc *q, ts_ns_t now)
{
	struct pie_priv *pp = q->priv;
	struct ts_pkt *p;

	pie_catch_up(pp, now);
	p = ts_fifo_pop(&q->fifo);
	/*
	 * An empty queue has no delay, whatever the last packet waited (as
	 * Linux does); otherwise the last sample would keep raising drop_prob
	 * through an idle period.
	 */
	pp->qdelay = p && q->fifo.pkts ? now - p->t_enq : 0;
	return p;
}

void ts_pie_state(const struct ts_qdisc *q, struct ts_pie_state *out)
{
	const struct pie_priv *pp = q->priv;

	out->drop_prob = pp->drop_prob;
	out->qdelay = pp->qdelay;
	out->qdelay_old = pp->qdelay_old;
	out->burst_allowance = pp->burst_allowance;
	out->next_update = pp->next_update;
	out->updates = pp->updates;
	out->steps = pp->steps;
}

const struct ts_qdisc_ops ts_q_pie = {
	.name = "pie",
	.keys = "target, tupdate, alpha, beta, max_burst, packets, bytes",
	.help = "PIE AQM (RFC 8033): target=15ms, tupdate=15ms, alpha=0.125, beta=1.25, "
		"max_burst=150ms, packets=1000 / bytes=SIZE",
	.priv_size = sizeof(struct pie_priv),
	.init = pie_init,
	.enqueue = pie_enqueue,
	.dequeue = pie_dequeue,
};

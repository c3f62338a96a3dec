/* SPDX-License-Identifier: MIT */
/*
 * CoDel, Controlled Delay (RFC 8289). Packets are stamped on enqueue; on
 * dequeue the sojourn time of the head (now - t_enq) is the delay signal.
 * Once it has stayed at or above target for a whole interval, the queue
 * enters a dropping state and drops head packets at times spaced by
 * interval / sqrt(count), count growing by one per drop, until a sojourn
 * falls below target again. The state machine follows the RFC's section 5
 * pseudocode line by line (dodequeue, dequeue, control_law), with the
 * Linux re-entry rule the RFC adopts.
 *
 * Keys: target (5ms), interval (100ms), packets/bytes tail-drop limit
 * (1000 packets when neither is given). docs/queues.md lists where this
 * differs from Linux's sch_codel and mahimahi's codel queue.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "q_limit.h"
#include "tasshape/qdisc.h"

#define CODEL_TARGET   (5 * TS_NSEC_PER_MSEC)	/* RFC 8289 section 4.3 */
#define CODEL_INTERVAL (100 * TS_NSEC_PER_MSEC) /* RFC 8289 section 4.2 */
/*
 * The RFC's MAXPACKET: a backlog of at most one MTU-sized packet left
 * behind the head is never dropped from, so a slow link whose single
 * packet takes longer than target to send still stays busy (section 4.1).
 * tasshape counts IP bytes, so the MTU is 1500.
 */
#define CODEL_MAXPACKET 1500
/* Bound for target and interval, so that now + 16 * interval cannot overflow. */
#define CODEL_TIME_MAX (3600 * TS_NSEC_PER_SEC)

struct codel_priv {
	struct ts_q_limit limit;
	ts_ns_t target;
	ts_ns_t interval;
	/* RFC 8289 section 5 state, same names; 0 in first_above_time = "not above". */
	ts_ns_t first_above_time;
	ts_ns_t drop_next;
	uint32_t count;
	uint32_t lastcount;
	bool dropping;
};

static int codel_init(struct ts_qdisc *q, struct ts_spec *spec, struct ts_err *err)
{
	struct codel_priv *cp = q->priv;
	int ret;

	cp->target = CODEL_TARGET;
	cp->interval = CODEL_INTERVAL;
	ret = ts_spec_get_time(spec, "target", &cp->target, err);
	if (ret < 0)
		return ret;
	ret = ts_spec_get_time(spec, "interval", &cp->interval, err);
	if (ret < 0)
		return ret;
	if (cp->interval <= 0 || cp->interval > CODEL_TIME_MAX || cp->target > CODEL_TIME_MAX) {
		ts_err_set(err,
			   "%s: interval must be above 0 and target and interval at most 3600s "
			   "(defaults target=5ms, interval=100ms)",
			   spec->name);
		return -EINVAL;
	}
	return ts_q_limit_parse(&cp->limit, spec, err);
}

static void codel_enqueue(struct ts_qdisc *q, struct ts_pkt *p, ts_ns_t now)
{
	struct codel_priv *cp = q->priv;

	if (ts_q_limit_over(&cp->limit, q, p)) {
		ts_qdisc_drop(q, p, TS_DROP_OVERLIMIT, now);
		return;
	}
	p->t_enq = now;
	ts_fifo_push(&q->fifo, p);
}

/*
 * control_law(t, count) = t + interval / sqrt(count) (RFC 8289 section 5),
 * in double and rounded to the nearest nanosecond; Linux approximates
 * 1/sqrt(count) with a fixed-point Newton step instead.
 */
static ts_ns_t codel_control_law(const struct codel_priv *cp, ts_ns_t t, uint32_t count)
{
	return t + (ts_ns_t)llround((double)cp->interval / sqrt((double)count));
}

/*
 * codel_dodequeue - pop the head and say whether it may be dropped: its
 * sojourn has been >= target since first_above_time (an interval ago) and
 * more than MAXPACKET bytes stay queued behind it. Returns the packet or
 * NULL; *ok_to_drop is false for NULL.
 */
static struct ts_pkt *codel_dodequeue(struct ts_qdisc *q, ts_ns_t now, bool *ok_to_drop)
{
	struct codel_priv *cp = q->priv;
	struct ts_pkt *p = ts_fifo_pop(&q->fifo);

	*ok_to_drop = false;
	if (!p) {
		cp->first_above_time = 0;
		return NULL;
	}
	if (now - p->t_enq < cp->target || q->fifo.bytes <= CODEL_MAXPACKET) {
		cp->first_above_time = 0;
	} else if (cp->first_above_time == 0) {
		/* Times are >= 0 and interval > 0, so this is never the 0 sentinel. */
		cp->first_above_time = now + cp->interval;
	} else if (now >= cp->first_above_time) {
		*ok_to_drop = true;
	}
	return p;
}

static struct ts_pkt *codel_dequeue(struct ts_qdisc *q, ts_ns_t now)
{
	struct codel_priv *cp = q->priv;
	struct ts_pkt *p;
	uint32_t delta;
	bool ok;

	p = codel_dodequeue(q, now, &ok);
	if (cp->dropping) {
		if (!ok)
			cp->dropping = false;
		/* A large backlog may owe several drops at once, hence the loop. */
		while (cp->dropping && now >= cp->drop_next) {
			ts_qdisc_drop(q, p, TS_DROP_CODEL, now);
			if (cp->count < UINT32_MAX)
				cp->count++;
			p = codel_dodequeue(q, now, &ok);
			if (!ok)
				cp->dropping = false;
			else
				cp->drop_next = codel_control_law(cp, cp->drop_next, cp->count);
		}
	} else if (ok) {
		ts_qdisc_drop(q, p, TS_DROP_CODEL, now);
		p = codel_dodequeue(q, now, &ok);
		cp->dropping = true;
		/*
		 * Dropping again soon after the last episode: resume at the
		 * drop rate that controlled the queue then. The difference is
		 * signed, so a drop_next still in the future counts as recent
		 * (as in Linux; an unsigned difference would wrap).
		 */
		delta = cp->count - cp->lastcount;
		cp->count = 1;
		if (delta > 1 && now - cp->drop_next < 16 * cp->interval)
			cp->count = delta;
		cp->drop_next = codel_control_law(cp, now, cp->count);
		cp->lastcount = cp->count;
	}
	return p;
}

const struct ts_qdisc_ops ts_q_codel = {
	.name = "codel",
	.keys = "target, interval, packets, bytes",
	.help = "CoDel AQM (RFC 8289): target=5ms, interval=100ms, packets=1000 / bytes=SIZE",
	.priv_size = sizeof(struct codel_priv),
	.init = codel_init,
	.enqueue = codel_enqueue,
	.dequeue = codel_dequeue,
};

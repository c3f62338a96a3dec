/* SPDX-License-Identifier: MIT */
/*
 * The shared Wi-Fi 6 medium: channel access (EDCA/DCF backoff with
 * freezing), A-MPDU aggregation, BlockAck, retries, and the event order
 * across the two sides (docs/wifi6-model.md).
 *
 * Event order. The two sides sit in different pipes (the station's queue
 * in the uplink sender pipe, the AP's at the end of the downlink network
 * pipe) that the runtime advances one after the other. Whichever side is
 * advanced first runs the medium for both: it first advances the stages
 * in front of each side to "now", so every packet that reaches either
 * side by "now" is known (arrivals are only recorded, never acted on, in
 * ts_wifi6_arrive), then processes arrivals, channel accesses and
 * BlockAck ends strictly in time order. Whether each MPDU of an A-MPDU is
 * received is decided when the A-MPDU starts; the receiver's reorder buffer
 * passes a unit on, in sequence order, once it holds all its segments: the
 * AP's units at the end of the MPDU that completed them (mpdu_rx=1, as a
 * station's PHY ends each MPDU), the station's at the end of the BlockAck,
 * because that release is also the sender's transmit completion, which frees
 * the skb and its TCP Small Queues charge (a driver frees it on the
 * BlockAck). The sender's window moves at the BlockAck in both. Advancing
 * the other side later to the same "now" finds nothing to do.
 *
 * Channel access, per contender (the two sides, plus stations= saturated
 * ones): with frames to send it draws a backoff in [0, CW] slots; it
 * counts idle slots once the medium has been idle for AIFS, freezes while
 * another transmits and resumes AIFS after the medium is idle again; at 0
 * it transmits. Slots are counted on one grid per idle period (a late
 * arrival starts at the next slot boundary at least AIFS after it
 * arrives), so two contenders that reach 0 in the same slot collide, as
 * in 802.11: both lose their A-MPDU and double their CW.
 *
 * The BlockAck window (ba entries per side) holds, in sequence order,
 * every frame taken from the driver queue until the sender knows it is
 * done (acknowledged, or dropped): frames to (re)transmit, frames on the
 * air, frames the receiver already passed on, and frames
 * acknowledged but waiting for an earlier one (the receiver's reorder
 * buffer releases in order). An A-MPDU takes the window's retransmissions
 * first, then new frames from the queue, while they fit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/pipe.h"
#include "tasshape/qdisc.h"
#include "tasshape/wifi6.h"

/*
 * One unit taken from the driver queue: a packet, or a GSO unit of @segs
 * wire packets. Every segment is an MPDU of its own with its own sequence
 * number, as a station's driver sees MSS-sized frames once the stack has
 * segmented a super-packet: an A-MPDU may carry part of a unit and the
 * rest goes in the next one. New segments are sent in order, so a unit's
 * sent segments hold the sequence numbers @first .. @first + @sent - 1.
 * The receiver passes the unit on once it holds all its segments and
 * everything before it (rx_pass), and the sender frees its entry once all
 * its segments are acknowledged (release_prefix); it is dropped
 * whole when one of its segments reaches the retry limit (one verdict
 * stands for the whole unit).
 */
struct win_ent {
	struct ts_pkt *p; /* NULL once dropped at the retry limit */
	uint64_t first;	  /* sequence number of segment 0 (once one was sent) */
	uint16_t segs;	  /* MPDUs of the unit */
	uint16_t sent;	  /* segments sent at least once */
	uint16_t acked;	  /* segments acknowledged */
	uint16_t retx;	  /* segments that missed a BlockAck, to be sent again */
	uint16_t rx;	  /* segments the receiver holds */
	bool dlv;	  /* passed on by the receiver (@p is then the next stage's) */
	ts_ns_t t_rx;	  /* when the receiver may pass it on, once @rx == @segs */
	int64_t aql;	  /* the airtime AQL counts it for while it is in the window (ns) */
};

/* The BlockAck scoreboard: one slot per sequence number in the window. */
enum mpdu_state {
	MPDU_AIR,  /* in the A-MPDU on the air */
	MPDU_RETX, /* missed its BlockAck: to be sent again */
	MPDU_DONE, /* acknowledged, or its unit was dropped */
};

struct mpdu {
	uint8_t state;
	bool rx;	/* on the air: it reaches the receiver (drawn when the A-MPDU starts) */
	uint16_t tries; /* failed transmissions so far */
};

/*
 * One contender: a side of the link, another (saturated) station, or the
 * AP's beacon (a queue of its own with AIFSN 1 and no backoff).
 */
struct contender {
	bool has_bo;	/* counting down (or frozen) towards a transmission */
	bool tx;	/* transmitting in the current TXOP */
	bool ok;	/* the current transmission is answered (decided when it starts) */
	bool bar;	/* a BlockAckRequest is due at its next access (bar=) */
	uint8_t kind;	/* enum ts_wifi6_kind of the current transmission */
	uint32_t bo;	/* idle slots still to count */
	uint32_t cw;	/* contention window */
	uint32_t fails; /* other stations: failed attempts of their current A-MPDU */
	ts_ns_t aifs;	/* AIFS, or the beacon's PIFS */
	ts_ns_t cs;	/* while the medium is idle: when its slot counting starts */
	ts_ns_t start, ppdu_end, end;
	uint32_t mpdus;
	uint64_t bps;
	int sd; /* the side (driver queue) of its current exchange, or -1 */
};

/*
 * One driver queue and its BlockAck window: a real station's uplink
 * (sides 0 .. real-1) or the AP's queue for one station (real .. 2 real-1).
 */
struct side {
	unsigned int dir;    /* enum ts_wifi6_side */
	unsigned int k;	     /* the real station */
	struct ts_qdisc *q;  /* the driver queue, NULL while detached */
	int64_t pending;     /* AQL: airtime of the units in the window (ns) */
	struct win_ent *win; /* ring of conf.ba units, oldest first */
	uint32_t head, count;
	uint32_t rxd;	   /* units from @head the receiver passed on or skipped (dropped) */
	uint32_t npend;	   /* units with a segment to (re)send */
	struct mpdu *mpdu; /* ring of conf.ba sequence numbers */
	uint64_t seq;	   /* the next new segment's sequence number */
	uint64_t wstart;   /* the window's start: the oldest sequence number not done */
};

struct ts_wifi6 {
	struct ts_wifi6_conf conf;
	struct ts_trace *phy_trace; /* owned, or NULL */
	struct ts_wifi6_phy phy;    /* the PHY of the last transmission */
	ts_ns_t aifs, t_ba, origin;
	ts_ns_t t_ack, t_bar, t_beacon; /* Ack and BlockAckRequest at 24 Mbit/s, beacon at 6 */
	ts_ns_t eifs_extra;		/* EIFS - DIFS: SIFS + an Ack at 6 Mbit/s */
	ts_ns_t tbtt;			/* the next beacon is due (TS_NEVER: no beacons) */
	unsigned int beacon_i;		/* the beacon's contender, or ncont if none */
	struct ts_rng rng;
	unsigned int refs;
	bool started, running, busy, collision;
	ts_ns_t t;	    /* processed up to here */
	ts_ns_t idle_since; /* while idle: since when */
	ts_ns_t busy_start, busy_until;
	/*
	 * Contenders: [TS_WIFI6_UP] real station 0, [TS_WIFI6_DOWN] the AP,
	 * the stations= ones, the beacon, then real stations 1 .. real-1
	 * (from first_real), so the observer's numbering of the others holds.
	 */
	unsigned int ncont, first_real;
	struct contender *ct;
	struct side *sd;			       /* 2 x real sides */
	struct ts_stage *st[TS_WIFI6__SIDES];	       /* each direction's stage, or NULL */
	struct ts_fifo arr[TS_WIFI6__SIDES];	       /* arrived, not yet taken into a queue */
	struct ts_wifi6_stats dstats[TS_WIFI6__SIDES]; /* per direction */
	struct ts_airtime air;			       /* the AP's scheduler over its queues */
	struct ts_wifi6_medium_stats mstats;
	ts_wifi6_observer_fn obs;
	void *obs_ctx;
};

/*
 * The contenders' CW and AIFS; the sides' direction and station. A real
 * station's uplink contender always sends from its own side.
 */
static void init_contenders(struct ts_wifi6 *m)
{
	unsigned int i;

	for (i = 0; i < m->ncont; i++) {
		m->ct[i].cw = m->conf.cwmin;
		m->ct[i].aifs = m->aifs;
		m->ct[i].sd = -1;
	}
	for (i = 0; i < m->conf.real; i++)
		m->ct[i ? m->first_real + i - 1 : TS_WIFI6_UP].sd = (int)i;
	for (i = 0; i < 2 * m->conf.real; i++) {
		m->sd[i].dir = i < m->conf.real ? TS_WIFI6_UP : TS_WIFI6_DOWN;
		m->sd[i].k = i % m->conf.real;
	}
}

int ts_wifi6_create(struct ts_wifi6 **out, const struct ts_wifi6_conf *conf, uint64_t seed,
		    struct ts_err *err)
{
	struct ts_wifi6 *m;
	unsigned int i;
	int ret = -ENOMEM;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		goto nomem;
	m->conf = *conf;
	m->phy = conf->phy;
	m->conf.real = conf->real ? conf->real : 1;
	m->first_real = TS_WIFI6__SIDES + conf->stations + (conf->beacon > 0);
	m->ncont = m->first_real + m->conf.real - 1;
	m->beacon_i = conf->beacon > 0 ? m->first_real - 1 : m->ncont;
	m->ct = calloc(m->ncont, sizeof(*m->ct));
	m->sd = calloc(2 * m->conf.real, sizeof(*m->sd));
	if (!m->ct || !m->sd)
		goto nomem;
	if (conf->phy_trace[0]) {
		ret = ts_wifi6_phy_trace_load(conf->phy_trace, &m->phy_trace, err);
		if (ret < 0)
			goto fail;
		/* Every row must be a rate one symbol can carry. */
		for (i = 0; i < m->phy_trace->n; i++) {
			struct ts_wifi6_phy p;

			ret = ts_wifi6_phy_rate(&p, m->phy_trace->rows[i].bps, conf->phy.ss,
						conf->phy.t_sym - TS_WIFI6_SYM_NS, err);
			if (ret < 0)
				goto fail;
		}
	}
	m->aifs = TS_WIFI6_SIFS_NS + (ts_ns_t)conf->aifsn * TS_WIFI6_SLOT_NS;
	m->t_ba = ts_wifi6_ba_time(conf->ba);
	m->t_ack = ts_wifi6_legacy_time(TS_WIFI6_ACK_BYTES, TS_WIFI6_CTRL_MBPS);
	m->t_bar = ts_wifi6_legacy_time(TS_WIFI6_BAR_BYTES, TS_WIFI6_CTRL_MBPS);
	m->t_beacon = ts_wifi6_legacy_time(conf->beacon_bytes, TS_WIFI6_BASIC_MBPS);
	m->eifs_extra =
		TS_WIFI6_SIFS_NS + ts_wifi6_legacy_time(TS_WIFI6_ACK_BYTES, TS_WIFI6_BASIC_MBPS);
	m->tbtt = TS_NEVER;
	m->mstats.stations = conf->stations;
	m->mstats.real = m->conf.real;
	ts_airtime_init(&m->air, m->conf.real, &conf->airtime);
	ts_rng_seed(&m->rng, seed);
	init_contenders(m);
	if (m->beacon_i < m->ncont) {
		/* PIFS and no backoff, as access points queue beacons (ath9k beacon.c, ns-3). */
		m->ct[m->beacon_i].cw = 0;
		m->ct[m->beacon_i].aifs = TS_WIFI6_SIFS_NS + TS_WIFI6_SLOT_NS;
	}
	for (i = 0; i < TS_WIFI6__SIDES; i++)
		ts_fifo_init(&m->arr[i]);
	m->refs = 1;
	*out = m;
	return 0;
nomem:
	ts_err_set(err, "wifi6: out of memory");
fail:
	if (m) {
		ts_trace_free(m->phy_trace);
		free(m->ct);
		free(m->sd);
		free(m);
	}
	return ret;
}

void ts_wifi6_get(struct ts_wifi6 *m)
{
	m->refs++;
}

void ts_wifi6_put(struct ts_wifi6 *m)
{
	unsigned int i;

	if (!m || --m->refs)
		return;
	/* Stages hold references, so no side is attached any more. */
	for (i = 0; i < 2 * m->conf.real; i++) {
		free(m->sd[i].win);
		free(m->sd[i].mpdu);
	}
	ts_trace_free(m->phy_trace);
	free(m->ct);
	free(m->sd);
	free(m);
}

const struct ts_wifi6_conf *ts_wifi6_conf_of(const struct ts_wifi6 *m)
{
	return &m->conf;
}

static void draw_backoff(struct ts_wifi6 *m, struct contender *c)
{
	if (c == &m->ct[m->beacon_i])
		c->bo = 0; /* the beacon: no backoff */
	else if (m->conf.backoff >= 0)
		c->bo = (uint32_t)m->conf.backoff;
	else
		c->bo = (uint32_t)ts_rng_below(&m->rng, (uint64_t)c->cw + 1);
	c->has_bo = true;
}

/*
 * When contender @c that starts waiting at @t (medium idle) begins counting
 * slots: its AIFS after the medium went idle, or, arriving later, the first
 * slot boundary of this idle period at least AIFS after @t.
 */
static ts_ns_t countdown_start(const struct ts_wifi6 *m, const struct contender *c, ts_ns_t t)
{
	ts_ns_t d = t - m->idle_since;

	if (d <= 0)
		return m->idle_since + c->aifs;
	return m->idle_since + c->aifs +
	       (d + TS_WIFI6_SLOT_NS - 1) / TS_WIFI6_SLOT_NS * TS_WIFI6_SLOT_NS;
}

static ts_ns_t tx_time(const struct contender *c)
{
	return c->cs + (ts_ns_t)c->bo * TS_WIFI6_SLOT_NS;
}

/* The side of real station @k in direction @dir. */
static struct side *side_of(const struct ts_wifi6 *m, unsigned int dir, unsigned int k)
{
	return &m->sd[dir == TS_WIFI6_UP ? k : m->conf.real + k];
}

/* The real station whose uplink contender @i is, or -1 (the AP, others, the beacon). */
static int ct_station(const struct ts_wifi6 *m, unsigned int i)
{
	if (i == TS_WIFI6_UP)
		return 0;
	if (i >= m->first_real && i < m->ncont)
		return (int)(i - m->first_real + 1);
	return -1;
}

/* Real station @k's uplink contender. */
static unsigned int station_ct(const struct ts_wifi6 *m, unsigned int k)
{
	return k ? m->first_real + k - 1 : TS_WIFI6_UP;
}

/* Does contender @i send from driver queues (a real station or the AP)? */
static bool ct_has_sides(const struct ts_wifi6 *m, unsigned int i)
{
	return i == TS_WIFI6_DOWN || ct_station(m, i) >= 0;
}

static void side_free(struct side *s)
{
	free(s->win);
	free(s->mpdu);
	s->win = NULL;
	s->mpdu = NULL;
}

/* A driver queue and an empty BlockAck window for side @s. */
static int side_open(struct ts_wifi6 *m, struct side *s, struct ts_stage *st, const char *qdisc,
		     uint64_t qseed, struct ts_err *err)
{
	int ret = ts_qdisc_create(&s->q, qdisc, qseed + s->k, ts_stage_drop_cb, st, err);

	if (ret < 0)
		return ret;
	side_free(s);
	s->win = calloc(m->conf.ba, sizeof(*s->win));
	s->mpdu = calloc(m->conf.ba, sizeof(*s->mpdu));
	if (!s->win || !s->mpdu) {
		side_free(s);
		ts_qdisc_destroy(s->q, TS_DROP_SHUTDOWN, m->origin);
		s->q = NULL;
		ts_err_set(err, "wifi6: out of memory");
		return -ENOMEM;
	}
	s->head = s->count = s->npend = s->rxd = 0;
	s->seq = s->wstart = 0;
	s->pending = 0;
	return 0;
}

/* The medium is idle from trace time 0; other stations start contending. */
static void medium_start(struct ts_wifi6 *m, ts_ns_t origin)
{
	unsigned int i;

	m->started = true;
	m->origin = origin;
	m->t = origin;
	m->idle_since = origin;
	for (i = TS_WIFI6__SIDES; i < TS_WIFI6__SIDES + m->conf.stations; i++) {
		draw_backoff(m, &m->ct[i]);
		m->ct[i].cs = countdown_start(m, &m->ct[i], origin);
	}
	if (m->beacon_i < m->ncont)
		m->tbtt = origin + m->conf.beacon;
}

static void side_close(struct ts_wifi6 *m, struct side *s, struct ts_stage *st, ts_ns_t now);

int ts_wifi6_attach(struct ts_wifi6 *m, enum ts_wifi6_side side, struct ts_stage *st,
		    const char *qdisc, uint64_t qseed, ts_ns_t origin, struct ts_err *err)
{
	unsigned int k;
	int ret;

	if (m->st[side]) {
		ts_err_set(err, "wifi6: the %s side of the medium is taken",
			   side == TS_WIFI6_UP ? "station (uplink)" : "access point (downlink)");
		return -EBUSY;
	}
	if (!m->started)
		m->origin = origin;
	for (k = 0; k < m->conf.real; k++) {
		ret = side_open(m, side_of(m, side, k), st, qdisc, qseed, err);
		if (ret < 0) {
			while (k--)
				side_close(m, side_of(m, side, k), st, origin);
			return ret;
		}
	}
	m->st[side] = st;
	if (!m->started)
		medium_start(m, origin);
	return 0;
}

/* Drop what side @s holds (cause shutdown) and free its queue. */
static void side_close(struct ts_wifi6 *m, struct side *s, struct ts_stage *st, ts_ns_t now)
{
	uint32_t k;

	for (k = 0; k < s->count; k++) {
		struct win_ent *e = &s->win[(s->head + k) % m->conf.ba];

		if (e->p && !e->dlv)
			ts_stage_drop(st, e->p, TS_DROP_SHUTDOWN, now);
	}
	if (s->dir == TS_WIFI6_DOWN)
		ts_airtime_pending(&m->air, s->k, -s->pending);
	s->count = s->npend = s->rxd = 0;
	s->pending = 0;
	ts_qdisc_destroy(s->q, TS_DROP_SHUTDOWN, now);
	s->q = NULL;
	side_free(s);
}

void ts_wifi6_detach(struct ts_wifi6 *m, enum ts_wifi6_side side, ts_ns_t now)
{
	struct ts_stage *st = m->st[side];
	struct ts_pkt *p;
	unsigned int k;

	if (!st)
		return;
	while ((p = ts_fifo_pop(&m->arr[side])))
		ts_stage_drop(st, p, TS_DROP_SHUTDOWN, now);
	for (k = 0; k < m->conf.real; k++) {
		side_close(m, side_of(m, side, k), st, now);
		m->ct[side == TS_WIFI6_UP ? station_ct(m, k) : TS_WIFI6_DOWN].has_bo = false;
	}
	m->st[side] = NULL;
}

void ts_wifi6_arrive(struct ts_wifi6 *m, enum ts_wifi6_side side, struct ts_pkt *p, ts_ns_t t)
{
	struct ts_fifo *a = &m->arr[side];

	/* Arrivals of one side come in time order; keep it so whatever a caller does. */
	if (a->tail && t < a->tail->t_enq)
		t = a->tail->t_enq;
	p->t_enq = t;
	ts_fifo_push(a, p);
}

/*
 * The receiver of side @s at @t: pass on, in sequence order, the units it
 * holds whole and may pass by @t, skipping those the sender dropped.
 */
static void rx_pass(struct ts_wifi6 *m, struct side *s, ts_ns_t t)
{
	struct ts_wifi6_real_stats *rs = &m->mstats.sta[s->k];

	while (s->rxd < s->count) {
		struct win_ent *e = &s->win[(s->head + s->rxd) % m->conf.ba];

		if (e->p && (e->rx < e->segs || e->t_rx > t))
			break;
		if (e->p) {
			*(s->dir == TS_WIFI6_UP ? &rs->up_bytes : &rs->down_bytes) += e->p->len;
			e->dlv = true;
			ts_stage_emit(m->st[s->dir], e->p, t);
		}
		s->rxd++;
	}
}

/* The unit side @s's receiver passes on next, or NULL while it waits for a segment. */
static const struct win_ent *rx_next(const struct ts_wifi6 *m, const struct side *s)
{
	uint32_t k;

	for (k = s->rxd; k < s->count; k++) {
		const struct win_ent *e = &s->win[(s->head + k) % m->conf.ba];

		if (e->p)
			return e->rx == e->segs ? e : NULL;
	}
	return NULL;
}

/* When a receiver passes a unit on next (TS_NEVER: none waits), and whose (@out). */
static ts_ns_t rx_due(const struct ts_wifi6 *m, struct side **out)
{
	ts_ns_t best = TS_NEVER;
	unsigned int i;

	for (i = 0; i < 2 * m->conf.real; i++) {
		struct side *s = &m->sd[i];
		const struct win_ent *e;

		if (!m->st[s->dir] || !(e = rx_next(m, s)) || e->t_rx >= best)
			continue;
		best = e->t_rx;
		*out = s;
	}
	return best;
}

static ts_ns_t next_event(const struct ts_wifi6 *m)
{
	ts_ns_t best = TS_NEVER;
	unsigned int i;

	if (m->busy)
		return m->busy_until;
	for (i = 0; i < m->ncont; i++)
		if (m->ct[i].has_bo)
			best = ts_min(best, tx_time(&m->ct[i]));
	return best;
}

ts_ns_t ts_wifi6_next_deadline(const struct ts_wifi6 *m)
{
	struct side *s;
	ts_ns_t d = ts_min(next_event(m), rx_due(m, &s));
	int i;

	for (i = 0; i < TS_WIFI6__SIDES; i++)
		if (m->arr[i].head)
			d = ts_min(d, m->arr[i].head->t_enq);
	return ts_min(d, m->tbtt);
}

/* Does side @s have frames to send (queued, or in its window to send again)? */
static bool side_backlogged(const struct ts_wifi6 *m, const struct side *s)
{
	return m->st[s->dir] && s->q && (s->npend || ts_qdisc_pkts(s->q));
}

static bool backlogged(const struct ts_wifi6 *m, unsigned int i)
{
	unsigned int k;
	int sta;

	if (i == m->beacon_i)
		return false; /* a beacon is due only at its TBTT */
	if (i == TS_WIFI6_DOWN) {
		for (k = 0; k < m->conf.real; k++)
			if (side_backlogged(m, side_of(m, TS_WIFI6_DOWN, k)))
				return true;
		return false;
	}
	sta = ct_station(m, i);
	if (sta < 0)
		return true; /* other stations are saturated */
	return side_backlogged(m, side_of(m, TS_WIFI6_UP, (unsigned int)sta));
}

/* The next arrival of direction @dir enters its station's driver queue at @t. */
static void take_arrival(struct ts_wifi6 *m, unsigned int dir, ts_ns_t t)
{
	struct ts_pkt *p = ts_fifo_pop(&m->arr[dir]);
	unsigned int k = p->sta < m->conf.real ? p->sta : 0, i;
	struct side *s = side_of(m, dir, k);
	struct contender *c;

	s->q->ops->enqueue(s->q, p, t);
	if (dir == TS_WIFI6_DOWN)
		ts_airtime_schedule(&m->air, k, t);
	i = dir == TS_WIFI6_UP ? station_ct(m, k) : TS_WIFI6_DOWN;
	c = &m->ct[i];
	if (c->has_bo || c->tx || !backlogged(m, i))
		return;
	draw_backoff(m, c);
	if (!m->busy)
		c->cs = countdown_start(m, c, t);
}

/*
 * A beacon is due (TBTT): the AP's beacon queue contends with PIFS and no
 * backoff. A beacon still waiting when the next one is due is sent once.
 */
static void beacon_due(struct ts_wifi6 *m, ts_ns_t t)
{
	struct contender *c = &m->ct[m->beacon_i];

	m->tbtt += m->conf.beacon;
	if (c->has_bo || c->tx)
		return;
	draw_backoff(m, c);
	if (!m->busy)
		c->cs = countdown_start(m, c, t);
}

/* The PHY at time @t: the fixed one, or the PHY trace's rate then. */
static void phy_at(struct ts_wifi6 *m, ts_ns_t t)
{
	uint64_t bps;

	if (!m->phy_trace)
		return;
	bps = ts_wifi6_trace_bps_at(m->phy_trace, t - m->origin);
	if (bps != m->phy.bps)
		ts_wifi6_phy_rate(&m->phy, bps, m->conf.phy.ss, m->conf.phy.t_sym - TS_WIFI6_SYM_NS,
				  NULL);
}

/* What one A-MPDU may hold at the current PHY. */
struct agg {
	uint32_t lim;	   /* MPDUs */
	uint64_t max_bits; /* data field bits within ppdu_max, service and tail included */
	uint32_t mpdus;
	uint64_t psdu;			/* bytes */
	const struct ts_wifi6_phy *phy; /* the PHY it goes at */
};

static void agg_init(const struct ts_wifi6 *m, const struct ts_wifi6_phy *phy, struct agg *a)
{
	ts_ns_t room = m->conf.ppdu_max - phy->t_pre;

	a->lim = m->conf.mpdus;
	a->max_bits = room > 0 ? (uint64_t)(room / phy->t_sym) * phy->ndbps : 0;
	a->mpdus = 0;
	a->psdu = 0;
	a->phy = phy;
}

static uint32_t pkt_mpdus(const struct ts_pkt *p)
{
	return p->segs ? p->segs : 1;
}

/* A-MPDU subframe bytes of one segment of @p (a GSO unit's wire length split evenly). */
static uint64_t seg_bytes(const struct ts_pkt *p)
{
	uint32_t k = pkt_mpdus(p);

	return ts_wifi6_subframe_bytes((p->len + k - 1) / k);
}

/*
 * How many more subframes of @sub bytes fit after what @a holds: the MPDU
 * limit, the A-MPDU length and the PPDU duration. The first subframe of an
 * A-MPDU always goes.
 */
static uint32_t agg_room(const struct ts_wifi6 *m, const struct agg *a, uint64_t sub)
{
	uint64_t n = a->lim > a->mpdus ? a->lim - a->mpdus : 0, used = 8 * a->psdu;
	uint64_t by_len = m->conf.ampdu_bytes > a->psdu ? (m->conf.ampdu_bytes - a->psdu) / sub : 0;
	uint64_t by_time = 0;

	if (a->max_bits >= TS_WIFI6_SERVICE_TAIL_BITS + used)
		by_time = (a->max_bits - TS_WIFI6_SERVICE_TAIL_BITS - used) / (8 * sub);
	n = n < by_len ? n : by_len;
	n = n < by_time ? n : by_time;
	if (!a->mpdus && !n)
		n = 1;
	return (uint32_t)n;
}

static struct mpdu *slot(const struct ts_wifi6 *m, const struct side *s, uint64_t seq)
{
	return &s->mpdu[seq % m->conf.ba];
}

/*
 * The first of @e's segments still in the window: those before the
 * window's start are done, and their slots may already hold newer
 * sequence numbers.
 */
static uint32_t ent_live(const struct side *s, const struct win_ent *e)
{
	return s->wstart > e->first ? (uint32_t)(s->wstart - e->first) : 0;
}

/* New segments of @e that may go now: sequence numbers within the BlockAck window. */
static uint32_t ent_new(const struct ts_wifi6 *m, const struct side *s, const struct win_ent *e)
{
	uint64_t room = s->wstart + m->conf.ba - s->seq;
	uint32_t n = (uint32_t)e->segs - e->sent;

	return room < n ? (uint32_t)room : n;
}

/* Does @e hold a segment to (re)send, now or once the window moves? */
static bool ent_pending(const struct win_ent *e)
{
	return e->p && (e->retx || e->sent < e->segs);
}

/*
 * Put what fits of @e's segments into @a: its retransmissions first, in
 * sequence order, then new segments within the window. Returns false when
 * something of @e that could go now did not fit (the caller stops there).
 */
static bool agg_take(struct ts_wifi6 *m, struct side *s, struct agg *a, struct win_ent *e)
{
	uint64_t sub = seg_bytes(e->p);
	uint32_t room = agg_room(m, a, sub), re = e->retx, nw = ent_new(m, s, e), j, n;
	bool all = re + nw <= room;

	s->npend -= ent_pending(e);
	for (j = ent_live(s, e); j < e->sent && room && e->retx; j++) {
		struct mpdu *u = slot(m, s, e->first + j);

		if (u->state != MPDU_RETX)
			continue;
		u->state = MPDU_AIR;
		e->retx--;
		room--;
		m->dstats[s->dir].retries++;
	}
	if (!e->sent && nw)
		e->first = s->seq;
	n = nw < room ? nw : room;
	for (j = 0; j < n; j++)
		*slot(m, s, s->seq++) = (struct mpdu){.state = MPDU_AIR};
	e->sent += (uint16_t)n;
	s->npend += ent_pending(e);
	n += re - e->retx;
	a->mpdus += n;
	a->psdu += n * sub;
	return all;
}

/*
 * AQL (aql=): may side @s be handed one more frame? The AP's queues share
 * its aql_threshold; a station's own mac80211 has one queue, the AP's.
 */
static bool side_aql_ok(const struct ts_wifi6 *m, const struct side *s)
{
	const struct ts_airtime_conf *c = &m->conf.airtime;

	if (s->dir == TS_WIFI6_DOWN)
		return ts_airtime_aql_ok(&m->air, s->k);
	return !c->aql || s->pending < (int64_t)c->aql_low_us * TS_NSEC_PER_USEC ||
	       (s->pending < (int64_t)c->aql_threshold_us * TS_NSEC_PER_USEC &&
		s->pending < (int64_t)c->aql_high_us * TS_NSEC_PER_USEC);
}

/*
 * The PHY of side @s's A-MPDUs: its station's (sta_mcs=) or the medium's
 * (phy, bw/mcs, or the PHY trace's rate now).
 */
static const struct ts_wifi6_phy *side_phy(const struct ts_wifi6 *m, const struct side *s)
{
	uint32_t n = m->conf.nsta_phy;

	if (!n)
		return &m->phy;
	return &m->conf.sta_phy[s->k < n ? s->k : n - 1];
}

/*
 * The airtime AQL charges unit @p when the driver takes it: its subframes'
 * data time at the PHY rate, as mac80211 estimates a frame's airtime from
 * its rate (ieee80211_calc_expected_tx_airtime) without the preamble.
 */
static int64_t aql_charge(struct ts_wifi6 *m, struct side *s, const struct ts_pkt *p)
{
	int64_t ns = (int64_t)(8 * seg_bytes(p) * pkt_mpdus(p) * (uint64_t)TS_NSEC_PER_SEC /
			       side_phy(m, s)->bps);

	s->pending += ns;
	if (s->dir == TS_WIFI6_DOWN)
		ts_airtime_pending(&m->air, s->k, ns);
	return ns;
}

/* Side @s won the channel at @t: build its A-MPDU in @a. Returns its MPDUs (0: nothing to send). */
static uint32_t build_side(struct ts_wifi6 *m, struct side *s, ts_ns_t t, struct agg *a)
{
	uint32_t ba = m->conf.ba, k;

	agg_init(m, side_phy(m, s), a);
	/* The window's own segments first (retransmissions and the rest of split units), in order. */
	for (k = 0; k < s->count && s->npend; k++) {
		struct win_ent *e = &s->win[(s->head + k) % ba];

		if (ent_pending(e) && !agg_take(m, s, a, e))
			return a->mpdus;
	}
	/* Then new units, while the BlockAck window has room and AQL lets them go. */
	while (s->count < ba && s->seq < s->wstart + ba && a->mpdus < a->lim) {
		struct ts_pkt *head = s->q->fifo.head, *p;
		struct win_ent *e;

		if (!head || !agg_room(m, a, seg_bytes(head)))
			break;
		if (!side_aql_ok(m, s)) {
			m->mstats.sta[s->k].aql_held++;
			break;
		}
		p = s->q->ops->dequeue(s->q, t);
		if (!p)
			break;
		ts_hist_add(&m->st[s->dir]->stats.qdelay, t - p->t_enq);
		e = &s->win[(s->head + s->count++) % ba];
		*e = (struct win_ent){.p = p, .segs = (uint16_t)pkt_mpdus(p)};
		e->aql = aql_charge(m, s, p);
		s->npend++;
		/* A head the queue dropped (CoDel) was replaced by one that may not fit: it waits. */
		if (!agg_take(m, s, a, e))
			break;
	}
	return a->mpdus;
}

/*
 * The AP won the channel: the queue of the station mac80211's scheduler
 * picks (ts_airtime_next). When AQL holds every station back, a station
 * with frames to send again goes (retransmissions are the hardware's, not
 * held by AQL). Returns the A-MPDU's MPDUs; @c->sd is the side it serves.
 */
static uint32_t build_ap(struct ts_wifi6 *m, struct contender *c, ts_ns_t t, struct agg *a)
{
	unsigned int tries, k;
	int next;

	for (tries = 0; tries < 2 * m->conf.real; tries++) {
		struct side *s;

		next = ts_airtime_next(&m->air);
		if (next < 0)
			break;
		s = side_of(m, TS_WIFI6_DOWN, (unsigned int)next);
		c->sd = (int)(s - m->sd);
		build_side(m, s, t, a);
		ts_airtime_return(&m->air, s->k, side_backlogged(m, s), t);
		if (a->mpdus)
			return a->mpdus;
	}
	for (k = 0; k < m->conf.real; k++) {
		struct side *s = side_of(m, TS_WIFI6_DOWN, k);

		if (m->st[TS_WIFI6_DOWN] && s->npend) {
			c->sd = (int)(s - m->sd);
			return build_side(m, s, t, a);
		}
	}
	c->sd = -1;
	return 0;
}

/* A saturated other station sends as many 1500-byte frames as fit. */
static uint32_t build_other(const struct ts_wifi6 *m, struct agg *a)
{
	uint64_t sub = ts_wifi6_subframe_bytes(1500), n = a->lim;

	n = n < m->conf.ampdu_bytes / sub ? n : m->conf.ampdu_bytes / sub;
	if (a->max_bits > TS_WIFI6_SERVICE_TAIL_BITS) {
		uint64_t by_time = (a->max_bits - TS_WIFI6_SERVICE_TAIL_BITS) / (8 * sub);

		n = n < by_time ? n : by_time;
	} else {
		n = 0;
	}
	if (!n)
		n = 1;
	a->mpdus = (uint32_t)n;
	a->psdu = n * sub;
	return a->mpdus;
}

/*
 * What contender @i sends at @t: the beacon, a BlockAckRequest that is due,
 * or an A-MPDU. Returns its PPDU's duration, 0 if it has nothing to send.
 */
static ts_ns_t build_tx(struct ts_wifi6 *m, unsigned int i, ts_ns_t t)
{
	struct contender *c = &m->ct[i];
	struct agg a;

	c->mpdus = 0;
	c->bps = m->phy.bps;
	if (i == m->beacon_i) {
		c->kind = TS_WIFI6_BEACON;
		return m->t_beacon;
	}
	if (c->bar) {
		c->kind = TS_WIFI6_BAR;
		return m->t_bar;
	}
	c->kind = TS_WIFI6_DATA;
	agg_init(m, &m->phy, &a);
	if (i == TS_WIFI6_DOWN)
		build_ap(m, c, t, &a);
	else if (ct_station(m, i) >= 0)
		build_side(m, &m->sd[c->sd], t, &a);
	else
		build_other(m, &a);
	if (!a.mpdus)
		return 0; /* its queue emptied (an AQM dropped what it had) */
	c->mpdus = a.mpdus;
	c->bps = a.phy->bps;
	return a.phy->t_pre + ts_wifi6_data_time(a.phy, a.psdu);
}

/* The answer @c's transmission asks for: an Ack for a lone MPDU (lone_ack=), a BlockAck, none. */
static ts_ns_t response_time(const struct ts_wifi6 *m, const struct contender *c)
{
	if (c->kind == TS_WIFI6_BEACON)
		return 0;
	if (c->kind == TS_WIFI6_DATA && c->mpdus == 1 && m->conf.lone_ack)
		return m->t_ack;
	return m->t_ba;
}

/* Count an access of contender @i when it starts. */
static void count_access(struct ts_wifi6 *m, unsigned int i, const struct contender *c)
{
	struct ts_wifi6_sta_stats *o;
	struct ts_wifi6_stats *st;

	if (ct_has_sides(m, i)) {
		st = &m->dstats[i == TS_WIFI6_DOWN ? TS_WIFI6_DOWN : TS_WIFI6_UP];
		st->accesses++;
		st->bars += c->kind == TS_WIFI6_BAR;
		if (c->kind != TS_WIFI6_DATA)
			return;
		st->txops++;
		st->mpdus += c->mpdus;
		st->n_hist[c->mpdus < TS_WIFI6_MPDUS_MAX ? c->mpdus : TS_WIFI6_MPDUS_MAX]++;
		if (i == TS_WIFI6_DOWN)
			m->mstats.sta[m->sd[c->sd].k].down_txops++;
		else
			m->mstats.sta[m->sd[c->sd].k].up_txops++;
	} else if (i != m->beacon_i) {
		o = &m->mstats.others[i - TS_WIFI6__SIDES];
		o->accesses++;
		o->bars += c->kind == TS_WIFI6_BAR;
		o->txops += c->kind == TS_WIFI6_DATA;
		m->mstats.others_txops += c->kind == TS_WIFI6_DATA;
	}
}

/*
 * Whether each transmitter of the TXOP starting at @t is answered, and when
 * its exchange ends: a BlockAck (or Ack) after SIFS, or for a lost one the
 * end of its wait (ba_timeout after its PPDU). The medium is busy until the
 * last answer or, when nobody answers, the last PPDU. Returns that time.
 */
static ts_ns_t settle(struct ts_wifi6 *m, ts_ns_t t)
{
	ts_ns_t end = t;
	unsigned int i;

	for (i = 0; i < m->ncont; i++) {
		struct contender *c = &m->ct[i];
		ts_ns_t r;

		if (!c->tx)
			continue;
		r = response_time(m, c);
		c->ok = !m->collision && (c->kind == TS_WIFI6_BEACON ||
					  !ts_rng_chance_ppm(&m->rng, m->conf.collision_ppm));
		c->end = c->ppdu_end + (!r ? 0 : c->ok ? TS_WIFI6_SIFS_NS + r : m->conf.ba_timeout);
		end = ts_max(end, c->ok ? c->end : c->ppdu_end);
	}
	return end;
}

/*
 * The A-MPDU of contender @c for side @s starts, and its BlockAck will come:
 * which of its MPDUs reach the receiver, and when a unit they complete may
 * be passed on (see the top of the file).
 */
static void rx_air(struct ts_wifi6 *m, struct side *s, const struct contender *c)
{
	const struct ts_wifi6_phy *phy = side_phy(m, s);
	bool each = m->conf.mpdu_rx && s->dir == TS_WIFI6_DOWN;
	uint64_t cum = 0, sub;
	uint32_t k, j;

	/* The A-MPDU holds the window's MPDUs on the air, in window and sequence order (build_side). */
	for (k = 0; k < s->count; k++) {
		struct win_ent *e = &s->win[(s->head + k) % m->conf.ba];

		if (!e->p || e->sent <= e->acked + e->retx)
			continue; /* nothing of it on the air */
		sub = seg_bytes(e->p);
		for (j = ent_live(s, e); j < e->sent; j++) {
			struct mpdu *u = slot(m, s, e->first + j);

			if (u->state != MPDU_AIR)
				continue;
			cum += sub;
			u->rx = !ts_rng_chance_ppm(&m->rng, m->conf.mpdu_err_ppm);
			if (!u->rx)
				continue;
			e->rx++;
			e->t_rx = each ? c->start + ts_wifi6_mpdu_end(phy, cum) : c->end;
		}
	}
}

static void start_txop(struct ts_wifi6 *m, ts_ns_t t)
{
	unsigned int i, winners = 0;

	phy_at(m, t);
	for (i = 0; i < m->ncont; i++) {
		struct contender *c = &m->ct[i];
		ts_ns_t ppdu;

		if (!c->has_bo || tx_time(c) != t)
			continue;
		c->has_bo = false; /* this access is used, whatever happens */
		ppdu = build_tx(m, i, t);
		if (!ppdu)
			continue;
		c->tx = true;
		c->start = t;
		c->ppdu_end = t + ppdu;
		winners++;
		count_access(m, i, c);
	}
	if (!winners)
		return;
	/* Everyone else freezes: the idle slots counted so far are kept. */
	for (i = 0; i < m->ncont; i++) {
		struct contender *c = &m->ct[i];
		ts_ns_t slots;

		if (!c->has_bo || t <= c->cs)
			continue;
		slots = (t - c->cs) / TS_WIFI6_SLOT_NS;
		c->bo -= (uint32_t)(slots < (ts_ns_t)c->bo ? slots : (ts_ns_t)c->bo);
	}
	m->busy = true;
	m->collision = winners > 1;
	m->busy_start = t;
	m->busy_until = settle(m, t);
	if (m->collision)
		m->mstats.collision_events++;
	for (i = 0; i < m->ncont; i++) {
		struct contender *c = &m->ct[i];

		if (c->tx && c->ok && c->kind == TS_WIFI6_DATA && ct_has_sides(m, i) && c->sd >= 0)
			rx_air(m, &m->sd[c->sd], c);
	}
}

/* Pass on what the receiver may; free, in order, the units the sender knows are done; move the window. */
static void release_prefix(struct ts_wifi6 *m, struct side *s, ts_ns_t t)
{
	rx_pass(m, s, t);
	while (s->count) {
		struct win_ent *e = &s->win[s->head];

		if (e->p && (e->acked < e->segs || !e->dlv))
			break;
		s->pending -= e->aql;
		if (s->dir == TS_WIFI6_DOWN)
			ts_airtime_pending(&m->air, s->k, -e->aql);
		*e = (struct win_ent){0};
		s->head = (s->head + 1) % m->conf.ba;
		s->count--;
		s->rxd--; /* rx_pass above passed on or skipped every unit freed here */
	}
	while (s->wstart < s->seq && slot(m, s, s->wstart)->state == MPDU_DONE)
		s->wstart++;
}

/* Unit @e reached the retry limit: dropped whole, its sequence numbers done. */
static void ent_drop(struct ts_wifi6 *m, struct side *s, struct win_ent *e, ts_ns_t t)
{
	uint32_t j;

	for (j = ent_live(s, e); j < e->sent; j++)
		slot(m, s, e->first + j)->state = MPDU_DONE;
	m->dstats[s->dir].drops += e->segs;
	ts_stage_drop(m->st[s->dir], e->p, TS_DROP_MAC_RETRY, t);
	e->p = NULL;
	e->retx = 0;
}

/*
 * The BlockAck of @e's segments on the air (@ok: one came, and says which
 * reached the receiver: rx_air drew each one's error). Returns true if the
 * unit was dropped at the retry limit.
 */
static bool ent_done(struct ts_wifi6 *m, struct side *s, struct win_ent *e, bool ok, ts_ns_t t)
{
	bool drop = false;
	uint32_t j;

	s->npend -= ent_pending(e);
	for (j = ent_live(s, e); j < e->sent; j++) {
		struct mpdu *u = slot(m, s, e->first + j);

		if (u->state != MPDU_AIR)
			continue;
		if (ok && u->rx) {
			u->state = MPDU_DONE;
			e->acked++;
			continue;
		}
		m->dstats[s->dir].mpdu_errors += ok;
		u->state = MPDU_RETX;
		u->rx = false;
		e->retx++;
		drop |= ++u->tries > m->conf.retry;
	}
	if (drop)
		ent_drop(m, s, e, t);
	s->npend += ent_pending(e);
	return drop;
}

/* Side @s's A-MPDU ended at @t: BlockAck (@ok) or not. Returns true if a unit was dropped. */
static bool side_done(struct ts_wifi6 *m, struct side *s, ts_ns_t t, bool ok)
{
	bool dropped = false;
	uint32_t k;

	for (k = 0; k < s->count; k++) {
		struct win_ent *e = &s->win[(s->head + k) % m->conf.ba];

		if (e->p && e->sent > e->acked + e->retx && ent_done(m, s, e, ok, t))
			dropped = true;
	}
	release_prefix(m, s, t);
	return dropped;
}

/*
 * A BlockAckRequest of side @s went unanswered at @t: it counts as one more
 * failed transmission of every MPDU it asked about (those waiting to be
 * sent again), so the retry limit still ends an exchange that keeps failing.
 * Returns true if a unit was dropped.
 */
static bool side_bar_lost(struct ts_wifi6 *m, struct side *s, ts_ns_t t)
{
	bool dropped = false;
	uint32_t k, j;

	for (k = 0; k < s->count; k++) {
		struct win_ent *e = &s->win[(s->head + k) % m->conf.ba];
		bool drop = false;

		if (!e->p || !e->retx)
			continue;
		for (j = ent_live(s, e); j < e->sent; j++) {
			struct mpdu *u = slot(m, s, e->first + j);

			if (u->state == MPDU_RETX)
				drop |= ++u->tries > m->conf.retry;
		}
		if (!drop)
			continue;
		s->npend -= ent_pending(e);
		ent_drop(m, s, e, t);
		s->npend += ent_pending(e);
		dropped = true;
	}
	release_prefix(m, s, t);
	return dropped;
}

/* Does side @s hold MPDUs that missed their BlockAck (what a BlockAckRequest asks about)? */
static bool side_has_retx(const struct ts_wifi6 *m, const struct side *s)
{
	uint32_t k;

	for (k = 0; k < s->count; k++) {
		const struct win_ent *e = &s->win[(s->head + k) % m->conf.ba];

		if (e->p && e->retx)
			return true;
	}
	return false;
}

/* Was @c's A-MPDU one that asks for a BlockAck (not a lone MPDU answered by an Ack)? */
static bool wants_ba(const struct ts_wifi6 *m, const struct contender *c)
{
	return c->kind == TS_WIFI6_DATA && !(c->mpdus == 1 && m->conf.lone_ack);
}

/*
 * The exchange of contender @c (a real station or the AP) for side @s ended
 * at @t: its airtime, charged to the station as mac80211 registers it
 * (the AP's as tx airtime, the station's own as rx airtime).
 */
static void side_airtime(struct ts_wifi6 *m, const struct side *s, const struct contender *c,
			 ts_ns_t t)
{
	struct ts_wifi6_real_stats *rs = &m->mstats.sta[s->k];
	ts_ns_t air = c->end - c->start;

	m->dstats[s->dir].airtime += air;
	if (s->dir == TS_WIFI6_UP) {
		rs->up_airtime += air;
		ts_airtime_register(&m->air, s->k, 0, air, t);
	} else {
		rs->down_airtime += air;
		ts_airtime_register(&m->air, s->k, air, 0, t);
	}
}

/* Contender @c's exchange for its side ended at @t. Returns true if a unit was dropped (CW back to CWmin). */
static bool side_finish(struct ts_wifi6 *m, struct contender *c, ts_ns_t t)
{
	struct side *s = &m->sd[c->sd];
	struct ts_wifi6_stats *st = &m->dstats[s->dir];
	bool dropped;

	side_airtime(m, s, c, t);
	if (!c->ok && c->kind == TS_WIFI6_BAR)
		st->bars_lost++;
	else if (!c->ok)
		(*(m->collision ? &st->collisions : &st->failures))++;
	if (c->kind == TS_WIFI6_BAR)
		dropped = !c->ok && side_bar_lost(m, s, t);
	else
		dropped = side_done(m, s, t, c->ok);
	/* A BlockAckRequest is due while a missed BlockAck's MPDUs wait. */
	if (c->ok)
		c->bar = false;
	else if (c->kind == TS_WIFI6_BAR || (m->conf.bar && wants_ba(m, c)))
		c->bar = side_has_retx(m, s);
	return dropped;
}

/* Other station @i's exchange ended. Returns true if its A-MPDU was discarded. */
static bool other_finish(struct ts_wifi6 *m, unsigned int i, struct contender *c)
{
	struct ts_wifi6_sta_stats *o = &m->mstats.others[i - TS_WIFI6__SIDES];

	o->airtime += c->end - c->start;
	m->mstats.others_airtime += c->end - c->start;
	if (c->ok) {
		if (c->kind == TS_WIFI6_DATA) {
			o->delivered += c->mpdus;
			c->fails = 0;
		}
		c->bar = false;
		return false;
	}
	if (c->kind == TS_WIFI6_BAR)
		o->bars_lost++;
	else
		(*(m->collision ? &o->collisions : &o->failures))++;
	/* Data or BlockAckRequest, each failed attempt counts towards the retry limit. */
	if (++c->fails > m->conf.retry) {
		c->fails = 0;
		c->bar = false;
		return true;
	}
	if (m->conf.bar && wants_ba(m, c))
		c->bar = true;
	return false;
}

/* Contender @i's exchange ended at @t: its statistics, its CW and its next backoff. */
static void finish(struct ts_wifi6 *m, unsigned int i, ts_ns_t t)
{
	struct contender *c = &m->ct[i];
	struct ts_wifi6_txop tx;
	bool reset = false;

	if (i == m->beacon_i) {
		m->mstats.beacons++;
		m->mstats.beacon_airtime += c->end - c->start;
	} else if (ct_has_sides(m, i)) {
		if (c->sd < 0 || !m->st[m->sd[c->sd].dir])
			return; /* detached while on the air */
		reset = side_finish(m, c, t);
	} else {
		reset = other_finish(m, i, c);
	}
	/* CW: back to CWmin after an answer or a discard, else doubled up to CWmax (not the beacon's). */
	if (i != m->beacon_i && (c->ok || reset))
		c->cw = m->conf.cwmin;
	else if (i != m->beacon_i)
		c->cw = 2 * c->cw + 1 < m->conf.cwmax ? 2 * c->cw + 1 : m->conf.cwmax;
	if (m->obs) {
		tx = (struct ts_wifi6_txop){
			.who = i,
			.kind = c->kind,
			.start = c->start,
			.end = c->end,
			.ppdu_end = c->ppdu_end,
			.mpdus = c->mpdus,
			.phy_bps = c->bps,
			.ok = c->ok,
			.collision = m->collision,
			.sta = ct_has_sides(m, i) && c->sd >= 0 ? (int)m->sd[c->sd].k : -1};
		m->obs(m->obs_ctx, &tx);
	}
	if (backlogged(m, i))
		draw_backoff(m, c);
}

static void end_txop(struct ts_wifi6 *m, ts_ns_t t)
{
	unsigned int i;

	m->busy = false;
	m->idle_since = t;
	m->mstats.busy += t - m->busy_start;
	for (i = 0; i < m->ncont; i++)
		if (m->ct[i].tx)
			finish(m, i, t);
	/*
	 * Counting resumes AIFS after the medium went idle; for a sender whose
	 * answer did not come, AIFS after its wait ends; for those that heard a
	 * collision (a frame they could not decode), EIFS - DIFS + AIFS (eifs=).
	 */
	for (i = 0; i < m->ncont; i++) {
		struct contender *c = &m->ct[i];
		ts_ns_t at = t + c->aifs;

		if (c->tx && !c->ok)
			at = ts_max(at, c->end + c->aifs);
		else if (!c->tx && m->collision && m->conf.eifs)
			at += m->eifs_extra;
		c->tx = false;
		if (c->has_bo)
			c->cs = at;
	}
}

/* Advance the stages in front of each side, so every arrival up to @now is recorded. */
static void pull_upstream(struct ts_wifi6 *m, ts_ns_t now)
{
	unsigned int i, k;

	for (i = 0; i < TS_WIFI6__SIDES; i++) {
		struct ts_stage *st = m->st[i];
		struct ts_pipe *pipe;

		if (!st)
			continue;
		pipe = st->pipe;
		for (k = 0; k < pipe->nstages && pipe->stage[k] != st; k++)
			pipe->stage[k]->ops->advance(pipe->stage[k], now);
	}
}

void ts_wifi6_advance(struct ts_wifi6 *m, ts_ns_t now)
{
	if (m->running)
		return; /* reached again from a stage this run advanced: already handled */
	m->running = true;
	pull_upstream(m, now);
	for (;;) {
		struct side *rs = NULL;
		ts_ns_t ta = TS_NEVER, te = next_event(m), td = rx_due(m, &rs);
		unsigned int i, from = 0;

		for (i = 0; i < TS_WIFI6__SIDES; i++) {
			const struct ts_pkt *h = m->arr[i].head;

			if (h && h->t_enq < ta) {
				ta = h->t_enq;
				from = i;
			}
		}
		/*
		 * A receiver's unit due at the instant of an exchange's end goes first (the
		 * station's at its BlockAck's end, which frees it then). An arrival (or a
		 * beacon due) at the instant of an event is in time for it.
		 */
		if (rs && td <= ta && td <= te && td <= m->tbtt && td <= now) {
			m->t = ts_max(td, m->t);
			rx_pass(m, rs, m->t);
		} else if (m->tbtt <= ta && m->tbtt <= te && m->tbtt <= now) {
			m->t = ts_max(m->tbtt, m->t);
			beacon_due(m, m->t);
		} else if (ta <= te && ta <= now) {
			m->t = ts_max(ta, m->t); /* never behind what was already decided */
			take_arrival(m, from, m->t);
		} else if (te <= now) {
			m->t = te;
			if (m->busy)
				end_txop(m, te);
			else
				start_txop(m, te);
		} else {
			break;
		}
	}
	m->t = ts_max(m->t, now);
	m->running = false;
}

const struct ts_wifi6_stats *ts_wifi6_stats(const struct ts_wifi6 *m, enum ts_wifi6_side side)
{
	return &m->dstats[side];
}

const struct ts_wifi6_medium_stats *ts_wifi6_medium_stats(const struct ts_wifi6 *m)
{
	return &m->mstats;
}

uint32_t ts_wifi6_cw(const struct ts_wifi6 *m, enum ts_wifi6_side side)
{
	return m->ct[side].cw;
}

void ts_wifi6_set_observer(struct ts_wifi6 *m, ts_wifi6_observer_fn fn, void *ctx)
{
	m->obs = fn;
	m->obs_ctx = ctx;
}

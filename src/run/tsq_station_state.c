/* SPDX-License-Identifier: MIT */
/*
 * The station's TSQ budget (run/tsq_station_priv.h): the state machine of
 * each descriptor of the station's queue (enum dstate) and the early
 * releases. A packet is charged at the sender hook, may be released early
 * (uncharged, in transit across the veth), is matched again at the
 * network hook (held there), and leaves with the MAC's release or drop;
 * every descriptor gets exactly one verdict per hook.
 */
#include "run/obs.h"
#include "run/tsq_station_priv.h"

static void set_state(struct ts_tsqst *t, int32_t i, enum dstate st)
{
	t->nstate[t->state[i]]--;
	t->state[i] = (uint8_t)st;
	t->nstate[st]++;
}

static size_t didx(const struct ts_tsqst *t, const struct ts_pkt *p)
{
	return (size_t)(p - t->sh->pool.mem);
}

static struct ts_pkt *dpkt(const struct ts_tsqst *t, int32_t i)
{
	return &t->sh->pool.mem[i];
}

static void flow_count(struct ts_tsqst_flow *f, ts_ns_t now)
{
	uint64_t peak = f->q.peak_bytes;

	ts_tsq_qstat_set(&f->q, now, f->chg_bytes + f->unc_bytes);
	if (f->q.peak_bytes > peak)
		f->budget_at_peak = f->budget_now;
	if (f->unc_bytes > f->unc_peak)
		f->unc_peak = f->unc_bytes;
}

/* Take descriptor @i off its flow's list (it left the station). */
static void flow_unlink(struct ts_tsqst *t, int32_t i, ts_ns_t now)
{
	struct ts_tsqst_flow *f = &t->flows[t->flow[i]];
	uint32_t len = dpkt(t, i)->len;

	if (t->prev[i] >= 0)
		t->next[t->prev[i]] = t->next[i];
	else
		f->head = t->next[i];
	if (t->next[i] >= 0)
		t->prev[t->next[i]] = t->prev[i];
	else
		f->tail = t->prev[i];
	if (f->first_chg == i)
		f->first_chg = t->next[i];
	if (t->state[i] == D_CHARGED)
		f->chg_bytes -= len;
	else
		f->unc_bytes -= len;
	flow_count(f, now);
}

/* Drop given-up and already matched entries at the head of the ring. */
static void ring_trim(struct ts_tsqst *t, ts_ns_t now)
{
	while (t->rcount) {
		int32_t i = t->ring[t->rhead];

		if (i >= 0) {
			if (now - t->ring_t[t->rhead] < TS_TSQST_LOST_NS)
				break;
			/* Never seen on the link side: the kernel lost it (its queue was full). */
			t->lost++;
			if (t->state[i] == D_SENT_TRANSIT || t->state[i] == D_DROP_TRANSIT) {
				set_state(t, i, D_NONE);
				ts_pool_put(&t->sh->pool, dpkt(t, i));
			} else if (t->state[i] == D_UNC_TRANSIT) {
				/* Still queued for the MAC: it will leave with no verdict left to give. */
				set_state(t, i, D_UNC_LOST);
			}
		}
		t->rhead = (t->rhead + 1) % TS_TSQST_RING;
		t->rcount--;
	}
}

/* Release flow @f's oldest charged packets early until its uncharged part reaches the target. */
static void flow_refill(struct ts_tsqst *t, struct ts_tsqst_flow *f, ts_ns_t now)
{
	/* Released from the hook of the flow's own station: its packets are queued there. */
	struct ts_hook *h = &t->sh->hook[ts_hook_of_station(f->station)];

	while (f->unc_bytes < f->target && f->first_chg >= 0) {
		int32_t i = f->first_chg;
		struct ts_pkt *p = dpkt(t, i);
		int ret;

		if (t->rcount == TS_TSQST_RING) {
			t->ring_full++;
			return;
		}
		if (t->burst == TS_TSQST_BURST) {
			t->resume = now + TS_TSQST_BURST_GAP;
			return;
		}
		t->burst++;
		ret = h->io->verdict(h->q, p->id, 1);
		if (ret < 0 && !t->sh->fatal)
			t->sh->fatal = ret;
		h->accepted++;
		f->early++;
		set_state(t, i, D_UNC_TRANSIT);
		f->chg_bytes -= p->len;
		f->unc_bytes += p->len;
		f->first_chg = t->next[i];
		ts_tsqst_ring_push(t, i, now);
		flow_count(f, now);
	}
}

/* Packet @p is now in the uplink network pipe, as if it had just crossed the veth. */
static void hand_over(struct ts_tsqst *t, struct ts_pkt *p, uint32_t net_id, ts_ns_t when)
{
	struct ts_shaper *sh = t->sh;

	p->id = net_id;
	p->src = TS_H_UP_NETWORK;
	when = ts_max(when, t->last_net);
	t->last_net = when;
	if (sh->obs)
		ts_obs_handover(sh->obs, p, TS_UP, TS_PLACE_NETWORK, when);
	ts_pipe_enqueue(&sh->dir[TS_UP].pipe[TS_PLACE_NETWORK], p, when);
}

static void net_verdict_drop(struct ts_tsqst *t, uint32_t id)
{
	struct ts_hook *h = &t->sh->hook[TS_H_UP_NETWORK];
	int ret = h->io->verdict(h->q, id, 0);

	if (ret < 0 && !t->sh->fatal)
		t->sh->fatal = ret;
	h->dropped++;
}

/* At the network hook: @p (@kp) is one released early when its key matches; it is taken over. */
static bool net_arrival(struct ts_tsqst *t, struct ts_pkt *p, const struct ts_nfq_pkt *kp)
{
	struct ts_tsqst_flow k;
	uint64_t key;
	int32_t i;

	if (!t->rcount || !ts_tsqst_parse_tcp(kp, &k, &key))
		return false;
	t->last_net = ts_max(t->last_net, t->sh->now);
	i = ts_tsqst_ring_match(t, key);
	ring_trim(t, t->sh->now);
	if (i < 0)
		return false;
	ts_pool_put(&t->sh->pool, p); /* the packet keeps its first descriptor */
	switch (t->state[i]) {
	case D_UNC_TRANSIT:
		set_state(t, i, D_UNC_HELD);
		t->net_id[i] = kp->id;
		break;
	case D_SENT_TRANSIT:
		set_state(t, i, D_NONE);
		hand_over(t, dpkt(t, i), kp->id, t->sh->now);
		break;
	default: /* D_DROP_TRANSIT */
		set_state(t, i, D_NONE);
		net_verdict_drop(t, kp->id);
		ts_pool_put(&t->sh->pool, dpkt(t, i));
	}
	return true;
}

/*
 * At station @sta's sender hook: @p (@kp) joins its flow's list, charged;
 * other packets are left alone.
 */
static void sender_arrival(struct ts_tsqst *t, unsigned int sta, struct ts_pkt *p,
			   const struct ts_nfq_pkt *kp)
{
	int32_t i = (int32_t)didx(t, p);
	struct ts_tsqst_flow k, *f;
	uint64_t key;
	int fi;

	set_state(t, i, D_NONE);
	if (!ts_tsqst_parse_tcp(kp, &k, &key))
		return;
	fi = ts_tsqst_flow_find(t, &k);
	if (fi < 0) {
		t->untracked_pkts++;
		return;
	}
	f = &t->flows[fi];
	f->station = sta; /* a flow's 4-tuple has one station: their subnets differ */
	set_state(t, i, D_CHARGED);
	t->flow[i] = (uint16_t)fi;
	t->key[i] = key;
	t->next[i] = -1;
	t->prev[i] = f->tail;
	if (f->tail >= 0)
		t->next[f->tail] = i;
	else
		f->head = i;
	f->tail = i;
	if (f->first_chg < 0)
		f->first_chg = i;
	f->chg_bytes += p->len;
	flow_count(f, t->sh->now);
}

bool ts_tsqst_packet(struct ts_tsqst *t, int hook, struct ts_pkt *p, const struct ts_nfq_pkt *kp)
{
	int sta = ts_tsqst_station_of_hook(hook);

	if (hook == TS_H_UP_NETWORK)
		return net_arrival(t, p, kp);
	if (sta >= 0)
		sender_arrival(t, (unsigned int)sta, p, kp);
	return false;
}

/* Only descriptors of the sender pipe (any station's hook) are ours; the network pipe's are ordinary. */
static bool ours(const struct ts_tsqst *t, const struct ts_pkt *p)
{
	return ts_tsqst_station_of_hook(p->src) >= 0 && t->state[didx(t, p)] != D_NONE;
}

/*
 * A descriptor leaves the station, released or dropped: out of its flow's
 * list. Returns the state it had, D_NONE when it is not ours.
 */
static uint8_t leave_station(struct ts_tsqst *t, const struct ts_pkt *p, ts_ns_t when)
{
	int32_t i = (int32_t)didx(t, p);
	uint8_t st;

	if (!ours(t, p))
		return D_NONE;
	st = t->state[i];
	flow_unlink(t, i, when);
	set_state(t, i, D_NONE);
	return st;
}

bool ts_tsqst_release(struct ts_tsqst *t, struct ts_pkt *p, ts_ns_t when)
{
	int32_t i = (int32_t)didx(t, p);
	struct ts_shaper *sh = t->sh;
	uint8_t st = leave_station(t, p, when);

	if (st == D_NONE || st == D_CHARGED)
		return false;
	if (sh->obs)
		ts_obs_release(sh->obs, p, TS_UP, TS_PLACE_SENDER, when);
	if (st == D_UNC_TRANSIT) {
		set_state(t, i, D_SENT_TRANSIT); /* enters the network pipe when the hook sees it */
		return true;
	}
	if (st == D_UNC_LOST) {
		ts_pool_put(&sh->pool, p); /* lost in the kernel: nothing to release */
		return true;
	}
	hand_over(t, p, t->net_id[i], when);
	return true;
}

bool ts_tsqst_drop(struct ts_tsqst *t, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t when)
{
	int32_t i = (int32_t)didx(t, p);
	struct ts_shaper *sh = t->sh;
	uint8_t st = leave_station(t, p, when);

	if (st == D_NONE || st == D_CHARGED)
		return false;
	if (sh->obs)
		ts_obs_drop(sh->obs, p, TS_UP, TS_PLACE_SENDER, cause, when);
	if (st == D_UNC_TRANSIT) {
		set_state(t, i, D_DROP_TRANSIT); /* its NF_DROP goes out when the hook sees it */
		return true;
	}
	if (st == D_UNC_HELD)
		net_verdict_drop(t, t->net_id[i]);
	ts_pool_put(&sh->pool, p);
	return true;
}

void ts_tsqst_in_transit(const struct ts_tsqst *t, uint64_t *verdicts, uint64_t *held_out)
{
	*verdicts -= t->nstate[D_UNC_TRANSIT] + t->nstate[D_UNC_LOST];
	*held_out += t->nstate[D_SENT_TRANSIT] + t->nstate[D_DROP_TRANSIT];
}

void ts_tsqst_tick(struct ts_tsqst *t, ts_ns_t now)
{
	unsigned int i;

	if (t->conf.mode == TS_TSQ_KERNEL || !t->nflows)
		return;
	t->burst = 0;
	t->resume = TS_NEVER;
	for (i = 0; i < t->nflows; i++)
		flow_refill(t, &t->flows[(t->next_flow + i) % t->nflows], now);
	t->next_flow = (t->next_flow + 1) % t->nflows;
}

ts_ns_t ts_tsqst_next_deadline(const struct ts_tsqst *t)
{
	return t ? t->resume : TS_NEVER;
}

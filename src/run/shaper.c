/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/netns.h"
#include "io/clock.h"
#include "run/shaper.h"

static const struct {
	int dir;
	enum ts_place place;
} hook_map[TS_H__COUNT] = {
	[TS_H_UP_SENDER] = {TS_UP, TS_PLACE_SENDER},
	[TS_H_UP_NETWORK] = {TS_UP, TS_PLACE_NETWORK},
	[TS_H_DOWN_NETWORK] = {TS_DOWN, TS_PLACE_NETWORK},
	/* TS_H_UP_STA1 on: the uplink's sender place too (ts_shaper_init). */
};

/* The model released @p at model time @t: let the kernel send it on. */
static void on_release(void *ctx, struct ts_pkt *p, ts_ns_t t)
{
	struct ts_shaper *sh = ctx;
	struct ts_hook *h = &sh->hook[p->src];
	int ret;

	if (sh->tsq && ts_tsqst_release(sh->tsq, p, t))
		return;
	ret = h->io->verdict(h->q, p->id, 1);
	if (ret < 0 && !sh->fatal)
		sh->fatal = ret;
	if (sh->obs)
		ts_obs_release(sh->obs, p, h->dir, h->place, t);
	h->accepted++;
	if (sh->nrel < TS_RELEASE_BATCH) {
		sh->rel_t[sh->nrel] = t;
		sh->rel_dir[sh->nrel] = (uint8_t)h->dir;
		sh->rel_hook[sh->nrel] = (uint8_t)p->src;
		sh->nrel++;
	}
	ts_pool_put(&sh->pool, p);
}

static void on_drop(void *ctx, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t t)
{
	struct ts_shaper *sh = ctx;
	struct ts_hook *h = &sh->hook[p->src];
	int ret;

	if (sh->tsq && ts_tsqst_drop(sh->tsq, p, cause, t))
		return;
	ret = h->io->verdict(h->q, p->id, 0);
	/* The cause is counted by the stage and the pipe. */
	if (ret < 0 && !sh->fatal)
		sh->fatal = ret;
	if (sh->obs)
		ts_obs_drop(sh->obs, p, h->dir, h->place, cause, t);
	h->dropped++;
	ts_pool_put(&sh->pool, p);
}

/*
 * The real Wi-Fi station a downlink packet goes to: the one whose address
 * is its destination (IPv4 bytes 16-19, IPv6 24-39); station 0 otherwise.
 */
static uint16_t station_of(const struct ts_shaper *sh, const struct ts_nfq_pkt *kp)
{
	unsigned int k;
	uint32_t d4;

	if (kp->l3proto == 0x0800 && kp->hdrlen >= 20) {
		memcpy(&d4, kp->hdr + 16, 4);
		for (k = 1; k < sh->nsta; k++)
			if (sh->sta_v4[k] == d4)
				return (uint16_t)k;
	} else if (kp->l3proto == 0x86dd && kp->hdrlen >= 40) {
		for (k = 1; k < sh->nsta; k++)
			if (!memcmp(&sh->sta_v6[k], kp->hdr + 24, 16))
				return (uint16_t)k;
	}
	return 0;
}

/* The kernel handed us a packet at hook h. */
static void on_packet(void *ctx, const struct ts_nfq_pkt *kp)
{
	struct ts_hook *h = ctx;
	struct ts_shaper *sh = h->sh;
	struct ts_pkt *p = ts_pool_get(&sh->pool);
	int ret;

	h->seen++;
	sh->last_arrival = sh->now;
	if (!p) {
		/* No descriptor: drop it now, counted, rather than hold it unseen. */
		sh->no_desc[h->dir]++;
		h->dropped++;
		ret = h->io->verdict(h->q, kp->id, 0);
		if (ret < 0 && !sh->fatal)
			sh->fatal = ret;
		if (sh->obs)
			ts_obs_nodesc(sh->obs, kp, h->dir, h->place, sh->now);
		return;
	}
	p->id = kp->id;
	/* What the link carries: with --gso, every segment's headers, not one set. */
	p->len = kp->wire_len ? kp->wire_len : kp->len;
	p->segs = kp->gso_segs ? kp->gso_segs : 1;
	p->src = (uint16_t)(h - sh->hook);
	p->hash = 0;
	p->user = 0;
	p->sta = h->dir == TS_DOWN && sh->nsta > 1 ? station_of(sh, kp) : h->sta;
	if (sh->tsq && ts_tsqst_packet(sh->tsq, p->src, p, kp))
		return;
	if (sh->obs)
		ts_obs_arrival(sh->obs, p, kp, h->dir, h->place, sh->now);
	ts_pipe_enqueue(&sh->dir[h->dir].pipe[h->place], p, sh->now);
}

int ts_shaper_init(struct ts_shaper *sh, struct ts_linkcfg *cfg, ts_ns_t origin, size_t pool_size,
		   struct ts_err *err)
{
	int i, ret;

	memset(sh, 0, sizeof(*sh));
	sh->cfg = cfg;
	sh->origin = origin;
	sh->now = origin;
	sh->epfd = sh->tfd = sh->sfd = -1;
	sh->clock = ts_clock_now;
	sh->vcpu_last_t = TS_NEVER;
	sh->vcpu_min_idle = -1;
	sh->sockets_open = -1;
	sh->spin.work_max = -1; /* no second measured until the loop runs (ts_spin_init) */
	for (i = 0; i < TS_H__COUNT; i++) {
		sh->hook[i].sh = sh;
		sh->hook[i].dir = i < TS_H_UP_STA1 ? hook_map[i].dir : TS_UP;
		sh->hook[i].place = i < TS_H_UP_STA1 ? hook_map[i].place : TS_PLACE_SENDER;
		sh->hook[i].sta = (uint16_t)(i < TS_H_UP_STA1 ? 0 : i - TS_H_UP_STA1 + 1);
		sh->hook[i].netns_fd = -1;
	}
	ts_hist_init(&sh->release_err[0]);
	ts_hist_init(&sh->release_err[1]);
	ts_hist_init(&sh->verdict_call[0]);
	ts_hist_init(&sh->verdict_call[1]);
	for (i = 0; i < 2; i++) {
		ts_hist_init(&sh->release_err_place[i][TS_PLACE_SENDER]);
		ts_hist_init(&sh->release_err_place[i][TS_PLACE_NETWORK]);
		ts_hist_init(&sh->verdict_call_place[i][TS_PLACE_SENDER]);
		ts_hist_init(&sh->verdict_call_place[i][TS_PLACE_NETWORK]);
	}
	ts_hist_init(&sh->timer_late);
	ret = ts_pool_init(&sh->pool, pool_size);
	if (ret < 0) {
		ts_err_set(err, "out of memory for %zu packet descriptors", pool_size);
		return ret;
	}
	for (i = 0; i < 2; i++) {
		ret = ts_linkcfg_build(cfg, i, &sh->dir[i], origin, on_release, on_drop, sh, err);
		if (ret < 0)
			return ret;
		sh->built[i] = true;
	}
	if (sh->dir[TS_DOWN].pipe[TS_PLACE_SENDER].nstages) {
		ts_err_set(err, "downlink: stages at the sender are not supported");
		return -EINVAL;
	}
	return 0;
}

bool ts_shaper_needs(const struct ts_shaper *sh, enum ts_hook_id id)
{
	const struct ts_hook *h = &sh->hook[id];

	/* Another station's sender hook: only with that many real stations. */
	if (h->sta && (!sh->cfg->wifi6 || h->sta >= ts_wifi6_conf_of(sh->cfg->wifi6)->real))
		return false;
	return sh->dir[h->dir].pipe[h->place].nstages > 0 ||
	       (id == TS_H_UP_NETWORK && ts_tsqst_wanted(sh->cfg));
}

struct open_arg {
	struct ts_nfq **out;
	uint16_t qnum;
	uint32_t maxlen;
	unsigned int flags;
	struct ts_err *err;
};

static int open_in_ns(void *p)
{
	struct open_arg *a = p;

	return ts_nfq_open(a->out, a->qnum, a->maxlen, a->flags, a->err);
}

int ts_shaper_open(struct ts_shaper *sh, enum ts_hook_id id, int netns_fd, uint16_t qbase,
		   uint32_t maxlen, unsigned int nfq_flags, struct ts_err *err)
{
	struct ts_hook *h = &sh->hook[id];
	struct ts_nfq *nfq = NULL;
	struct open_arg a = {.out = &nfq, .maxlen = maxlen, .flags = nfq_flags, .err = err};
	unsigned int k;
	int ret = -EBUSY;

	/* Queue numbers are per namespace; another shaper may hold some. */
	for (k = 0; k < 64; k++) {
		a.qnum = (uint16_t)(qbase + k);
		ret = ts_netns_run(netns_fd, open_in_ns, &a, err);
		if (ret != -EBUSY && ret != -EPERM)
			break;
	}
	if (ret < 0)
		return ret;
	h->qnum = a.qnum;
	h->netns_fd = netns_fd;
	h->io = &ts_pktio_nfq;
	h->q = nfq;
	return 0;
}

void ts_shaper_use(struct ts_shaper *sh, enum ts_hook_id id, const struct ts_pktio_ops *io, void *q)
{
	sh->hook[id].io = io;
	sh->hook[id].q = q;
}

/*
 * Arm the timer for @deadline, unless it is already armed for it: on a
 * virtual machine, reprogramming the earliest hrtimer costs ~10 us (a
 * hypervisor exit), which a busy loop would pay every turn.
 */
static int arm_timer(struct ts_shaper *sh, ts_ns_t deadline)
{
	struct itimerspec its = {0};

	if (deadline == sh->armed)
		return 0;
	if (deadline != TS_NEVER) {
		its.it_value.tv_sec = deadline / TS_NSEC_PER_SEC;
		its.it_value.tv_nsec = deadline % TS_NSEC_PER_SEC;
		/* All zero would disarm: a deadline at exactly 0 cannot happen on CLOCK_MONOTONIC. */
	}
	if (timerfd_settime(sh->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -errno;
	sh->armed = deadline;
	return 0;
}

static uint64_t held_by_model(const struct ts_shaper *sh)
{
	return sh->pool.used;
}

/* When the policy needs to look again without a packet or signal waking the loop. */
static ts_ns_t policy_deadline(const struct ts_shaper *sh)
{
	switch (sh->phase) {
	case TS_PH_RUN:
		return sh->end;
	case TS_PH_ENDING:
		return sh->child_killed ? TS_NEVER : sh->end;
	case TS_PH_DRAIN:
		if (held_by_model(sh))
			return sh->drain_end;
		if (sh->closed_at != TS_NEVER)
			return ts_min(sh->drain_end, ts_max(sh->last_arrival + TS_DRAIN_QUIET,
							    sh->closed_at + TS_DRAIN_CLOSED));
		return ts_min(sh->drain_end,
			      ts_max(sh->last_arrival + TS_DRAIN_QUIET, sh->next_sock_check));
	default:
		return TS_NEVER;
	}
}

ts_ns_t ts_shaper_deadline(const struct ts_shaper *sh)
{
	ts_ns_t d = policy_deadline(sh);
	int i;

	for (i = 0; i < 2; i++)
		d = ts_min(d, ts_dir_next_deadline(&sh->dir[i]));
	/* The next stats window, socket sample or status line wakes the loop too. */
	if (sh->obs)
		d = ts_min(d, ts_obs_next_deadline(sh->obs));
	if (sh->tsq)
		d = ts_min(d, ts_tsqst_next_deadline(sh->tsq));
	return d;
}

/*
 * The release errors of the packets hook @i's verdict call carried. The kernel takes a call's
 * verdicts in order and hands each packet on before it reads the next one, and handing on
 * includes the receiver's processing: the packet crosses a veth into the backlog, which the
 * same call drains when it re-enables softirqs (the receiver's TCP, its ACK, that ACK's way back
 * to our queue). So the call returns well after its first packet left: a one-verdict call's
 * packet reached the veth 6 us (p50) after the call began, and the call returned after 19 us
 * (p50), 102 us (p99) (docs/experiments.md, "Fidelity"). The first packet
 * therefore gets the clock read just before the call; a later one only knows it left before
 * the call returned, and gets that reading (an upper bound).
 */
static void release_errors(struct ts_shaper *sh, unsigned int i, ts_ns_t before, ts_ns_t after)
{
	enum ts_place place = sh->hook[i].place;
	bool first = true;
	unsigned int k;

	for (k = 0; k < sh->nrel; k++) {
		ts_ns_t e;

		if (sh->rel_hook[k] != i)
			continue;
		e = (first ? before : after) - sh->rel_t[k];
		ts_hist_add(&sh->release_err[sh->rel_dir[k]], e);
		ts_hist_add(&sh->release_err_place[sh->rel_dir[k]][place], e);
		first = false;
	}
}

/* The model time of hook @i's earliest release this turn; TS_NEVER when it has none. */
static ts_ns_t first_release(const struct ts_shaper *sh, unsigned int i)
{
	ts_ns_t t = TS_NEVER;
	unsigned int k;

	for (k = 0; k < sh->nrel; k++)
		if (sh->rel_hook[k] == i && sh->rel_t[k] < t)
			t = sh->rel_t[k];
	return t;
}

/*
 * Send this turn's verdicts: one sendto per queue, each timed (release_errors). A call
 * returns only after the kernel delivered its packets (the receiver's TCP included), so the
 * queue whose release was due first goes first: an ACK due before a data packet of the other
 * direction does not wait for that packet's delivery. A queue with no release of the model
 * this turn (only drops, or the station's early accepts, run/tsq_station.h) holds verdicts
 * decided now, so it counts as due now. Ties keep the hooks' order.
 */
static int flush_all(struct ts_shaper *sh)
{
	unsigned int order[TS_H__COUNT];
	ts_ns_t when[TS_H__COUNT], before, after;
	unsigned int i, j, n = 0;
	int ret = 0, r;

	for (i = 0; i < TS_H__COUNT; i++) {
		struct ts_hook *h = &sh->hook[i];
		ts_ns_t t;

		if (!h->io || !h->io->pending(h->q))
			continue;
		t = first_release(sh, i);
		if (t == TS_NEVER)
			t = sh->now;
		for (j = n; j > 0 && when[j - 1] > t; j--) {
			order[j] = order[j - 1];
			when[j] = when[j - 1];
		}
		order[j] = i;
		when[j] = t;
		n++;
	}
	for (j = 0; j < n; j++) {
		struct ts_hook *h = &sh->hook[order[j]];

		before = sh->clock();
		r = h->io->flush(h->q);
		after = sh->clock();
		if (r < 0 && !ret)
			ret = r;
		ts_hist_add(&sh->verdict_call[h->dir], after - before);
		ts_hist_add(&sh->verdict_call_place[h->dir][h->place], after - before);
		if (sh->nrel)
			release_errors(sh, order[j], before, after);
	}
	sh->nrel = 0;
	return ret;
}

void ts_shaper_begin(struct ts_shaper *sh, pid_t child, ts_ns_t duration)
{
	sh->child = child;
	sh->end = duration > 0 ? sh->origin + duration : TS_NEVER;
	sh->phase = TS_PH_RUN;
	sh->kill_sig = 0;
}

void ts_shaper_on_child_exit(struct ts_shaper *sh, int status)
{
	sh->child_status = status;
	sh->child_done = true;
}

/*
 * Reap whichever CMD exited; once all have, the run's CMD is done, with
 * the first station's status unless it succeeded and another did not.
 */
static void reap_children(struct ts_shaper *sh)
{
	int status = 0, st;
	unsigned int k;
	bool all;

	if (!sh->child || sh->child_done)
		return;
	if (!sh->main_done && waitpid(sh->child, &st, WNOHANG) == sh->child) {
		sh->main_done = true;
		sh->main_status = st;
	}
	all = sh->main_done;
	status = sh->main_status;
	for (k = 0; k < sh->nmore; k++) {
		if (!sh->more_done[k] && waitpid(sh->more[k], &st, WNOHANG) == sh->more[k]) {
			sh->more_done[k] = true;
			sh->more_status[k] = st;
		}
		all &= sh->more_done[k];
		if (sh->more_done[k] && !status)
			status = sh->more_status[k];
	}
	if (all)
		ts_shaper_on_child_exit(sh, status);
}

/* Send @sig to every CMD still running. */
static void kill_children(struct ts_shaper *sh, int sig)
{
	unsigned int k;

	if (!sh->main_done)
		kill(sh->child, sig);
	for (k = 0; k < sh->nmore; k++)
		if (!sh->more_done[k])
			kill(sh->more[k], sig);
}

void ts_shaper_on_signal(struct ts_shaper *sh, int signo, bool from_kernel)
{
	sh->signals++;
	if (!sh->child || sh->child_done)
		return;
	if (sh->signals >= 3)
		sh->kill_sig = SIGKILL;
	else if (!from_kernel)
		/* Sent to us by kill(1) or a supervisor: pass it on. A terminal's Ctrl-C
		 * (SI_KERNEL) already reached the child in the same process group. */
		sh->kill_sig = signo;
}

static uint64_t sum_drops(const uint64_t *drops)
{
	uint64_t n = 0;
	int c;

	for (c = 0; c < TS_DROP__COUNT; c++)
		n += drops[c];
	return n;
}

/* In each stage of @p: in = out + dropped + held. */
static int check_stages(const struct ts_pipe *p, const char *dir, struct ts_err *err)
{
	unsigned int k;

	for (k = 0; k < p->nstages; k++) {
		const struct ts_stage_stats *st = &p->stage[k]->stats;

		if (st->pkts_in == st->pkts_out + sum_drops(st->drops) + st->held_pkts)
			continue;
		ts_err_set(err,
			   "conservation: %s stage %s: in %llu != out %llu + dropped %llu + held "
			   "%u",
			   dir, p->stage[k]->ops->name, (unsigned long long)st->pkts_in,
			   (unsigned long long)st->pkts_out,
			   (unsigned long long)sum_drops(st->drops), st->held_pkts);
		return -EPROTO;
	}
	return 0;
}

int ts_shaper_check(const struct ts_shaper *sh, struct ts_err *err)
{
	uint64_t seen = 0, verdicts = 0, held = 0, held_out = 0, drops;
	int i, d, pl, ret;

	for (d = 0; d < 2; d++) {
		for (pl = 0; pl < 2; pl++) {
			const struct ts_pipe *p = &sh->dir[d].pipe[pl];
			const char *dn = sh->dir[d].name ? sh->dir[d].name : "?";
			uint64_t h = ts_pipe_held_pkts(p);

			drops = sum_drops(p->stats.drops);
			held += h;
			if (p->stats.pkts_in != p->stats.pkts_out + drops + h) {
				ts_err_set(err,
					   "conservation: %s %s pipe: in %llu != out %llu + "
					   "dropped %llu + held %llu",
					   dn, pl == TS_PLACE_SENDER ? "sender" : "network",
					   (unsigned long long)p->stats.pkts_in,
					   (unsigned long long)p->stats.pkts_out,
					   (unsigned long long)drops, (unsigned long long)h);
				return -EPROTO;
			}
			ret = check_stages(p, dn, err);
			if (ret < 0)
				return ret;
		}
	}
	for (i = 0; i < TS_H__COUNT; i++) {
		const struct ts_hook *h = &sh->hook[i];
		const struct ts_nfq_stats *ns;

		if (!h->io)
			continue;
		ns = h->io->stats(h->q);
		seen += h->seen;
		verdicts += h->accepted + h->dropped;
		if (ns->nl_errors) {
			ts_err_set(err,
				   "conservation: queue %u refused %llu verdicts (last: %s): a "
				   "packet id got a second verdict, or one it never had",
				   h->qnum, (unsigned long long)ns->nl_errors,
				   strerror(-ns->last_nl_error));
			return -EPROTO;
		}
		if (ns->accepts + ns->drops != h->accepted + h->dropped) {
			ts_err_set(err,
				   "conservation: queue %u: %llu verdicts appended, the shaper "
				   "gave %llu",
				   h->qnum, (unsigned long long)(ns->accepts + ns->drops),
				   (unsigned long long)(h->accepted + h->dropped));
			return -EPROTO;
		}
	}
	/* The station's TSQ emulation moves some verdicts ahead of the pipes (run/tsq_station.h). */
	if (sh->tsq)
		ts_tsqst_in_transit(sh->tsq, &verdicts, &held_out);
	if (seen != verdicts + held || held + held_out != sh->pool.used) {
		ts_err_set(err,
			   "conservation: packets seen %llu != verdicts %llu + held %llu "
			   "(descriptors in use %zu)",
			   (unsigned long long)seen, (unsigned long long)verdicts,
			   (unsigned long long)held, sh->pool.used);
		return -EPROTO;
	}
	return 0;
}

/*
 * The guest CPUs' idle share over windows of at least a second (sh->cpustat): a run's
 * average would hide a saturated stretch behind the idle delay before and after the flows.
 */
static void vcpu_tick(struct ts_shaper *sh, ts_ns_t now)
{
	struct ts_cpustat c;
	int idle;

	if (sh->vcpu_last_t != TS_NEVER && now - sh->vcpu_last_t < TS_NSEC_PER_SEC)
		return;
	if (sh->cpustat(&c) < 0)
		return;
	if (sh->vcpu_last_t != TS_NEVER) {
		idle = ts_cpustat_idle_permille(&sh->vcpu_last, &c);
		if (idle >= 0 && (sh->vcpu_min_idle < 0 || idle < sh->vcpu_min_idle))
			sh->vcpu_min_idle = idle;
	}
	sh->vcpu_last = c;
	sh->vcpu_last_t = now;
}

int ts_shaper_turn(struct ts_shaper *sh, ts_ns_t now, unsigned int ready, struct ts_err *err)
{
	int i, ret;

	/* The clock is read once per turn: every arrival of this turn is at "now". */
	sh->now = now;
	for (i = 0; i < TS_H__COUNT; i++) {
		struct ts_hook *h = &sh->hook[i];

		if (!h->io || !(ready & (1u << i)))
			continue;
		ret = h->io->receive(h->q, on_packet, h);
		if (ret < 0) {
			ts_err_set(err, "NFQUEUE %u: receive: %s", h->qnum, strerror(-ret));
			return ret;
		}
	}
	for (i = 0; i < 2; i++) {
		ts_pipe_advance(&sh->dir[i].pipe[TS_PLACE_SENDER], now);
		ts_pipe_advance(&sh->dir[i].pipe[TS_PLACE_NETWORK], now);
	}
	if (sh->tsq)
		ts_tsqst_tick(sh->tsq, now);
	ret = flush_all(sh);
	/* The station's sockets are read after the releases; new budgets still act in this turn. */
	if (ret >= 0 && !sh->fatal && sh->tsq && ts_tsqst_sample(sh->tsq, now)) {
		ts_tsqst_tick(sh->tsq, now);
		ret = flush_all(sh);
	}
	if (ret < 0 || sh->fatal) {
		ret = ret < 0 ? ret : sh->fatal;
		ts_err_set(err, "NFQUEUE verdicts: %s", strerror(-ret));
		return ret;
	}
	/* After the verdicts went out: recording never delays a release. */
	if (sh->obs)
		ts_obs_tick(sh->obs, now);
	if (sh->cpustat)
		vcpu_tick(sh, now);
	if (sh->check)
		return ts_shaper_check(sh, err);
	return 0;
}

static void drain_begin(struct ts_shaper *sh, ts_ns_t now)
{
	sh->phase = TS_PH_DRAIN;
	sh->drain_start = now;
	sh->drain_end = now + sh->linger;
	sh->drain_signals = sh->signals;
	sh->next_sock_check = now;
	sh->closed_at = TS_NEVER;
}

/*
 * The drain is over: the queues are empty and every connection closed, or
 * time is up. A socket turns TIME_WAIT as it sends its last ACK, which
 * then still crosses a veth before a hook queues it: so after the count
 * first finds no open connection, the queues must stay empty and quiet
 * for TS_DRAIN_CLOSED more (run/shaper.h says why).
 */
static bool drain_over(struct ts_shaper *sh, ts_ns_t now)
{
	if (now >= sh->drain_end || sh->signals > sh->drain_signals)
		return true;
	if (held_by_model(sh) || now < sh->last_arrival + TS_DRAIN_QUIET)
		return false;
	if (sh->sockets && sh->closed_at == TS_NEVER) {
		if (now < sh->next_sock_check)
			return false;
		sh->next_sock_check = now + TS_DRAIN_POLL;
		sh->sockets_open = sh->sockets(sh->sockets_ctx);
		/* A failed count (< 0) cannot hold the run: the queues are empty. */
		if (sh->sockets_open > 0)
			return false;
		sh->closed_at = now;
	}
	if (sh->sockets && now < sh->closed_at + TS_DRAIN_CLOSED)
		return false;
	sh->drain_complete = true;
	return true;
}

/* --duration elapsed or a --once trace ended: the reason, or TS_STOP_NONE. */
static int run_over(const struct ts_shaper *sh, ts_ns_t now)
{
	if (now >= sh->end)
		return TS_STOP_DURATION;
	if (sh->cfg && sh->cfg->once && (!sh->dir[0].rate || ts_dir_ended(&sh->dir[0])) &&
	    (!sh->dir[1].rate || ts_dir_ended(&sh->dir[1])) && (sh->dir[0].rate || sh->dir[1].rate))
		return TS_STOP_TRACE;
	return TS_STOP_NONE;
}

int ts_shaper_policy(struct ts_shaper *sh, ts_ns_t now)
{
	if (sh->phase == TS_PH_RUN && !sh->child) {
		/*
		 * attach: stopped by a signal or --duration, it lets what the link holds
		 * arrive (the queues empty and quiet, at most --linger; a second signal
		 * cuts it short); what is left then is dropped.
		 */
		if (sh->signals > 0)
			sh->stop_reason = TS_STOP_SIGNAL;
		else
			sh->stop_reason = run_over(sh, now);
		if (!sh->stop_reason)
			return 0;
		if (!sh->linger) {
			sh->phase = TS_PH_DONE;
			return sh->stop_reason;
		}
		drain_begin(sh, now);
	}
	if (sh->phase == TS_PH_RUN && !sh->child_done) {
		sh->stop_reason = run_over(sh, now);
		if (!sh->stop_reason)
			return 0;
		/* The run is over but CMD still runs: ask it to end, as timeout(1) does. */
		sh->kill_sig = SIGTERM;
		sh->end = now + TS_TERM_GRACE;
		sh->phase = TS_PH_ENDING;
		return 0;
	}
	if (sh->phase == TS_PH_ENDING && !sh->child_done) {
		if (now >= sh->end && !sh->child_killed) {
			sh->kill_sig = SIGKILL;
			sh->child_killed = true;
		}
		return 0;
	}
	if (sh->phase == TS_PH_RUN || sh->phase == TS_PH_ENDING) {
		/* CMD is gone: let what it sent arrive and its connections close. */
		if (!sh->stop_reason)
			sh->stop_reason = TS_STOP_CHILD;
		drain_begin(sh, now);
	}
	if (sh->phase == TS_PH_DRAIN && !drain_over(sh, now))
		return 0;
	sh->phase = TS_PH_DONE;
	return sh->stop_reason;
}

static void handle_signals(struct ts_shaper *sh)
{
	struct signalfd_siginfo si;

	while (read(sh->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			reap_children(sh);
			continue;
		}
		ts_shaper_on_signal(sh, (int)si.ssi_signo, si.ssi_code == SI_KERNEL);
		if (sh->kill_sig) {
			kill_children(sh, sh->kill_sig);
			sh->kill_sig = 0;
		}
	}
}

static int epoll_add(struct ts_shaper *sh, int fd, uint32_t id, struct ts_err *err)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = id};

	if (epoll_ctl(sh->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		ts_err_set(err, "epoll: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* The loop's system side: timer slack, epoll, timerfd, and what they watch. */
static int loop_setup(struct ts_shaper *sh, int sigfd, struct ts_err *err)
{
	int i, ret;

	/* Default timer slack rounds wake-ups by 50 us; releases want better. */
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) < 0) {
		ts_err_set(err, "prctl(PR_SET_TIMERSLACK): %s", strerror(errno));
		return -errno;
	}
	sh->sfd = sigfd;
	sh->epfd = epoll_create1(EPOLL_CLOEXEC);
	sh->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (sh->epfd < 0 || sh->tfd < 0) {
		ret = -errno;
		ts_err_set(err, "epoll/timerfd: %s", strerror(errno));
		return ret;
	}
	sh->armed = TS_NEVER; /* a new timerfd is disarmed */
	ts_spin_init(&sh->spin, ts_clock_now());
	ret = epoll_add(sh, sh->tfd, TS_H__COUNT, err);
	if (!ret)
		ret = epoll_add(sh, sh->sfd, TS_H__COUNT + 1, err);
	for (i = 0; i < TS_H__COUNT && !ret; i++) {
		int fd = sh->hook[i].io ? sh->hook[i].io->fd(sh->hook[i].q) : -1;

		if (fd >= 0)
			ret = epoll_add(sh, fd, (uint32_t)i, err);
	}
	return ret;
}

/*
 * Sleep until something is due. The timer is armed the lead (run/spin.h)
 * before the earliest deadline and the rest is polled, so that the
 * timer's wake-up latency is not added to the releases; a deadline nearer
 * than the lead is polled for at once. Without the credit to poll, the
 * timer is armed for the deadline itself. Returns the TS_READY_* bits of
 * what woke us, or a negative errno with @err set.
 */
static int loop_wait(struct ts_shaper *sh, struct ts_err *err)
{
	struct epoll_event evs[8];
	ts_ns_t d = ts_shaper_deadline(sh), now = ts_clock_now(), arm;
	int i, n, timeout = -1, ret = 0, ready = 0;
	bool sleeps;
	uint64_t ticks;

	if (ts_spin_window_due(&sh->spin, now))
		ts_spin_window(&sh->spin, now, ts_clock_thread_cpu());
	/* In virtual time no poll ahead of a deadline (no_poll): the timer is armed for it. */
	if (sh->no_poll) {
		arm = d;
		if (d != TS_NEVER && d <= now)
			timeout = 0;
	} else if (ts_spin_wait(&sh->spin, now, d, &arm)) {
		timeout = 0;
	}
	if (timeout != 0)
		ret = arm_timer(sh, arm);
	if (ret < 0) {
		ts_err_set(err, "timerfd: %s", strerror(-ret));
		return ret;
	}
	/* Only a wake-up from a sleep measures the timer: one already due fires at once. */
	sleeps = timeout != 0 && sh->armed != TS_NEVER && sh->armed > now;
	n = epoll_wait(sh->epfd, evs, 8, timeout);
	if (n < 0) {
		if (errno == EINTR)
			return 0;
		ts_err_set(err, "epoll_wait: %s", strerror(errno));
		return -errno;
	}
	for (i = 0; i < n; i++) {
		uint32_t id = evs[i].data.u32;

		if (id < TS_H__COUNT) {
			ready |= 1 << id;
		} else if (id == TS_H__COUNT) {
			/* The clock only for a timer that slept: a poll's turn reads it anyway. */
			if (sleeps) {
				ts_ns_t woke = ts_clock_now();

				ts_spin_learn(&sh->spin, sh->armed, woke);
				ts_hist_add(&sh->timer_late, woke - sh->armed);
			}
			sh->armed = TS_NEVER; /* it fired: a one-shot timer is disarmed now */
			if (read(sh->tfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN) {
				ts_err_set(err, "timerfd: %s", strerror(errno));
				return -errno;
			}
		} else {
			ready |= TS_READY_SIGNAL;
		}
	}
	return ready;
}

int ts_shaper_run(struct ts_shaper *sh, int sigfd, pid_t child, ts_ns_t duration,
		  struct ts_err *err)
{
	int ready, ret;

	ts_shaper_begin(sh, child, duration);
	ret = loop_setup(sh, sigfd, err);
	if (ret < 0)
		return ret;
	/* A child that exited before the loop started still sent its SIGCHLD: the signalfd has it. */
	for (;;) {
		ready = loop_wait(sh, err);
		if (ready < 0)
			return ready;
		if (ready & TS_READY_SIGNAL)
			handle_signals(sh);
		ret = ts_shaper_turn(sh, ts_clock_now(), (unsigned int)ready, err);
		if (ret < 0)
			return ret;
		ret = ts_shaper_policy(sh, sh->now);
		if (sh->kill_sig && sh->child) {
			kill_children(sh, sh->kill_sig);
			sh->kill_sig = 0;
		}
		if (ret > 0)
			return ret;
	}
}

static int read_kstats(void *p)
{
	struct ts_hook *h = p;

	return h->io->kstats(h->q, &h->kstats);
}

void ts_shaper_finish(struct ts_shaper *sh)
{
	struct ts_err err;
	int i;

	sh->now = sh->clock();
	/* Packets queued before the rules went away still need their verdict. */
	for (i = 0; i < TS_H__COUNT; i++)
		if (sh->hook[i].io)
			sh->hook[i].io->receive(sh->hook[i].q, on_packet, &sh->hook[i]);
	for (i = 0; i < 2; i++)
		if (sh->built[i])
			ts_dir_drain(&sh->dir[i], sh->now);
	flush_all(sh);
	for (i = 0; i < TS_H__COUNT; i++) {
		if (!sh->hook[i].io)
			continue;
		if (sh->hook[i].netns_fd < 0)
			read_kstats(&sh->hook[i]);
		else
			ts_netns_run(sh->hook[i].netns_fd, read_kstats, &sh->hook[i], &err);
	}
}

/* The three figures the summary gives of a histogram of times (ns). */
static void p50_p99_max(const struct ts_hist *h, uint64_t *p50, uint64_t *p99, uint64_t *max)
{
	*p50 = (uint64_t)ts_hist_quantile(h, 0.5);
	*p99 = (uint64_t)ts_hist_quantile(h, 0.99);
	*max = (uint64_t)h->max;
}

/* Direction @d's release timing by place, for a direction whose hooks are at both. */
static void place_timing(const struct ts_shaper *sh, int d, struct ts_dir_extra *x)
{
	int p;

	if (!sh->verdict_call_place[d][TS_PLACE_SENDER].count ||
	    !sh->verdict_call_place[d][TS_PLACE_NETWORK].count)
		return;
	for (p = 0; p < 2; p++) {
		const struct ts_hist *e = &sh->release_err_place[d][p];
		const struct ts_hist *c = &sh->verdict_call_place[d][p];
		struct ts_place_timing *t = &x->place[p];

		t->have = 1;
		t->verdict_calls = c->count;
		t->releases = e->count;
		p50_p99_max(e, &t->release_err_p50, &t->release_err_p99, &t->release_err_max);
		p50_p99_max(c, &t->verdict_call_p50, &t->verdict_call_p99, &t->verdict_call_max);
	}
}

void ts_shaper_summary(struct ts_shaper *sh, struct ts_summary *s, const char *title)
{
	int i, d;

	memset(s, 0, sizeof(*s));
	s->title = title;
	s->start = sh->origin;
	s->end = sh->now;
	s->tsq = sh->tsq;
	s->have_cpu_idle = sh->vcpu_min_idle >= 0;
	s->cpu_idle_permille = s->have_cpu_idle ? (uint32_t)sh->vcpu_min_idle : 0;
	if (sh->timer_late.count) {
		s->have_timer_late = true;
		p50_p99_max(&sh->timer_late, &s->timer_late_p50, &s->timer_late_p99,
			    &s->timer_late_max);
		s->timer_lead = sh->no_poll ? 0 : (uint64_t)sh->spin.lead;
		s->polled = (uint64_t)sh->spin.polled;
	}
	s->have_loop_work = sh->spin.work_max >= 0;
	s->loop_work_max_permille = s->have_loop_work ? (uint32_t)sh->spin.work_max : 0;
	for (d = 0; d < 2; d++) {
		struct ts_dir_extra *x = &s->extra[d];
		struct ts_hist *h = &sh->release_err[d];

		s->dir[d] = &sh->dir[d];
		x->no_descriptor = sh->no_desc[d];
		if (h->count) {
			x->have_release_err = 1;
			p50_p99_max(h, &x->release_err_p50, &x->release_err_p99,
				    &x->release_err_max);
		}
		h = &sh->verdict_call[d];
		if (h->count) {
			x->have_verdict_call = 1;
			p50_p99_max(h, &x->verdict_call_p50, &x->verdict_call_p99,
				    &x->verdict_call_max);
		}
		place_timing(sh, d, x);
	}
	for (i = 0; i < TS_H__COUNT; i++) {
		struct ts_hook *h = &sh->hook[i];
		struct ts_dir_extra *x = &s->extra[h->dir];
		const struct ts_nfq_stats *ns;

		if (!h->io)
			continue;
		ns = h->io->stats(h->q);
		x->kernel_dropped += h->kstats.queue_dropped;
		x->user_dropped += h->kstats.user_dropped;
		/* Every packet seen got exactly one verdict; anything else is unexplained. */
		if (h->seen > h->accepted + h->dropped)
			x->unexplained += h->seen - h->accepted - h->dropped;
		x->unexplained += ns->nl_errors + ns->truncated + ns->bad_msgs;
	}
}

void ts_shaper_fini(struct ts_shaper *sh)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (sh->built[i]) {
			ts_dir_fini(&sh->dir[i], sh->now);
			sh->built[i] = false;
		}
	}
	for (i = 0; i < TS_H__COUNT; i++) {
		if (sh->hook[i].io) {
			sh->hook[i].io->close(sh->hook[i].q);
			sh->hook[i].io = NULL;
			sh->hook[i].q = NULL;
		}
	}
	if (sh->epfd >= 0)
		close(sh->epfd);
	if (sh->tfd >= 0)
		close(sh->tfd);
	sh->epfd = sh->tfd = -1;
	ts_tsqst_stop(sh->tsq);
	sh->tsq = NULL;
	ts_pool_fini(&sh->pool);
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/netns.h"
#include "run/clock.h"
#include "run/shaper.h"

static const struct {
	int dir;
	enum ts_place place;
} hook_map[TS_H__COUNT] = {
	[TS_H_UP_SENDER] = {TS_UP, TS_PLACE_SENDER},
	[TS_H_UP_NETWORK] = {TS_UP, TS_PLACE_NETWORK},
	[TS_H_DOWN_NETWORK] = {TS_DOWN, TS_PLACE_NETWORK},
};

/* The model released @p at model time @t: let the kernel send it on. */
static void on_release(void *ctx, struct ts_pkt *p, ts_ns_t t)
{
	struct ts_shaper *sh = ctx;
	struct ts_hook *h = &sh->hook[p->src];
	int ret;

	if (sh->tsq && ts_tsq_release(sh->tsq, p, t))
		return;
	ret = ts_nfq_verdict(h->nfq, p->id, 1);
	if (ret < 0 && !sh->fatal)
		sh->fatal = ret;
	if (sh->obs)
		ts_obs_release(sh->obs, p, h->dir, h->place, t);
	h->accepted++;
	if (sh->nrel < TS_RELEASE_BATCH) {
		sh->rel_t[sh->nrel] = t;
		sh->rel_dir[sh->nrel] = (uint8_t)h->dir;
		sh->nrel++;
	}
	ts_pool_put(&sh->pool, p);
}

static void on_drop(void *ctx, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t t)
{
	struct ts_shaper *sh = ctx;
	struct ts_hook *h = &sh->hook[p->src];
	int ret;

	if (sh->tsq && ts_tsq_drop(sh->tsq, p, cause, t))
		return;
	ret = ts_nfq_verdict(h->nfq, p->id, 0);
	/* The cause is counted by the stage and the pipe. */
	if (ret < 0 && !sh->fatal)
		sh->fatal = ret;
	if (sh->obs)
		ts_obs_drop(sh->obs, p, h->dir, h->place, cause, t);
	h->dropped++;
	ts_pool_put(&sh->pool, p);
}

/* The kernel handed us a packet at hook h. */
static void on_packet(void *ctx, const struct ts_nfq_pkt *kp)
{
	struct ts_hook *h = ctx;
	struct ts_shaper *sh = h->sh;
	struct ts_pkt *p = ts_pool_get(&sh->pool);
	int ret;

	h->seen++;
	if (!p) {
		/* No descriptor: drop it now, counted, rather than hold it unseen. */
		sh->no_desc[h->dir]++;
		h->dropped++;
		ret = ts_nfq_verdict(h->nfq, kp->id, 0);
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
	if (sh->tsq && ts_tsq_packet(sh->tsq, p->src, p, kp))
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
	for (i = 0; i < TS_H__COUNT; i++) {
		sh->hook[i].sh = sh;
		sh->hook[i].dir = hook_map[i].dir;
		sh->hook[i].place = hook_map[i].place;
		sh->hook[i].netns_fd = -1;
	}
	ts_hist_init(&sh->release_err[0]);
	ts_hist_init(&sh->release_err[1]);
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
	return sh->dir[hook_map[id].dir].pipe[hook_map[id].place].nstages > 0 ||
	       (id == TS_H_UP_NETWORK && ts_tsq_wanted(sh->cfg));
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
	struct open_arg a = {.out = &h->nfq, .maxlen = maxlen, .flags = nfq_flags, .err = err};
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
	return 0;
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

static ts_ns_t next_deadline(const struct ts_shaper *sh)
{
	ts_ns_t d = sh->end;
	int i;

	for (i = 0; i < 2; i++)
		d = ts_min(d, ts_dir_next_deadline(&sh->dir[i]));
	/* The next stats window, socket sample or status line wakes the loop too. */
	if (sh->obs)
		d = ts_min(d, ts_obs_next_deadline(sh->obs));
	return d;
}

/* Send this turn's verdicts: one sendto per queue. */
static int flush_all(struct ts_shaper *sh)
{
	ts_ns_t sent;
	unsigned int i;
	int ret = 0, r;

	for (i = 0; i < TS_H__COUNT; i++) {
		if (!sh->hook[i].nfq || !ts_nfq_pending(sh->hook[i].nfq))
			continue;
		r = ts_nfq_flush(sh->hook[i].nfq);
		if (r < 0 && !ret)
			ret = r;
	}
	if (sh->nrel) {
		sent = ts_clock_now();
		for (i = 0; i < sh->nrel; i++)
			ts_hist_add(&sh->release_err[sh->rel_dir[i]], sent - sh->rel_t[i]);
		sh->nrel = 0;
	}
	return ret;
}

static void handle_signals(struct ts_shaper *sh)
{
	struct signalfd_siginfo si;
	int status;

	while (read(sh->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (sh->child && !sh->child_done &&
			    waitpid(sh->child, &status, WNOHANG) == sh->child) {
				sh->child_status = status;
				sh->child_done = true;
			}
			continue;
		}
		sh->signals++;
		if (!sh->child || sh->child_done)
			continue;
		if (sh->signals >= 3)
			kill(sh->child, SIGKILL);
		else if (si.ssi_code != SI_KERNEL)
			/* Sent to us by kill(1) or a supervisor: pass it on. A terminal's Ctrl-C
			 * (SI_KERNEL) already reached the child in the same process group. */
			kill(sh->child, (int)si.ssi_signo);
	}
}

int ts_shaper_run(struct ts_shaper *sh, int sigfd, pid_t child, ts_ns_t duration,
		  struct ts_err *err)
{
	struct epoll_event ev = {.events = EPOLLIN}, evs[8];
	int i, n, ret;

	/* Default timer slack rounds wake-ups by 50 us; releases want better. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	sh->sfd = sigfd;
	sh->child = child;
	sh->end = duration > 0 ? sh->origin + duration : TS_NEVER;
	sh->epfd = epoll_create1(EPOLL_CLOEXEC);
	sh->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (sh->epfd < 0 || sh->tfd < 0) {
		ret = -errno;
		ts_err_set(err, "epoll/timerfd: %s", strerror(errno));
		return ret;
	}
	ev.data.u32 = TS_H__COUNT;
	epoll_ctl(sh->epfd, EPOLL_CTL_ADD, sh->tfd, &ev);
	ev.data.u32 = TS_H__COUNT + 1;
	epoll_ctl(sh->epfd, EPOLL_CTL_ADD, sh->sfd, &ev);
	for (i = 0; i < TS_H__COUNT; i++) {
		if (!sh->hook[i].nfq)
			continue;
		ev.data.u32 = (uint32_t)i;
		if (epoll_ctl(sh->epfd, EPOLL_CTL_ADD, ts_nfq_fd(sh->hook[i].nfq), &ev) < 0) {
			ret = -errno;
			ts_err_set(err, "epoll: %s", strerror(errno));
			return ret;
		}
	}
	/* A child that exited before the loop started still sent its SIGCHLD: the signalfd has it. */
	sh->armed = TS_NEVER; /* a new timerfd is disarmed */
	for (;;) {
		ts_ns_t d = next_deadline(sh);
		int timeout = -1;

		/*
		 * A deadline closer than the timer's wake-up latency is met by polling
		 * (epoll with a zero timeout) rather than by sleeping on the timer.
		 */
		ret = 0;
		if (d != TS_NEVER && d - ts_clock_now() <= TS_SPIN_NS)
			timeout = 0;
		else
			ret = arm_timer(sh, d);
		if (ret < 0) {
			ts_err_set(err, "timerfd: %s", strerror(-ret));
			return ret;
		}
		n = epoll_wait(sh->epfd, evs, 8, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			ts_err_set(err, "epoll_wait: %s", strerror(errno));
			return ret;
		}
		/* The clock is read once per turn: every arrival of this turn is at "now". */
		sh->now = ts_clock_now();
		for (i = 0; i < n; i++) {
			uint32_t id = evs[i].data.u32;
			uint64_t ticks;

			if (id < TS_H__COUNT) {
				ret = ts_nfq_receive(sh->hook[id].nfq, on_packet, &sh->hook[id]);
				if (ret < 0) {
					ts_err_set(err, "NFQUEUE %u: receive: %s",
						   sh->hook[id].qnum, strerror(-ret));
					return ret;
				}
			} else if (id == TS_H__COUNT) {
				sh->armed =
					TS_NEVER; /* it fired: a one-shot timer is disarmed now */
				if (read(sh->tfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN) {
					ret = -errno;
					ts_err_set(err, "timerfd: %s", strerror(errno));
					return ret;
				}
			} else {
				handle_signals(sh);
			}
		}
		for (i = 0; i < 2; i++) {
			ts_pipe_advance(&sh->dir[i].pipe[TS_PLACE_SENDER], sh->now);
			ts_pipe_advance(&sh->dir[i].pipe[TS_PLACE_NETWORK], sh->now);
		}
		if (sh->tsq)
			ts_tsq_tick(sh->tsq, sh->now);
		ret = flush_all(sh);
		if (ret < 0 || sh->fatal) {
			ret = ret < 0 ? ret : sh->fatal;
			ts_err_set(err, "NFQUEUE verdicts: %s", strerror(-ret));
			return ret;
		}
		/* After the verdicts went out: recording never delays a release. */
		if (sh->obs)
			ts_obs_tick(sh->obs, sh->now);
		if (sh->child ? sh->child_done : sh->signals > 0)
			return sh->stop_reason ? sh->stop_reason
					       : (sh->child ? TS_STOP_CHILD : TS_STOP_SIGNAL);
		if (!sh->stop_reason) {
			if (sh->now >= sh->end)
				sh->stop_reason = TS_STOP_DURATION;
			else if (sh->cfg->once && (!sh->dir[0].rate || ts_dir_ended(&sh->dir[0])) &&
				 (!sh->dir[1].rate || ts_dir_ended(&sh->dir[1])) &&
				 (sh->dir[0].rate || sh->dir[1].rate))
				sh->stop_reason = TS_STOP_TRACE;
			if (sh->stop_reason && (!sh->child || sh->child_done))
				return sh->stop_reason;
			if (sh->stop_reason) {
				/*
				 * The run is over but CMD still runs: ask it to end, as
				 * timeout(1) does, and keep shaping while it finishes.
				 */
				kill(sh->child, SIGTERM);
				sh->end = sh->now + TS_TERM_GRACE;
			}
		} else if (sh->now >= sh->end && !sh->child_killed) {
			kill(sh->child, SIGKILL);
			sh->child_killed = true;
			sh->end = TS_NEVER; /* now wait for its SIGCHLD */
		}
	}
}

struct kstats_arg {
	struct ts_hook *h;
};

static int read_kstats(void *p)
{
	struct ts_hook *h = p;

	return ts_nfq_kstats(h->nfq, &h->kstats);
}

void ts_shaper_finish(struct ts_shaper *sh)
{
	struct ts_err err;
	int i;

	sh->now = ts_clock_now();
	/* Packets queued before the rules went away still need their verdict. */
	for (i = 0; i < TS_H__COUNT; i++)
		if (sh->hook[i].nfq)
			ts_nfq_receive(sh->hook[i].nfq, on_packet, &sh->hook[i]);
	for (i = 0; i < 2; i++)
		if (sh->built[i])
			ts_dir_drain(&sh->dir[i], sh->now);
	flush_all(sh);
	for (i = 0; i < TS_H__COUNT; i++)
		if (sh->hook[i].nfq)
			ts_netns_run(sh->hook[i].netns_fd, read_kstats, &sh->hook[i], &err);
}

void ts_shaper_summary(struct ts_shaper *sh, struct ts_summary *s, const char *title)
{
	int i, d;

	memset(s, 0, sizeof(*s));
	s->title = title;
	s->start = sh->origin;
	s->end = sh->now;
	s->tsq = sh->tsq;
	for (d = 0; d < 2; d++) {
		struct ts_dir_extra *x = &s->extra[d];
		struct ts_hist *h = &sh->release_err[d];

		s->dir[d] = &sh->dir[d];
		x->no_descriptor = sh->no_desc[d];
		if (h->count) {
			x->have_release_err = 1;
			x->release_err_p50 = (uint64_t)ts_hist_quantile(h, 0.5);
			x->release_err_p99 = (uint64_t)ts_hist_quantile(h, 0.99);
			x->release_err_max = (uint64_t)h->max;
		}
	}
	for (i = 0; i < TS_H__COUNT; i++) {
		struct ts_hook *h = &sh->hook[i];
		struct ts_dir_extra *x = &s->extra[h->dir];
		const struct ts_nfq_stats *ns;

		if (!h->nfq)
			continue;
		ns = ts_nfq_stats(h->nfq);
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
		if (sh->hook[i].nfq) {
			ts_nfq_flush(sh->hook[i].nfq);
			ts_nfq_close(sh->hook[i].nfq);
			sh->hook[i].nfq = NULL;
		}
	}
	if (sh->epfd >= 0)
		close(sh->epfd);
	if (sh->tfd >= 0)
		close(sh->tfd);
	sh->epfd = sh->tfd = -1;
	ts_tsq_stop(sh->tsq);
	sh->tsq = NULL;
	ts_pool_fini(&sh->pool);
}

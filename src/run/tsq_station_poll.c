/* SPDX-License-Identifier: MIT */
/*
 * The station's sockets read off the loop (run/tsq_station_priv.h).
 *
 * sock_diag's tcp_get_info takes the socket's lock. When the sender holds
 * it (in tcp_sendmsg) the request sleeps until the sender lets go, and a
 * loop that made the request waited with every release due meanwhile: in
 * a virtual-time guest's one CPU, 60-520 us at a time, 10 times in 3 s of
 * one upload (docs/kernels.md, "What a verdict call carries"). So a
 * thread of the shaper's process, at normal scheduling, makes the
 * requests: the loop hands it the keys of the flows with packets at the
 * station and takes the answers of the last request, both under a
 * try-lock, never waiting. An answer acts in the model from the turn that
 * takes it (the station's queue statistics are kept in time order), at
 * most one poll interval after the last one.
 * A poll due while the thread still reads the last one is skipped
 * (counted). The thread starts at the loop's first poll, after CMD was
 * started: no fork happens while it holds a lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "run/tsq_station_priv.h"

/* Requests are a few sock_diag lookups; its 64 KiB buffer is on the heap (net/sockdiag.c). */
#define POLL_STACK (256 * 1024)

struct poll_key {
	int family;
	unsigned int station;
	uint8_t saddr[16], daddr[16];
	uint16_t sport, dport;
};

struct ts_tsqst_poll {
	struct ts_tsqst *t; /* its sd[] only, which is fixed before the loop runs */
	cpu_set_t cpus;
	pthread_t th;
	bool running;
	/* Under mu: */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, asked, done;
	unsigned int nkey, nres;
	struct poll_key key[TS_TSQST_FLOWS];
	struct ts_sockstat res[TS_TSQST_FLOWS];
	int err; /* the first failed lookup's negative errno */
};

static void collect(void *ctx, const struct ts_sockstat *st)
{
	struct ts_tsqst_poll *p = ctx;

	if (p->nres < TS_TSQST_FLOWS)
		p->res[p->nres++] = *st;
}

/*
 * Under mu on entry and return. The lookups run with mu released: the loop's try-lock finds
 * it free and only sees asked (nothing to take yet, nothing new to post).
 */
static void answer(struct ts_tsqst_poll *p)
{
	unsigned int i, n = p->nkey;
	int ret, err = 0;

	p->nres = 0;
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < n; i++) {
		const struct poll_key *k = &p->key[i];

		ret = p->t->lookup(p->t->sd[k->station], k->family, k->saddr, k->sport, k->daddr,
				   k->dport, collect, p);
		if (ret < 0 && !err)
			err = ret;
	}
	pthread_mutex_lock(&p->mu);
	if (err && !p->err)
		p->err = err;
	p->asked = false;
	p->done = true;
}

static void *poll_main(void *arg)
{
	struct ts_tsqst_poll *p = arg;
	struct sched_param normal = {0};

	/* The loop's thread may run real-time; a request that sleeps on a lock must not be it. */
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
	if (CPU_COUNT(&p->cpus) > 0)
		pthread_setaffinity_np(pthread_self(), sizeof(p->cpus), &p->cpus);
	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		if (p->asked && !p->done)
			answer(p);
		else
			pthread_cond_wait(&p->cv, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static int poll_start(struct ts_tsqst *t)
{
	struct ts_tsqst_poll *p = calloc(1, sizeof(*p));
	pthread_attr_t ta;
	int ret;

	if (!p)
		return -ENOMEM;
	p->t = t;
	if (t->helper_cpus)
		p->cpus = *t->helper_cpus; /* else left empty by calloc */
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_attr_init(&ta);
	pthread_attr_setstacksize(&ta, POLL_STACK);
	ret = -pthread_create(&p->th, &ta, poll_main, p);
	pthread_attr_destroy(&ta);
	if (ret < 0) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		free(p);
		return ret;
	}
	p->running = true;
	t->poll = p;
	return 0;
}

/* Under mu, nothing asked: the keys of the flows with packets at the station. */
static unsigned int post(struct ts_tsqst_poll *p, const struct ts_tsqst *t)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->nflows; i++) {
		const struct ts_tsqst_flow *f = &t->flows[i];

		/* Only flows with packets at the station: their sockets are looked up, not dumped. */
		if (f->head < 0 || !t->sd[f->station])
			continue;
		p->key[n] = (struct poll_key){.family = f->family,
					      .station = f->station,
					      .sport = f->sport,
					      .dport = f->dport};
		memcpy(p->key[n].saddr, f->saddr, sizeof(f->saddr));
		memcpy(p->key[n].daddr, f->daddr, sizeof(f->daddr));
		n++;
	}
	p->nkey = n;
	if (n) {
		p->asked = true;
		pthread_cond_signal(&p->cv);
	}
	return n;
}

bool ts_tsqst_poll_turn(struct ts_tsqst *t, ts_ns_t now, ts_tsqst_apply_fn apply)
{
	struct ts_tsqst_poll *p = t->poll;
	bool took = false;
	unsigned int i;
	int ret;

	if (!p) {
		if (t->poll_err || now < t->next_poll)
			return false;
		ret = poll_start(t);
		if (ret < 0) {
			t->poll_err = ret;
			return false;
		}
		p = t->poll;
	}
	if (pthread_mutex_trylock(&p->mu) != 0)
		return false;
	if (p->done) {
		for (i = 0; i < p->nres; i++)
			apply(t, &p->res[i], now);
		if (p->err && !t->poll_err)
			t->poll_err = p->err;
		p->done = false;
		took = true;
	}
	if (now >= t->next_poll) {
		if (p->asked)
			t->polls_skipped++;
		else if (post(p, t))
			t->polls++;
		t->next_poll = now + TS_TSQST_POLL_NS;
	}
	pthread_mutex_unlock(&p->mu);
	return took;
}

void ts_tsqst_poll_stop(struct ts_tsqst *t)
{
	struct ts_tsqst_poll *p = t->poll;

	if (!p)
		return;
	if (p->running) {
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->th, NULL);
	}
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
	t->poll = NULL;
}

/* SPDX-License-Identifier: MIT */
/* Socket samples taken by a thread, handed to the loop without blocking it (run/sampler.h). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/clock.h"
#include "run/sampler.h"

/* The thread needs little: the dump's 64 KiB buffer is on the heap (net/sockdiag.c). A small
 * stack also keeps what mlockall(MCL_FUTURE) would pin small. */
#define SAMPLER_STACK (256 * 1024)

struct ts_sampler {
	ts_sampler_dump_fn dump;
	void *dump_ctx;
	ts_ns_t next, interval;
	size_t cap;
	cpu_set_t cpus; /* where the thread runs; empty: where its creator did */
	pthread_t th;
	bool running;
	/* Under mu: */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, full;
	struct ts_sampler_batch *mail; /* finished, for the loop when full */
	struct ts_sampler_counts counts;
	/* The thread's own: */
	struct ts_sampler_batch *work;
	struct ts_sampler_batch batch[2];
};

static void collect(void *ctx, const struct ts_sockstat *st)
{
	struct ts_sampler *s = ctx;
	struct ts_sampler_batch *b = s->work;

	if (b->n < s->cap)
		b->st[b->n++] = *st;
	else
		b->over++;
}

/* Under mu: wait until the next sample is due or stop is asked; false on stop. */
static bool wait_due(struct ts_sampler *s)
{
	struct timespec ts;

	while (!s->stop && ts_clock_now() < s->next) {
		ts.tv_sec = s->next / TS_NSEC_PER_SEC;
		ts.tv_nsec = s->next % TS_NSEC_PER_SEC;
		pthread_cond_timedwait(&s->cv, &s->mu, &ts);
	}
	return !s->stop;
}

static void advance(struct ts_sampler *s, ts_ns_t now)
{
	while (s->next <= now)
		s->next += s->interval;
}

static void *sampler_main(void *arg)
{
	struct ts_sampler *s = arg;
	struct sched_param normal = {0};
	struct ts_sampler_batch *b;
	ts_ns_t now;
	int ret;

	/*
	 * The loop's thread may run real-time; a dump is long kernel work that
	 * must never compete with it, whatever this thread inherited.
	 */
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
	/* Nor on the CPU of a loop pinned to one (run/cpupin.h): a dump cannot be preempted. */
	if (CPU_COUNT(&s->cpus) > 0)
		pthread_setaffinity_np(pthread_self(), sizeof(s->cpus), &s->cpus);
	pthread_mutex_lock(&s->mu);
	while (wait_due(s)) {
		now = ts_clock_now();
		advance(s, now);
		if (s->full) {
			/* The loop has not taken the last one: no point in a dump it cannot take. */
			s->counts.skipped++;
			continue;
		}
		pthread_mutex_unlock(&s->mu);
		b = s->work;
		b->t = now;
		b->n = b->over = 0;
		ret = s->dump(s->dump_ctx, collect, s);
		b->ret = ret;
		pthread_mutex_lock(&s->mu);
		s->counts.samples++;
		s->counts.truncated += b->over > 0;
		if (ret < 0 && !s->counts.err)
			s->counts.err = ret;
		s->work = s->mail;
		s->mail = b;
		s->full = true;
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

static void sampler_destroy(struct ts_sampler *s)
{
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s->batch[0].st);
	free(s->batch[1].st);
	free(s);
}

int ts_sampler_start(struct ts_sampler **out, ts_sampler_dump_fn dump, void *dump_ctx,
		     ts_ns_t first, ts_ns_t interval, size_t cap, const cpu_set_t *cpus,
		     struct ts_err *err)
{
	struct ts_sampler *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;
	pthread_attr_t ta;
	int ret = -ENOMEM;

	*out = NULL;
	if (!s) {
		ts_err_set(err, "socket sampler: out of memory");
		return ret;
	}
	s->dump = dump;
	s->dump_ctx = dump_ctx;
	s->next = first;
	s->interval = interval > 0 ? interval : 1;
	s->cap = cap;
	if (cpus)
		s->cpus = *cpus; /* else left empty by calloc */
	s->batch[0].st = calloc(cap ? cap : 1, sizeof(struct ts_sockstat));
	s->batch[1].st = calloc(cap ? cap : 1, sizeof(struct ts_sockstat));
	s->work = &s->batch[0];
	s->mail = &s->batch[1];
	pthread_mutex_init(&s->mu, NULL);
	/* The deadlines are CLOCK_MONOTONIC, as the loop's. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (!s->batch[0].st || !s->batch[1].st) {
		ts_err_set(err, "socket sampler: out of memory for %zu sockets", cap);
		goto fail;
	}
	pthread_attr_init(&ta);
	pthread_attr_setstacksize(&ta, SAMPLER_STACK);
	ret = -pthread_create(&s->th, &ta, sampler_main, s);
	pthread_attr_destroy(&ta);
	if (ret < 0) {
		ts_err_set(err, "socket sampler: cannot start its thread: %s", strerror(-ret));
		goto fail;
	}
	s->running = true;
	*out = s;
	return 0;
fail:
	sampler_destroy(s);
	return ret;
}

bool ts_sampler_take(struct ts_sampler *s, void (*fn)(void *ctx, const struct ts_sampler_batch *b),
		     void *ctx)
{
	bool took = false;

	if (!s || pthread_mutex_trylock(&s->mu) != 0)
		return false;
	if (s->full) {
		fn(ctx, s->mail);
		s->full = false;
		took = true;
	}
	pthread_mutex_unlock(&s->mu);
	return took;
}

void ts_sampler_stop(struct ts_sampler *s)
{
	if (!s || !s->running)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->th, NULL);
	s->running = false;
}

struct ts_sampler_counts ts_sampler_counts(struct ts_sampler *s)
{
	struct ts_sampler_counts c;

	pthread_mutex_lock(&s->mu);
	c = s->counts;
	pthread_mutex_unlock(&s->mu);
	return c;
}

void ts_sampler_free(struct ts_sampler *s)
{
	if (!s)
		return;
	ts_sampler_stop(s);
	sampler_destroy(s);
}

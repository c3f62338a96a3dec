/* SPDX-License-Identifier: MIT */
/* The live status line of exp run (live.h). */
#include <signal.h>
#include <time.h>

#include "campaign/live.h"
#include "campaign/progress.h"
#include "io/clock.h"

void ts_exp_live_init(struct ts_exp_live *l, FILE *out, bool live, ts_ns_t planned)
{
	*l = (struct ts_exp_live){.out = out, .live = live, .planned = planned};
	pthread_mutex_init(&l->lock, NULL);
}

ts_ns_t ts_exp_live_planned(const struct ts_exp_run *run)
{
	return run->length + 2 * run->delay + 3 * TS_NSEC_PER_SEC;
}

/* The line for now; the caller holds the lock. */
static void draw(struct ts_exp_live *l)
{
	char line[512];
	ts_ns_t now = ts_clock_now();

	if (!l->run)
		return;
	ts_exp_progress_live(
		line, sizeof(line), l->pos, l->total, l->run, now - l->start,
		ts_exp_eta(l->done, l->total, now - l->start, now - l->run_start, l->planned));
	fprintf(l->out, "\r\033[K%s", line);
	fflush(l->out);
}

void ts_exp_live_erase(struct ts_exp_live *l)
{
	if (l->live) {
		fputs("\r\033[K", l->out);
		fflush(l->out);
	}
}

/* The line is redrawn once a second while the executor works. */
static void *loop(void *arg)
{
	struct ts_exp_live *l = arg;
	struct timespec tick = {1, 0};
	sigset_t stop;

	/*
	 * A stop signal must reach the thread that runs the campaign: a run in a guest blocks it
	 * there and waits for it on a signalfd, which a signal taken by this thread never
	 * reaches (the guest would run on to its end).
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	for (;;) {
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&l->lock);
		if (l->stop) {
			pthread_mutex_unlock(&l->lock);
			return NULL;
		}
		draw(l);
		pthread_mutex_unlock(&l->lock);
	}
}

void ts_exp_live_start(struct ts_exp_live *l, size_t total)
{
	l->total = total;
	l->start = ts_clock_now();
	if (l->live && pthread_create(&l->thread, NULL, loop, l) == 0)
		l->thread_up = true;
}

void ts_exp_live_run_start(struct ts_exp_live *l, const struct ts_exp_run *run, size_t pos)
{
	pthread_mutex_lock(&l->lock);
	l->run = run;
	l->pos = pos;
	l->run_start = ts_clock_now();
	if (l->live)
		draw(l);
	pthread_mutex_unlock(&l->lock);
}

void ts_exp_live_run_end(struct ts_exp_live *l)
{
	pthread_mutex_lock(&l->lock);
	l->run = NULL;
	l->done++;
}

void ts_exp_live_unlock(struct ts_exp_live *l)
{
	pthread_mutex_unlock(&l->lock);
}

void ts_exp_live_stop(struct ts_exp_live *l)
{
	if (l->thread_up) {
		pthread_mutex_lock(&l->lock);
		l->stop = true;
		pthread_mutex_unlock(&l->lock);
		pthread_join(l->thread, NULL);
		l->thread_up = false;
	}
	ts_exp_live_erase(l);
}

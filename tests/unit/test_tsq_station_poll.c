/* SPDX-License-Identifier: MIT */
/*
 * The station's socket reads made by a thread (src/run/tsq_station_poll.c)
 * with a made-up lookup: only the flows with packets at the station are
 * read, their answers act at the loop's time of the turn that takes them,
 * a poll due while the thread still answers is skipped (counted), and the
 * loop never waits, even while a lookup sleeps on a socket's lock (here:
 * until the test lets it go). The waits below are bounded polls, 5 s at
 * most, for the thread's answer; none is a sleep that hopes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "run/tsq_station_priv.h"
#include "tsu.h"

#define MS TS_NSEC_PER_MSEC

/* The made-up sock_diag: each lookup waits while @hold (the sender holds the socket's lock). */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool hold;
	unsigned calls;
	int ret; /* < 0: every lookup fails with it */
} fk = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0, 0};

static int fake_lookup(struct ts_sockdiag *sd, int family, const void *laddr, uint16_t lport,
		       const void *raddr, uint16_t rport, ts_sockdiag_fn cb, void *ctx)
{
	struct ts_sockstat st;

	(void)sd;
	(void)laddr;
	(void)raddr;
	pthread_mutex_lock(&fk.mu);
	fk.calls++;
	pthread_cond_broadcast(&fk.cv);
	while (fk.hold)
		pthread_cond_wait(&fk.cv, &fk.mu);
	pthread_mutex_unlock(&fk.mu);
	if (fk.ret < 0)
		return fk.ret;
	memset(&st, 0, sizeof(st));
	st.family = family;
	st.sport = lport;
	st.dport = rport;
	st.have_info = true;
	st.info.tcpi_pacing_rate = 1000ull * lport; /* bytes/s, told apart by port */
	cb(ctx, &st);
	return 1;
}

static void set_hold(bool hold)
{
	pthread_mutex_lock(&fk.mu);
	fk.hold = hold;
	pthread_cond_broadcast(&fk.cv);
	pthread_mutex_unlock(&fk.mu);
}

/* Until the thread made @n lookups (true), or 5 s passed (false). */
static bool wait_calls(unsigned n)
{
	struct timespec ts;
	bool ok;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 5;
	pthread_mutex_lock(&fk.mu);
	while (fk.calls < n)
		if (pthread_cond_timedwait(&fk.cv, &fk.mu, &ts) == ETIMEDOUT)
			break;
	ok = fk.calls >= n;
	pthread_mutex_unlock(&fk.mu);
	return ok;
}

static struct {
	unsigned n;
	uint16_t sport[8];
	uint64_t rate[8];
	ts_ns_t now[8];
} got;

static void apply(struct ts_tsqst *t, const struct ts_sockstat *st, ts_ns_t now)
{
	(void)t;
	if (got.n < 8) {
		got.sport[got.n] = st->sport;
		got.rate[got.n] = st->info.tcpi_pacing_rate;
		got.now[got.n] = now;
	}
	got.n++;
}

/* Turns at @now until answers were taken (true), or 5 s passed (false). */
static bool turn_until_taken(struct ts_tsqst *t, ts_ns_t now)
{
	struct timespec ms = {0, 1000000};
	int i;

	for (i = 0; i < 5000; i++) {
		if (ts_tsqst_poll_turn(t, now, apply))
			return true;
		nanosleep(&ms, NULL);
	}
	return false;
}

/* Three flows of station 0, ports 40000-40002; the third has no packets at the station. */
static struct ts_tsqst *make(void)
{
	struct ts_tsqst *t = calloc(1, sizeof(*t));
	unsigned i;

	if (!t)
		return NULL;
	t->lookup = fake_lookup;
	t->sd[0] = (struct ts_sockdiag *)&fk; /* never opened: the made-up lookup ignores it */
	t->nsta = 1;
	for (i = 0; i < 3; i++) {
		t->flows[i].family = AF_INET;
		t->flows[i].sport = (uint16_t)(40000 + i);
		t->flows[i].dport = 5201;
		t->flows[i].head = i < 2 ? 0 : -1;
	}
	t->nflows = 3;
	memset(&got, 0, sizeof(got));
	fk.calls = 0;
	fk.ret = 0;
	fk.hold = false;
	return t;
}

static void drop(struct ts_tsqst *t)
{
	set_hold(false);
	ts_tsqst_poll_stop(t);
	CU_ASSERT_PTR_NULL(t->poll);
	free(t);
}

/* The first turn asks; a later one applies both answers at its own time, in the flows' order. */
static void test_reads(void)
{
	struct ts_tsqst *t = make();

	CU_ASSERT_FALSE(ts_tsqst_poll_turn(t, 0, apply));
	TSU_EQ(t->polls, 1);
	CU_ASSERT_TRUE(turn_until_taken(t, MS / 2));
	TSU_EQ(fk.calls, 2); /* the flow with nothing at the station was not read */
	TSU_EQ(got.n, 2);
	TSU_EQ(got.sport[0], 40000);
	TSU_EQ(got.sport[1], 40001);
	TSU_EQ(got.rate[1], 40001000);
	TSU_EQ(got.now[0], MS / 2);
	TSU_EQ(t->next_poll, 1 * MS);
	/* Taken once: nothing more until the next poll's answers. */
	CU_ASSERT_FALSE(ts_tsqst_poll_turn(t, MS / 2, apply));
	TSU_EQ(got.n, 2);
	TSU_EQ(t->polls_skipped, 0);
	TSU_EQ(t->poll_err, 0);
	drop(t);
}

/*
 * A lookup sleeps (the socket's lock): the loop's turns return at once,
 * and the polls due meanwhile are skipped, not queued; the answer comes
 * when the lookup ends, and the next poll asks again.
 */
static void test_never_waits(void)
{
	struct ts_tsqst *t = make();

	set_hold(true);
	CU_ASSERT_FALSE(ts_tsqst_poll_turn(t, 0, apply));
	CU_ASSERT_TRUE(wait_calls(1));
	CU_ASSERT_FALSE(ts_tsqst_poll_turn(t, 1 * MS, apply));
	CU_ASSERT_FALSE(ts_tsqst_poll_turn(t, 2 * MS, apply));
	TSU_EQ(t->polls, 1);
	TSU_EQ(t->polls_skipped, 2);
	TSU_EQ(got.n, 0);
	set_hold(false);
	CU_ASSERT_TRUE(turn_until_taken(t, 2 * MS + 1));
	TSU_EQ(got.n, 2);
	TSU_EQ(got.now[1], 2 * MS + 1);
	/* Due again at 3 ms (the last poll, at 2 ms, + 1 ms): asked anew. */
	CU_ASSERT_FALSE(ts_tsqst_poll_turn(t, 3 * MS, apply));
	TSU_EQ(t->polls, 2);
	CU_ASSERT_TRUE(wait_calls(4));
	drop(t);
}

/* A failed lookup: nothing applied, its errno kept for the summary's warning. */
static void test_error(void)
{
	struct ts_tsqst *t = make();

	fk.ret = -EIO;
	CU_ASSERT_FALSE(ts_tsqst_poll_turn(t, 0, apply));
	CU_ASSERT_TRUE(turn_until_taken(t, 1));
	TSU_EQ(got.n, 0);
	TSU_EQ(t->poll_err, -EIO);
	drop(t);
}

/* No flow with packets at the station: nothing is asked, nothing counted. */
static void test_nothing_to_read(void)
{
	struct ts_tsqst *t = make();

	t->flows[0].head = t->flows[1].head = -1;
	CU_ASSERT_FALSE(ts_tsqst_poll_turn(t, 0, apply));
	TSU_EQ(t->polls, 0);
	TSU_EQ(t->polls_skipped, 0);
	TSU_EQ(t->next_poll, 1 * MS);
	drop(t);
	TSU_EQ(fk.calls, 0);
}

static const struct tsu_test tests[] = {
	{"answers of the flows with packets, at the taking turn's time", test_reads},
	{"a sleeping lookup: the loop does not wait, due polls skipped", test_never_waits},
	{"a failed lookup: nothing applied, the errno kept", test_error},
	{"no flow with packets: nothing asked", test_nothing_to_read},
};

TSU_MAIN("tsq_station_poll", tests)

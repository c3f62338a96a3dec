/* SPDX-License-Identifier: MIT */
/*
 * Queue disciplines (q_fifo.c, q_codel.c, q_pie.c) driven by hand with
 * made-up times: which packets leave, which are dropped, when and why.
 * Expected CoDel drop times and PIE probabilities are recomputed here from
 * the RFC formulas, not copied from a run.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "model/q_pie.h"
#include "tasshape/qdisc.h"
#include "tsu.h"

#define MS  TS_NSEC_PER_MSEC
#define SEC TS_NSEC_PER_SEC

#define REC_MAX 4096

/* Every drop the queue reports, in order. */
static struct {
	size_t n;
	uint32_t id[REC_MAX];
	ts_ns_t t[REC_MAX];
	enum ts_drop_cause cause[REC_MAX];
} rec;

static struct ts_pool pool;
static uint32_t next_id;

static void rec_drop(void *ctx, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t now)
{
	(void)ctx;
	if (rec.n < REC_MAX) {
		rec.id[rec.n] = p->id;
		rec.t[rec.n] = now;
		rec.cause[rec.n] = cause;
	}
	rec.n++;
	ts_pool_put(&pool, p);
}

static void setup(void)
{
	memset(&rec, 0, sizeof(rec));
	next_id = 0;
	CU_ASSERT_EQUAL_FATAL(ts_pool_init(&pool, 20000), 0);
}

/* Destroy @q (what is left is dropped as SHUTDOWN) and check nothing leaked. */
static void teardown(struct ts_qdisc *q, ts_ns_t now)
{
	ts_qdisc_destroy(q, TS_DROP_SHUTDOWN, now);
	TSU_EQ(pool.used, 0);
	ts_pool_fini(&pool);
}

static struct ts_qdisc *mk(const char *spec, uint64_t seed)
{
	struct ts_err err = {{0}};
	struct ts_qdisc *q = NULL;
	int ret = ts_qdisc_create(&q, spec, seed, rec_drop, NULL, &err);

	if (ret)
		fprintf(stderr, "\n  %s: %s\n", spec, err.msg);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	return q;
}

static void enq(struct ts_qdisc *q, uint32_t id, uint32_t len, ts_ns_t now)
{
	struct ts_pkt *p = ts_pool_get(&pool);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->id = id;
	p->len = len;
	p->segs = 1;
	q->ops->enqueue(q, p, now);
}

/* Dequeue and give the descriptor back; returns its id or -1 when empty. */
static long deq(struct ts_qdisc *q, ts_ns_t now)
{
	struct ts_pkt *p = q->ops->dequeue(q, now);
	long id;

	if (!p)
		return -1;
	id = p->id;
	ts_pool_put(&pool, p);
	return id;
}

/* ---- FIFO queues ---- */

static void test_droptail_packets(void)
{
	struct ts_qdisc *q;
	uint32_t i;

	setup();
	q = mk("droptail:packets=3", 1);
	for (i = 1; i <= 5; i++)
		enq(q, i, 1000, i * MS);
	/* Room for 3: arrivals 4 and 5 find it full. */
	TSU_EQ(rec.n, 2);
	TSU_EQ(rec.id[0], 4);
	TSU_EQ(rec.id[1], 5);
	TSU_EQ(rec.cause[0], TS_DROP_OVERLIMIT);
	TSU_EQ(rec.cause[1], TS_DROP_OVERLIMIT);
	TSU_EQ(rec.t[1], 5 * MS);
	TSU_EQ(ts_qdisc_pkts(q), 3);
	TSU_EQ(deq(q, 6 * MS), 1);
	TSU_EQ(deq(q, 6 * MS), 2);
	TSU_EQ(deq(q, 6 * MS), 3);
	TSU_EQ(deq(q, 6 * MS), -1);
	teardown(q, 7 * MS);
}

/* A GSO unit of n segments queues as n packets: droptail, drophead, CoDel and PIE alike. */
static void enq_segs(struct ts_qdisc *q, uint32_t id, uint16_t segs, ts_ns_t now)
{
	struct ts_pkt *p = ts_pool_get(&pool);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->id = id;
	p->len = 1500u * segs;
	p->segs = segs;
	q->ops->enqueue(q, p, now);
}

static void test_packets_count_segments(void)
{
	static const char *const specs[] = {"droptail:packets=10", "codel:packets=10",
					    "pie:packets=10"};
	struct ts_qdisc *q;
	size_t k;

	for (k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		setup();
		q = mk(specs[k], 1);
		/* 4 + 4 segments fit in 10; the third unit's 4 would make 12: dropped. */
		enq_segs(q, 1, 4, 1 * MS);
		enq_segs(q, 2, 4, 2 * MS);
		enq_segs(q, 3, 4, 3 * MS);
		TSU_EQ(rec.n, 1);
		TSU_EQ(rec.id[0], 3);
		/* 2 segments still fit (10), one more plain packet does not. */
		enq_segs(q, 4, 2, 4 * MS);
		enq_segs(q, 5, 1, 5 * MS);
		TSU_EQ(rec.n, 2);
		TSU_EQ(rec.id[1], 5);
		TSU_EQ(ts_qdisc_pkts(q), 3);
		TSU_EQ(q->fifo.segs, 10);
		teardown(q, 6 * MS);
	}
	/* drophead makes room for a 4-segment unit by dropping the oldest units. */
	setup();
	q = mk("drophead:packets=10", 1);
	enq_segs(q, 1, 4, 1 * MS);
	enq_segs(q, 2, 4, 2 * MS);
	enq_segs(q, 3, 4, 3 * MS);
	TSU_EQ(rec.n, 1);
	TSU_EQ(rec.id[0], 1);
	TSU_EQ(rec.cause[0], TS_DROP_HEAD);
	TSU_EQ(q->fifo.segs, 8);
	TSU_EQ(deq(q, 4 * MS), 2);
	TSU_EQ(q->fifo.segs, 4);
	teardown(q, 5 * MS);
}

static void test_droptail_bytes(void)
{
	struct ts_qdisc *q;

	setup();
	q = mk("droptail:bytes=3000", 1);
	enq(q, 1, 1000, 0);
	enq(q, 2, 1500, 0); /* 2500 */
	enq(q, 3, 600, 0);  /* 3100 > 3000: dropped */
	enq(q, 4, 400, 0);  /* 2900 */
	enq(q, 5, 100, 0);  /* 3000: exactly the limit fits */
	enq(q, 6, 1, 0);    /* 3001: dropped */
	TSU_EQ(rec.n, 2);
	TSU_EQ(rec.id[0], 3);
	TSU_EQ(rec.id[1], 6);
	TSU_EQ(rec.cause[0], TS_DROP_OVERLIMIT);
	TSU_EQ(ts_qdisc_bytes(q), 3000);
	TSU_EQ(ts_qdisc_pkts(q), 4);
	teardown(q, MS);
	/* The 4 still queued went to the callback at destroy. */
	TSU_EQ(rec.n, 6);
	TSU_EQ(rec.cause[5], TS_DROP_SHUTDOWN);
}

static void test_drophead_packets(void)
{
	struct ts_qdisc *q;
	uint32_t i;

	setup();
	q = mk("drophead:packets=3", 1);
	for (i = 1; i <= 5; i++)
		enq(q, i, 1000, i * MS);
	/* Arrival 4 pushes out 1, arrival 5 pushes out 2. */
	TSU_EQ(rec.n, 2);
	TSU_EQ(rec.id[0], 1);
	TSU_EQ(rec.id[1], 2);
	TSU_EQ(rec.cause[0], TS_DROP_HEAD);
	TSU_EQ(rec.cause[1], TS_DROP_HEAD);
	TSU_EQ(rec.t[0], 4 * MS);
	TSU_EQ(rec.t[1], 5 * MS);
	TSU_EQ(deq(q, 6 * MS), 3);
	TSU_EQ(deq(q, 6 * MS), 4);
	TSU_EQ(deq(q, 6 * MS), 5);
	TSU_EQ(deq(q, 6 * MS), -1);
	teardown(q, 7 * MS);
}

static void test_drophead_bytes(void)
{
	struct ts_qdisc *q;

	setup();
	q = mk("drophead:bytes=3000", 1);
	enq(q, 1, 1000, 0);
	enq(q, 2, 1000, 0);
	enq(q, 3, 1000, 0); /* 3000, full */
	enq(q, 4, 1500, 0); /* 4500: drop 1 (3500), drop 2 (2500), fits */
	enq(q, 5, 3001, 0); /* larger than the whole limit: refused, nothing pushed out */
	TSU_EQ(rec.n, 3);
	TSU_EQ(rec.id[0], 1);
	TSU_EQ(rec.id[1], 2);
	TSU_EQ(rec.cause[1], TS_DROP_HEAD);
	TSU_EQ(rec.id[2], 5);
	TSU_EQ(rec.cause[2], TS_DROP_OVERLIMIT);
	TSU_EQ(ts_qdisc_bytes(q), 1000 + 1500);
	TSU_EQ(deq(q, MS), 3);
	TSU_EQ(deq(q, MS), 4);
	teardown(q, MS);
}

static void test_infinite(void)
{
	struct ts_qdisc *q;
	uint32_t i;
	long id;
	int in_order = 1;

	setup();
	q = mk("infinite", 1);
	for (i = 0; i < 10000; i++)
		enq(q, i, 1500, i);
	TSU_EQ(rec.n, 0);
	TSU_EQ(ts_qdisc_pkts(q), 10000);
	TSU_EQ(ts_qdisc_bytes(q), 10000ULL * 1500);
	for (i = 0; i < 10000; i++) {
		id = deq(q, SEC);
		if (id != (long)i)
			in_order = 0;
	}
	CU_ASSERT(in_order);
	TSU_EQ(deq(q, SEC), -1);
	teardown(q, SEC);
}

/* ---- construction errors ---- */

static void expect_error(const char *spec, const char *needle)
{
	struct ts_err err = {{0}};
	struct ts_qdisc *q = NULL;
	int ret = ts_qdisc_create(&q, spec, 1, rec_drop, NULL, &err);

	TSU_EQ(ret, -EINVAL);
	CU_ASSERT_PTR_NULL(q);
	if (!strstr(err.msg, needle)) {
		fprintf(stderr, "\n  %s: message '%s' lacks '%s'\n", spec, err.msg, needle);
		CU_FAIL("error message");
	}
}

static void test_spec_errors(void)
{
	static const char *const good[] = {
		"codel",
		"codel:target=2ms,interval=50ms,bytes=64KB",
		"pie",
		"pie:target=20ms,tupdate=30ms,alpha=.25,beta=2.5,max_burst=0ms,packets=10",
		"pie:alpha=2",
		"pie:beta=001.250",
	};
	struct ts_err err;
	struct ts_qdisc *q;
	size_t i;

	expect_error("droptail:packets=3,foo=1", "unknown key 'foo'");
	expect_error("droptail", "needs a limit");
	expect_error("drophead:bytes=lots", "bytes");
	expect_error("infinite:packets=3", "unknown key 'packets'");
	expect_error("fifo:packets=3", "unknown queue 'fifo'");
	expect_error("codel:targt=5ms", "unknown key 'targt'");
	expect_error("codel:interval=0ms", "interval");
	expect_error("codel:target=5", "target");
	expect_error("codel:packets=0", "packets must be at least 1");
	expect_error("codel:bytes=0", "bytes must be at least 1");
	expect_error("pie:tupdate=0ms", "tupdate");
	expect_error("pie:target=0s", "target");
	expect_error("pie:qdelay_ref=15ms", "unknown key 'qdelay_ref'");
	expect_error("pie:alpha=1e3", "alpha");
	expect_error("pie:alpha=-0.1", "alpha");
	expect_error("pie:alpha=0x1", "alpha");
	expect_error("pie:alpha=.", "alpha");
	expect_error("pie:alpha=1.2.3", "alpha");
	expect_error("pie:beta=nan", "beta");
	expect_error("pie:beta=1.25x", "beta");
	expect_error("pie:beta=1234567890.1234567", "beta"); /* 17 digits */
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		q = NULL;
		memset(&err, 0, sizeof(err));
		TSU_EQ(ts_qdisc_create(&q, good[i], 1, rec_drop, NULL, &err), 0);
		ts_qdisc_destroy(q, TS_DROP_SHUTDOWN, 0);
	}
}

/* The AQM queues tail-drop at their limits; 1000 packets by default. */
static void test_aqm_limits(void)
{
	static const char *const names[] = {"codel", "pie"};
	char spec[64];
	struct ts_qdisc *q;
	uint32_t i;
	size_t k;

	for (k = 0; k < 2; k++) {
		setup();
		snprintf(spec, sizeof(spec), "%s:packets=3", names[k]);
		q = mk(spec, 1);
		for (i = 1; i <= 5; i++)
			enq(q, i, 1500, 0);
		TSU_EQ(rec.n, 2);
		TSU_EQ(rec.id[0], 4);
		TSU_EQ(rec.cause[1], TS_DROP_OVERLIMIT);
		teardown(q, 0);

		setup();
		snprintf(spec, sizeof(spec), "%s:bytes=4000", names[k]);
		q = mk(spec, 1);
		for (i = 1; i <= 4; i++)
			enq(q, i, 1500, 0); /* 1500, 3000, 4500 > 4000 dropped, 4500 dropped */
		TSU_EQ(rec.n, 2);
		TSU_EQ(rec.id[0], 3);
		TSU_EQ(ts_qdisc_bytes(q), 3000);
		teardown(q, 0);

		setup();
		q = mk(names[k], 1);
		for (i = 1; i <= 1001; i++)
			enq(q, i, 100, 0); /* 100 B each: only the packet limit can bite */
		TSU_EQ(rec.n, 1);
		TSU_EQ(rec.id[0], 1001);
		TSU_EQ(rec.cause[0], TS_DROP_OVERLIMIT);
		teardown(q, 0);
	}
}

/* ---- CoDel ---- */

/* Made-up start of the clock; nothing depends on its value. */
#define T0 (7 * SEC)

/* The first instant on the grid T0 + k * step at or after @t. */
static ts_ns_t grid_ceil(ts_ns_t t, ts_ns_t step)
{
	return T0 + (t - T0 + step - 1) / step * step;
}

/* interval / sqrt(count) rounded to the nearest ns, as q_codel.c documents. */
static ts_ns_t codel_gap(ts_ns_t interval, uint32_t count)
{
	return (ts_ns_t)llround((double)interval / sqrt((double)count));
}

/*
 * Constant overload from @from to @to (ms after T0, @to excluded): a
 * 1500-byte packet arrives every 1 ms and the link takes one every 2 ms,
 * the arrival first when both happen at once.
 */
static void codel_overload(struct ts_qdisc *q, ts_ns_t base, int from, int to)
{
	int t;

	for (t = from; t < to; t++) {
		enq(q, next_id++, 1500, base + t * MS);
		if (t > 0 && t % 2 == 0)
			CU_ASSERT(deq(q, base + t * MS) >= 0);
	}
}

/*
 * Default codel (target 5 ms, interval 100 ms) under constant overload.
 * Dequeue k (at 2k ms, k >= 1) takes packet k-1, enqueued at k-1 ms, so its
 * sojourn is 2k - (k-1) = k+1 ms, with k+1 packets (> 1 MTU) left behind.
 * The sojourn first reaches target at k = 4 (8 ms): first_above_time =
 * 8 + 100 = 108 ms, and the dequeue at 108 ms drops (count = 1,
 * drop_next = 108 + 100 = 208 ms). From then on drop n happens at the first
 * dequeue at or after drop_next, and drop_next += 100 ms / sqrt(count):
 * 208, then 208 + 70.710678 = 278.710678 (dequeue at 280), + 57.735027 =
 * 336.445705 (338), + 50 = 386.445705 (388), + 44.721360 (432), ...
 */
static void test_codel_overload_drop_times(void)
{
	ts_ns_t expect[10], drop_next;
	struct ts_qdisc *q;
	uint32_t count;
	size_t n;

	setup();
	q = mk("codel", 1);
	expect[0] = T0 + 108 * MS;
	drop_next = expect[0] + codel_gap(100 * MS, 1);
	for (n = 1; n < 10; n++) {
		expect[n] = grid_ceil(drop_next, 2 * MS);
		count = (uint32_t)n + 1; /* count after drop n */
		drop_next += codel_gap(100 * MS, count);
	}
	/* The hand-computed start of that sequence. */
	TSU_EQ(expect[1], T0 + 208 * MS);
	TSU_EQ(expect[2], T0 + 280 * MS);
	TSU_EQ(expect[3], T0 + 338 * MS);
	TSU_EQ(expect[4], T0 + 388 * MS);
	TSU_EQ(expect[5], T0 + 432 * MS);

	/* Run until just before the 11th drop is due (drop_next now). */
	codel_overload(q, T0, 0, (int)((drop_next - T0) / MS));
	TSU_EQ(rec.n, 10);
	for (n = 0; n < 10 && n < rec.n; n++) {
		TSU_EQ(rec.t[n], expect[n]);
		TSU_EQ(rec.cause[n], TS_DROP_CODEL);
	}
	/*
	 * The first drop is the head at 108 ms: without drops before, dequeue
	 * 54 takes packet 53. Each drop then costs one packet, so the head at
	 * the 2nd drop (dequeue 104 at 208 ms) is packet 103 + 1 = 104.
	 */
	TSU_EQ(rec.id[0], 53);
	TSU_EQ(rec.id[1], 104);
	teardown(q, drop_next);
}

/*
 * Re-entering the dropping state soon after leaving it resumes at
 * count = count - lastcount (RFC 8289 section 5). The first episode is the
 * one above, cut after its 5th drop at 388 ms (count 5, lastcount 1,
 * drop_next 386.445705 + 44.721360 = 431.167065 ms). At 390 ms the queue
 * is drained at once: no drop is due yet, and the last packets leave with
 * <= 1 MTU behind them, which ends the dropping state. The same overload
 * restarts at R = 400 ms, so the sojourn rule is met again at R + 108 ms;
 * that is within 16 intervals of drop_next, so count = 5 - 1 = 4 and the
 * next drop is due 100 / sqrt(4) = 50 ms later, not 100 ms.
 */
static void test_codel_reentry(void)
{
	ts_ns_t r = T0 + 400 * MS, e = r + 108 * MS, dn;
	struct ts_qdisc *q;

	setup();
	q = mk("codel", 1);
	codel_overload(q, T0, 0, 389);
	TSU_EQ(rec.n, 5);
	TSU_EQ(rec.t[4], T0 + 388 * MS);
	while (deq(q, T0 + 390 * MS) >= 0)
		;
	TSU_EQ(rec.n, 5);
	rec.n = 0;
	dn = e + codel_gap(100 * MS, 4) + codel_gap(100 * MS, 5);
	codel_overload(q, r, 0, (int)((dn - r) / MS) + 3);
	TSU_EQ(rec.n, 3);
	TSU_EQ(rec.t[0], e);
	TSU_EQ(rec.t[1], e + 50 * MS);
	/* e + 50 + 44.721360 = e + 94.72136 ms: the dequeue at e + 96 ms. */
	TSU_EQ(rec.t[2], grid_ceil(dn, 2 * MS));
	TSU_EQ(rec.t[2], e + 96 * MS);
	teardown(q, dn + 2 * MS);
}

/*
 * A standing queue whose sojourn stays below target: 3 packets queued at
 * T0, then each ms one arrives and one leaves. Dequeue k (k >= 1) takes
 * the packet enqueued 3 ms before (k - 3 ms; the 3 initial ones wait 1, 2,
 * 3 ms), 3 ms < 5 ms target, with 4500 bytes (> 1 MTU) behind it: 10 s,
 * no drop.
 */
static void test_codel_below_target(void)
{
	struct ts_qdisc *q;
	int t;

	setup();
	q = mk("codel", 1);
	for (t = 0; t < 3; t++)
		enq(q, next_id++, 1500, T0);
	for (t = 1; t <= 10000; t++) {
		enq(q, next_id++, 1500, T0 + t * MS);
		CU_ASSERT(deq(q, T0 + t * MS) >= 0);
	}
	TSU_EQ(rec.n, 0);
	TSU_EQ(ts_qdisc_pkts(q), 3);
	teardown(q, T0 + 10 * SEC);
}

/*
 * The MTU rule: a sojourn far above target never causes a drop while at
 * most one MTU (1500 B) stays behind the head. One packet alone waiting
 * 1 s each time; then two packets standing, each waiting 100 ms, 1500 B
 * left behind by each dequeue: 1000 dequeues, no drop. With a third
 * packet (3000 B behind) the same pattern drops: the dequeue at 100 ms
 * sets first_above_time = 200 ms, and the one at 200 ms drops.
 */
static void test_codel_mtu_rule(void)
{
	struct ts_qdisc *q;
	int k, extra;

	setup();
	q = mk("codel", 1);
	for (k = 0; k < 100; k++) {
		enq(q, next_id++, 1500, T0 + k * SEC);
		CU_ASSERT(deq(q, T0 + (k + 1) * SEC - 1) >= 0);
	}
	TSU_EQ(rec.n, 0);
	teardown(q, T0 + 100 * SEC);

	for (extra = 1; extra <= 2; extra++) {
		setup();
		q = mk("codel", 1);
		for (k = 0; k < extra; k++)
			enq(q, next_id++, 1500, T0);
		for (k = 1; k <= 1000; k++) {
			enq(q, next_id++, 1500, T0 + k * 100 * MS);
			deq(q, T0 + k * 100 * MS);
		}
		if (extra == 1) {
			TSU_EQ(rec.n, 0);
		} else {
			CU_ASSERT(rec.n > 0);
			TSU_EQ(rec.t[0], T0 + 200 * MS);
			TSU_EQ(rec.cause[0], TS_DROP_CODEL);
		}
		teardown(q, T0 + 101 * SEC);
	}
}

/* ---- PIE ---- */

/* The RFC 8033 section 4.2 autotuning divisor for a drop probability. */
static double pie_scale(double dp)
{
	if (dp < 0.000001)
		return 2048;
	if (dp < 0.00001)
		return 512;
	if (dp < 0.0001)
		return 128;
	if (dp < 0.001)
		return 32;
	if (dp < 0.01)
		return 8;
	if (dp < 0.1)
		return 2;
	return 1;
}

/*
 * A standing queue: one 1500-byte packet arrives each ms from T0 (ms 0),
 * and from ms @d on the link takes one per ms (after the arrival), so
 * without drops every packet waits exactly @d ms. Runs ms @from .. @to - 1.
 */
static void pie_standing(struct ts_qdisc *q, int d, int from, int to)
{
	int t;

	for (t = from; t < to; t++) {
		enq(q, next_id++, 1500, T0 + t * MS);
		if (t >= d)
			deq(q, T0 + t * MS);
	}
}

static void pie_get(struct ts_qdisc *q, struct ts_pie_state *s)
{
	ts_pie_state(q, s);
}

/*
 * Defaults: target 15 ms, tupdate 15 ms, alpha 0.125, beta 1.25; standing
 * delay 40 ms. The clock starts with the first call (T0), so updates fall
 * at T0 + 15, 30, 45, ... ms. The two first see no dequeue yet (delay 0,
 * drop_prob stays 0). The third (45 ms) sees qdelay 40 ms, qdelay_old 0:
 *   p = 0.125 * (0.040 - 0.015) + 1.25 * (0.040 - 0) = 0.053125,
 *   drop_prob 0 < 1e-6, so p / 2048: drop_prob = 2.593994140625e-05.
 * The fourth (60 ms): p = 0.125 * 0.025 + 0 = 0.003125, drop_prob in
 *   [1e-5, 1e-4), so / 128: drop_prob += 2.44140625e-05.
 */
static void test_pie_rises(void)
{
	struct ts_pie_state s;
	struct ts_qdisc *q;
	double prev, dp3;
	int k, rising = 1;

	setup();
	q = mk("pie", 1);
	pie_standing(q, 40, 0, 1);
	pie_get(q, &s);
	TSU_EQ(s.next_update, T0 + 15 * MS);
	pie_standing(q, 40, 1, 45);
	pie_get(q, &s);
	TSU_EQ(s.updates, 2);
	CU_ASSERT_EQUAL(s.drop_prob, 0.0);
	TSU_EQ(s.qdelay, 40 * MS);
	pie_standing(q, 40, 45, 46); /* runs the update due at 45 ms first */
	pie_get(q, &s);
	TSU_EQ(s.updates, 3);
	TSU_EQ(s.qdelay_old, 40 * MS);
	dp3 = (0.125 * (0.040 - 0.015) + 1.25 * (0.040 - 0)) / 2048;
	CU_ASSERT_DOUBLE_EQUAL(s.drop_prob, dp3, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(s.drop_prob, 2.593994140625e-05, 1e-15);
	pie_standing(q, 40, 46, 61);
	pie_get(q, &s);
	TSU_EQ(s.updates, 4);
	CU_ASSERT_DOUBLE_EQUAL(s.drop_prob, dp3 + 0.125 * (0.040 - 0.015) / 128, 1e-15);
	/* Still above target: it keeps rising, update after update, to 600 ms. */
	prev = s.drop_prob;
	for (k = 5; k <= 40; k++) {
		pie_standing(q, 40, (k - 1) * 15 + 1, k * 15 + 1);
		pie_get(q, &s);
		TSU_EQ(s.updates, (uint64_t)k);
		if (!(s.drop_prob > prev))
			rising = 0;
		prev = s.drop_prob;
	}
	CU_ASSERT(rising);
	CU_ASSERT(s.drop_prob > 0.001);
	teardown(q, T0 + SEC);
}

/*
 * Standing delay 100 ms until 600 ms, then the queue drains at once at
 * 600.5 ms: qdelay becomes 0. The next update (615 ms) has
 *   p = 0.125 * (0 - 0.015) + 1.25 * (0 - qdelay_old)
 * scaled by the current drop_prob's band, and no decay (qdelay_old != 0).
 * The one after (630 ms): p = 0.125 * (0 - 0.015) = -0.001875, scaled,
 * then * 0.98 since both samples are 0. After 1000 idle days drop_prob
 * is 0, all updates are accounted for, yet only a handful were computed.
 */
static void test_pie_decays(void)
{
	const ts_ns_t idle = 1000LL * 86400 * SEC;
	ts_ns_t now;
	struct ts_pie_state s;
	struct ts_qdisc *q;
	double dp0, dp1, p;
	ts_ns_t old0;

	setup();
	q = mk("pie", 1);
	pie_standing(q, 100, 0, 601);
	pie_get(q, &s);
	TSU_EQ(s.updates, 40); /* 600 / 15 */
	dp0 = s.drop_prob;
	old0 = s.qdelay_old;
	CU_ASSERT(dp0 > 0.1); /* high enough that the first step is not scaled */
	CU_ASSERT(old0 >= 90 * MS);
	/* Drain: the dequeue that empties the queue leaves qdelay 0, not its sojourn. */
	while (ts_qdisc_pkts(q) > 1)
		deq(q, T0 + 600 * MS + MS / 2);
	pie_get(q, &s);
	CU_ASSERT(s.qdelay > 0); /* the packet before the last waited about 1.5 ms */
	CU_ASSERT(deq(q, T0 + 600 * MS + MS / 2) >= 0);
	pie_get(q, &s);
	TSU_EQ(s.qdelay, 0);

	TSU_EQ(deq(q, T0 + 615 * MS), -1); /* an empty dequeue runs the update */
	pie_get(q, &s);
	p = (0.125 * (0 - 0.015) + 1.25 * (0 - (double)old0 / 1e9)) / pie_scale(dp0);
	dp1 = dp0 + p;
	if (dp1 < 0)
		dp1 = 0;
	CU_ASSERT_DOUBLE_EQUAL(s.drop_prob, dp1, 1e-12);
	TSU_EQ(s.qdelay_old, 0);

	TSU_EQ(deq(q, T0 + 630 * MS), -1);
	pie_get(q, &s);
	p = 0.125 * (0 - 0.015) / pie_scale(dp1);
	CU_ASSERT_DOUBLE_EQUAL(s.drop_prob, (dp1 + p) * 0.98, 1e-12);
	CU_ASSERT(s.drop_prob < dp1);

	now = T0 + 630 * MS + idle + 7 * MS;
	TSU_EQ(deq(q, now), -1);
	pie_get(q, &s);
	CU_ASSERT_EQUAL(s.drop_prob, 0.0);
	TSU_EQ(s.updates, (uint64_t)((now - T0) / (15 * MS)));
	TSU_EQ(s.next_update, T0 + (ts_ns_t)(s.updates + 1) * 15 * MS);
	CU_ASSERT(s.steps < 1000); /* 5.76e9 updates were due */
	TSU_EQ(s.burst_allowance, 0);
	/* Congestion is over: the next arrival restores the burst allowance. */
	enq(q, next_id++, 1500, now);
	pie_get(q, &s);
	TSU_EQ(s.burst_allowance, 150 * MS);
	teardown(q, now);
}

/*
 * Burst allowance: standing delay 100 ms, with a steep controller (alpha
 * 20, beta 200: 160 times the defaults) so that drop_prob passes 0.8 at
 * the second update that sees the delay (120 ms):
 *   105 ms: (20 * 0.085 + 200 * 0.1) / 2048 = 0.0106,
 *   120 ms: 0.0106 + 20 * 0.085 / 2 = 0.86.
 * Before the first dequeue (100 ms) drop_prob and both delays are 0, so
 * every arrival restores the allowance to 150 ms, the last time at 100 ms.
 * The updates at 105, 120, ..., 240 ms (10 of them) each take 15 ms off:
 * it reaches 0 at 240 ms. Until then no early drop; after it, drops. With
 * max_burst=0ms, the same arrivals between 120 and 240 ms are dropped.
 */
static void test_pie_burst(void)
{
	struct ts_pie_state s;
	struct ts_qdisc *q;
	size_t i, early = 0, later = 0;
	int k;

	setup();
	q = mk("pie:alpha=20,beta=200", 1);
	pie_standing(q, 100, 0, 101);
	pie_get(q, &s);
	TSU_EQ(s.burst_allowance, 150 * MS);
	for (k = 1; k <= 10; k++) {
		pie_standing(q, 100, 100 + (k - 1) * 15 + 1, 100 + k * 15 + 1);
		pie_get(q, &s);
		TSU_EQ(s.burst_allowance, (150 - 15 * k) * MS);
		if (k == 2)
			CU_ASSERT(s.drop_prob > 0.8);
	}
	pie_standing(q, 100, 251, 540);
	for (i = 0; i < rec.n; i++) {
		TSU_EQ(rec.cause[i], TS_DROP_PIE);
		if (rec.t[i] < T0 + 240 * MS)
			early++;
		else
			later++;
	}
	TSU_EQ(early, 0);
	CU_ASSERT(later > 50);
	teardown(q, T0 + 540 * MS);

	setup();
	q = mk("pie:alpha=20,beta=200,max_burst=0ms", 1);
	pie_standing(q, 100, 0, 240);
	/* 120 arrivals (120..239 ms) each dropped with probability >= 0.86. */
	CU_ASSERT(rec.n > 80);
	for (i = 0; i < rec.n; i++)
		CU_ASSERT(rec.t[i] >= T0 + 105 * MS);
	teardown(q, T0 + 240 * MS);
}

/* Record the PIE drops of 2 s of standing queue with @seed. */
static size_t pie_drops(uint64_t seed, uint32_t *ids, size_t max)
{
	struct ts_qdisc *q;
	size_t i, n;

	setup();
	q = mk("pie", seed);
	pie_standing(q, 100, 0, 2000);
	n = rec.n;
	for (i = 0; i < n && i < max; i++)
		ids[i] = rec.id[i];
	teardown(q, T0 + 2 * SEC);
	return n;
}

static void test_pie_seeded(void)
{
	static uint32_t a[REC_MAX], b[REC_MAX], c[REC_MAX];
	size_t na, nb, nc;

	na = pie_drops(42, a, REC_MAX);
	nb = pie_drops(42, b, REC_MAX);
	nc = pie_drops(43, c, REC_MAX);
	CU_ASSERT(na > 10);
	TSU_EQ(na, nb);
	CU_ASSERT(na <= REC_MAX && !memcmp(a, b, na * sizeof(a[0])));
	CU_ASSERT(na != nc || memcmp(a, c, na * sizeof(a[0])));
}

/* The name list comes from the ops table, in its order; ts_join truncates and terminates. */
static void test_names_from_table(void)
{
	char buf[128], small[12];
	size_t i;

	TSU_EQ(ts_qdisc_count(), 5);
	CU_ASSERT_STRING_EQUAL(ts_qdisc_names(buf, sizeof(buf)),
			       "droptail, drophead, codel, pie, infinite");
	for (i = 0; i < ts_qdisc_count(); i++) {
		CU_ASSERT_PTR_EQUAL(ts_qdisc_lookup(ts_qdisc_at(i)->name), ts_qdisc_at(i));
		CU_ASSERT(ts_qdisc_at(i)->help && ts_qdisc_at(i)->help[0]);
	}
	CU_ASSERT_PTR_NULL(ts_qdisc_at(5));
	CU_ASSERT_STRING_EQUAL(ts_qdisc_names(small, sizeof(small)), "droptail, d");
	expect_error("fifo", "expected one of: droptail, drophead, codel, pie, infinite");
}

static const struct tsu_test tests[] = {
	{"names from the table", test_names_from_table},
	{"droptail packets", test_droptail_packets},
	{"droptail bytes", test_droptail_bytes},
	{"packets= counts a GSO unit's segments", test_packets_count_segments},
	{"drophead packets", test_drophead_packets},
	{"drophead bytes", test_drophead_bytes},
	{"infinite", test_infinite},
	{"spec errors", test_spec_errors},
	{"aqm limits", test_aqm_limits},
	{"codel overload drop times", test_codel_overload_drop_times},
	{"codel re-entry count", test_codel_reentry},
	{"codel below target", test_codel_below_target},
	{"codel mtu rule", test_codel_mtu_rule},
	{"pie rises", test_pie_rises},
	{"pie decays", test_pie_decays},
	{"pie burst allowance", test_pie_burst},
	{"pie same seed", test_pie_seeded},
};

TSU_MAIN("qdisc", tests)

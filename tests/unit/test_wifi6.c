/* SPDX-License-Identifier: MIT */
/*
 * The Wi-Fi 6 MAC with made-up times (wifi6_mac.c, s_wifi6.c, link.c):
 * saturated throughput against the analytical formula (docs/wifi6-model.md), aggregate sizes,
 * the PPDU limit, collisions and retries, the shared medium, the
 * hybrid link and determinism.
 */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "fixture.h"
#include "tasshape/link.h"
#include "tasshape/wifi6.h"
#include "tsu.h"

#define US  TS_NSEC_PER_USEC
#define MS  TS_NSEC_PER_MSEC
#define SEC TS_NSEC_PER_SEC

static struct fx_sink sink_up, sink_down;
static struct ts_pool pool;

/* Every transmission the medium reports, in the order they end. */
#define TX_MAX 200000
static struct ts_wifi6_txop txlog[TX_MAX];
static size_t ntx;
static uint32_t cw_after[TX_MAX];
static struct ts_wifi6 *observed;

static void on_txop(void *ctx, const struct ts_wifi6_txop *tx)
{
	(void)ctx;
	if (ntx < TX_MAX) {
		txlog[ntx] = *tx;
		cw_after[ntx] = tx->who < 2 ? ts_wifi6_cw(observed, tx->who) : 0;
	}
	ntx++;
}

struct rig {
	struct ts_wifi6 *m;
	struct ts_dir up, down;
	bool has_up, has_down;
};

static void setup(void)
{
	memset(&sink_up, 0, sizeof(sink_up));
	memset(&sink_down, 0, sizeof(sink_down));
	CU_ASSERT_EQUAL_FATAL(ts_pool_init(&pool, 400000), 0);
	sink_up.pool = &pool;
	sink_down.pool = &pool;
	ntx = 0;
}

static struct ts_wifi6 *make_mac(const char *s, uint64_t seed)
{
	struct ts_wifi6_conf c;
	struct ts_err err = {{0}};
	struct ts_wifi6 *m = NULL;
	struct ts_spec spec;

	ts_wifi6_conf_init(&c);
	if (ts_spec_parse(&spec, s, &err) || ts_wifi6_conf_parse(&c, &spec, &err) ||
	    ts_wifi6_create(&m, &c, seed, &err))
		fprintf(stderr, "\n  %s: %s\n", s, err.msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	observed = m;
	ts_wifi6_set_observer(m, on_txop, NULL);
	return m;
}

static void build(struct rig *r, const char *spec, uint64_t seed, bool up, bool down,
		  const struct ts_trace *up_cap, const struct ts_trace *down_cap)
{
	struct ts_err err = {{0}};
	struct ts_dir_conf c = {
		.seed = 7, .place = TS_PLACE_NETWORK, .mac_queue = "droptail:packets=300000"};

	memset(r, 0, sizeof(*r));
	r->m = make_mac(spec, seed);
	c.wifi6 = r->m;
	if (up) {
		c.name = "uplink";
		c.trace = up_cap;
		c.wifi6_side = TS_WIFI6_UP;
		if (ts_dir_build(&r->up, &c, fx_release, fx_drop, &sink_up, &err))
			fprintf(stderr, "\n  build: %s\n", err.msg);
		r->has_up = true;
	}
	if (down) {
		c.name = "downlink";
		c.trace = down_cap;
		c.wifi6_side = TS_WIFI6_DOWN;
		if (ts_dir_build(&r->down, &c, fx_release, fx_drop, &sink_down, &err))
			fprintf(stderr, "\n  build: %s\n", err.msg);
		r->has_down = true;
	}
}

/* Where packets enter: the station's queue (sender pipe), the downlink's network pipe. */
static struct ts_pipe *up_in(struct rig *r)
{
	return &r->up.pipe[TS_PLACE_SENDER];
}

static struct ts_pipe *down_in(struct rig *r)
{
	return &r->down.pipe[TS_PLACE_NETWORK];
}

static void put(struct ts_pipe *pipe, uint32_t id, uint32_t len, ts_ns_t t)
{
	struct ts_pkt *p = ts_pool_get(&pool);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->len = len;
	p->segs = 1;
	ts_pipe_enqueue(pipe, p, t);
}

static void advance(struct rig *r, ts_ns_t t)
{
	if (r->has_up) {
		ts_pipe_advance(&r->up.pipe[TS_PLACE_SENDER], t);
		ts_pipe_advance(&r->up.pipe[TS_PLACE_NETWORK], t);
	}
	if (r->has_down)
		ts_pipe_advance(&r->down.pipe[TS_PLACE_NETWORK], t);
}

static void teardown(struct rig *r, ts_ns_t t)
{
	if (r->has_up)
		ts_dir_fini(&r->up, t);
	if (r->has_down)
		ts_dir_fini(&r->down, t);
	ts_wifi6_put(r->m);
	/* Every descriptor came back: the model lost nothing. */
	TSU_EQ(pool.used, 0);
	ts_pool_fini(&pool);
}

/*
 * The airtime formula of docs/wifi6-model.md, computed here from the constants: 80 MHz, 2 SS, MCS 11,
 * GI 0.8 us (N_DBPS 16333, T_sym 13.6 us), 1500-byte packets (S = 1544 B):
 *   T(N) = AIFS 43 + backoff + preamble 52 + ceil((16 + 8*N*1544 + 6) / 16333) * 13.6
 *          + SIFS 16 + BlockAck 40 us (a lone MPDU: an Ack, 28 us)
 */
static ts_ns_t formula_ns(uint32_t n, ts_ns_t backoff_ns)
{
	uint64_t bits = 16 + 8ull * n * 1544 + 6;
	uint64_t syms = (bits + 16333 - 1) / 16333;

	return 43 * US + backoff_ns + 52 * US + (ts_ns_t)syms * 13600 + 16 * US +
	       (n == 1 ? 28 : 40) * US;
}

/*
 * Saturated queue, no collisions, no beacons, a fixed backoff of 7 slots (63
 * us): every aggregate is exactly N frames and ends exactly k * T(N) after
 * the start. N = 1, answered by an Ack: 43 + 63 + 52 + 13.6 + 16 + 28 =
 * 215.6 us; N = 256: 194 symbols, 43 + 63 + 52 + 2638.4 + 56 = 2852.4 us.
 */
static void test_saturated_exact(void)
{
	static const uint32_t caps[] = {1, 4, 16, 64, 256};
	size_t i, j, k;

	TSU_EQ(formula_ns(1, 63 * US), 215600);
	TSU_EQ(formula_ns(256, 63 * US), 2852400);
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		uint32_t n = caps[i], txops = 20;
		ts_ns_t t_n = formula_ns(n, 7 * TS_WIFI6_SLOT_NS);
		const struct ts_wifi6_stats *st;
		char spec[64];
		struct rig r;

		setup();
		snprintf(spec, sizeof(spec), "wifi6:mpdus=%u,backoff=7,beacon=0", n);
		build(&r, spec, 1, true, false, NULL, NULL);
		/* One more aggregate's worth than is released: the queue never runs dry. */
		for (j = 0; j < (size_t)(txops + 1) * n; j++)
			put(up_in(&r), (uint32_t)j, 1500, 0);
		advance(&r, txops * t_n);
		TSU_EQ(sink_up.nrel, txops * n);
		for (k = 1; k <= txops; k++)
			for (j = 0; j < n; j++)
				TSU_EQ(sink_up.rel_t[(k - 1) * n + j], (ts_ns_t)k * t_n);
		/* The next access starts AIFS + 7 slots after the 20th BlockAck: not yet. */
		TSU_EQ(ts_pipe_next_deadline(up_in(&r)), txops * t_n + 106 * US);
		st = ts_wifi6_stats(r.m, TS_WIFI6_UP);
		TSU_EQ(st->txops, txops);
		TSU_EQ(st->n_hist[n], txops);
		TSU_EQ(st->airtime, (ts_ns_t)txops * (t_n - 43 * US - 63 * US));
		TSU_EQ(st->collisions + st->failures + st->retries + st->drops, 0);
		/* Throughput within 1% of N * 1500 * 8 / T(N) (exact here). */
		CU_ASSERT_DOUBLE_EQUAL((double)sink_up.rel_bytes * 8e9 / (double)(txops * t_n),
				       (double)n * 12000.0 * 1e9 / (double)t_n,
				       (double)n * 12000.0 * 1e9 / (double)t_n * 0.01);
		teardown(&r, txops * t_n);
	}
}

/*
 * The same with the random backoff of the model (uniform in [0, 15] slots,
 * mean 7.5 = 67.5 us): averaged over many TXOPs the throughput is within 1%
 * of the formula with the mean backoff (beacons take 0.3% of the airtime),
 * and of the cross-check values 54.5, 176, 486, 868, 1075 Mbit/s (N = 1 is
 * answered by an Ack: ns-3 gives 54.3).
 */
static void test_saturated_random(void)
{
	static const uint32_t caps[] = {1, 4, 16, 64, 256};
	static const uint32_t txops[] = {20000, 5000, 1500, 500, 200};
	static const double models[] = {54.5, 176, 486, 868, 1075};
	size_t i, j;

	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		uint32_t n = caps[i];
		ts_ns_t t_n = formula_ns(n, 67500), last;
		double want = (double)n * 12000.0 * 1e3 / (double)t_n, got; /* Mbit/s */
		char spec[64];
		struct rig r;

		setup();
		snprintf(spec, sizeof(spec), "wifi6:mpdus=%u", n);
		build(&r, spec, 42, true, false, NULL, NULL);
		for (j = 0; j < (size_t)(txops[i] + 1) * n; j++)
			put(up_in(&r), (uint32_t)j, 1500, 0);
		advance(&r, (ts_ns_t)txops[i] * t_n * 2);
		CU_ASSERT_FATAL(sink_up.nrel >= (size_t)txops[i] * n);
		/* Throughput of the first txops[i] aggregates. */
		last = sink_up.rel_t[(size_t)txops[i] * n - 1];
		got = (double)txops[i] * n * 12000.0 * 1e3 / (double)last;
		fprintf(stderr, "\n  N=%u: model %.2f Mbit/s, formula %.2f, quoted %.0f", n, got,
			want, models[i]);
		CU_ASSERT(got > want * 0.99 && got < want * 1.01);
		CU_ASSERT(got > models[i] * 0.99 && got < models[i] * 1.01);
		teardown(&r, last);
	}
}

/*
 * Three frames queued make one aggregate of exactly 3. Backoff 0: sent at AIFS
 * 43 us; 3 * 1544 B = 37078 bits = 3 symbols (40.8 us); released at
 * 43 + 52 + 40.8 + 16 + 40 = 191.8 us.
 */
static void test_three_frames(void)
{
	const struct ts_wifi6_stats *st;
	struct rig r;
	uint32_t j;

	setup();
	build(&r, "wifi6:backoff=0,beacon=0", 1, true, false, NULL, NULL);
	for (j = 0; j < 3; j++)
		put(up_in(&r), j, 1500, 0);
	TSU_EQ(ts_pipe_next_deadline(up_in(&r)), 0); /* the arrivals themselves */
	advance(&r, 0);
	TSU_EQ(ts_pipe_next_deadline(up_in(&r)), 43 * US);
	advance(&r, SEC);
	TSU_EQ(sink_up.nrel, 3);
	for (j = 0; j < 3; j++) {
		TSU_EQ(sink_up.rel_id[j], j);
		TSU_EQ(sink_up.rel_t[j], 191800);
	}
	st = ts_wifi6_stats(r.m, TS_WIFI6_UP);
	TSU_EQ(st->txops, 1);
	TSU_EQ(st->mpdus, 3);
	TSU_EQ(st->n_hist[3], 1);
	TSU_EQ(ntx, 1);
	TSU_EQ(txlog[0].start, 43 * US);
	TSU_EQ(txlog[0].end, 191800);
	TSU_EQ(ts_pipe_next_deadline(up_in(&r)), TS_NEVER);
	/* The stage counted them in and out; its queue delay is 43 us each. */
	TSU_EQ(r.up.mac->stats.pkts_out, 3);
	TSU_EQ(r.up.mac->stats.qdelay.count, 3);
	TSU_EQ(r.up.mac->stats.qdelay.max, 43 * US);
	teardown(&r, SEC);
}

/*
 * At 20 MHz, 1 SS, MCS 0 (117 bits per 13.6 us symbol, 44 us preamble) a
 * 5484 us PPDU has room for (5484 - 44) / 13.6 = 400 symbols = 46800 bits:
 * 22 + 8 * 1544 * N <= 46800 gives N <= 3.79, so 10 queued frames go as
 * 3 + 3 + 3 + 1. The first: 37078 bits = 317 symbols = 4311.2 us, released
 * at 43 + 44 + 4311.2 + 16 + 40 = 4454.2 us. At 1201 Mbit/s the same ten
 * frames are one aggregate.
 */
static void test_ppdu_limit(void)
{
	const struct ts_wifi6_stats *st;
	struct rig r;
	uint32_t j;

	setup();
	build(&r, "wifi6:bw=20,mcs=0,ss=1,backoff=0", 1, true, false, NULL, NULL);
	for (j = 0; j < 10; j++)
		put(up_in(&r), j, 1500, 0);
	advance(&r, SEC);
	st = ts_wifi6_stats(r.m, TS_WIFI6_UP);
	TSU_EQ(st->txops, 4);
	TSU_EQ(st->n_hist[3], 3);
	TSU_EQ(st->n_hist[1], 1);
	TSU_EQ(sink_up.nrel, 10);
	TSU_EQ(sink_up.rel_t[0], 4454200);
	TSU_EQ(sink_up.rel_t[2], 4454200);
	CU_ASSERT(sink_up.rel_t[3] > 4454200);
	/* No PPDU longer than the limit: data time of 3 frames plus the preamble. */
	TSU_EQ(txlog[0].end - txlog[0].start - 56 * US, 44 * US + 317 * 13600);
	CU_ASSERT(txlog[0].end - txlog[0].start - 56 * US <= 5484 * US);
	teardown(&r, SEC);

	setup();
	build(&r, "wifi6:backoff=0", 1, true, false, NULL, NULL);
	for (j = 0; j < 10; j++)
		put(up_in(&r), j, 1500, 0);
	advance(&r, SEC);
	TSU_EQ(ts_wifi6_stats(r.m, TS_WIFI6_UP)->n_hist[10], 1);
	teardown(&r, SEC);
}

/*
 * Every A-MPDU lost (collision=100%), retry limit 3, no BlockAckRequests
 * (bar=0), no beacons: the two frames go out 4 times, CW doubles 15 -> 31
 * -> 63 -> 127, then they are dropped (cause mac_retry) and CW is back at
 * 15. Backoff 0: each attempt takes AIFS 43 + 52 + 2 symbols (3088 B =
 * 24726 bits) 27.2 us, then the sender waits ba_timeout = SIFS 16 + slot 9 +
 * 20 = 45 us for the BlockAck: 167.2 us, so attempt k ends at k * 167.2 us.
 * The drop is at the end of the 4th PPDU, 4 * 167.2 - 45 = 623.8 us.
 */
static void test_collisions_retry_limit(void)
{
	const struct ts_wifi6_stats *st;
	struct rig r;
	size_t k;

	setup();
	build(&r, "wifi6:collision=100%,retry=3,backoff=0,bar=0,beacon=0", 1, true, false, NULL,
	      NULL);
	put(up_in(&r), 1, 1500, 0);
	put(up_in(&r), 2, 1500, 0);
	advance(&r, SEC);
	TSU_EQ(ntx, 4);
	for (k = 0; k < 4; k++) {
		CU_ASSERT(!txlog[k].ok);
		TSU_EQ(txlog[k].kind, TS_WIFI6_DATA);
		TSU_EQ(txlog[k].end, (ts_ns_t)(k + 1) * 167200);
		TSU_EQ(txlog[k].end - txlog[k].ppdu_end, 45 * US);
	}
	TSU_EQ(cw_after[0], 31);
	TSU_EQ(cw_after[1], 63);
	TSU_EQ(cw_after[2], 127);
	TSU_EQ(cw_after[3], 15);
	TSU_EQ(sink_up.nrel, 0);
	TSU_EQ(sink_up.ndrop, 2);
	TSU_EQ(sink_up.drop_cause[0], TS_DROP_MAC_RETRY);
	TSU_EQ(sink_up.drop_t[1], 623800);
	st = ts_wifi6_stats(r.m, TS_WIFI6_UP);
	TSU_EQ(st->failures, 4);
	TSU_EQ(st->retries, 6); /* 2 frames x 3 retransmissions */
	TSU_EQ(st->drops, 2);
	TSU_EQ(st->bars, 0);
	TSU_EQ(r.up.pipe[TS_PLACE_SENDER].stats.drops[TS_DROP_MAC_RETRY], 2);
	teardown(&r, SEC);

	/* CW stops at cwmax. */
	setup();
	build(&r, "wifi6:collision=100%,retry=5,cwmax=63,backoff=0,bar=0,beacon=0", 1, true, false,
	      NULL, NULL);
	put(up_in(&r), 1, 1500, 0);
	advance(&r, SEC);
	TSU_EQ(ntx, 6);
	TSU_EQ(cw_after[0], 31);
	TSU_EQ(cw_after[1], 63);
	TSU_EQ(cw_after[2], 63);
	TSU_EQ(cw_after[4], 63);
	TSU_EQ(cw_after[5], 15);
	teardown(&r, SEC);
}

/*
 * bar=1 (the default): after a missed BlockAck the next access sends a
 * BlockAckRequest (24 B at 24 Mbit/s: 32 us), answered by a BlockAck (40 us
 * after SIFS). With every exchange lost (collision=100%, retry 3, backoff 0):
 * the A-MPDU, then three BlockAckRequests, each counting as a failed
 * attempt of the two frames: DATA ends at 43 + 79.2 + 45 = 167.2 us, each
 * BAR 43 + 32 + 45 = 120 us later (287.2, 407.2, 527.2); the frames are
 * dropped at the end of the last BAR, 527.2 - 45 = 482.2 us. No frame was
 * sent twice.
 */
static void test_bar_lost(void)
{
	static const ts_ns_t ends[] = {167200, 287200, 407200, 527200};
	const struct ts_wifi6_stats *st;
	struct rig r;
	size_t k;

	setup();
	build(&r, "wifi6:collision=100%,retry=3,backoff=0,beacon=0", 1, true, false, NULL, NULL);
	put(up_in(&r), 1, 1500, 0);
	put(up_in(&r), 2, 1500, 0);
	advance(&r, SEC);
	TSU_EQ(ntx, 4);
	for (k = 0; k < 4; k++) {
		TSU_EQ(txlog[k].kind, k ? TS_WIFI6_BAR : TS_WIFI6_DATA);
		TSU_EQ(txlog[k].end, ends[k]);
		TSU_EQ(txlog[k].ppdu_end - txlog[k].start, k ? 32 * US : 79200);
	}
	TSU_EQ(cw_after[2], 127);
	TSU_EQ(cw_after[3], 15);
	TSU_EQ(sink_up.ndrop, 2);
	TSU_EQ(sink_up.drop_t[1], 482200);
	st = ts_wifi6_stats(r.m, TS_WIFI6_UP);
	TSU_EQ(st->accesses, 4);
	TSU_EQ(st->txops, 1);
	TSU_EQ(st->bars, 3);
	TSU_EQ(st->failures, 1);
	TSU_EQ(st->bars_lost, 3);
	TSU_EQ(st->retries, 0);
	TSU_EQ(st->airtime, 527200 - 4 * 43 * US);
	teardown(&r, SEC);
}

/*
 * BlockAckRequests that are answered: with 30% of the exchanges lost, every
 * lost A-MPDU of the station is followed by a BlockAckRequest at its next
 * access, and an answered one by the A-MPDU that resends its frames. Exact
 * durations: an answered BAR takes 32 + 16 + 40 us, an answered A-MPDU its
 * PPDU + 16 + 40, a lost exchange its PPDU + 45. Every frame is delivered,
 * in order; with bar=0 no BAR is sent.
 */
static void test_bar_answered(void)
{
	const struct ts_wifi6_txop *prev = NULL;
	uint64_t lost_data = 0, ok_bars = 0;
	struct rig r;
	uint32_t j;
	size_t i;

	setup();
	build(&r, "wifi6:mpdus=16,collision=30%,beacon=0,retry=30", 3, true, false, NULL, NULL);
	for (j = 0; j < 3000; j++)
		put(up_in(&r), j, 1500, 0);
	advance(&r, SEC);
	CU_ASSERT_FATAL(ntx < TX_MAX);
	for (i = 0; i < ntx; i++) {
		const struct ts_wifi6_txop *tx = &txlog[i];

		if (tx->kind == TS_WIFI6_BAR)
			TSU_EQ(tx->ppdu_end - tx->start, 32 * US);
		TSU_EQ(tx->end - tx->ppdu_end, tx->ok ? 56 * US : 45 * US);
		if (prev)
			TSU_EQ(tx->kind, prev->ok ? TS_WIFI6_DATA : TS_WIFI6_BAR);
		lost_data += tx->kind == TS_WIFI6_DATA && !tx->ok;
		ok_bars += tx->kind == TS_WIFI6_BAR && tx->ok;
		prev = tx;
	}
	CU_ASSERT(lost_data > 20);
	TSU_EQ(ok_bars, lost_data);
	TSU_EQ(ts_wifi6_stats(r.m, TS_WIFI6_UP)->bars + ts_wifi6_stats(r.m, TS_WIFI6_UP)->txops,
	       ntx);
	TSU_EQ(sink_up.nrel, 3000);
	for (i = 1; i < sink_up.nrel; i++)
		TSU_EQ(sink_up.rel_id[i], sink_up.rel_id[i - 1] + 1);
	teardown(&r, SEC);

	setup();
	build(&r, "wifi6:mpdus=16,collision=30%,beacon=0,bar=0,retry=30", 3, true, false, NULL,
	      NULL);
	for (j = 0; j < 3000; j++)
		put(up_in(&r), j, 1500, 0);
	advance(&r, SEC);
	for (i = 0; i < ntx; i++)
		TSU_EQ(txlog[i].kind, TS_WIFI6_DATA);
	TSU_EQ(ts_wifi6_stats(r.m, TS_WIFI6_UP)->bars, 0);
	TSU_EQ(sink_up.nrel, 3000);
	teardown(&r, SEC);
}

/*
 * A lone MPDU is answered by an Ack (14 B at 24 Mbit/s: 28 us) by default,
 * by a BlockAck (40 us) with lone_ack=0; two MPDUs always by a BlockAck.
 * Backoff 0: 43 + 52 + 13.6 + 16 = 124.6 us, + 28 or + 40.
 */
static void test_lone_ack(void)
{
	struct rig r;

	setup();
	build(&r, "wifi6:backoff=0,beacon=0", 1, true, false, NULL, NULL);
	put(up_in(&r), 1, 1500, 0);
	advance(&r, SEC);
	TSU_EQ(sink_up.rel_t[0], 152600);
	TSU_EQ(txlog[0].end - txlog[0].ppdu_end, 16 * US + 28 * US);
	teardown(&r, SEC);

	setup();
	build(&r, "wifi6:backoff=0,beacon=0,lone_ack=0", 1, true, false, NULL, NULL);
	put(up_in(&r), 1, 1500, 0);
	advance(&r, SEC);
	TSU_EQ(sink_up.rel_t[0], 164600);
	teardown(&r, SEC);

	setup();
	build(&r, "wifi6:backoff=0,beacon=0", 1, true, false, NULL, NULL);
	put(up_in(&r), 1, 1500, 0);
	put(up_in(&r), 2, 1500, 0);
	advance(&r, SEC);
	TSU_EQ(sink_up.rel_t[1], 124600 + 13600 + 40 * US); /* 3088 B: 2 symbols */
	teardown(&r, SEC);
}

/*
 * Beacons (beacon=102400us, 199 B at 6 Mbit/s: 20 + 68 symbols of 4 us =
 * 292 us), sent with PIFS (25 us) and no backoff. On an idle medium the
 * first is due at 102.4 ms, and starts at the first slot boundary at least
 * PIFS later: 25 us + ceil(102400 / 9) = 11378 slots = 102427 us; nine in
 * one second. Behind a saturated station (N = 256, backoff 7: T = 2852.4
 * us), the TBTT falls in the 36th exchange (ends 102686.4 us): the beacon
 * goes PIFS after it (102711.4 to 103003.4 us) and the station's next
 * A-MPDU AIFS + 7 slots after the beacon, at 103109.4 us.
 */
static void test_beacons(void)
{
	const struct ts_wifi6_medium_stats *ms;
	struct rig r;
	size_t i, k = 0;
	uint32_t j;

	setup();
	build(&r, "wifi6", 1, true, false, NULL, NULL);
	advance(&r, SEC);
	ms = ts_wifi6_medium_stats(r.m);
	TSU_EQ(ntx, 9);
	TSU_EQ(txlog[0].kind, TS_WIFI6_BEACON);
	TSU_EQ(txlog[0].who, 2);
	TSU_EQ(txlog[0].start, 102427 * US);
	TSU_EQ(txlog[0].end, 102719 * US);
	TSU_EQ(ms->beacons, 9);
	TSU_EQ(ms->beacon_airtime, 9 * 292 * US);
	teardown(&r, SEC);

	setup();
	build(&r, "wifi6:backoff=7", 1, true, false, NULL, NULL);
	for (j = 0; j < 40 * 256; j++)
		put(up_in(&r), j, 1500, 0);
	advance(&r, 110 * MS);
	for (i = 0; i < ntx && txlog[i].kind != TS_WIFI6_BEACON; i++)
		k++;
	TSU_EQ(k, 36);
	TSU_EQ(txlog[35].end, 102686400);
	TSU_EQ(txlog[36].start, 102711400);
	TSU_EQ(txlog[36].end, 103003400);
	TSU_EQ(txlog[37].start, 103109400);
	teardown(&r, 110 * MS);
}

/*
 * EIFS (eifs=1, the default): after a collision, those that heard it and
 * did not send resume counting EIFS - DIFS + AIFS = 16 + 44 (an Ack at 6
 * Mbit/s) + 43 = 103 us after the medium is idle; the senders AIFS after
 * their BlockAck timeout, 45 + 43 = 88 us after their own PPDU (or AIFS after
 * the medium is idle if a longer PPDU outlasted their wait). So the first
 * transmission after a collision starts 103 + 9k us after it (a bystander)
 * or 88 + 9k us (a sender); with eifs=0, 43 + 9k us for a bystander.
 */
static void test_eifs(void)
{
	static const char *const specs[] = {"wifi6:mpdus=32,stations=4,beacon=0",
					    "wifi6:mpdus=32,stations=4,beacon=0,eifs=0"};
	size_t i, k, s, bystander = 0, sender = 0;
	struct rig r;
	uint32_t j;

	for (s = 0; s < 2; s++) {
		setup();
		build(&r, specs[s], 13, true, false, NULL, NULL);
		for (j = 0; j < 60000; j++)
			put(up_in(&r), j, 1500, 0);
		advance(&r, SEC / 2);
		CU_ASSERT_FATAL(ntx < TX_MAX);
		for (i = 0; i < ntx; i = k) {
			ts_ns_t end = txlog[i].ppdu_end, gap, base = 0,
				first = s ? 43 * US : 103 * US;
			bool was_sender = false;

			/* The senders of one collision are logged one after the other. */
			for (k = i + 1; k < ntx && txlog[k].start == txlog[i].start; k++)
				end = ts_max(end, txlog[k].ppdu_end);
			if (!txlog[i].collision || k >= ntx)
				continue;
			gap = txlog[k].start - end;
			for (j = (uint32_t)i; j < k; j++) {
				if (txlog[j].who != txlog[k].who)
					continue;
				/* Its own wait ends 45 us after its PPDU (a BAR's is short). */
				base = ts_max(end + 43 * US, txlog[j].ppdu_end + 88 * US);
				was_sender = true;
			}
			if (was_sender) {
				gap = txlog[k].start - base;
				CU_ASSERT(gap >= 0 && gap % (9 * US) == 0);
				sender++;
			} else {
				CU_ASSERT(gap >= first && (gap - first) % (9 * US) == 0);
				bystander++;
			}
		}
		teardown(&r, SEC / 2);
	}
	CU_ASSERT(sender > 10);
	CU_ASSERT(bystander > 10);
}

/* Both sides saturated for 0.5 s with the given seed; the log holds every TXOP. */
static void run_both(struct rig *r, const char *spec, uint64_t seed)
{
	uint32_t j;

	build(r, spec, seed, true, true, NULL, NULL);
	for (j = 0; j < 60000; j++) {
		put(up_in(r), j, 1500, 0);
		put(down_in(r), 1000000 + j, 1500, 0);
	}
	advance(r, SEC / 2);
}

/*
 * Uplink and downlink share the medium: two transmissions overlap only when
 * both collided (they started in the same slot and both failed); every
 * acknowledged A-MPDU had the medium to itself. Each side keeps its own
 * order and gets about half the TXOPs.
 */
static void test_shared_medium(void)
{
	const struct ts_wifi6_stats *su, *sd;
	const struct ts_wifi6_medium_stats *ms;
	uint64_t coll = 0, ok_up;
	struct rig r;
	size_t i, j;

	setup();
	run_both(&r, "wifi6:mpdus=64", 3);
	CU_ASSERT_FATAL(ntx > 300 && ntx < TX_MAX);
	for (i = 0; i < ntx; i++) {
		coll += txlog[i].collision;
		CU_ASSERT(txlog[i].ok == !txlog[i].collision);
		/* The log is in end order; an overlap can only be with a near neighbour. */
		for (j = i + 1; j < ntx && j < i + 4; j++) {
			const struct ts_wifi6_txop *a = &txlog[i], *b = &txlog[j];
			bool overlap = a->start < b->end && b->start < a->end;

			if (!overlap)
				continue;
			CU_ASSERT(a->who != b->who);
			CU_ASSERT(a->collision && b->collision && a->start == b->start);
		}
	}
	su = ts_wifi6_stats(r.m, TS_WIFI6_UP);
	sd = ts_wifi6_stats(r.m, TS_WIFI6_DOWN);
	ms = ts_wifi6_medium_stats(r.m);
	/* A tie of two backoffs in [0, 15] happens about 1 in 16 accesses. */
	CU_ASSERT(ms->collision_events > 0);
	TSU_EQ(coll, 2 * ms->collision_events);
	TSU_EQ(su->collisions + su->bars_lost, ms->collision_events);
	TSU_EQ(sd->collisions + sd->bars_lost, ms->collision_events);
	fprintf(stderr, "\n  up %llu TXOPs, down %llu, collisions %llu, busy %.1f%%",
		(unsigned long long)su->txops, (unsigned long long)sd->txops,
		(unsigned long long)ms->collision_events, 100.0 * (double)ms->busy / 5e8);
	CU_ASSERT(su->txops * 10 > (su->txops + sd->txops) * 4);
	CU_ASSERT(sd->txops * 10 > (su->txops + sd->txops) * 4);
	/* Releases in order on each side, at BlockAck ends of that side. */
	for (i = 1; i < sink_up.nrel; i++)
		CU_ASSERT(sink_up.rel_id[i] > sink_up.rel_id[i - 1]);
	for (i = 1; i < sink_down.nrel; i++)
		CU_ASSERT(sink_down.rel_id[i] > sink_down.rel_id[i - 1]);
	/* Saturated, no MPDU errors: each acknowledged A-MPDU delivered 64 frames. */
	for (i = 0, ok_up = 0; i < ntx; i++)
		ok_up += txlog[i].ok && txlog[i].who == TS_WIFI6_UP &&
			 txlog[i].kind == TS_WIFI6_DATA;
	TSU_EQ(sink_up.nrel, ok_up * 64);
	teardown(&r, SEC / 2);
}

/* The same seed gives the same aggregates; another seed does not. */
static void test_determinism(void)
{
	static struct ts_wifi6_txop first[4000];
	size_t n1, i;
	bool differ = false;
	struct rig r;

	setup();
	run_both(&r, "wifi6:mpdus=32,collision=1%,mpdu_err=1%,stations=1", 9);
	n1 = ntx < 4000 ? ntx : 4000;
	memcpy(first, txlog, n1 * sizeof(first[0]));
	teardown(&r, SEC / 2);

	setup();
	run_both(&r, "wifi6:mpdus=32,collision=1%,mpdu_err=1%,stations=1", 9);
	TSU_EQ(ntx < 4000 ? ntx : 4000, n1);
	for (i = 0; i < n1; i++) {
		TSU_EQ(txlog[i].who, first[i].who);
		TSU_EQ(txlog[i].start, first[i].start);
		TSU_EQ(txlog[i].mpdus, first[i].mpdus);
		TSU_EQ(txlog[i].ok, first[i].ok);
	}
	teardown(&r, SEC / 2);

	setup();
	run_both(&r, "wifi6:mpdus=32,collision=1%,mpdu_err=1%,stations=1", 10);
	for (i = 0; i < n1 && i < ntx; i++)
		differ |= txlog[i].start != first[i].start || txlog[i].who != first[i].who;
	CU_ASSERT(differ);
	teardown(&r, SEC / 2);
}

/*
 * MPDU errors on side @down's (the AP's) or the station's A-MPDUs: a missing
 * MPDU is retransmitted in the next aggregate, and the receiver's reorder
 * buffer passes units on once each, in sequence and time order, a unit behind
 * a missing one waiting for its retransmission. retries = MPDU errors when
 * nothing reached the retry limit.
 */
static void mpdu_errors_in_order(bool down)
{
	struct fx_sink *sink = down ? &sink_down : &sink_up;
	const struct ts_wifi6_stats *st;
	struct rig r;
	uint32_t j;
	size_t i;

	setup();
	build(&r, "wifi6:mpdus=16,mpdu_err=20%", 5, !down, down, NULL, NULL);
	for (j = 0; j < 5000; j++)
		put(down ? down_in(&r) : up_in(&r), j, 1500, 0);
	advance(&r, SEC);
	st = ts_wifi6_stats(r.m, down ? TS_WIFI6_DOWN : TS_WIFI6_UP);
	TSU_EQ(sink->nrel, 5000);
	for (i = 1; i < sink->nrel; i++) {
		CU_ASSERT(sink->rel_id[i] == sink->rel_id[i - 1] + 1);
		CU_ASSERT(sink->rel_t[i] >= sink->rel_t[i - 1]);
	}
	CU_ASSERT(st->mpdu_errors > 5000 / 10); /* 20% of >= 5000 transmissions */
	TSU_EQ(st->retries, st->mpdu_errors);
	TSU_EQ(st->drops, 0);
	TSU_EQ(st->mpdus, 5000 + st->retries);
	teardown(&r, SEC);
}

static void test_mpdu_errors_in_order(void)
{
	mpdu_errors_in_order(false);
}

/*
 * The hybrid link: uplink = wifi6 (sender pipe) then a 25 Mbit/s hop (network
 * pipe); downlink = a 12 Mbit/s hop then wifi6, both in the network pipe.
 * Advancing only the uplink's pipe runs the medium for both: it first
 * advances the downlink's rate stage, so a packet that leaves it at 1 ms
 * (1500 B at 12 Mbit/s) reaches the AP then and is sent in the first slot
 * boundary at least AIFS later: idle since 0, 1 ms = 111.1 slots -> 112,
 * 43 + 1008 = 1051 us; the station has it at its MPDU's end, 1051 + 52 (2 SS
 * preamble) + 13.6 (one symbol: 16 + 8 x 1544 bits <= 16333) = 1116.6 us,
 * and the exchange ends after its Ack at 1116.6 + 16 + 28 = 1160.6 us.
 */
static void test_hybrid_and_pull(void)
{
	ts_ns_t at[] = {0};
	uint64_t bps25[] = {25000000}, bps12[] = {12000000};
	struct ts_trace *up_cap = fx_rate(at, bps25, 1, SEC);
	struct ts_trace *down_cap = fx_rate(at, bps12, 1, SEC);
	struct rig r;

	setup();
	build(&r, "wifi6:backoff=0", 1, true, true, up_cap, down_cap);
	TSU_EQ(r.up.pipe[TS_PLACE_SENDER].nstages, 1);
	CU_ASSERT(r.up.pipe[TS_PLACE_SENDER].stage[0]->ops == &ts_s_wifi6);
	CU_ASSERT(r.up.pipe[TS_PLACE_NETWORK].stage[0]->ops == &ts_s_rate);
	TSU_EQ(r.down.pipe[TS_PLACE_SENDER].nstages, 0);
	TSU_EQ(r.down.pipe[TS_PLACE_NETWORK].nstages, 2);
	CU_ASSERT(r.down.pipe[TS_PLACE_NETWORK].stage[0]->ops == &ts_s_rate);
	CU_ASSERT(r.down.pipe[TS_PLACE_NETWORK].stage[1]->ops == &ts_s_wifi6);
	CU_ASSERT(r.up.mac == r.up.pipe[TS_PLACE_SENDER].stage[0]);
	CU_ASSERT(r.down.mac == r.down.pipe[TS_PLACE_NETWORK].stage[1]);

	put(down_in(&r), 7, 1500, 0);
	TSU_EQ(ts_dir_next_deadline(&r.down), 1 * MS);
	ts_pipe_advance(&r.up.pipe[TS_PLACE_SENDER], 2 * MS); /* only the uplink's */
	TSU_EQ(sink_down.nrel, 1);
	TSU_EQ(sink_down.rel_t[0], 1116600);
	TSU_EQ(ts_wifi6_stats(r.m, TS_WIFI6_DOWN)->txops, 1);
	/* The downlink pipe counted it out, with its whole sojourn. */
	TSU_EQ(r.down.pipe[TS_PLACE_NETWORK].stats.pkts_out, 1);
	TSU_EQ(r.down.pipe[TS_PLACE_NETWORK].stats.sojourn.max, 1116600);
	ts_pipe_advance(&r.down.pipe[TS_PLACE_NETWORK], 2 * MS); /* nothing left to do */
	TSU_EQ(sink_down.nrel, 1);

	/* The uplink: the station's queue releases to the runtime (sender pipe). */
	put(up_in(&r), 8, 1500, 3 * MS);
	advance(&r, 4 * MS);
	TSU_EQ(sink_up.nrel, 1);
	CU_ASSERT(sink_up.rel_t[0] > 3 * MS && sink_up.rel_t[0] < 4 * MS);
	teardown(&r, 4 * MS);
	fx_trace_free(up_cap);
	fx_trace_free(down_cap);
}

/*
 * A PHY-rate trace: 1201 Mbit/s, then 600.4 Mbit/s from 1 s (8165 bits per
 * symbol, so one 1544 B subframe = 12374 bits takes 2 symbols). A lone frame
 * at 0 ends with its Ack at 43 + 52 + 13.6 + 16 + 28 = 152.6 us; a frame at
 * 1.5 s waits for the first slot boundary after it (152.6 us + ceil((1.5 s -
 * 152.6 us) / 9 us) slots = 1499850 us) plus AIFS: sent at 1500045.6 us,
 * released 52 + 27.2 + 16 + 28 us later.
 */
static void test_phy_trace(void)
{
	char path[] = "/tmp/test_wifi6_phy_XXXXXX", spec[128];
	const char text[] = "# duration=2s\ntime_s,phy_mbps\n0,1201\n1,600.4\n";
	struct rig r;
	int fd;

	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, text, sizeof(text) - 1) == (ssize_t)(sizeof(text) - 1));
	close(fd);
	snprintf(spec, sizeof(spec), "wifi6:phy_trace=%s,backoff=0,beacon=0", path);
	setup();
	build(&r, spec, 1, true, false, NULL, NULL);
	unlink(path);
	put(up_in(&r), 1, 1500, 0);
	put(up_in(&r), 2, 1500, 1500 * MS);
	advance(&r, 2 * SEC);
	TSU_EQ(sink_up.nrel, 2);
	TSU_EQ(sink_up.rel_t[0], 152600);
	TSU_EQ(txlog[1].start, 1500045600);
	TSU_EQ(sink_up.rel_t[1], 1500045600 + 52000 + 27200 + 44000);
	TSU_EQ(txlog[0].phy_bps, 1201000000);
	TSU_EQ(txlog[1].phy_bps, 600400000);
	teardown(&r, 2 * SEC);
}

/*
 * stations=2: two more saturated contenders share the channel. Each of the
 * three gets about a third of the accesses, ties collide, and the station's
 * throughput drops accordingly.
 */
static void test_other_stations(void)
{
	const struct ts_wifi6_medium_stats *ms;
	const struct ts_wifi6_stats *su;
	uint64_t all;
	struct rig r;
	uint32_t j;

	setup();
	build(&r, "wifi6:mpdus=64,stations=2", 11, true, false, NULL, NULL);
	for (j = 0; j < 100000; j++)
		put(up_in(&r), j, 1500, 0);
	advance(&r, SEC / 2);
	su = ts_wifi6_stats(r.m, TS_WIFI6_UP);
	ms = ts_wifi6_medium_stats(r.m);
	all = su->txops + ms->others_txops;
	fprintf(stderr, "\n  station %llu TXOPs of %llu, collisions %llu",
		(unsigned long long)su->txops, (unsigned long long)all,
		(unsigned long long)ms->collision_events);
	CU_ASSERT(su->txops * 100 > all * 25 && su->txops * 100 < all * 42);
	CU_ASSERT(ms->others_airtime > 0);
	CU_ASSERT(su->collisions > 0);
	/* At most half of what it gets alone (868 Mbit/s at N = 64). */
	CU_ASSERT((double)sink_up.rel_bytes * 8.0 * 2 < 868e6 * 0.5);
	teardown(&r, SEC / 2);
}

/*
 * The station and the stations= contenders are the same station: with 7
 * others, all saturated (mpdus=16, 1500-byte frames), over 24 seeds of 1 s,
 * the station's channel accesses, A-MPDUs, delivered frames and collisions
 * are each within 4 standard errors of the contenders' mean (the spread
 * measured across the 7 x 24 contender runs). @spec: the keys.
 */
static void station_like_contenders(const char *spec)
{
	enum { SEEDS = 24, OTHERS = 7 };
	double x[4][SEEDS * OTHERS], st[4][SEEDS], mean[4] = {0}, var[4] = {0}, sm[4] = {0};
	static const char *const what[] = {"accesses", "A-MPDUs", "delivered", "collisions"};
	size_t seed, i, k, n = SEEDS * OTHERS;
	struct rig r;
	uint32_t j;

	for (seed = 0; seed < SEEDS; seed++) {
		const struct ts_wifi6_medium_stats *ms;
		const struct ts_wifi6_stats *su;

		setup();
		build(&r, spec, 100 + seed, true, false, NULL, NULL);
		for (j = 0; j < 40000; j++)
			put(up_in(&r), j, 1500, 0);
		advance(&r, SEC);
		su = ts_wifi6_stats(r.m, TS_WIFI6_UP);
		ms = ts_wifi6_medium_stats(r.m);
		st[0][seed] = (double)su->accesses;
		st[1][seed] = (double)su->txops;
		st[2][seed] = (double)sink_up.nrel;
		st[3][seed] = (double)su->collisions;
		for (i = 0; i < OTHERS; i++) {
			x[0][seed * OTHERS + i] = (double)ms->others[i].accesses;
			x[1][seed * OTHERS + i] = (double)ms->others[i].txops;
			x[2][seed * OTHERS + i] = (double)ms->others[i].delivered;
			x[3][seed * OTHERS + i] = (double)ms->others[i].collisions;
		}
		CU_ASSERT_FATAL(sink_up.nrel < 40000); /* saturated the whole second */
		teardown(&r, SEC);
	}
	for (k = 0; k < 4; k++) {
		for (i = 0; i < n; i++)
			mean[k] += x[k][i] / (double)n;
		for (i = 0; i < n; i++)
			var[k] += (x[k][i] - mean[k]) * (x[k][i] - mean[k]) / (double)(n - 1);
		for (seed = 0; seed < SEEDS; seed++)
			sm[k] += st[k][seed] / SEEDS;
		/* The station's mean over SEEDS runs against the contenders' (the latter's error is smaller). */
		fprintf(stderr, "\n  %s: station %.1f, contenders %.1f (sd %.1f)", what[k], sm[k],
			mean[k], sqrt(var[k]));
		CU_ASSERT(fabs(sm[k] - mean[k]) < 4 * sqrt(var[k] / SEEDS + var[k] / (double)n));
	}
}

/* With the defaults, and with the contention of the model before BARs, EIFS and beacons. */
static void test_station_like_contenders(void)
{
	station_like_contenders("wifi6:mpdus=16,stations=7");
	station_like_contenders("wifi6:mpdus=16,stations=7,bar=0,eifs=0,beacon=0,ba_timeout=56us");
}

/*
 * Per-station rates for the summaries: the station delivered 1.5 MB in 1 s
 * (12 Mbit/s), two others 1000 and 3000 frames of 1500 B (12 and 36
 * Mbit/s): 60 Mbit/s in all, Jain's index 60^2 / (3 x (144 + 144 + 1296))
 * = 0.7576.
 */
static void test_station_rates(void)
{
	struct ts_wifi6_medium_stats ms = {.stations = 2};
	struct ts_wifi6_station_rates r;

	ms.others[0].delivered = 1000;
	ms.others[1].delivered = 3000;
	ts_wifi6_station_rates(&r, 1500000, 0, &ms, SEC);
	TSU_EQ(r.n, 3);
	CU_ASSERT_DOUBLE_EQUAL(r.bps[0], 12e6, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(r.bps[2], 36e6, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(r.medium_bps, 60e6, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(r.jain, 3600.0 / (3 * 1584.0), 1e-9);
}

static void put_unit(struct ts_pipe *pipe, uint32_t id, uint32_t segs, ts_ns_t t)
{
	struct ts_pkt *p = ts_pool_get(&pool);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->len = segs * 1500;
	p->segs = (uint16_t)segs;
	ts_pipe_enqueue(pipe, p, t);
}

/*
 * A GSO unit's segments are MPDUs of their own: mpdus=4, backoff 7, three
 * units of 3 segments queued at 0 go as 4 + 4 + 1 MPDUs (3 + 1, 2 + 2, 1),
 * never 3 + 3 + 3. A unit is released when its last segment is
 * acknowledged: unit 0 at T(4), unit 1 at 2 T(4), unit 2 at 2 T(4) + T(1)
 * (T(N) as in test_saturated_exact, one 1544-byte subframe per segment).
 */
static void test_gso_split(void)
{
	ts_ns_t t4 = formula_ns(4, 63 * US), t1 = formula_ns(1, 63 * US);
	const struct ts_wifi6_stats *st;
	struct rig r;
	uint32_t j;

	setup();
	build(&r, "wifi6:mpdus=4,backoff=7", 1, true, false, NULL, NULL);
	for (j = 0; j < 3; j++)
		put_unit(up_in(&r), j, 3, 0);
	advance(&r, SEC);
	st = ts_wifi6_stats(r.m, TS_WIFI6_UP);
	TSU_EQ(st->txops, 3);
	TSU_EQ(st->mpdus, 9);
	TSU_EQ(st->n_hist[4], 2);
	TSU_EQ(st->n_hist[1], 1);
	TSU_EQ(sink_up.nrel, 3);
	TSU_EQ(sink_up.rel_t[0], t4);
	TSU_EQ(sink_up.rel_t[1], 2 * t4);
	TSU_EQ(sink_up.rel_t[2], 2 * t4 + t1);
	TSU_EQ(sink_up.rel_bytes, 3 * 4500);
	teardown(&r, SEC);
}

/*
 * The AP's units reach the station when the MPDU that completes them ends
 * (mpdu_rx=1), in order; the station's at the BlockAck's end, when the
 * station frees them. Backoff 0, three 1500-byte packets queued at 0: the
 * A-MPDU starts at AIFS (43 us); 16 + 8 x 1544 k bits take 1, 2, 3
 * symbols, so the MPDUs end at 43 + 52 + 13.6 k = 108.6, 122.2, 135.8 us
 * (the PPDU's end); the BlockAck ends at 135.8 + 16 + 40 = 191.8 us.
 */
static void test_mpdu_rx(void)
{
	static const ts_ns_t each[] = {108600, 122200, 135800};
	const char *spec[] = {"wifi6:backoff=0,beacon=0", "wifi6:backoff=0,beacon=0,mpdu_rx=0"};
	struct rig r;
	uint32_t j, k;

	for (k = 0; k < 3; k++) {
		setup();
		build(&r, spec[k % 2], 1, k < 2 ? false : true, k < 2, NULL, NULL);
		for (j = 0; j < 3; j++)
			put(k < 2 ? down_in(&r) : up_in(&r), j, 1500, 0);
		if (k == 0) {
			/* The runtime is woken for each: the next deadline is the next MPDU's end. */
			advance(&r, each[0] - 1);
			TSU_EQ(sink_down.nrel, 0);
			TSU_EQ(ts_dir_next_deadline(&r.down), each[0]);
			advance(&r, each[1]);
			TSU_EQ(sink_down.nrel, 2);
			TSU_EQ(ts_dir_next_deadline(&r.down), each[2]);
		}
		advance(&r, SEC);
		TSU_EQ((k < 2 ? &sink_down : &sink_up)->nrel, 3);
		TSU_EQ(txlog[0].mpdus, 3);
		TSU_EQ(txlog[0].ppdu_end, 135800);
		TSU_EQ(txlog[0].end, 191800);
		for (j = 0; j < 3; j++) {
			if (k == 0)
				TSU_EQ(sink_down.rel_t[j], each[j]);
			else if (k == 1)
				TSU_EQ(sink_down.rel_t[j], 191800);
			else
				TSU_EQ(sink_up.rel_t[j], 191800);
		}
		teardown(&r, SEC);
	}
}

/*
 * The AP's GSO units as in test_gso_split (mpdus=4, backoff 7: A-MPDU k
 * starts at (k - 1) T(4) + 106 us): unit 0 is whole at the first A-MPDU's
 * third MPDU (52 + 3 symbols after its start), unit 1 at the second's
 * second (2 symbols), unit 2 at the third's first (1 symbol).
 */
static void test_mpdu_rx_gso(void)
{
	ts_ns_t t4 = formula_ns(4, 63 * US), start = 106 * US + 52 * US;
	struct rig r;
	uint32_t j;

	setup();
	build(&r, "wifi6:mpdus=4,backoff=7", 1, false, true, NULL, NULL);
	for (j = 0; j < 3; j++)
		put_unit(down_in(&r), j, 3, 0);
	advance(&r, SEC);
	TSU_EQ(sink_down.nrel, 3);
	TSU_EQ(sink_down.rel_t[0], start + 3 * 13600);
	TSU_EQ(sink_down.rel_t[1], t4 + start + 2 * 13600);
	TSU_EQ(sink_down.rel_t[2], 2 * t4 + start + 13600);
	teardown(&r, SEC);
}

/*
 * The AP's first frame of three reaches the retry limit (retry=0: one try)
 * while the two behind it were received (at 122.2 and 135.8 us, as in
 * test_mpdu_rx): the station holds them for it until the BlockAck ends at
 * 191.8 us, when the AP drops it (cause mac_retry) and the reorder buffer
 * skips it and passes frames 1 and 2 on, in order, at that instant. Seed 1
 * at mpdu_err=50% loses that MPDU and no other (asserted: one MPDU error).
 */
static void test_mpdu_rx_drop_behind(void)
{
	const struct ts_wifi6_stats *st;
	struct rig r;
	uint32_t j;

	setup();
	build(&r, "wifi6:backoff=0,beacon=0,retry=0,mpdu_err=50%", 1, false, true, NULL, NULL);
	for (j = 0; j < 3; j++)
		put(down_in(&r), j, 1500, 0);
	advance(&r, SEC);
	st = ts_wifi6_stats(r.m, TS_WIFI6_DOWN);
	TSU_EQ(st->mpdu_errors, 1);
	TSU_EQ(st->drops, 1);
	TSU_EQ(sink_down.ndrop, 1);
	TSU_EQ(sink_down.drop_id[0], 0);
	TSU_EQ(sink_down.drop_cause[0], TS_DROP_MAC_RETRY);
	TSU_EQ(sink_down.drop_t[0], 191800);
	TSU_EQ(sink_down.nrel, 2);
	for (j = 0; j < 2; j++) {
		TSU_EQ(sink_down.rel_id[j], j + 1);
		TSU_EQ(sink_down.rel_t[j], 191800);
	}
	TSU_EQ(ntx, 1); /* nothing was sent again */
	teardown(&r, SEC);
}

/*
 * The downlink detached in the middle of an A-MPDU (at 115 us): the frame
 * the station already has (108.6 us) stays delivered, once; the two still on
 * the air are dropped (cause shutdown), once each; every descriptor comes
 * back (teardown).
 */
static void test_mpdu_rx_detach(void)
{
	struct rig r;
	uint32_t j;

	setup();
	build(&r, "wifi6:backoff=0,beacon=0", 1, false, true, NULL, NULL);
	for (j = 0; j < 3; j++)
		put(down_in(&r), j, 1500, 0);
	advance(&r, 115 * US);
	TSU_EQ(sink_down.nrel, 1);
	teardown(&r, 115 * US);
	TSU_EQ(sink_down.nrel, 1);
	TSU_EQ(sink_down.rel_id[0], 0);
	TSU_EQ(sink_down.rel_t[0], 108600);
	TSU_EQ(sink_down.ndrop, 2);
	for (j = 0; j < 2; j++) {
		TSU_EQ(sink_down.drop_id[j], j + 1);
		TSU_EQ(sink_down.drop_cause[j], TS_DROP_SHUTDOWN);
		TSU_EQ(sink_down.drop_t[j], 115 * US);
	}
}

/* MPDU errors on the AP's side: the station passes its units on in order (mpdu_errors_in_order). */
static void test_mpdu_rx_reorder(void)
{
	mpdu_errors_in_order(true);
}

/* One run of made-up GSO arrivals, as units (@gso) or as their packets one by one. */
#define EQ_UNITS 900
static uint32_t eq_last[EQ_UNITS]; /* per unit: the id of its last packet */

static void run_arrivals(struct rig *r, bool gso)
{
	struct ts_rng g;
	uint32_t u, j, id = 0;
	ts_ns_t t = 0;

	setup();
	build(r, "wifi6:bw=40,ss=1,mcs=11,mpdu_err=5%", 21, true, false, NULL, NULL);
	ts_rng_seed(&g, 5);
	for (u = 0; u < EQ_UNITS; u++) {
		uint32_t k = 1 + (uint32_t)ts_rng_below(&g, 44);

		/* A mean gap of 1.1 ms for 22.5 segments: about 245 Mbit/s offered. */
		t += (ts_ns_t)ts_rng_below(&g, 2200 * US);
		if (gso) {
			put_unit(up_in(r), u, k, t);
			continue;
		}
		for (j = 0; j < k; j++)
			put(up_in(r), id++, 1500, t);
		eq_last[u] = id - 1;
	}
	advance(r, 2 * SEC);
}

/*
 * Segment-exact aggregation: the same arrivals as GSO units or packet by
 * packet give the same A-MPDUs (count, size distribution, retransmissions,
 * at the same instants), and each unit is released exactly when its last
 * packet is, at 40 MHz, 1 SS, MCS 11 with 5% MPDU errors.
 */
static void test_gso_matches_packets(void)
{
	static struct ts_wifi6_stats pk;
	static ts_ns_t pk_rel[FX_MAX], pk_start[4000];
	size_t i, npk;
	struct rig r;
	uint32_t n;

	run_arrivals(&r, false);
	pk = *ts_wifi6_stats(r.m, TS_WIFI6_UP);
	npk = sink_up.nrel;
	for (i = 0; i < npk && i < FX_MAX; i++)
		pk_rel[sink_up.rel_id[i]] = sink_up.rel_t[i];
	for (i = 0; i < ntx && i < 4000; i++)
		pk_start[i] = txlog[i].start;
	fprintf(stderr, "\n  %llu A-MPDUs, mean %.2f MPDUs, %llu retransmitted",
		(unsigned long long)pk.txops, (double)pk.mpdus / (double)pk.txops,
		(unsigned long long)pk.retries);
	CU_ASSERT(pk.mpdu_errors > 100);
	TSU_EQ(pk.drops, 0);
	teardown(&r, 2 * SEC);

	run_arrivals(&r, true);
	const struct ts_wifi6_stats *gs = ts_wifi6_stats(r.m, TS_WIFI6_UP);

	TSU_EQ(gs->txops, pk.txops);
	TSU_EQ(gs->mpdus, pk.mpdus);
	TSU_EQ(gs->retries, pk.retries);
	TSU_EQ(gs->mpdu_errors, pk.mpdu_errors);
	TSU_EQ(gs->airtime, pk.airtime);
	for (n = 0; n <= TS_WIFI6_MPDUS_MAX; n++)
		TSU_EQ(gs->n_hist[n], pk.n_hist[n]);
	for (i = 0; i < ntx && i < 4000; i++)
		TSU_EQ(txlog[i].start, pk_start[i]);
	TSU_EQ(sink_up.nrel, EQ_UNITS);
	for (i = 0; i < sink_up.nrel; i++)
		TSU_EQ(sink_up.rel_t[i], pk_rel[eq_last[sink_up.rel_id[i]]]);
	teardown(&r, 2 * SEC);
}

static void put_sta(struct ts_pipe *pipe, uint32_t id, uint16_t sta, ts_ns_t t)
{
	struct ts_pkt *p = ts_pool_get(&pool);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->len = 1500;
	p->segs = 1;
	p->sta = sta;
	ts_pipe_enqueue(pipe, p, t);
}

/*
 * Which station the AP served, A-MPDU by A-MPDU: two frames queued for
 * each of two real stations at 0, one MPDU per A-MPDU (109.6 us on the
 * air with its Ack: 52 + 13.6 + 16 + 28). Round robin (no airtime_flags):
 * 0, 1, 0, 1. Airtime fairness: station 1 joined last, so it is at the
 * front; its 256 us quantum lasts both of its frames (256 - 109.6 = 146.4,
 * then 36.8), then station 0's: 1, 1, 0, 0.
 */
static void ap_order(const char *spec, const int want[4])
{
	struct rig r;
	size_t i, n = 0;

	setup();
	build(&r, spec, 1, false, true, NULL, NULL);
	put_sta(down_in(&r), 1, 0, 0);
	put_sta(down_in(&r), 2, 0, 0);
	put_sta(down_in(&r), 3, 1, 0);
	put_sta(down_in(&r), 4, 1, 0);
	advance(&r, 10 * MS);
	for (i = 0; i < ntx && n < 4; i++) {
		if (txlog[i].who != TS_WIFI6_DOWN)
			continue;
		TSU_EQ(txlog[i].sta, want[n]);
		TSU_EQ(txlog[i].end - txlog[i].start, 109600);
		n++;
	}
	TSU_EQ(n, 4);
	TSU_EQ(sink_down.nrel, 4);
	TSU_EQ(ts_wifi6_medium_stats(r.m)->sta[0].down_bytes, 3000);
	TSU_EQ(ts_wifi6_medium_stats(r.m)->sta[1].down_txops, 2);
	TSU_EQ(ts_wifi6_medium_stats(r.m)->sta[1].down_airtime, 2 * 109600);
	teardown(&r, 10 * MS);
}

static void test_ap_round_robin(void)
{
	static const int rr[4] = {0, 1, 0, 1}, drr[4] = {1, 1, 0, 0};

	ap_order("wifi6:backoff=7,beacon=0,mpdus=1,real=2", rr);
	ap_order("wifi6:backoff=7,beacon=0,mpdus=1,real=2,airtime_flags=1", drr);
}

/*
 * AQL caps what the AP hands the driver: a 1544-byte subframe at
 * 1200955882 bit/s is charged 12352e9 / 1200955882 = 10285 ns. With
 * aql_txq_limit=50/100 and the total under aql_threshold, frames are taken
 * while less than 100 us is pending: 9 x 10285 = 92565 < 100000, so N =
 * 10. With aql_threshold=1 (always above it), the low limit: 5 x 10285 =
 * 51425, N = 5.
 */
static void aql_first_n(const char *spec, uint32_t want)
{
	struct rig r;
	uint32_t i;

	setup();
	build(&r, spec, 1, false, true, NULL, NULL);
	for (i = 0; i < 20; i++)
		put_sta(down_in(&r), i, 0, 0);
	advance(&r, 100 * MS);
	CU_ASSERT_FATAL(ntx >= 1);
	TSU_EQ(txlog[0].mpdus, want);
	CU_ASSERT(ts_wifi6_medium_stats(r.m)->sta[0].aql_held >= 1);
	TSU_EQ(sink_down.nrel, 20);
	teardown(&r, 100 * MS);
}

static void test_aql_limits(void)
{
	aql_first_n("wifi6:backoff=7,beacon=0,aql=1,aql_txq_limit=50/100", 10);
	aql_first_n("wifi6:backoff=7,beacon=0,aql=1,aql_txq_limit=50/100,aql_threshold=1", 5);
}

/*
 * Two real stations upload through their own queues and contend: each is
 * a contender of its own (real station 1 is numbered after the stations=
 * ones and the beacon), each delivers its own frames, and with the same
 * PHY and random backoff each takes the airtime a stations= contender
 * does (within 15% over 10 s: about 900 accesses each, and DCF's
 * exponential backoff is unfair over short spans).
 */
static void test_real_stations_contend(void)
{
	const struct ts_wifi6_medium_stats *ms;
	struct rig r;
	uint32_t i, id = 0;
	size_t j, bad = 0;
	ts_ns_t t;

	setup();
	build(&r, "wifi6:bw=20,mcs=4,ss=1,beacon=0,real=2,stations=1", 3, true, false, NULL, NULL);
	/* 3000 frames each per second, more than a third of the medium carries (about 1200). */
	for (t = 0; t < 10 * SEC; t += 100 * MS) {
		for (i = 0; i < 600; i++)
			put_sta(up_in(&r), id++, (uint16_t)(i % 2), t);
		advance(&r, t + 100 * MS - 1);
	}
	ms = ts_wifi6_medium_stats(r.m);
	TSU_EQ(ms->real, 2);
	for (j = 0; j < ntx && j < TX_MAX; j++)
		if ((txlog[j].who == 0 && txlog[j].sta != 0) ||
		    (txlog[j].who == 3 && txlog[j].sta != 1) || txlog[j].who == 1 ||
		    txlog[j].who > 3)
			bad++;
	TSU_EQ(bad, 0);
	CU_ASSERT(ms->sta[0].up_bytes > 0 && ms->sta[1].up_bytes > 0);
	TSU_EQ(ms->sta[0].up_bytes + ms->sta[1].up_bytes, sink_up.rel_bytes);
	printf("\n  airtime: real 0 %.3f s, real 1 %.3f s, other %.3f s",
	       ms->sta[0].up_airtime / 1e9, ms->sta[1].up_airtime / 1e9,
	       ms->others[0].airtime / 1e9);
	CU_ASSERT(fabs((double)ms->sta[0].up_airtime / (double)ms->others[0].airtime - 1) < 0.15);
	CU_ASSERT(fabs((double)ms->sta[1].up_airtime / (double)ms->others[0].airtime - 1) < 0.15);
	teardown(&r, 10 * SEC);
}

/*
 * Airtime fairness with a fast and a slow station (sta_mcs=11/0: 80 MHz, 2
 * SS; ba=64), both downloads saturated, only the AP sending (no collisions;
 * backoff=7, no beacons). A fast A-MPDU is 64 MPDUs: 16 + 8 x 64 x 1544 + 6
 * bits in 49 symbols of 16333 bits, 52 + 666.4 + SIFS 16 + BlockAck 32 =
 * 766.4 us; a slow one fills the PPDU limit: (5484 - 52) / 13.6 = 399
 * symbols of 980 bits hold 31 MPDUs, which take 391 symbols: 52 + 5317.6 +
 * 16 + 32 = 5417.6 us. Round robin serves them in turn, so the slow station
 * takes 5417.6 / 766.4 = 7.069 times the airtime (7.046 at 2 s: 313 fast
 * A-MPDUs and 312 slow ones ended, the 313th still on the air); the deficit
 * round robin by airtime makes them equal (within one slow A-MPDU).
 */
static void atf_ratio(const char *spec, double want, double tol)
{
	const struct ts_wifi6_medium_stats *ms;
	size_t j, bad = 0;
	struct rig r;
	uint32_t i, id = 0;
	ts_ns_t t;

	setup();
	build(&r, spec, 1, false, true, NULL, NULL);
	for (t = 0; t < 2 * SEC; t += 10 * MS) {
		for (i = 0; i < 800; i++)
			put_sta(down_in(&r), id++, (uint16_t)(i % 2), t);
		advance(&r, t + 10 * MS - 1);
	}
	ms = ts_wifi6_medium_stats(r.m);
	printf("\n  AP airtime: fast %.4f s (%llu A-MPDUs), slow %.4f s (%llu)",
	       ms->sta[0].down_airtime / 1e9, (unsigned long long)ms->sta[0].down_txops,
	       ms->sta[1].down_airtime / 1e9, (unsigned long long)ms->sta[1].down_txops);
	/* Every A-MPDU took exactly its airtime worked out above. */
	for (j = 0; j < ntx && j < TX_MAX; j++)
		bad += txlog[j].end - txlog[j].start != (txlog[j].sta ? 5417600 : 766400);
	TSU_EQ(bad, 0);
	CU_ASSERT_DOUBLE_EQUAL((double)ms->sta[1].down_airtime / (double)ms->sta[0].down_airtime,
			       want, tol);
	teardown(&r, 2 * SEC);
}

static void test_airtime_fairness_rates(void)
{
	atf_ratio("wifi6:real=2,sta_mcs=11/0,ba=64,backoff=7,beacon=0",
		  312 * 5417.6 / (313 * 766.4), 1e-6);
	atf_ratio("wifi6:real=2,sta_mcs=11/0,ba=64,backoff=7,beacon=0,airtime_flags=1", 1.0, 0.01);
}

static const struct tsu_test tests[] = {
	{"saturated throughput, fixed backoff: exact T(N)", test_saturated_exact},
	{"saturated throughput, random backoff: within 1% of the formula", test_saturated_random},
	{"three frames queued make one aggregate of three", test_three_frames},
	{"the PPDU duration limit caps N at a low PHY rate", test_ppdu_limit},
	{"collisions double CW, the retry limit drops", test_collisions_retry_limit},
	{"a missed BlockAck: BlockAckRequests, lost", test_bar_lost},
	{"a missed BlockAck: BlockAckRequests, answered", test_bar_answered},
	{"a lone MPDU is answered by an Ack", test_lone_ack},
	{"beacons: PIFS, no backoff, 102.4 ms apart", test_beacons},
	{"EIFS after a collision for those that heard it", test_eifs},
	{"up and down share one medium, never overlapping", test_shared_medium},
	{"same seed, same aggregates", test_determinism},
	{"MPDU errors: retransmitted, delivered in order", test_mpdu_errors_in_order},
	{"hybrid link: the medium advances the downlink's hop", test_hybrid_and_pull},
	{"PHY-rate trace changes the airtime", test_phy_trace},
	{"other stations contend", test_other_stations},
	{"per-station rates and Jain's index", test_station_rates},
	{"the station and the contenders are statistically identical",
	 test_station_like_contenders},
	{"a GSO unit's segments are MPDUs: split across A-MPDUs", test_gso_split},
	{"the AP's units reach the station at their last MPDU's end", test_mpdu_rx},
	{"the AP's GSO units at the end of the MPDU that completes them", test_mpdu_rx_gso},
	{"MPDU errors: the station passes the AP's units on in order", test_mpdu_rx_reorder},
	{"a unit dropped at the retry limit releases those behind it", test_mpdu_rx_drop_behind},
	{"detached mid-A-MPDU: delivered once, the rest dropped once", test_mpdu_rx_detach},
	{"GSO units aggregate exactly as their packets one by one", test_gso_matches_packets},
	{"real stations: the AP's round robin and airtime DRR", test_ap_round_robin},
	{"real stations: AQL limits", test_aql_limits},
	{"real stations contend, each with its own queue", test_real_stations_contend},
	{"airtime fairness: a fast and a slow station", test_airtime_fairness_rates},
};

TSU_MAIN("wifi6", tests)

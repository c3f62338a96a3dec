/* SPDX-License-Identifier: MIT */
/* The link direction end to end: loss, queue + trace server, delay line (link.c, s_*.c). */
#include "fixture.h"
#include "tasshape/link.h"
#include "tsu.h"

#define MS  TS_NSEC_PER_MSEC
#define SEC TS_NSEC_PER_SEC

static struct fx_sink sink;
static struct ts_pool pool;

static struct ts_pkt *pkt(uint32_t id, uint32_t len)
{
	struct ts_pkt *p = ts_pool_get(&pool);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->id = id;
	p->len = len;
	p->segs = 1;
	return p;
}

static void setup(void)
{
	memset(&sink, 0, sizeof(sink));
	CU_ASSERT_EQUAL_FATAL(ts_pool_init(&pool, 100000), 0);
	sink.pool = &pool;
}

static void teardown(struct ts_dir *d, ts_ns_t now)
{
	ts_dir_fini(d, now);
	/* Every descriptor came back: nothing was lost by the model. */
	TSU_EQ(pool.used, 0);
	ts_pool_fini(&pool);
}

static int build(struct ts_dir *d, const struct ts_trace *t, const char *queue, ts_ns_t delay,
		 const char *loss, uint64_t seed)
{
	struct ts_dir_conf c = {.name = "downlink",
				.trace = t,
				.queue = queue,
				.delay = delay,
				.loss = loss,
				.seed = seed,
				.place = TS_PLACE_NETWORK};
	struct ts_err err = {{0}};
	int ret = ts_dir_build(d, &c, fx_release, fx_drop, &sink, &err);

	if (ret)
		fprintf(stderr, "\n  build: %s\n", err.msg);
	return ret;
}

/*
 * mahimahi "1" (one 1500-byte opportunity per ms) saturated by two 1500-byte
 * packets per ms: packet k leaves at exactly k ms, 1500 bytes per ms.
 */
static void test_mahimahi_one_saturated(void)
{
	uint32_t ms[] = {1}, cnt[] = {1};
	struct ts_trace *t = fx_opps(ms, cnt, 1);
	struct ts_pipe *pipe;
	struct ts_dir d;
	uint32_t j;
	size_t k;

	setup();
	CU_ASSERT_EQUAL_FATAL(build(&d, t, "droptail:packets=5000", 0, NULL, 1), 0);
	pipe = &d.pipe[TS_PLACE_NETWORK];
	for (j = 0; j < 2000; j++)
		ts_pipe_enqueue(pipe, pkt(j, 1500), (ts_ns_t)j * MS / 2);
	ts_pipe_advance(pipe, 1000 * MS);
	TSU_EQ(sink.nrel, 1000);
	TSU_EQ(sink.rel_bytes, 1000 * 1500);
	for (k = 0; k < sink.nrel; k++)
		TSU_EQ(sink.rel_t[k], (ts_ns_t)(k + 1) * MS);
	TSU_EQ(sink.ndrop, 0);
	/* Conservation: in = out + held. */
	TSU_EQ(pipe->stats.pkts_in, 2000);
	TSU_EQ(pipe->stats.pkts_out + ts_pipe_held_pkts(pipe), 2000);
	teardown(&d, 1000 * MS);
	TSU_EQ(sink.ndrop, 1000); /* the 1000 still queued, dropped at shutdown */
	TSU_EQ(sink.drop_cause[0], TS_DROP_SHUTDOWN);
	fx_trace_free(t);
}

/*
 * 10 Mbit/s for 1 s then 50 Mbit/s: saturated by 1500-byte packets, it
 * delivers 1.25 MB by 1 s (833 whole packets = 1249500 bytes, the 834th
 * straddles) and 7.5 MB by 2 s.
 */
static void test_csv_two_step(void)
{
	ts_ns_t at[] = {0, SEC};
	uint64_t bps[] = {10000000, 50000000};
	struct ts_trace *t = fx_rate(at, bps, 2, 2 * SEC);
	struct ts_pipe *pipe;
	struct ts_dir d;
	uint64_t by1 = 0;
	uint32_t j;
	size_t k;

	setup();
	CU_ASSERT_EQUAL_FATAL(build(&d, t, "droptail:packets=10000", 0, NULL, 1), 0);
	pipe = &d.pipe[TS_PLACE_NETWORK];
	/* 6000 packets up front: more than the 5000 the 2 s can carry. */
	for (j = 0; j < 6000; j++)
		ts_pipe_enqueue(pipe, pkt(j, 1500), 0);
	ts_pipe_advance(pipe, 2 * SEC);
	for (k = 0; k < sink.nrel; k++)
		if (sink.rel_t[k] <= SEC)
			by1 += 1500;
	TSU_EQ(by1, 833 * 1500);
	CU_ASSERT(1250000 - by1 < 1500); /* within one packet of 1.25 MB */
	TSU_EQ(sink.rel_bytes, 7500000);
	TSU_EQ(sink.rel_t[sink.nrel - 1], 2 * SEC);
	teardown(&d, 2 * SEC);
	fx_trace_free(t);
}

/* Capacity while idle is not banked: a packet after a pause waits for the next opportunity. */
static void test_idle_not_banked(void)
{
	uint32_t ms[] = {1}, cnt[] = {1};
	struct ts_trace *t = fx_opps(ms, cnt, 1);
	struct ts_pipe *pipe;
	struct ts_dir d;

	setup();
	CU_ASSERT_EQUAL_FATAL(build(&d, t, "droptail:packets=10", 0, NULL, 1), 0);
	pipe = &d.pipe[TS_PLACE_NETWORK];
	ts_pipe_enqueue(pipe, pkt(1, 1500), 0);
	/* Idle 1..5.5 ms; two packets then share nothing from the past. */
	ts_pipe_enqueue(pipe, pkt(2, 1500), 5 * MS + MS / 2);
	ts_pipe_enqueue(pipe, pkt(3, 1500), 5 * MS + MS / 2);
	TSU_EQ(ts_pipe_next_deadline(pipe), 6 * MS);
	ts_pipe_advance(pipe, 10 * MS);
	TSU_EQ(sink.nrel, 3);
	TSU_EQ(sink.rel_t[0], 1 * MS);
	TSU_EQ(sink.rel_t[1], 6 * MS);
	TSU_EQ(sink.rel_t[2], 7 * MS);
	TSU_EQ(ts_pipe_next_deadline(pipe), TS_NEVER);
	teardown(&d, 10 * MS);
	fx_trace_free(t);
}

/* Queue limit through the stage: drops are counted by cause in stage and pipe. */
static void test_droptail_counts(void)
{
	ts_ns_t at[] = {0};
	uint64_t bps[] = {12000000}; /* 1 ms per 1500 bytes */
	struct ts_trace *t = fx_rate(at, bps, 1, SEC);
	struct ts_pipe *pipe;
	struct ts_dir d;
	uint32_t j;

	setup();
	CU_ASSERT_EQUAL_FATAL(build(&d, t, "droptail:packets=3", 0, NULL, 1), 0);
	pipe = &d.pipe[TS_PLACE_NETWORK];
	/* Packet 0 goes on the link at once; 1..3 queue; 4..9 are over the limit. */
	for (j = 0; j < 10; j++)
		ts_pipe_enqueue(pipe, pkt(j, 1500), 0);
	TSU_EQ(pipe->stats.drops[TS_DROP_OVERLIMIT], 6);
	TSU_EQ(sink.drop_id[0], 4);
	ts_pipe_advance(pipe, SEC);
	TSU_EQ(sink.nrel, 4);
	TSU_EQ(sink.rel_t[3], 4 * MS);
	TSU_EQ(pipe->stage[0]->stats.peak_pkts, 4); /* 3 queued + 1 on the link */
	TSU_EQ(pipe->stage[0]->stats.peak_bytes, 6000);
	teardown(&d, SEC);
	fx_trace_free(t);
}

/* The delay line: fixed delay, and FIFO order kept when the trace's delay drops. */
static void test_delay_fifo(void)
{
	ts_ns_t at[] = {0, SEC};
	uint64_t bps[] = {1000000000, 1000000000};
	struct ts_trace *t = fx_rate(at, bps, 2, 2 * SEC);
	struct ts_pipe *pipe;
	struct ts_dir d;

	t->delay = calloc(2, sizeof(*t->delay));
	t->delay[0] = 100 * MS;
	t->delay[1] = 10 * MS;
	setup();
	/* 5 ms fixed + the trace's column; 1500 B at 1 Gbit/s take 12 us to send. */
	CU_ASSERT_EQUAL_FATAL(build(&d, t, "droptail:packets=10", 5 * MS, NULL, 1), 0);
	pipe = &d.pipe[TS_PLACE_NETWORK];
	TSU_EQ(pipe->nstages, 2);
	ts_pipe_enqueue(pipe, pkt(1, 1500), 990 * MS);
	ts_pipe_enqueue(pipe, pkt(2, 1500), 1000 * MS);
	ts_pipe_advance(pipe, 2 * SEC);
	TSU_EQ(sink.nrel, 2);
	/* Sent at 990.012 ms, + 5 + 100 ms. */
	TSU_EQ(sink.rel_t[0], 1095 * MS + 12000);
	/* Would be due at 1000.012 + 15 ms, but waits behind packet 1. */
	TSU_EQ(sink.rel_t[1], 1095 * MS + 12000);
	TSU_EQ(sink.rel_id[1], 2);
	/* Sojourn percentiles are recorded per released packet (bucket width < 2%). */
	TSU_EQ(pipe->stats.sojourn.count, 2);
	TSU_EQ(pipe->stats.sojourn.max, 105 * MS + 12000);
	teardown(&d, 2 * SEC);
	fx_trace_free(t);
}

static uint64_t run_loss(const char *spec, uint64_t seed, uint32_t n, uint32_t *first_ids)
{
	struct ts_pipe *pipe;
	struct ts_dir d;
	uint32_t j;
	uint64_t lost;

	setup();
	CU_ASSERT_EQUAL_FATAL(build(&d, NULL, NULL, 0, spec, seed), 0);
	pipe = &d.pipe[TS_PLACE_NETWORK];
	for (j = 0; j < n; j++)
		ts_pipe_enqueue(pipe, pkt(j, 100), j);
	lost = pipe->stats.drops[TS_DROP_LOSS];
	TSU_EQ(sink.nrel + sink.ndrop, n);
	for (j = 0; j < 20 && first_ids; j++)
		first_ids[j] = sink.drop_id[j];
	teardown(&d, n);
	return lost;
}

/*
 * Gilbert-Elliott, p = 5%, r = 50%, loss 50% in the bad state and 1% in the
 * good one: stationary loss = r/(p+r) * 0.01 + p/(p+r) * 0.5
 * = (0.5/0.55) * 0.01 + (0.05/0.55) * 0.5 = 0.0090909 + 0.0454545 = 0.0545455.
 * Over 10^6 packets with a fixed seed the measured rate is within 1% of it.
 */
static void test_loss_ge_stationary(void)
{
	double expect = (0.5 / 0.55) * 0.01 + (0.05 / 0.55) * 0.5;
	uint64_t lost = run_loss("ge:p=5%,r=50%,1-h=50%,1-k=1%", 42, 1000000, NULL);
	double rate = (double)lost / 1e6;

	fprintf(stderr, "\n  GE loss %.6f, stationary %.6f\n", rate, expect);
	CU_ASSERT(rate > expect * 0.99 && rate < expect * 1.01);
}

static void test_loss_bernoulli_and_seed(void)
{
	uint32_t a[20], b[20], c[20];
	uint64_t la = run_loss("bernoulli:p=1%", 7, 1000000, a);
	uint64_t lb = run_loss("bernoulli:p=1%", 7, 1000000, b);
	uint64_t lc = run_loss("bernoulli:p=1%", 8, 1000000, c);

	/* 1% of 10^6 = 10000; the binomial sd is ~99.5, so 3 sd is ~300. */
	CU_ASSERT(la > 9700 && la < 10300);
	TSU_EQ(la, lb);
	CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a, c, sizeof(a)), 0);
	CU_ASSERT(lc > 9700 && lc < 10300);
}

static void test_bad_options(void)
{
	ts_ns_t at[] = {0};
	uint64_t bps[] = {1000000};
	struct ts_trace *t = fx_rate(at, bps, 1, SEC);
	struct ts_dir_conf c = {.name = "uplink", .trace = t, .queue = "fifo:packets=1"};
	struct ts_err err = {{0}};
	struct ts_dir d;

	CU_ASSERT_EQUAL(ts_dir_build(&d, &c, fx_release, fx_drop, &sink, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "uplink: unknown queue 'fifo'"));
	c.queue = NULL;
	c.loss = "gauss:p=1%";
	CU_ASSERT_EQUAL(ts_dir_build(&d, &c, fx_release, fx_drop, &sink, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown loss model 'gauss'"));
	c.loss = "bernoulli:q=1%";
	CU_ASSERT_EQUAL(ts_dir_build(&d, &c, fx_release, fx_drop, &sink, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'q'"));
	/* a spec that does not split names the direction and the option too (found by fuzz_link) */
	c.loss = "bernoulli:p=\x08";
	CU_ASSERT_EQUAL(ts_dir_build(&d, &c, fx_release, fx_drop, &sink, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "uplink: loss: spec 'bernoulli:p="));
	fx_trace_free(t);
}

/* --once: the end of the trace is an event, so an idle link ends on time too. */
static void test_once_ends_when_idle(void)
{
	ts_ns_t at[] = {0};
	uint64_t bps[] = {12000000};
	struct ts_trace *t = fx_rate(at, bps, 1, SEC);
	struct ts_dir_conf c = {
		.name = "downlink", .trace = t, .once = true, .place = TS_PLACE_NETWORK};
	struct ts_err err = {{0}};
	struct ts_dir d;

	setup();
	CU_ASSERT_EQUAL_FATAL(ts_dir_build(&d, &c, fx_release, fx_drop, &sink, &err), 0);
	ts_pipe_enqueue(&d.pipe[TS_PLACE_NETWORK], pkt(1, 1500), 0);
	ts_pipe_advance(&d.pipe[TS_PLACE_NETWORK], 10 * MS);
	TSU_EQ(sink.nrel, 1); /* 1500 B at 12 Mbit/s: released at 1 ms */
	CU_ASSERT_FALSE(ts_dir_ended(&d));
	/* Nothing queued, yet the trace's end (1 s) is the next deadline. */
	TSU_EQ(ts_dir_next_deadline(&d), SEC);
	ts_pipe_advance(&d.pipe[TS_PLACE_NETWORK], SEC);
	CU_ASSERT_TRUE(ts_dir_ended(&d));
	TSU_EQ(ts_dir_next_deadline(&d), TS_NEVER);
	teardown(&d, SEC);
	fx_trace_free(t);
}

static const struct tsu_test tests[] = {
	{"--once ends on an idle link", test_once_ends_when_idle},
	{"mahimahi '1' saturated: 1500 bytes per ms", test_mahimahi_one_saturated},
	{"two-row CSV: 1.25 MB then 6.25 MB", test_csv_two_step},
	{"idle capacity is not banked", test_idle_not_banked},
	{"droptail through the stage: counted drops", test_droptail_counts},
	{"delay line keeps FIFO order", test_delay_fifo},
	{"Gilbert-Elliott long-run loss", test_loss_ge_stationary},
	{"Bernoulli loss and seeds", test_loss_bernoulli_and_seed},
	{"bad options name the direction", test_bad_options},
};

TSU_MAIN("stages", tests)

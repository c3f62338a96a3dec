/* SPDX-License-Identifier: MIT */
/*
 * The shaper's event loop without a kernel: turns at made-up times through
 * the in-memory packet I/O (run/pktio.h), and the end-of-run policy (ask
 * CMD to end, drain, linger limit, signals), as ts_shaper_run drives them.
 *
 * The link: const:12mbit, so a 1500-byte packet takes 1 ms on the wire,
 * then a 10 ms delay line; droptail of 4 packets; both directions at the
 * network hooks.
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/stats_out.h"
#include "run/run_summary.h"
#include "run/shaper.h"
#include "tsu.h"

#define MS   TS_NSEC_PER_MSEC
#define T0   (1000 * TS_NSEC_PER_SEC)
#define UP   TS_H_UP_NETWORK
#define DOWN TS_H_DOWN_NETWORK

static struct ts_linkcfg cfg;
static struct ts_shaper sh;
static struct ts_pktio_mem io[TS_H__COUNT];
static ts_ns_t fake_now;
static ts_ns_t fake_step; /* added to fake_now at every reading: a clock that moves in a call */
static int open_socks;

static ts_ns_t fake_clock(void)
{
	fake_now += fake_step;
	return fake_now;
}

static int count_socks(void *ctx)
{
	(void)ctx;
	return open_socks;
}

/* The shaper of @cfg (set by the caller) at T0, every hook it needs on a memory pktio. */
static void start_shaper(void)
{
	struct ts_err err = {{0}};
	int i;

	CU_ASSERT_EQUAL_FATAL(ts_linkcfg_load(&cfg, &err), 0);
	CU_ASSERT_EQUAL_FATAL(ts_shaper_init(&sh, &cfg, T0, 64, &err), 0);
	for (i = 0; i < TS_H__COUNT; i++) {
		ts_pktio_mem_init(&io[i]);
		if (ts_shaper_needs(&sh, i))
			ts_shaper_use(&sh, i, &ts_pktio_mem_ops, &io[i]);
	}
}

static void setup(void)
{
	ts_linkcfg_init(&cfg);
	cfg.trace = "const:12mbit";
	cfg.delay = 10 * MS;
	cfg.queue[TS_UP] = cfg.queue[TS_DOWN] = "droptail:packets=4";
	start_shaper();
	fake_now = T0;
	fake_step = 0;
	sh.clock = fake_clock;
	sh.check = true;
	open_socks = 0;
}

static void teardown(void)
{
	ts_shaper_fini(&sh);
	ts_linkcfg_free(&cfg);
}

/* One turn at T0 + @ms milliseconds; the conservation check runs in it. */
static void turn(ts_ns_t at)
{
	struct ts_err err = {{0}};

	fake_now = at;
	TSU_EQ(ts_shaper_turn(&sh, at, TS_READY_HOOKS, &err), 0);
	if (err.msg[0])
		fprintf(stderr, "\n  %s\n", err.msg);
}

static unsigned int accepted(const struct ts_pktio_mem *m)
{
	unsigned int i, n = 0;

	for (i = 0; i < m->nsent; i++)
		n += m->sent[i].accept != 0;
	return n;
}

/* Only the network hooks are used: the sender place has no stages by default. */
static void test_hooks(void)
{
	setup();
	CU_ASSERT_FALSE(ts_shaper_needs(&sh, TS_H_UP_SENDER));
	CU_ASSERT_TRUE(ts_shaper_needs(&sh, UP));
	CU_ASSERT_TRUE(ts_shaper_needs(&sh, DOWN));
	teardown();
}

/*
 * Three back-to-back packets at T0: on the wire until T0+1, +2, +3 ms,
 * then 10 ms of delay: accepted at T0+11, +12, +13 ms, in order.
 */
static void test_release_times(void)
{
	uint32_t a, b, c;

	setup();
	ts_shaper_begin(&sh, 0, 0);
	a = ts_pktio_mem_push(&io[UP], 1500);
	b = ts_pktio_mem_push(&io[UP], 1500);
	c = ts_pktio_mem_push(&io[UP], 1500);
	turn(T0);
	TSU_EQ(io[UP].nsent, 0);
	/* The loop wakes for the model's next event: the first packet leaves the wire. */
	TSU_EQ(ts_shaper_deadline(&sh), T0 + MS);
	turn(T0 + 11 * MS - 1);
	TSU_EQ(io[UP].nsent, 0);
	turn(T0 + 11 * MS);
	TSU_EQ(io[UP].nsent, 1);
	turn(T0 + 13 * MS);
	TSU_EQ(io[UP].nsent, 3);
	TSU_EQ(io[UP].sent[0].id, a);
	TSU_EQ(io[UP].sent[1].id, b);
	TSU_EQ(io[UP].sent[2].id, c);
	TSU_EQ(accepted(&io[UP]), 3);
	TSU_EQ(io[DOWN].nsent, 0);
	teardown();
}

/* Set up, then the three packets of test_release_error_readings, released in one call. */
static void three_late_packets(void)
{
	setup();
	ts_shaper_begin(&sh, 0, 0);
	ts_pktio_mem_push(&io[UP], 1500);
	ts_pktio_mem_push(&io[UP], 1500);
	ts_pktio_mem_push(&io[UP], 1500);
	turn(T0);
	fake_step = 5 * TS_NSEC_PER_USEC;
	turn(T0 + 13 * MS);
}

/*
 * Release errors: the clock moves 5 us at every reading, so the one verdict call of a turn
 * begins 5 us after the turn's time and returns 10 us after it. Three packets at T0 leave the
 * model at T0+11, +12, +13 ms; one turn at T0+13 ms sends all three in one call. The first
 * packet of the call gets the reading before it: 13 ms + 5 us - 11 ms = 2,005 us; the others
 * the reading after it: 13 ms + 10 us - 12 ms = 1,010 us and 10 us. The call took 5 us.
 */
static void test_release_error_readings(void)
{
	const struct ts_hist *e = &sh.release_err[TS_UP], *c = &sh.verdict_call[TS_UP];

	three_late_packets();
	TSU_EQ(io[UP].nsent, 3);
	TSU_EQ(e->count, 3);
	TSU_EQ(e->max, 2005 * TS_NSEC_PER_USEC);
	TSU_EQ(e->min, 10 * TS_NSEC_PER_USEC);
	TSU_EQ((int64_t)e->sum, (2005 + 1010 + 10) * TS_NSEC_PER_USEC);
	TSU_EQ(c->count, 1);
	TSU_EQ(c->min, 5 * TS_NSEC_PER_USEC);
	TSU_EQ(c->max, 5 * TS_NSEC_PER_USEC);
	TSU_EQ(sh.release_err[TS_DOWN].count, 0);
	TSU_EQ(sh.verdict_call[TS_DOWN].count, 0);
	teardown();
}

/*
 * The queue whose release was due first is flushed first, whichever direction it is. The
 * clock moves 5 us at every reading. A downlink packet at T0 leaves the model at T0+11 ms, an
 * uplink one at T0+0.5 ms at T0+11.5 ms; a turn at T0+12 ms sends the downlink first (readings
 * at +5 and +10 us), then the uplink (+15, +20 us): errors 1,005 us down and 515 us up (up
 * first, as the hooks are numbered, would give 505 and 1,015 us). The same pair the other way
 * round 20 ms later sends the uplink first: 1,005 us up, 515 us down.
 */
static void test_flush_order(void)
{
	const struct ts_hist *up = &sh.release_err[TS_UP], *down = &sh.release_err[TS_DOWN];

	setup();
	ts_shaper_begin(&sh, 0, 0);
	ts_pktio_mem_push(&io[DOWN], 1500);
	turn(T0);
	ts_pktio_mem_push(&io[UP], 1500);
	turn(T0 + MS / 2);
	fake_step = 5 * TS_NSEC_PER_USEC;
	turn(T0 + 12 * MS);
	TSU_EQ(io[UP].nsent, 1);
	TSU_EQ(io[DOWN].nsent, 1);
	TSU_EQ(down->max, 1005 * TS_NSEC_PER_USEC);
	TSU_EQ(up->max, 515 * TS_NSEC_PER_USEC);
	fake_step = 0;
	ts_pktio_mem_push(&io[UP], 1500);
	turn(T0 + 20 * MS);
	ts_pktio_mem_push(&io[DOWN], 1500);
	turn(T0 + 20 * MS + MS / 2);
	fake_step = 5 * TS_NSEC_PER_USEC;
	turn(T0 + 32 * MS);
	TSU_EQ(up->count, 2);
	TSU_EQ(down->count, 2);
	TSU_EQ(up->max, 1005 * TS_NSEC_PER_USEC);
	TSU_EQ(up->min, 515 * TS_NSEC_PER_USEC);
	TSU_EQ(down->max, 1005 * TS_NSEC_PER_USEC);
	TSU_EQ(down->min, 515 * TS_NSEC_PER_USEC);
	teardown();
}

/*
 * A queue with only drops this turn counts as due at the turn's time. A downlink packet at T0
 * leaves the model at T0+11 ms; six uplink packets at T0+12 ms find 4 places of queue behind
 * the one on the wire, so one is dropped at once. The turn at T0+12 ms sends the downlink's
 * release (due 1 ms before) first, at +5 us: 1,005 us; the uplink's drop after it. In the
 * hooks' order the downlink would have waited: 1,015 us.
 */
static void test_flush_order_drops(void)
{
	int i;

	setup();
	ts_shaper_begin(&sh, 0, 0);
	ts_pktio_mem_push(&io[DOWN], 1500);
	turn(T0);
	for (i = 0; i < 6; i++)
		ts_pktio_mem_push(&io[UP], 1500);
	fake_step = 5 * TS_NSEC_PER_USEC;
	turn(T0 + 12 * MS);
	TSU_EQ(io[UP].nsent, 1);
	TSU_EQ(accepted(&io[UP]), 0);
	TSU_EQ(io[DOWN].nsent, 1);
	TSU_EQ(sh.release_err[TS_DOWN].max, 1005 * TS_NSEC_PER_USEC);
	teardown();
}

/*
 * The loop's work in its busiest second reaches the summary only once a second was measured
 * (not before the loop ran), and at 800 permille or more a run that fell behind is said once,
 * not per direction, to have been held back by the host's CPU.
 */
static void test_loop_work(void)
{
	struct ts_summary sum;
	char *text = NULL;
	const char *hit;
	size_t len = 0;
	FILE *f;

	setup();
	ts_shaper_summary(&sh, &sum, "t");
	CU_ASSERT_FALSE(sum.have_loop_work);
	CU_ASSERT_FALSE(ts_summary_loop_saturated(&sum));
	sh.spin.work_max = 799;
	ts_shaper_summary(&sh, &sum, "t");
	CU_ASSERT_TRUE(sum.have_loop_work);
	TSU_EQ(sum.loop_work_max_permille, 799);
	CU_ASSERT_FALSE(ts_summary_loop_saturated(&sum));
	sh.spin.work_max = 800;
	ts_shaper_summary(&sh, &sum, "t");
	CU_ASSERT_TRUE(ts_summary_loop_saturated(&sum));
	/* Both directions 1 ms late: both fell behind, the host is named once. */
	ts_hist_add(&sh.release_err[TS_UP], MS);
	ts_hist_add(&sh.release_err[TS_DOWN], MS);
	ts_shaper_summary(&sh, &sum, "t");
	f = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	ts_summary_print(f, &sum);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
				      "shaper loop       work 80.0% of one CPU in its busiest "
				      "second\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "the emulator fell behind"));
	hit = strstr(text, "no CPU to spare (80.0% of one CPU");
	CU_ASSERT_PTR_NOT_NULL_FATAL(hit);
	CU_ASSERT_PTR_NULL(strstr(hit + 1, "no CPU to spare"));
	free(text);
	teardown();
}

/* The summary's text of @sum, malloc'd. */
static char *summary_text(const struct ts_summary *sum)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	ts_summary_print(f, sum);
	fclose(f);
	return text;
}

/*
 * Release timing by place reaches the summary only where a direction has verdict calls at
 * both places. The three packets of test_release_error_readings (one network call) give none;
 * with a sender call of 300 us that carried one packet 250 us late added, the uplink reports
 * each place with its own numbers, in the text and in the JSON; the downlink none.
 */
static void test_place_timing(void)
{
	const struct ts_place_timing *snd, *net;
	struct json_object *j, *up, *v;
	struct ts_summary sum;
	char *text;

	three_late_packets();
	TSU_EQ(sh.release_err_place[TS_UP][TS_PLACE_NETWORK].count, 3);
	TSU_EQ(sh.release_err_place[TS_UP][TS_PLACE_NETWORK].max, 2005 * TS_NSEC_PER_USEC);
	TSU_EQ(sh.release_err_place[TS_UP][TS_PLACE_SENDER].count, 0);
	ts_shaper_summary(&sh, &sum, "t");
	CU_ASSERT_FALSE(sum.extra[TS_UP].place[TS_PLACE_SENDER].have);
	CU_ASSERT_FALSE(sum.extra[TS_UP].place[TS_PLACE_NETWORK].have);
	ts_hist_add(&sh.release_err_place[TS_UP][TS_PLACE_SENDER], 250 * TS_NSEC_PER_USEC);
	ts_hist_add(&sh.verdict_call_place[TS_UP][TS_PLACE_SENDER], 300 * TS_NSEC_PER_USEC);
	ts_shaper_summary(&sh, &sum, "t");
	snd = &sum.extra[TS_UP].place[TS_PLACE_SENDER];
	net = &sum.extra[TS_UP].place[TS_PLACE_NETWORK];
	CU_ASSERT_TRUE(snd->have);
	TSU_EQ(snd->releases, 1);
	TSU_EQ(snd->verdict_calls, 1);
	TSU_EQ(snd->release_err_max, 250 * TS_NSEC_PER_USEC);
	TSU_EQ(snd->verdict_call_max, 300 * TS_NSEC_PER_USEC);
	CU_ASSERT_TRUE(net->have);
	TSU_EQ(net->releases, 3);
	TSU_EQ(net->verdict_calls, 1);
	TSU_EQ(net->release_err_max, 2005 * TS_NSEC_PER_USEC);
	TSU_EQ(net->verdict_call_max, 5 * TS_NSEC_PER_USEC);
	CU_ASSERT_FALSE(sum.extra[TS_DOWN].place[TS_PLACE_NETWORK].have);
	text = summary_text(&sum);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "    at the sender  error p50 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, " us; 1 verdict calls, p50 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "    at the network error p50 "));
	free(text);
	j = ts_summary_json_object(&sum);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	up = json_object_array_get_idx(json_object_object_get(j, "directions"), TS_UP);
	CU_ASSERT_TRUE(json_object_object_get_ex(up, "by_place", &v));
	v = json_object_object_get(json_object_object_get(v, "network"), "releases");
	TSU_EQ(json_object_get_int64(v), 3);
	v = json_object_array_get_idx(json_object_object_get(j, "directions"), TS_DOWN);
	CU_ASSERT_FALSE(json_object_object_get_ex(v, "by_place", NULL));
	json_object_put(j);
	teardown();
}

/*
 * The host's steal time (set by the session, real time only): no line when unknown or zero, a
 * plain line when the run kept its timing, a warning when a direction fell behind; in the
 * JSON as host_steal_ms only when known.
 */
static void test_host_steal(void)
{
	struct json_object *o, *v;
	struct ts_summary sum;
	char *text;

	setup();
	ts_shaper_summary(&sh, &sum, "t");
	text = summary_text(&sum);
	CU_ASSERT_PTR_NULL(strstr(text, "host steal"));
	free(text);
	o = ts_summary_json_object(&sum);
	CU_ASSERT_FALSE(json_object_object_get_ex(o, "host_steal_ms", &v));
	json_object_put(o);
	sum.have_host_steal = true;
	text = summary_text(&sum);
	CU_ASSERT_PTR_NULL(strstr(text, "host steal")); /* 0 ms: nothing to say */
	free(text);
	sum.host_steal_ms = 310;
	text = summary_text(&sum);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nhost steal        310 ms: the hypervisor ran other "
					    "work on this machine's CPUs\n"));
	free(text);
	o = ts_summary_json_object(&sum);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "host_steal_ms", &v));
	TSU_EQ(json_object_get_int64(v), 310);
	json_object_put(o);
	/* The uplink 1 ms late: it fell behind, and the steal is a warning. */
	ts_hist_add(&sh.release_err[TS_UP], MS);
	ts_shaper_summary(&sh, &sum, "t");
	sum.have_host_steal = true;
	sum.host_steal_ms = 310;
	text = summary_text(&sum);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "WARNING: host steal        310 ms: the hypervisor ran "
					    "other work on this machine's CPUs, and the loop "
					    "stopped while it did\n"));
	free(text);
	teardown();
}

/*
 * Ten packets at once into 4 places of queue: one goes on the wire at
 * once, four wait, five are dropped at once (NF_DROP, cause overlimit).
 */
static void test_overlimit(void)
{
	int i;

	setup();
	ts_shaper_begin(&sh, 0, 0);
	for (i = 0; i < 10; i++)
		ts_pktio_mem_push(&io[DOWN], 1500);
	turn(T0);
	TSU_EQ(io[DOWN].nsent, 5);
	TSU_EQ(accepted(&io[DOWN]), 0);
	TSU_EQ(sh.dir[TS_DOWN].pipe[TS_PLACE_NETWORK].stats.drops[TS_DROP_OVERLIMIT], 5);
	turn(T0 + 15 * MS);
	TSU_EQ(io[DOWN].nsent, 10);
	TSU_EQ(accepted(&io[DOWN]), 5);
	teardown();
}

/* Made-up /proc/stat counters for the virtual-time windows: one reading per call. */
static const struct ts_cpustat fake_stat[] = {{.idle = 0, .total = 0},
					      {.idle = 60, .total = 100},
					      {.idle = 65, .total = 200},
					      {.idle = 140, .total = 300}};
static unsigned int fake_stat_n;

static int fake_cpustat(struct ts_cpustat *c)
{
	if (fake_stat_n >= sizeof(fake_stat) / sizeof(fake_stat[0]))
		return -EIO;
	*c = fake_stat[fake_stat_n++];
	return 0;
}

/*
 * In virtual time the guest CPU's counters are read once a second of turns: at T0, T0+1 s
 * (60 of 100 ticks idle: 600), T0+2 s (5 of 100: 50) and T0+3 s (75 of 100: 750); a turn
 * less than a second after the last reading reads nothing. The busiest second, 5.0% idle,
 * is what the summary gets; a failed reading changes nothing.
 */
static void test_vcpu_windows(void)
{
	struct ts_summary sum;

	setup();
	fake_stat_n = 0;
	sh.cpustat = fake_cpustat;
	ts_shaper_begin(&sh, 0, 0);
	turn(T0);
	TSU_EQ(fake_stat_n, 1);
	TSU_EQ(sh.vcpu_min_idle, -1);
	turn(T0 + 999 * MS);
	TSU_EQ(fake_stat_n, 1);
	turn(T0 + 1000 * MS);
	TSU_EQ(sh.vcpu_min_idle, 600);
	turn(T0 + 2000 * MS);
	TSU_EQ(sh.vcpu_min_idle, 50);
	turn(T0 + 3500 * MS);
	TSU_EQ(sh.vcpu_min_idle, 50);
	turn(T0 + 4500 * MS);
	TSU_EQ(fake_stat_n, 4);
	TSU_EQ(sh.vcpu_min_idle, 50);
	ts_shaper_summary(&sh, &sum, "t");
	CU_ASSERT_TRUE(sum.have_cpu_idle);
	TSU_EQ(sum.cpu_idle_permille, 50);
	teardown();
	/* On a host nothing is read or reported. */
	setup();
	turn(T0);
	turn(T0 + 2000 * MS);
	ts_shaper_summary(&sh, &sum, "t");
	CU_ASSERT_FALSE(sum.have_cpu_idle);
	teardown();
}

/* A second verdict for one id is refused and the check says so. */
static void test_double_verdict(void)
{
	struct ts_err err;
	uint32_t id;

	setup();
	ts_shaper_begin(&sh, 0, 0);
	id = ts_pktio_mem_push(&io[UP], 1500);
	turn(T0);
	turn(T0 + 11 * MS);
	TSU_EQ(io[UP].nsent, 1);
	TSU_EQ(ts_shaper_check(&sh, &err), 0);
	TSU_EQ(ts_pktio_mem_ops.verdict(&io[UP], id, 0), -ENOENT);
	TSU_EQ(ts_shaper_check(&sh, &err), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "second verdict"));
	teardown();
}

/*
 * CMD exits at T0 with three packets held: the link drains them (at +11,
 * +12, +13 ms), then waits for the connections to close (2 open until
 * +20 ms), and only then ends, with nothing dropped.
 */
static void test_drain(void)
{
	ts_ns_t t;
	int r = 0;

	setup();
	sh.linger = 2 * TS_NSEC_PER_SEC;
	sh.sockets = count_socks;
	ts_shaper_begin(&sh, 4242, 0);
	ts_pktio_mem_push(&io[UP], 1500);
	ts_pktio_mem_push(&io[UP], 1500);
	ts_pktio_mem_push(&io[UP], 1500);
	turn(T0);
	ts_shaper_on_child_exit(&sh, 0);
	open_socks = 2;
	TSU_EQ(ts_shaper_policy(&sh, T0), 0);
	TSU_EQ(sh.phase, TS_PH_DRAIN);
	TSU_EQ(ts_shaper_deadline(&sh), T0 + MS);
	for (t = T0 + MS; t <= T0 + 40 * MS && !r; t += MS) {
		if (t == T0 + 20 * MS)
			open_socks = 0;
		turn(t);
		r = ts_shaper_policy(&sh, t);
		if (t < T0 + 20 * MS)
			TSU_EQ(r, 0);
	}
	TSU_EQ(r, TS_STOP_CHILD);
	/*
	 * Counted once the queues are empty and nothing arrived for TS_DRAIN_QUIET
	 * (the last arrival was at T0): at +13 ms, then TS_DRAIN_POLL apart: +18,
	 * +23, when all are closed; the queues stay quiet TS_DRAIN_CLOSED more: +33.
	 */
	TSU_EQ(t - MS, T0 + 33 * MS);
	TSU_EQ(T0 + 23 * MS + TS_DRAIN_CLOSED, T0 + 33 * MS);
	CU_ASSERT_TRUE(sh.drain_complete);
	TSU_EQ(accepted(&io[UP]), 3);
	ts_shaper_finish(&sh);
	TSU_EQ(sh.dir[TS_UP].pipe[TS_PLACE_NETWORK].stats.drops[TS_DROP_SHUTDOWN], 0);
	TSU_EQ(sh.kill_sig, 0);
	teardown();
}

/* A connection that never closes holds the run for --linger, no more; what is held then is dropped. */
static void test_linger_limit(void)
{
	int r;

	setup();
	sh.linger = 100 * MS;
	sh.sockets = count_socks;
	open_socks = 1;
	ts_shaper_begin(&sh, 4242, 0);
	ts_shaper_on_child_exit(&sh, 0);
	turn(T0);
	TSU_EQ(ts_shaper_policy(&sh, T0), 0);
	/* Counted (1 open) at T0: the next count is TS_DRAIN_POLL later. */
	TSU_EQ(ts_shaper_deadline(&sh), T0 + TS_DRAIN_POLL);
	turn(T0 + 99 * MS);
	TSU_EQ(ts_shaper_policy(&sh, T0 + 99 * MS), 0);
	/* A packet arriving now is still held at the limit. */
	ts_pktio_mem_push(&io[DOWN], 1500);
	turn(T0 + 100 * MS);
	r = ts_shaper_policy(&sh, T0 + 100 * MS);
	TSU_EQ(r, TS_STOP_CHILD);
	CU_ASSERT_FALSE(sh.drain_complete);
	ts_shaper_finish(&sh);
	TSU_EQ(sh.dir[TS_DOWN].pipe[TS_PLACE_NETWORK].stats.drops[TS_DROP_SHUTDOWN], 1);
	TSU_EQ(io[DOWN].nsent, 1);
	TSU_EQ(io[DOWN].sent[0].accept, 0);
	teardown();
}

/* --duration ends the run while CMD runs: SIGTERM, SIGKILL after the grace, then the drain. */
static void test_duration_ends_cmd(void)
{
	ts_ns_t end = T0 + TS_NSEC_PER_SEC;

	setup();
	ts_shaper_begin(&sh, 4242, TS_NSEC_PER_SEC);
	TSU_EQ(ts_shaper_deadline(&sh), end);
	turn(end - 1);
	TSU_EQ(ts_shaper_policy(&sh, end - 1), 0);
	TSU_EQ(sh.kill_sig, 0);
	turn(end);
	TSU_EQ(ts_shaper_policy(&sh, end), 0);
	TSU_EQ(sh.kill_sig, SIGTERM);
	TSU_EQ(sh.phase, TS_PH_ENDING);
	sh.kill_sig = 0;
	TSU_EQ(ts_shaper_deadline(&sh), end + TS_TERM_GRACE);
	turn(end + TS_TERM_GRACE);
	TSU_EQ(ts_shaper_policy(&sh, end + TS_TERM_GRACE), 0);
	TSU_EQ(sh.kill_sig, SIGKILL);
	sh.kill_sig = 0;
	ts_shaper_on_child_exit(&sh, SIGKILL);
	/* No linger set: the drain ends at once; the reason stays the duration. */
	TSU_EQ(ts_shaper_policy(&sh, end + TS_TERM_GRACE + 1), TS_STOP_DURATION);
	teardown();
}

/* Signals: passed on to CMD unless the terminal sent them, the third kills; attach stops (no linger: at once). */
static void test_signals(void)
{
	setup();
	ts_shaper_begin(&sh, 4242, 0);
	ts_shaper_on_signal(&sh, SIGINT, true);
	TSU_EQ(sh.kill_sig, 0);
	ts_shaper_on_signal(&sh, SIGTERM, false);
	TSU_EQ(sh.kill_sig, SIGTERM);
	ts_shaper_on_signal(&sh, SIGHUP, false);
	TSU_EQ(sh.kill_sig, SIGKILL);
	TSU_EQ(ts_shaper_policy(&sh, T0), 0); /* the run ends when CMD has exited */
	teardown();

	setup();
	ts_shaper_begin(&sh, 0, 0);
	TSU_EQ(ts_shaper_policy(&sh, T0), 0);
	ts_shaper_on_signal(&sh, SIGINT, true);
	TSU_EQ(ts_shaper_policy(&sh, T0), TS_STOP_SIGNAL);
	teardown();
}

/* A signal during the drain cuts it short. */
static void test_signal_cuts_drain(void)
{
	setup();
	sh.linger = TS_NSEC_PER_SEC;
	sh.sockets = count_socks;
	open_socks = 3;
	ts_shaper_begin(&sh, 4242, 0);
	ts_shaper_on_child_exit(&sh, 0);
	turn(T0);
	TSU_EQ(ts_shaper_policy(&sh, T0), 0);
	ts_shaper_on_signal(&sh, SIGINT, true);
	TSU_EQ(sh.kill_sig, 0);
	TSU_EQ(ts_shaper_policy(&sh, T0 + MS), TS_STOP_CHILD);
	CU_ASSERT_FALSE(sh.drain_complete);
	teardown();
}

/*
 * attach (no CMD): SIGINT starts a drain of the queues. Three 1500-byte
 * packets at T0 through 12 Mbit/s and 10 ms: released at +1, +2 and +3 ms
 * by the rate, +10 ms each by the delay, so the last leaves at +13 ms and
 * the run ends there, none dropped. A second signal cuts the drain short:
 * what is held is then dropped at the end (shutdown).
 */
static void test_attach_drain(void)
{
	ts_ns_t t;
	int r = 0;

	setup();
	sh.linger = TS_NSEC_PER_SEC;
	ts_shaper_begin(&sh, 0, 0);
	ts_pktio_mem_push(&io[UP], 1500);
	ts_pktio_mem_push(&io[UP], 1500);
	ts_pktio_mem_push(&io[UP], 1500);
	turn(T0);
	ts_shaper_on_signal(&sh, SIGINT, true);
	TSU_EQ(ts_shaper_policy(&sh, T0), 0);
	TSU_EQ(sh.phase, TS_PH_DRAIN);
	for (t = T0 + MS; t <= T0 + 40 * MS && !r; t += MS) {
		turn(t);
		r = ts_shaper_policy(&sh, t);
	}
	TSU_EQ(r, TS_STOP_SIGNAL);
	TSU_EQ(t - MS, T0 + 13 * MS);
	CU_ASSERT_TRUE(sh.drain_complete);
	TSU_EQ(accepted(&io[UP]), 3);
	ts_shaper_finish(&sh);
	TSU_EQ(sh.dir[TS_UP].pipe[TS_PLACE_NETWORK].stats.drops[TS_DROP_SHUTDOWN], 0);
	teardown();

	setup();
	sh.linger = TS_NSEC_PER_SEC;
	ts_shaper_begin(&sh, 0, 0);
	ts_pktio_mem_push(&io[UP], 1500);
	turn(T0);
	ts_shaper_on_signal(&sh, SIGINT, true);
	TSU_EQ(ts_shaper_policy(&sh, T0), 0);
	ts_shaper_on_signal(&sh, SIGINT, true);
	TSU_EQ(ts_shaper_policy(&sh, T0 + MS), TS_STOP_SIGNAL);
	CU_ASSERT_FALSE(sh.drain_complete);
	ts_shaper_finish(&sh);
	TSU_EQ(sh.dir[TS_UP].pipe[TS_PLACE_NETWORK].stats.drops[TS_DROP_SHUTDOWN], 1);
	teardown();
}

/*
 * The default --linger. const:25mbit, 10 ms, droptail:packets=500: a full
 * queue is 500 * 1500 = 750,000 bytes, 0.24 s at 3,125,000 bytes/s; held
 * at most 0.24 + 0.01 s each way, 0.5 s both; twice that plus 1 s: 2 s.
 * The default queue (1000 packets): 0.48 + 0.01 each way: 1 + 2 * 0.98 s.
 */
static void test_linger_default(void)
{
	struct ts_linkcfg c;
	struct ts_err err;

	ts_linkcfg_init(&c);
	c.trace = "const:25mbit";
	c.delay = 10 * MS;
	c.queue[TS_UP] = c.queue[TS_DOWN] = "droptail:packets=500";
	CU_ASSERT_EQUAL_FATAL(ts_linkcfg_load(&c, &err), 0);
	TSU_EQ(ts_linkcfg_linger(&c), 2 * TS_NSEC_PER_SEC);
	c.queue[TS_UP] = c.queue[TS_DOWN] = NULL;
	TSU_EQ(ts_linkcfg_linger(&c), 2960 * MS);
	c.queue[TS_UP] = c.queue[TS_DOWN] = "codel:bytes=150KB";
	/* 150 KB = 153,600 bytes: 49.152 ms each way, (0.049152 + 0.01) * 2 * 2 + 1 s. */
	TSU_EQ(ts_linkcfg_linger(&c), 1236608 * TS_NSEC_PER_USEC);
	c.queue[TS_UP] = c.queue[TS_DOWN] = "infinite";
	TSU_EQ(ts_linkcfg_linger(&c), TS_LINGER_MAX);
	ts_linkcfg_free(&c);
}

/* An IPv4 header whose destination is @d (network order), for the downlink's classification. */
static void ipv4_to(struct ts_pktio_mem *m, uint8_t *hdr, uint32_t d)
{
	struct ts_nfq_pkt *kp = &m->in[m->nin - 1];

	memset(hdr, 0, 20);
	hdr[0] = 0x45;
	memcpy(hdr + 16, &d, 4);
	kp->l3proto = 0x0800;
	kp->hdr = hdr;
	kp->hdrlen = 20;
}

/*
 * Real Wi-Fi stations (wifi6 real=2): station 1's sender hook is used (a
 * third station's is not), its packets are station 1's at the medium, and
 * a downlink packet goes to the AP's queue of the station it is addressed
 * to (an unknown address: station 0's). Random backoff: station 1 and the
 * AP both have a frame at once, and a fixed one would collide every time.
 */
static void test_real_stations(void)
{
	static uint8_t h1[20], h2[20];
	const struct ts_wifi6_medium_stats *ms;

	ts_linkcfg_init(&cfg);
	cfg.mac = "wifi6:real=2,beacon=0";
	start_shaper();
	CU_ASSERT_TRUE(ts_shaper_needs(&sh, ts_hook_of_station(1)));
	CU_ASSERT_FALSE(ts_shaper_needs(&sh, ts_hook_of_station(2)));
	sh.clock = fake_clock;
	sh.check = true;
	sh.nsta = 2;
	sh.sta_v4[0] = htonl(0x0a000006);
	sh.sta_v4[1] = htonl(0x0a000106);
	ts_shaper_begin(&sh, 0, 0);
	ts_pktio_mem_push(&io[ts_hook_of_station(1)], 1500);
	ts_pktio_mem_push(&io[DOWN], 1000);
	ipv4_to(&io[DOWN], h1, htonl(0x0a000106));
	ts_pktio_mem_push(&io[DOWN], 700);
	ipv4_to(&io[DOWN], h2, htonl(0x0a000206));
	turn(T0);
	turn(T0 + 10 * MS);
	ms = ts_wifi6_stage_medium(sh.dir[TS_UP].mac);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	TSU_EQ(ms->sta[1].up_bytes, 1500);
	TSU_EQ(ms->sta[0].up_bytes, 0);
	TSU_EQ(ms->sta[1].down_bytes, 1000);
	TSU_EQ(ms->sta[0].down_bytes, 700);
	TSU_EQ(accepted(&io[ts_hook_of_station(1)]), 1);
	TSU_EQ(accepted(&io[DOWN]), 2);
	teardown();
}

/*
 * stats.csv's Wi-Fi columns (record/stats_out.h): one 1500-byte frame of
 * the uplink's station goes out in the first 100 ms window: that row
 * counts its access, its A-MPDU of one MPDU, its airtime and the medium's
 * busy time, as the MAC's own counters do; the downlink's row, no
 * transmission of its own but the same busy time; the next window nothing.
 */
static void test_stats_mac(void)
{
	const struct ts_dir *dirs[2] = {&sh.dir[TS_UP], &sh.dir[TS_DOWN]};
	const struct ts_wifi6_medium_stats *ms;
	const struct ts_wifi6_stats *w;
	char *buf = NULL, want[256];
	struct ts_stats st;
	size_t len = 0;
	FILE *f;

	ts_linkcfg_init(&cfg);
	cfg.mac = "wifi6:beacon=0";
	start_shaper();
	sh.clock = fake_clock;
	ts_shaper_begin(&sh, 0, 0);
	f = open_memstream(&buf, &len);
	ts_stats_init(&st, f, dirs, T0, 100 * MS);
	ts_pktio_mem_push(&io[TS_H_UP_SENDER], 1500);
	turn(T0);
	turn(T0 + 10 * MS);
	ts_stats_close(&st, T0 + 150 * MS);
	fclose(f);
	w = ts_wifi6_stage_stats(sh.dir[TS_UP].mac);
	ms = ts_wifi6_stage_medium(sh.dir[TS_UP].mac);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	TSU_EQ(w->txops, 1);
	CU_ASSERT(w->airtime > 0 && ms->busy >= w->airtime);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf,
				      ",wifi_accesses,wifi_txops,wifi_mpdus,wifi_collisions,"
				      "wifi_failures,wifi_airtime_ns,wifi_busy_ns,wifi_beacons\n"));
	snprintf(want, sizeof(want), ",1,1,1,0,0,%lld,%lld,0\n0.100,downlink,",
		 (long long)w->airtime, (long long)ms->busy);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
	snprintf(want, sizeof(want), ",0,0,0,0,0,0,%lld,0\n0.150,uplink,", (long long)ms->busy);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",0,0,0,0,0,0,0,0\n0.150,downlink,"));
	free(buf);
	teardown();
}

static const struct tsu_test tests[] = {
	{"the default linger", test_linger_default},
	{"hooks in use", test_hooks},
	{"release times through the in-memory queue", test_release_times},
	{"release errors: the clock before and after the verdict call",
	 test_release_error_readings},
	{"release timing by place, where a direction has both", test_place_timing},
	{"the queue whose release was due first is flushed first", test_flush_order},
	{"a queue with only drops counts as due now", test_flush_order_drops},
	{"the loop's work, and the host named when it had none to spare", test_loop_work},
	{"the host's steal time: no line, a line, a warning; in the JSON when known",
	 test_host_steal},
	{"tail drops get NF_DROP at once", test_overlimit},
	{"virtual time: the guest CPU's busiest second", test_vcpu_windows},
	{"a second verdict fails the conservation check", test_double_verdict},
	{"drain: queues empty, connections closed", test_drain},
	{"drain: the linger limit", test_linger_limit},
	{"--duration ends CMD: SIGTERM, SIGKILL, drain", test_duration_ends_cmd},
	{"signals", test_signals},
	{"attach: a drain of the queues at the signal", test_attach_drain},
	{"a signal cuts the drain short", test_signal_cuts_drain},
	{"real Wi-Fi stations: their hooks and the downlink's classification", test_real_stations},
	{"stats.csv: the Wi-Fi MAC's counters per window", test_stats_mac},
};

TSU_MAIN("shaper", tests)

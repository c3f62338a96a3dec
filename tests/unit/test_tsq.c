/* SPDX-License-Identifier: MIT */
/*
 * The station's TCP Small Queues budget (src/model/tsq.c): the
 * pacing_shift= values, BBR's state from its gains, the kernel's limit,
 * the uncharged part, and the queue statistics, with numbers worked out
 * by hand in each test.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "tasshape/tsq.h"
#include "tasshape/wifi6.h"
#include "tsu.h"

static void test_parse(void)
{
	struct ts_tsq_conf c;
	struct ts_err err;
	char buf[32];
	static const char *const bad[] = {"0", "21",	 "tas:7",   "tas:/8",	 "x",  "7x",
					  "",  "tas:7/", "tas:7/0", "tas:7/10x", "-7", "100"};
	unsigned int i;

	ts_tsq_conf_init(&c);
	TSU_EQ(c.mode, TS_TSQ_FIXED);
	TSU_EQ(c.shift, 7);
	TSU_EQ(ts_tsq_conf_parse(&c, "8", &err), 0);
	TSU_EQ(c.mode, TS_TSQ_FIXED);
	TSU_EQ(c.shift, 8);
	CU_ASSERT_STRING_EQUAL(ts_tsq_conf_str(&c, buf, sizeof(buf)), "8");
	TSU_EQ(ts_tsq_conf_parse(&c, "kernel", &err), 0);
	TSU_EQ(c.mode, TS_TSQ_KERNEL);
	CU_ASSERT_STRING_EQUAL(ts_tsq_conf_str(&c, buf, sizeof(buf)), "kernel");
	TSU_EQ(ts_tsq_conf_parse(&c, "tas:7/10", &err), 0);
	TSU_EQ(c.mode, TS_TSQ_TAS);
	TSU_EQ(c.startup, 7);
	TSU_EQ(c.steady, 10);
	CU_ASSERT_STRING_EQUAL(ts_tsq_conf_str(&c, buf, sizeof(buf)), "tas:7/10");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = 0;
		TSU_EQ(ts_tsq_conf_parse(&c, bad[i], &err), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pacing_shift"));
		/* A refused value leaves the previous one. */
		TSU_EQ(c.mode, TS_TSQ_TAS);
	}
}

/* The key of --mac wifi6:...: default 7, and errors name it. */
static void test_wifi6_key(void)
{
	struct ts_wifi6_conf c;
	struct ts_spec spec;
	struct ts_err err;

	ts_wifi6_conf_init(&c);
	TSU_EQ(c.tsq.mode, TS_TSQ_FIXED);
	TSU_EQ(c.tsq.shift, 7);
	TSU_EQ(ts_spec_parse(&spec, "wifi6:phy=286.8mbit,pacing_shift=tas:8/9", &err), 0);
	TSU_EQ(ts_wifi6_conf_parse(&c, &spec, &err), 0);
	TSU_EQ(c.tsq.mode, TS_TSQ_TAS);
	TSU_EQ(c.tsq.startup, 8);
	TSU_EQ(c.tsq.steady, 9);
	ts_wifi6_conf_init(&c);
	TSU_EQ(ts_spec_parse(&spec, "wifi6:pacing_shift=kernel", &err), 0);
	TSU_EQ(ts_wifi6_conf_parse(&c, &spec, &err), 0);
	TSU_EQ(c.tsq.mode, TS_TSQ_KERNEL);
	ts_wifi6_conf_init(&c);
	TSU_EQ(ts_spec_parse(&spec, "wifi6:pacing_shift=6.5", &err), 0);
	TSU_EQ(ts_wifi6_conf_parse(&c, &spec, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pacing_shift"));
}

/*
 * BBR v1's gains: STARTUP 2885/1000 * 256 + 1 = 739, DRAIN 256 * 1000 /
 * 2885 = 88, PROBE_BW 320, 192, 256, PROBE_RTT 256; BBRv3's STARTUP 2.77
 * (709) and PROBE_BW DOWN 0.9 (230).
 */
static void test_bbr_phase(void)
{
	TSU_EQ(ts_tsq_bbr_phase(739), TS_BBR_STARTUP);
	TSU_EQ(ts_tsq_bbr_phase(709), TS_BBR_STARTUP);
	TSU_EQ(ts_tsq_bbr_phase(321), TS_BBR_STARTUP);
	TSU_EQ(ts_tsq_bbr_phase(88), TS_BBR_DRAIN);
	TSU_EQ(ts_tsq_bbr_phase(191), TS_BBR_DRAIN);
	TSU_EQ(ts_tsq_bbr_phase(320), TS_BBR_STEADY);
	TSU_EQ(ts_tsq_bbr_phase(256), TS_BBR_STEADY);
	TSU_EQ(ts_tsq_bbr_phase(230), TS_BBR_STEADY);
	TSU_EQ(ts_tsq_bbr_phase(192), TS_BBR_STEADY);
}

static void test_shift(void)
{
	struct ts_tsq_conf c;
	struct ts_err err;

	ts_tsq_conf_init(&c);
	TSU_EQ(ts_tsq_shift(&c, TS_BBR_NONE), 7);
	TSU_EQ(ts_tsq_shift(&c, TS_BBR_STARTUP), 7);
	TSU_EQ(ts_tsq_conf_parse(&c, "tas:8/10", &err), 0);
	TSU_EQ(ts_tsq_shift(&c, TS_BBR_STARTUP), 8);
	TSU_EQ(ts_tsq_shift(&c, TS_BBR_DRAIN), 8);
	TSU_EQ(ts_tsq_shift(&c, TS_BBR_STEADY), 10);
	TSU_EQ(ts_tsq_shift(&c, TS_BBR_NONE), 10);
	TSU_EQ(ts_tsq_conf_parse(&c, "kernel", &err), 0);
	TSU_EQ(ts_tsq_shift(&c, TS_BBR_STARTUP), 10);
}

/* ratio << (10 - S): 120 -> 960 at 7; 200 -> 1600, above the sysctl's 1000. */
static void test_ratio(void)
{
	TSU_EQ(ts_tsq_ratio(120, 7), 960);
	TSU_EQ(ts_tsq_ratio(200, 7), 1000);
	TSU_EQ(ts_tsq_ratio(200, 8), 800);
	TSU_EQ(ts_tsq_ratio(120, 10), 120);
	TSU_EQ(ts_tsq_ratio(120, 11), 60);
	TSU_EQ(ts_tsq_ratio(1, 12), 1);
}

/*
 * tcp_tso_autosize at 100 MB/s, shift 10, min RTT 2 ms: 100e6 >> 10 =
 * 97656, plus 65536 >> (2000 >> 9 = 3) = 8192, capped at 65536: 45 MSS of
 * 1448, truesize 45 * 1536 = 69120 (what ss -tm reports for one skb on a
 * veth). At 1 MB/s and 10 ms: 976 + (65536 >> 19 = 0) = 976 bytes, less
 * than one MSS, so the 2-segment minimum: 3072.
 */
static void test_tso(void)
{
	TSU_EQ(ts_tsq_tso_truesize(100000000, 10, 1448, 2000), 69120);
	TSU_EQ(ts_tsq_tso_truesize(1000000, 10, 1448, 10000), 3072);
	/* 40 ms: 40000 >> 9 = 78, no RTT term; 1e6 >> 7 = 7812 bytes: 5 MSS. */
	TSU_EQ(ts_tsq_tso_truesize(1000000, 7, 1448, 40000), 5 * 1536);
	TSU_EQ(ts_tsq_tso_truesize(1000000, 7, 0, 40000), 0);
}

static void test_limit(void)
{
	/* 100e6 >> 7 = 781250 beats 2 * 69120; >> 10 = 97656 does not: 138240. */
	TSU_EQ(ts_tsq_limit(100000000, 7, 69120, false, 0), 781250);
	TSU_EQ(ts_tsq_limit(100000000, 10, 69120, false, 0), 138240);
	/* Unpaced: 1e9 >> 7 = 7812500, capped by tcp_limit_output_bytes 4 MiB. */
	TSU_EQ(ts_tsq_limit(1000000000, 7, 69120, true, 4194304), 4194304);
	TSU_EQ(ts_tsq_limit(1000000000, 7, 69120, false, 4194304), 7812500);
}

static const struct ts_tsq_env env_lever = {.ss_ratio = 200,
					    .ca_ratio = 120,
					    .ss_applied = 1000,
					    .ca_applied = 960,
					    .limit_output_bytes = 4194304};

/*
 * BBR at 100 MB/s (800 Mbit/s), MSS 1448, min RTT 2 ms, station shift 7:
 * kernel limit max(2 * 69120, 97656) = 138240; station max(138240,
 * 781250) = 781250; uncharged (781250 - 138240) * 1500 / 1536 = 627939.
 */
static void test_plan_paced(void)
{
	struct ts_tsq_sock s = {.pacing_rate = 100000000,
				.mss = 1448,
				.min_rtt_us = 2000,
				.cwnd = 100,
				.ssthresh = 50,
				.paced = true,
				.kernel_shift = 10};
	struct ts_tsq_plan p;

	ts_tsq_plan(&s, &env_lever, 7, &p);
	TSU_EQ(p.rate, 100000000);
	TSU_EQ(p.shift, 7);
	TSU_EQ(p.kernel_budget, 138240);
	TSU_EQ(p.budget, 781250);
	TSU_EQ(p.uncharged, 627939);
	/* Shift 10 on the station: nothing to add. */
	ts_tsq_plan(&s, &env_lever, 10, &p);
	TSU_EQ(p.budget, 138240);
	TSU_EQ(p.uncharged, 0);
	/* A control that sets shift 7 itself already has the budget: nothing either. */
	s.kernel_shift = 7;
	ts_tsq_plan(&s, &env_lever, 7, &p);
	TSU_EQ(p.kernel_budget, 781250);
	TSU_EQ(p.uncharged, 0);
}

/*
 * CUBIC in congestion avoidance under the ratio lever (ca 120 -> 960):
 * the kernel reports 800e6 B/s, the station's rate is 800e6 * 120 / 960
 * = 100e6, and both limits are 781250: the lever alone is exact. In slow
 * start (cwnd 10 < ssthresh / 2) the ss ratio could only go to 1000 (5x,
 * not 8x): the kernel reports 500e6, the station's rate is 100e6, the
 * kernel's limit 500e6 >> 10 = 488281, the station's 781250, uncharged
 * (781250 - 488281) * 1500 / 1536 = 286102.
 */
static void test_plan_unpaced(void)
{
	struct ts_tsq_sock s = {.pacing_rate = 800000000,
				.mss = 1448,
				.min_rtt_us = 2000,
				.cwnd = 100,
				.ssthresh = 50,
				.paced = false,
				.kernel_shift = 10};
	struct ts_tsq_env small = env_lever;
	struct ts_tsq_plan p;

	ts_tsq_plan(&s, &env_lever, 7, &p);
	TSU_EQ(p.rate, 100000000);
	TSU_EQ(p.kernel_budget, 781250);
	TSU_EQ(p.budget, 781250);
	TSU_EQ(p.uncharged, 0);
	s.pacing_rate = 500000000;
	s.cwnd = 10;
	s.ssthresh = INT_MAX;
	ts_tsq_plan(&s, &env_lever, 7, &p);
	TSU_EQ(p.rate, 100000000);
	TSU_EQ(p.kernel_budget, 488281);
	TSU_EQ(p.budget, 781250);
	TSU_EQ(p.uncharged, 286102);
	/* tcp_limit_output_bytes caps both for an unpaced socket. */
	small.limit_output_bytes = 262144;
	ts_tsq_plan(&s, &small, 7, &p);
	TSU_EQ(p.budget, 262144);
	TSU_EQ(p.kernel_budget, 262144);
	TSU_EQ(p.uncharged, 0);
}

/*
 * GSO units (6.12: head 896): 45 segments of 1448 are charged 45 * 1448 +
 * 896 = 66056 as one unit, 45 * (1448 + 896) = 105480 as segments. 6.1's
 * head is 1280: 66440 / 122760.
 */
static void test_gso_scale(void)
{
	uint64_t num, den;

	TSU_EQ(ts_tsq_head(6, 1), 1280);
	TSU_EQ(ts_tsq_head(5, 15), 1280);
	TSU_EQ(ts_tsq_head(6, 3), 896);
	TSU_EQ(ts_tsq_head(6, 12), 896);
	TSU_EQ(ts_tsq_head(7, 0), 896);
	ts_tsq_gso_scale(1448, 896, 0, &num, &den);
	TSU_EQ(num, 66056);
	TSU_EQ(den, 105480);
	ts_tsq_gso_scale(1448, 1280, 45, &num, &den);
	TSU_EQ(num, 66440);
	TSU_EQ(den, 122760);
	ts_tsq_gso_scale(1448, 896, 2, &num, &den);
	TSU_EQ(num, 3792);
	TSU_EQ(den, 4688);
	ts_tsq_gso_scale(0, 896, 0, &num, &den);
	TSU_EQ(num, 1);
	TSU_EQ(den, 1);
	/* ca 120 at shift 7: 960 * 66056 / 105480 = 601.2 -> 601; ss 1600 * 0.626 = 1002 -> 1000. */
	TSU_EQ(ts_tsq_ratio_scaled(120, 7, 66056, 105480), 601);
	TSU_EQ(ts_tsq_ratio_scaled(200, 7, 66056, 105480), 1000);
	TSU_EQ(ts_tsq_ratio_scaled(200, 8, 66056, 105480), 501);
	TSU_EQ(ts_tsq_ratio_scaled(120, 7, 0, 0), 960);
}

/*
 * CUBIC in congestion avoidance with --gso on 6.12 (ca 120 -> 601): the
 * kernel reports 100e6 * 601 / 120 = 500833333 B/s, the station's rate is
 * that * 120 / 601 = 99999999 (rounded down), its budget 781249 in a
 * segmenting station's charge, 781249 * 66056 / 105480 = 489250 in GSO
 * units; the kernel's limit 500833333 >> 10 = 489095: 155 bytes short,
 * held uncharged (155 * 1500 / 1536 = 151). BBR at 100 MB/s: kernel
 * 138240, station 781250 * 66056 / 105480 = 489251 in GSO units, uncharged
 * (489251 - 138240) * 1500 / 1536 = 342784.
 */
static void test_plan_gso(void)
{
	struct ts_tsq_sock s = {.pacing_rate = 500833333,
				.mss = 1448,
				.min_rtt_us = 2000,
				.cwnd = 100,
				.ssthresh = 50,
				.paced = false,
				.kernel_shift = 10};
	struct ts_tsq_env env = {.ss_ratio = 200,
				 .ca_ratio = 120,
				 .ss_applied = 1000,
				 .ca_applied = 601,
				 .limit_output_bytes = 4194304,
				 .gso_num = 66056,
				 .gso_den = 105480,
				 .lob_applied = 4194304ull * 66056 / 105480};
	struct ts_tsq_plan p;

	ts_tsq_plan(&s, &env, 7, &p);
	TSU_EQ(p.rate, 99999999);
	TSU_EQ(p.budget, 489250);
	TSU_EQ(p.kernel_budget, 489095);
	TSU_EQ(p.uncharged, 151);
	s.paced = true;
	s.pacing_rate = 100000000;
	ts_tsq_plan(&s, &env, 7, &p);
	TSU_EQ(p.kernel_budget, 138240);
	TSU_EQ(p.budget, 489251);
	TSU_EQ(p.uncharged, 342784);
}

/*
 * 1000 bytes for 1 ms then 3000 bytes for 2 ms: mean (1000 * 1 + 3000 *
 * 2) / 3 = 2333.33 bytes; at 1 MB/s that is 1 ms and 3 ms of data, mean
 * 7/3 ms, peak 3 ms.
 */
static void test_qstat(void)
{
	struct ts_tsq_qstat q;

	memset(&q, 0, sizeof(q));
	ts_tsq_qstat_rate(&q, 0, 1000000);
	ts_tsq_qstat_set(&q, 0, 1000);
	ts_tsq_qstat_set(&q, 1000000, 3000);
	ts_tsq_qstat_set(&q, 3000000, 0);
	TSU_EQ(q.peak_bytes, 3000);
	CU_ASSERT_DOUBLE_EQUAL(ts_tsq_qstat_mean_bytes(&q), 7000.0 / 3.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(q.peak_ms, 3.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(ts_tsq_qstat_mean_ms(&q), 7.0 / 3.0, 1e-12);
}

static const struct tsu_test tests[] = {
	{"pacing_shift values", test_parse},
	{"the wifi6 key", test_wifi6_key},
	{"BBR state from its pacing gain", test_bbr_phase},
	{"shift per state", test_shift},
	{"pacing ratios for a shift", test_ratio},
	{"TSO autosizing", test_tso},
	{"tcp_small_queue_check limit", test_limit},
	{"plan: a paced socket (BBR)", test_plan_paced},
	{"plan: an unpaced socket (CUBIC) under the ratio lever", test_plan_unpaced},
	{"GSO units: the skb head per kernel, the scale, the scaled ratios", test_gso_scale},
	{"plan with --gso: budgets in GSO units", test_plan_gso},
	{"station queue statistics", test_qstat},
};

TSU_MAIN("tsq", tests)

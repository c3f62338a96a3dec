/* SPDX-License-Identifier: MIT */
/*
 * Trace generators: the fixed-point math they use, byte-reproducible
 * output (same seed: same bytes; another seed: other bytes), parameter
 * errors, and properties of each model that hold for any seed (Starlink
 * outages at each reconfiguration, Wi-Fi rates from the MCS table, rate
 * clipping, GEO delay).
 */
#include <stdlib.h>
#include <string.h>

#include "tsu.h"
#include "model/gen_priv.h"
#include "tasshape/trace_gen.h"

#define MS  TS_NSEC_PER_MSEC
#define SEC TS_NSEC_PER_SEC

static void expect_near(int64_t got, int64_t want, int64_t tol)
{
	if (got < want - tol || got > want + tol)
		fprintf(stderr, "\n  got %lld, want %lld +- %lld\n", (long long)got,
			(long long)want, (long long)tol);
	CU_ASSERT_TRUE(got >= want - tol && got <= want + tol);
}

static void test_math(void)
{
	struct ts_rng r;
	struct gm_ar1 ar;
	int i;

	/* powers of two are exact */
	TSU_EQ(gm_exp2(0), Q32_ONE);
	TSU_EQ(gm_exp2(Q32_ONE), 2 * Q32_ONE);
	TSU_EQ(gm_exp2(-Q32_ONE), Q32_ONE / 2);
	TSU_EQ(gm_exp2(10 * Q32_ONE), 1024 * Q32_ONE);
	/* 2^0.5 * 2^32 = 6074000999.95; e * 2^32 = 11674931554.6 (bc -l) */
	expect_near(gm_exp2(Q32_ONE / 2), 6074001000, 2);
	expect_near(gm_exp(Q32_ONE), 11674931555, 8);
	TSU_EQ(gm_exp2(40 * Q32_ONE), INT64_MAX); /* saturates */
	TSU_EQ(gm_log2(8 * Q32_ONE), 3 * Q32_ONE);
	TSU_EQ(gm_log2(Q32_ONE), 0);
	TSU_EQ(gm_log2(Q32_ONE / 4), -2 * Q32_ONE);
	expect_near(gm_log10(100 * Q32_ONE), 2 * Q32_ONE, 4);
	TSU_EQ(gm_sqrt(4 * Q32_ONE), 2 * Q32_ONE);
	TSU_EQ(gm_sqrt(2 * Q32_ONE), 6074000999); /* floor of the value above */
	TSU_EQ(gm_mul(3 * Q32_ONE, Q32_ONE / 2), 3 * Q32_ONE / 2);
	TSU_EQ(gm_div(Q32_ONE, 4 * Q32_ONE), Q32_ONE / 4);
	TSU_EQ(gm_scale(1000, Q32_ONE / 2), 500);
	TSU_EQ(gm_scale(3, Q32_ONE / 2), 2); /* 1.5 rounds up */
	TSU_EQ(q32_from_micro(2500000), 5 * Q32_ONE / 2);
	/* the Irwin-Hall normal lies in [-6, 6] */
	ts_rng_seed(&r, 1);
	for (i = 0; i < 1000; i++) {
		q32_t z = gm_normal(&r);

		CU_ASSERT_TRUE(z >= -6 * Q32_ONE && z <= 6 * Q32_ONE);
	}
	/* AR(1) without correlation time: a = 0, b = 1 */
	gm_ar1_init(&ar, 100 * MS, 0, &r);
	TSU_EQ(ar.a, 0);
	TSU_EQ(ar.b, Q32_ONE);
	/* step = tau: a = e^-1 * 2^32 = 1580030168.7 */
	gm_ar1_init(&ar, SEC, SEC, &r);
	expect_near(ar.a, 1580030169, 8);
}

static char *gen(const char *model, uint64_t seed, ts_ns_t dur, const char *const *kv, size_t n)
{
	struct ts_text b;
	struct ts_err err;

	ts_text_init(&b);
	if (ts_gen_csv(model, seed, dur, kv, n, &b, &err)) {
		fprintf(stderr, "\n  %s: %s\n", model, err.msg);
		ts_text_fini(&b);
		return NULL;
	}
	return b.p;
}

static void test_reproducible(void)
{
	size_t i;

	for (i = 0; i < ts_gen_count(); i++) {
		const char *m = ts_gen_at(i)->name;
		char *a = gen(m, 7, 30 * SEC, NULL, 0), *b = gen(m, 7, 30 * SEC, NULL, 0);
		char *c = gen(m, 8, 30 * SEC, NULL, 0);

		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_STRING_EQUAL(a, b);
		/* another seed: other numbers (const has none to draw) */
		if (strcmp(m, "const")) {
			/* skip the first line, which names the seed */
			if (!strcmp(strchr(a, '\n'), strchr(c, '\n')))
				fprintf(stderr, "\n  %s: seeds 7 and 8 give the same trace\n", m);
			CU_ASSERT_STRING_NOT_EQUAL(strchr(a, '\n'), strchr(c, '\n'));
		}
		free(a);
		free(b);
		free(c);
	}
}

static void test_const_text(void)
{
	const char *kv[] = {"down=10mbit", "delay=5ms"};
	char *t = gen("const", 1, 60 * SEC, kv, 2);

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_STRING_EQUAL(t, "# tasshape trace gen const --seed 1 --duration 60s down=10mbit "
				  "delay=5ms\n"
				  "# model: A constant rate in each direction\n"
				  "# parameters: down=10mbit up=25mbit delay=5ms\n"
				  "# duration=60s\n"
				  "time_s,down_mbps,up_mbps,delay_ms\n"
				  "0,10,25,5\n");
	free(t);
}

static void expect_err(const char *model, ts_ns_t dur, const char *kv, const char *want)
{
	const char *kvs[] = {kv};
	struct ts_text b;
	struct ts_err err;

	ts_text_init(&b);
	err.msg[0] = '\0';
	TSU_EQ(ts_gen_csv(model, 1, dur, kvs, kv ? 1 : 0, &b, &err), -EINVAL);
	if (!strstr(err.msg, want))
		fprintf(stderr, "\n  '%s' lacks '%s'\n", err.msg, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
	ts_text_fini(&b);
}

static void test_errors(void)
{
	expect_err("lte", SEC, NULL, "unknown model 'lte'; expected one of lte-driving, ");
	expect_err("lte-driving", SEC, "speed=3",
		   "unknown parameter 'speed=3'; lte-driving takes "
		   "scale, up-scale, dwell-scale");
	expect_err("lte-driving", SEC, "scale", "expected KEY=VALUE, got 'scale'");
	expect_err("lte-driving", SEC, "step=fast", "step: ");
	expect_err("lte-driving", SEC, "scale=-1", "scale: expected a non-negative decimal");
	expect_err("lte-driving", SEC, "step=500us", "step must be a whole number of milliseconds");
	expect_err("starlink", SEC, "down=0", "down: ");
	expect_err("starlink", 60 * SEC, "first=20s", "first must be whole milliseconds, shorter");
	expect_err("wifi6-static", SEC, "width=60", "expected width 20, 40, 80 or 160");
	expect_err("const", 0, NULL, "the duration must be > 0");
}

static int gen_series(const char *model, uint64_t seed, ts_ns_t dur, struct ts_series *s)
{
	struct ts_err err;
	int ret;

	ts_series_init(s, 0);
	ret = ts_gen_series(model, seed, dur, NULL, 0, s, &err);
	if (ret)
		fprintf(stderr, "\n  %s\n", err.msg);
	return ret;
}

static void test_starlink_slots(void)
{
	struct ts_series s;
	size_t i, zeros = 0;
	uint64_t seed;

	for (seed = 1; seed <= 3; seed++) {
		TSU_EQ(gen_series("starlink", seed, 60 * SEC, &s), 0);
		zeros = 0;
		for (i = 0; i < s.n; i++) {
			const struct ts_series_row *r = &s.rows[i];
			size_t e = i;

			/* base RTT 25-45 ms: one-way 12.5-22.5 ms, +-1 ms jitter */
			CU_ASSERT_TRUE(r->delay >= 11500 * 1000 && r->delay <= 23500 * 1000);
			if (r->down || (i > 0 && s.rows[i - 1].down == 0))
				continue;
			/*
			 * Outages start exactly at 12, 27, 42 and 57 s and last 40-120 ms (maybe
			 * over two rows: the delay changes every 100 ms).
			 */
			zeros++;
			CU_ASSERT_TRUE(r->t == 12 * SEC || r->t == 27 * SEC || r->t == 42 * SEC ||
				       r->t == 57 * SEC);
			TSU_EQ(r->up, 0);
			while (e < s.n && s.rows[e].down == 0)
				e++;
			CU_ASSERT_FATAL(e < s.n);
			CU_ASSERT_TRUE(s.rows[e].t - r->t >= 40 * MS &&
				       s.rows[e].t - r->t <= 120 * MS);
		}
		TSU_EQ(zeros, 4);
		ts_series_fini(&s);
	}
}

static void test_wifi_rates(void)
{
	/*
	 * 80 MHz, 2 streams, 0.8 us GI, as the 802.11ax tables and the Wi-Fi MAC
	 * define it: N_DBPS = floor(980 subcarriers * bits * rate * 2), rate =
	 * floor(N_DBPS / 13.6 us). MCS 9: floor(980 * 8 * 5/6 * 2) = 13066 bits,
	 * 13066 / 13.6 us = 960735294 bit/s; MCS 11: floor(16333.3) = 16333 bits,
	 * 1200955882 bit/s (the tables' "1201").
	 */
	static const uint64_t he80[12] = {72058823,  144117647, 216176470,  288235294,
					  432352941, 576470588, 648529411,  720588235,
					  864705882, 960735294, 1080882352, 1200955882};
	const char *models[] = {"wifi6-static", "wifi6-walking"};
	struct ts_series s;
	size_t i, k, m;

	for (m = 0; m < 2; m++) {
		TSU_EQ(gen_series(models[m], 5, 60 * SEC, &s), 0);
		CU_ASSERT_TRUE(s.cols & TS_COL_PHY);
		for (i = 0; i < s.n; i++) {
			for (k = 0; k < 12 && he80[k] != s.rows[i].down; k++)
				;
			CU_ASSERT_TRUE(k < 12); /* a PHY rate of the table, never 0 */
		}
		if (m == 1) {
			/* 2 m: SNR 61 - 33 log10(2) = 51 dB: MCS 11; 49.2 m: 5 dB +- shadowing */
			TSU_EQ(s.rows[0].down, he80[11]);
			CU_ASSERT_TRUE(s.rows[s.n - 1].down <= he80[2]);
		}
		ts_series_fini(&s);
	}
}

static void test_cell_bounds(void)
{
	struct ts_series s;
	size_t i, zeros;

	/* mmWave: clipped at 2 Gbit/s, blockages to exactly 0 */
	TSU_EQ(gen_series("5g-mmwave-driving", 2, 120 * SEC, &s), 0);
	for (i = 0, zeros = 0; i < s.n; i++) {
		CU_ASSERT_TRUE(s.rows[i].down <= 2000000000);
		zeros += s.rows[i].down == 0;
		TSU_EQ(s.rows[i].t % MS, 0); /* rows at whole milliseconds */
	}
	CU_ASSERT_TRUE(zeros > 0);
	ts_series_fini(&s);
	/* GEO: 315 ms one way, 3 ms jitter (an AR(1) normal, within 6 sigma), to 0.1 ms */
	TSU_EQ(gen_series("geo", 2, 120 * SEC, &s), 0);
	for (i = 0; i < s.n; i++) {
		CU_ASSERT_TRUE(s.rows[i].delay >= 297 * MS && s.rows[i].delay <= 333 * MS);
		TSU_EQ(s.rows[i].delay % (100 * 1000), 0);
	}
	ts_series_fini(&s);
	/* LTE: rates to 1 kbit/s, at most 150 Mbit/s */
	TSU_EQ(gen_series("lte-driving", 2, 120 * SEC, &s), 0);
	for (i = 0; i < s.n; i++) {
		TSU_EQ(s.rows[i].down % 1000, 0);
		CU_ASSERT_TRUE(s.rows[i].down <= 150000000);
	}
	ts_series_fini(&s);
}

static void test_params_apply(void)
{
	const char *kv[] = {"scale=2"};
	struct ts_series a, b;
	struct ts_err err;
	size_t i;

	/* the same seed with scale=2 doubles every rate (the random draws do not change) */
	TSU_EQ(gen_series("geo", 4, 20 * SEC, &a), 0);
	ts_series_init(&b, 0);
	TSU_EQ(ts_gen_series("geo", 4, 20 * SEC, kv, 1, &b, &err), 0);
	TSU_EQ(a.n, b.n);
	for (i = 0; i < a.n && i < b.n; i++) {
		expect_near((int64_t)b.rows[i].down, 2 * (int64_t)a.rows[i].down, 1000);
		TSU_EQ(b.rows[i].delay, a.rows[i].delay);
	}
	ts_series_fini(&a);
	ts_series_fini(&b);
}

static const struct tsu_test tests[] = {
	{"fixed-point exp2, log2, sqrt, normal, AR(1)", test_math},
	{"same seed same bytes, another seed other bytes", test_reproducible},
	{"const: the exact file", test_const_text},
	{"unknown model, key, bad values", test_errors},
	{"starlink: an outage at each :12/:27/:42/:57", test_starlink_slots},
	{"wifi: PHY rates of the 802.11ax table, walking away", test_wifi_rates},
	{"cellular and GEO bounds", test_cell_bounds},
	{"scale multiplies the rates of the same draws", test_params_apply},
};

TSU_MAIN("trace_gen", tests)

/* SPDX-License-Identifier: MIT */
/*
 * Wi-Fi 6 validation curve: the MAC model's saturated throughput for every
 * aggregate size N = 1..256 (the station's queue always full, no
 * collisions, 1500-byte packets, the model's random backoff), next to the
 * analytical formula of docs/wifi6-model.md with the mean backoff CWmin/2:
 *
 *   T(N) = AIFS + CWmin/2 slots + T_pre + ceil((16 + 8*N*S + 6) / N_DBPS) * T_sym
 *          + SIFS + T_BlockAck,   throughput(N) = N * 1500 * 8 / T(N)
 *
 * The formula is computed here in floating point from the constants, not
 * with the model's airtime functions, so the two are independent. Output:
 * one line per N, tab-separated: N, model Mbit/s, formula Mbit/s, model
 * minus formula in percent (tools/wifi6_validate.sh turns it into
 * docs/validation/wifi6.md and a plot).
 *
 * Usage: wifi6_curve [SPEC]   (default "wifi6": 80 MHz, 2 SS, MCS 11, GI 0.8 us)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/link.h"

struct counter {
	struct ts_pool *pool;
	uint64_t n, want;
	ts_ns_t t_want; /* when the want-th packet was released */
};

static void on_release(void *ctx, struct ts_pkt *p, ts_ns_t t)
{
	struct counter *c = ctx;

	if (++c->n == c->want)
		c->t_want = t;
	ts_pool_put(c->pool, p);
}

static void on_drop(void *ctx, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t t)
{
	struct counter *c = ctx;

	(void)cause;
	(void)t;
	ts_pool_put(c->pool, p);
}

/* Saturated throughput of the model in Mbit/s, averaged over @txops aggregates of @n. */
static int model_mbps(const char *base, unsigned int n, unsigned int txops, double *out)
{
	struct ts_wifi6_conf conf;
	struct ts_wifi6 *m = NULL;
	struct counter cnt = {0};
	struct ts_dir_conf dc = {.name = "uplink",
				 .seed = 1,
				 .place = TS_PLACE_NETWORK,
				 .wifi6_side = TS_WIFI6_UP,
				 .mac_queue = "infinite"};
	struct ts_pool pool;
	struct ts_spec spec;
	struct ts_err err = {{0}};
	struct ts_dir d;
	char buf[TS_SPEC_MAX_LEN];
	uint64_t j, total = (uint64_t)(txops + 1) * n;
	int ret;

	snprintf(buf, sizeof(buf), "%s%smpdus=%u", base, strchr(base, ':') ? "," : ":", n);
	ts_wifi6_conf_init(&conf);
	ret = ts_spec_parse(&spec, buf, &err);
	if (!ret)
		ret = ts_wifi6_conf_parse(&conf, &spec, &err);
	if (!ret)
		ret = ts_wifi6_create(&m, &conf, n, &err); /* a stream per N: independent errors */
	if (ret < 0) {
		fprintf(stderr, "wifi6_curve: %s\n", err.msg);
		return ret;
	}
	if (ts_pool_init(&pool, total) < 0) {
		ts_wifi6_put(m);
		return -1;
	}
	cnt.pool = &pool;
	cnt.want = (uint64_t)txops * n;
	dc.wifi6 = m;
	ret = ts_dir_build(&d, &dc, on_release, on_drop, &cnt, &err);
	if (ret < 0) {
		fprintf(stderr, "wifi6_curve: %s\n", err.msg);
		goto out;
	}
	for (j = 0; j < total; j++) {
		struct ts_pkt *p = ts_pool_get(&pool);

		memset(p, 0, sizeof(*p));
		p->id = (uint32_t)j;
		p->len = 1500;
		p->segs = 1;
		ts_pipe_enqueue(&d.pipe[TS_PLACE_SENDER], p, 0);
	}
	/* Event by event until the txops-th aggregate is out. */
	while (cnt.n < cnt.want) {
		ts_ns_t t = ts_dir_next_deadline(&d);

		if (t == TS_NEVER)
			break;
		ts_pipe_advance(&d.pipe[TS_PLACE_SENDER], t);
	}
	*out = cnt.t_want > 0 ? (double)cnt.want * 12000.0 * 1e3 / (double)cnt.t_want : 0.0;
	ts_dir_fini(&d, cnt.t_want);
out:
	ts_wifi6_put(m);
	ts_pool_fini(&pool);
	return ret;
}

/* The formula of docs/wifi6-model.md in floating point, microseconds. */
static double formula_mbps(const struct ts_wifi6_conf *c, unsigned int n)
{
	double slot = 9.0, sifs = 16.0, aifs = sifs + c->aifsn * slot;
	double backoff = c->cwmin / 2.0 * slot;
	double tsym = (double)c->phy.t_sym / 1e3, tpre = (double)c->phy.t_pre / 1e3;
	double s = ceil((4 + 26 + 8 + 1500 + 4) / 4.0) * 4;
	double syms = ceil((16 + 8.0 * n * s + 6) / c->phy.ndbps);
	/* A lone MPDU is answered by an Ack (14 B) with lone_ack=1, else a BlockAck. */
	double ba_bytes = n == 1 && c->lone_ack ? 14 : c->ba == 256 ? 56 : 32;
	double tba = 20 + 4 * ceil((16 + 8 * ba_bytes + 6) / 96);
	double t = aifs + backoff + tpre + syms * tsym + sifs + tba;

	return n * 1500 * 8 / t;
}

int main(int argc, char **argv)
{
	/* No beacons: the formula has none (they take 0.28% of the airtime). */
	const char *base = argc > 1 ? argv[1] : "wifi6:beacon=0";
	struct ts_wifi6_conf conf;
	struct ts_spec spec;
	struct ts_err err = {{0}};
	unsigned int n;

	ts_wifi6_conf_init(&conf);
	if (ts_spec_parse(&spec, base, &err) < 0 || ts_wifi6_conf_parse(&conf, &spec, &err) < 0) {
		fprintf(stderr, "wifi6_curve: %s\n", err.msg);
		return 2;
	}
	printf("# %s: PHY %.1f Mbit/s (N_DBPS %u, T_sym %lld ns, preamble %lld ns), AIFSN %u, "
	       "CWmin %u, BlockAck %u\n",
	       base, (double)conf.phy.bps / 1e6, conf.phy.ndbps, (long long)conf.phy.t_sym,
	       (long long)conf.phy.t_pre, conf.aifsn, conf.cwmin, conf.ba);
	printf("# N\tmodel_mbps\tformula_mbps\tdiff_pct\n");
	for (n = 1; n <= conf.mpdus; n++) {
		/* Enough TXOPs that the mean backoff is within ~0.2% of CWmin/2. */
		unsigned int txops = 400 + 40000 / n;
		double model = 0, formula = formula_mbps(&conf, n);

		if (model_mbps(base, n, txops, &model) < 0)
			return 1;
		printf("%u\t%.2f\t%.2f\t%+.3f\n", n, model, formula,
		       100.0 * (model - formula) / formula);
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* The Wi-Fi 6 PHY formulas, the MAC's spec keys and the PHY-rate trace reader (wifi6_*.c). */
#include <string.h>

#include "tasshape/wifi6.h"
#include "tsu.h"

#define US  TS_NSEC_PER_USEC
#define SEC TS_NSEC_PER_SEC

/*
 * N_DBPS = floor(N_SD * N_BPSCS * R * N_SS) and rate = N_DBPS / T_sym:
 *   80 MHz, MCS 11, 2 SS: 980 * 10 * 5/6 * 2 = 16333.3 -> 16333; / 13.6 us = 1200955882 bit/s
 *   20 MHz, MCS 7, 1 SS: 234 * 6 * 5/6 = 1170; / 13.6 us = 86029411 (802.11ax tables: 86.0)
 *   40 MHz, MCS 11, 1 SS: 468 * 10 * 5/6 = 3900; / 13.6 us = 286764705 (286.8)
 *   160 MHz, MCS 11, 2 SS: 1960 * 10 * 5/6 * 2 = 32666.7 -> 32666; 2401911764 (2402)
 *   20 MHz, MCS 0, 1 SS, GI 3.2 us: 234 * 1 * 1/2 = 117; / 16 us = 7312500
 */
static void test_phy_rates(void)
{
	struct ts_wifi6_phy p;

	TSU_EQ(ts_wifi6_phy_mcs(&p, 80, 11, 2, 800, NULL), 0);
	TSU_EQ(p.ndbps, 16333);
	TSU_EQ(p.bps, 1200955882);
	TSU_EQ(p.t_sym, 13600);
	TSU_EQ(p.t_pre, 52 * US);
	TSU_EQ(ts_wifi6_phy_mcs(&p, 20, 7, 1, 800, NULL), 0);
	TSU_EQ(p.ndbps, 1170);
	TSU_EQ(p.bps, 86029411);
	TSU_EQ(p.t_pre, 44 * US);
	TSU_EQ(ts_wifi6_phy_mcs(&p, 40, 11, 1, 800, NULL), 0);
	TSU_EQ(p.ndbps, 3900);
	TSU_EQ(p.bps, 286764705);
	TSU_EQ(ts_wifi6_phy_mcs(&p, 160, 11, 2, 800, NULL), 0);
	TSU_EQ(p.ndbps, 32666);
	TSU_EQ(p.bps, 2401911764);
	TSU_EQ(ts_wifi6_phy_mcs(&p, 20, 0, 1, 3200, NULL), 0);
	TSU_EQ(p.ndbps, 117);
	TSU_EQ(p.t_sym, 16000);
	TSU_EQ(p.bps, 7312500);
	/* A rate given directly: 1201 Mbit/s * 13.6 us = 16333.6 bits -> 16333, as the table. */
	TSU_EQ(ts_wifi6_phy_rate(&p, 1201000000, 2, 800, NULL), 0);
	TSU_EQ(p.ndbps, 16333);
	TSU_EQ(p.bps, 1201000000);
	/* 600.4 Mbit/s (MCS 11, 1 SS): 8165.44 -> 8165 bits per symbol. */
	TSU_EQ(ts_wifi6_phy_rate(&p, 600400000, 1, 800, NULL), 0);
	TSU_EQ(p.ndbps, 8165);
	/* Less than one bit per 13.6 us symbol: refused. */
	CU_ASSERT(ts_wifi6_phy_rate(&p, 50000, 1, 800, NULL) < 0);
	CU_ASSERT(ts_wifi6_phy_mcs(&p, 30, 11, 2, 800, NULL) < 0);
	CU_ASSERT(ts_wifi6_phy_mcs(&p, 80, 12, 2, 800, NULL) < 0);
	CU_ASSERT(ts_wifi6_phy_mcs(&p, 80, 11, 9, 800, NULL) < 0);
	CU_ASSERT(ts_wifi6_phy_mcs(&p, 80, 11, 2, 1000, NULL) < 0);
}

/*
 * Preamble 36 us + 8 us per HE-LTF (1, 2, 4, 4, ... for 1, 2, 3, 4 SS).
 * Subframe: 4 + 26 + 8 + L + 4 padded to 4: 1500 -> 1542 -> 1544; 40 -> 82 -> 84.
 * BlockAck at 24 Mbit/s: 32 B -> 16 + 256 + 6 = 278 bits = 3 symbols -> 20 + 12 = 32 us;
 * 56 B -> 470 bits = 5 symbols -> 40 us.
 * Data time at 16333 bits/symbol: one 1544 B subframe = 12374 bits = 1 symbol (13.6 us);
 * 256 of them = 3162134 bits = 193.6 -> 194 symbols = 2638.4 us.
 */
static void test_airtime_pieces(void)
{
	struct ts_wifi6_phy p;

	TSU_EQ(ts_wifi6_preamble(1), 44 * US);
	TSU_EQ(ts_wifi6_preamble(2), 52 * US);
	TSU_EQ(ts_wifi6_preamble(3), 68 * US);
	TSU_EQ(ts_wifi6_preamble(8), 100 * US);
	TSU_EQ(ts_wifi6_subframe_bytes(1500), 1544);
	TSU_EQ(ts_wifi6_subframe_bytes(40), 84);
	TSU_EQ(ts_wifi6_subframe_bytes(1498), 1540);
	TSU_EQ(ts_wifi6_ba_time(64), 32 * US);
	TSU_EQ(ts_wifi6_ba_time(256), 40 * US);
	/* Ack 14 B at 24 Mbit/s: 134 bits = 2 symbols, 28 us; BAR 24 B: 214 bits = 3, 32 us. */
	TSU_EQ(ts_wifi6_legacy_time(14, 24), 28 * US);
	TSU_EQ(ts_wifi6_legacy_time(24, 24), 32 * US);
	/* At 6 Mbit/s (24 bits a symbol): an Ack 6 symbols, 44 us; a 199 B beacon 68, 292 us. */
	TSU_EQ(ts_wifi6_legacy_time(14, 6), 44 * US);
	TSU_EQ(ts_wifi6_legacy_time(199, 6), 292 * US);
	ts_wifi6_phy_mcs(&p, 80, 11, 2, 800, NULL);
	TSU_EQ(ts_wifi6_data_time(&p, 1544), 13600);
	TSU_EQ(ts_wifi6_data_time(&p, 256 * 1544), 194 * 13600);
	/* 16333 bits exactly fill one symbol: 22 + 8 * 2038 = 16326 <= 16333 < 22 + 8 * 2039. */
	TSU_EQ(ts_wifi6_data_time(&p, 2038), 13600);
	TSU_EQ(ts_wifi6_data_time(&p, 2039), 2 * 13600);
	/*
	 * An MPDU ends after the preamble (52 us at 2 SS) and the symbols holding the SERVICE field
	 * and the subframes up to it, without the tail: 16 + 8 * 2039 = 16328 <= 16333 fits one
	 * symbol where the whole PSDU of 2039 bytes needs two; 16 + 8 * 2040 = 16336 needs two.
	 */
	TSU_EQ(ts_wifi6_mpdu_end(&p, 2039), 52 * US + 13600);
	TSU_EQ(ts_wifi6_mpdu_end(&p, 2040), 52 * US + 2 * 13600);
	TSU_EQ(ts_wifi6_mpdu_end(&p, 256 * 1544), 52 * US + 194 * 13600);
}

static int parse(struct ts_wifi6_conf *c, const char *s, struct ts_err *err)
{
	struct ts_spec spec;
	int ret;

	ts_wifi6_conf_init(c);
	ret = ts_spec_parse(&spec, s, err);
	if (!ret)
		ret = ts_wifi6_conf_parse(c, &spec, err);
	return ret;
}

static void test_conf_keys(void)
{
	struct ts_wifi6_conf c;
	struct ts_err err = {{0}};

	/* Defaults (docs/wifi6-model.md): 1201 Mbit/s, 256 MPDUs, AIFSN 3, CW 15..1023, BA 256, retry 7. */
	TSU_EQ(parse(&c, "wifi6", &err), 0);
	TSU_EQ(c.phy.ndbps, 16333);
	TSU_EQ(c.mpdus, 256);
	TSU_EQ(c.ampdu_bytes, 6500631);
	TSU_EQ(c.ppdu_max, 5484 * US);
	TSU_EQ(c.aifsn, 3);
	TSU_EQ(c.cwmin, 15);
	TSU_EQ(c.cwmax, 1023);
	TSU_EQ(c.ba, 256);
	TSU_EQ(c.retry, 7);
	TSU_EQ(c.backoff, -1);
	/* What contention costs: BAR, Ack for a lone MPDU, EIFS, 45 us timeout, 100 TU beacons. */
	CU_ASSERT(c.bar && c.lone_ack && c.eifs && c.mpdu_rx);
	TSU_EQ(c.ba_timeout, 45 * US);
	TSU_EQ(c.beacon, 102400 * US);
	TSU_EQ(c.beacon_bytes, 199);
	TSU_EQ(parse(&c,
		     "wifi6:bar=0,lone_ack=0,eifs=0,mpdu_rx=0,ba_timeout=56us,beacon=0,"
		     "beacon_bytes=300",
		     &err),
	       0);
	CU_ASSERT(!c.bar && !c.lone_ack && !c.eifs && !c.mpdu_rx);
	TSU_EQ(c.ba_timeout, 56 * US);
	TSU_EQ(c.beacon, 0);
	TSU_EQ(c.beacon_bytes, 300);
	TSU_EQ(parse(&c, "wifi6:beacon=off", &err), 0);
	TSU_EQ(c.beacon, 0);
	TSU_EQ(parse(&c, "wifi6:beacon=50ms", &err), 0);
	TSU_EQ(c.beacon, 50 * 1000 * US);
	CU_ASSERT(parse(&c, "wifi6:bar=2", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:ba_timeout=6ms", &err) < 0);
	/* An interval shorter than 10 beacons' airtime (2.92 ms) is refused. */
	CU_ASSERT(parse(&c, "wifi6:beacon=2ms", &err) < 0);
	CU_ASSERT(strstr(err.msg, "beacon") != NULL);
	CU_ASSERT(parse(&c, "wifi6:beacon_bytes=10", &err) < 0);
	TSU_EQ(parse(&c,
		     "wifi6:phy=286.8mbit,ss=1,mpdus=64,collision=1%,mpdu_err=0.5%,stations=3,"
		     "backoff=0,retry=4",
		     &err),
	       0);
	/* 286.8 Mbit/s * 13.6 us = 3900.48 -> 3900 bits per symbol. */
	TSU_EQ(c.phy.ndbps, 3900);
	TSU_EQ(c.phy.t_pre, 44 * US);
	TSU_EQ(c.mpdus, 64);
	TSU_EQ(c.collision_ppm, 10000);
	TSU_EQ(c.mpdu_err_ppm, 5000);
	TSU_EQ(c.stations, 3);
	TSU_EQ(c.backoff, 0);
	TSU_EQ(c.retry, 4);
	TSU_EQ(parse(&c, "wifi6:bw=20,mcs=7,ss=1,gi=1.6us", &err), 0);
	TSU_EQ(c.phy.ndbps, 1170);
	TSU_EQ(c.phy.t_sym, 14400);
	/* A 64-bit BlockAck caps the aggregate at 64 unless mpdus says less. */
	TSU_EQ(parse(&c, "wifi6:ba=64", &err), 0);
	TSU_EQ(c.mpdus, 64);
	TSU_EQ(c.ba, 64);
	CU_ASSERT(parse(&c, "wifi6:ba=64,mpdus=128", &err) < 0);
	CU_ASSERT(strstr(err.msg, "BlockAck window") != NULL);
	CU_ASSERT(parse(&c, "wifi6:ba=128", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:phy=1201mbit,mcs=9", &err) < 0);
	CU_ASSERT(strstr(err.msg, "not both") != NULL);
	CU_ASSERT(parse(&c, "wifi6:mpdus=257", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:mpdus=0", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:cwmin=31,cwmax=15", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:gi=1us", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:ppdu_max=6ms", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:stations=65", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:collision=101%", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:mpdu=4", &err) < 0);
	CU_ASSERT(strstr(err.msg, "unknown key 'mpdu'") != NULL);
	TSU_EQ(parse(&c, "wifi6:phy_trace=/tmp/x.csv,ss=1", &err), 0);
	CU_ASSERT_STRING_EQUAL(c.phy_trace, "/tmp/x.csv");
	CU_ASSERT(parse(&c, "wifi6:phy_trace=/tmp/x.csv,phy=100mbit", &err) < 0);
}

static int phy_parse(const char *text, struct ts_trace **t, struct ts_err *err)
{
	return ts_wifi6_phy_trace_parse("t.csv", text, strlen(text), t, err);
}

static void test_phy_trace_reader(void)
{
	struct ts_trace *t = NULL;
	struct ts_err err = {{0}};

	/* Rate adaptation: 1201 Mbit/s for 1 s, then 600.4 for 1 s, looping. */
	TSU_EQ(phy_parse("# duration=2s\ntime_s,phy_mbps\n0,1201\n1,600.4\n", &t, &err), 0);
	CU_ASSERT_FATAL(t != NULL);
	TSU_EQ(t->kind, TS_TRACE_RATE);
	TSU_EQ(t->n, 2);
	TSU_EQ(t->period, 2 * SEC);
	TSU_EQ(t->rows[1].t, SEC);
	TSU_EQ(t->rows[1].bps, 600400000);
	TSU_EQ(ts_wifi6_trace_bps_at(t, 0), 1201000000);
	TSU_EQ(ts_wifi6_trace_bps_at(t, SEC - 1), 1201000000);
	TSU_EQ(ts_wifi6_trace_bps_at(t, SEC), 600400000);
	TSU_EQ(ts_wifi6_trace_bps_at(t, 2 * SEC + 1), 1201000000); /* second pass */
	ts_trace_free(t);

	/*
	 * The same file as a capacity trace: down_/up_ columns ignored; no duration,
	 * so the period is the last row + the median interval (0.5 s): 1.5 s. Times
	 * in ms are relative to the first row (100 ms).
	 */
	TSU_EQ(phy_parse("time_ms,down_mbps,up_mbps,phy_gbps\r\n100,50,10,1.201\r\n600,50,10,"
			 "0.6004\r\n1100,50,10,0.0864\r\n",
			 &t, &err),
	       0);
	TSU_EQ(t->n, 3);
	TSU_EQ(t->period, 1500 * TS_NSEC_PER_MSEC);
	TSU_EQ(t->rows[2].t, SEC);
	TSU_EQ(t->rows[2].bps, 86400000);
	ts_trace_free(t);

	/* Errors name the file and line. */
	CU_ASSERT(phy_parse("time_s,phy_mbps\n0,1201\n1,0\n", &t, &err) < 0);
	CU_ASSERT_STRING_EQUAL(err.msg, "t.csv:3: phy_mbps is 0: a PHY rate must be > 0 (an outage "
					"belongs in the capacity trace)");
	CU_ASSERT(phy_parse("time_s,down_mbps\n0,5\n", &t, &err) < 0);
	CU_ASSERT(strstr(err.msg, "t.csv:1: no PHY-rate column") != NULL);
	CU_ASSERT(phy_parse("time_s,phy_mbps\n1,5\n1,6\n", &t, &err) < 0);
	CU_ASSERT(strstr(err.msg, "t.csv:3: time is not after") != NULL);
	CU_ASSERT(phy_parse("time_s,phy_mbps\n0,5,3\n", &t, &err) < 0);
	CU_ASSERT(phy_parse("time_s,phy_mbps\n0,-5\n", &t, &err) < 0);
	CU_ASSERT(phy_parse("time_s,phy_mbps\n0,200000\n", &t, &err) < 0); /* 200 Gbit/s */
	CU_ASSERT(phy_parse("time_s,phy_mbps\n", &t, &err) < 0);
	CU_ASSERT(strstr(err.msg, "no data rows") != NULL);
	CU_ASSERT(phy_parse("", &t, &err) < 0);
	CU_ASSERT(phy_parse("# duration=1s\ntime_s,phy_mbps\n0,5\n2,6\n", &t, &err) < 0);
	CU_ASSERT(strstr(err.msg, "duration") != NULL);
	CU_ASSERT(t == NULL);
	/* One row is a constant PHY rate. */
	TSU_EQ(phy_parse("time_s,phy_mbps\n0,86\n", &t, &err), 0);
	TSU_EQ(ts_wifi6_trace_bps_at(t, 123 * SEC), 86000000);
	ts_trace_free(t);
	CU_ASSERT(ts_wifi6_phy_trace_load("/nonexistent/phy.csv", &t, &err) < 0);
	CU_ASSERT(strstr(err.msg, "cannot open") != NULL);
}

/*
 * The real stations' keys: real, sta_mcs (per station HE-MCS at the
 * medium's bandwidth: 20 MHz, 1 SS, MCS 4 is 234 x 4 x 3/4 = 702 bits a
 * symbol, MCS 0 234 x 1 x 1/2 = 117), and mac80211's scheduler keys with
 * the kernel's defaults.
 */
static void test_conf_stations(void)
{
	struct ts_wifi6_conf c;
	struct ts_err err = {{0}};

	TSU_EQ(parse(&c, "wifi6", &err), 0);
	TSU_EQ(c.real, 1);
	TSU_EQ(c.nsta_phy, 0);
	TSU_EQ(c.airtime.flags, 0);
	TSU_EQ(c.airtime.weight_us, 256);
	CU_ASSERT(!c.airtime.aql);
	TSU_EQ(c.airtime.aql_low_us, 5000);
	TSU_EQ(c.airtime.aql_high_us, 12000);
	TSU_EQ(c.airtime.aql_threshold_us, 24000);
	TSU_EQ(parse(&c,
		     "wifi6:bw=20,ss=1,real=3,sta_mcs=4/0,airtime_flags=3,airtime_weight=300,aql=1,"
		     "aql_txq_limit=2000/8000,aql_threshold=10000",
		     &err),
	       0);
	TSU_EQ(c.real, 3);
	TSU_EQ(c.nsta_phy, 2);
	TSU_EQ(c.sta_phy[0].ndbps, 702);
	TSU_EQ(c.sta_phy[1].ndbps, 117);
	TSU_EQ(c.airtime.flags, 3);
	TSU_EQ(c.airtime.weight_us, 300);
	CU_ASSERT(c.airtime.aql);
	TSU_EQ(c.airtime.aql_low_us, 2000);
	TSU_EQ(c.airtime.aql_high_us, 8000);
	TSU_EQ(c.airtime.aql_threshold_us, 10000);
	CU_ASSERT(parse(&c, "wifi6:real=0", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:real=9", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:airtime_flags=4", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:airtime_weight=0", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:aql_txq_limit=5000", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:aql_txq_limit=12000/5000", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:aql_txq_limit=5000/x", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:sta_mcs=12", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:sta_mcs=", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:sta_mcs=4//5", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:sta_mcs=1/2/3/4/5/6/7/8/9", &err) < 0);
	CU_ASSERT(parse(&c, "wifi6:phy=1201mbit,sta_mcs=4", &err) < 0);
	CU_ASSERT(strstr(err.msg, "sta_mcs") != NULL);
}

static const struct tsu_test tests[] = {
	{"PHY rates from bandwidth, MCS, streams, GI", test_phy_rates},
	{"preamble, subframe, data and BlockAck times", test_airtime_pieces},
	{"wifi6 spec keys, defaults and errors", test_conf_keys},
	{"PHY-rate trace reader", test_phy_trace_reader},
	{"the real stations' keys", test_conf_stations},
};

TSU_MAIN("wifi6_phy", tests)

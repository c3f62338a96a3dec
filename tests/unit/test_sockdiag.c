/* SPDX-License-Identifier: MIT */
/*
 * Decoding sock_diag answers (net/sockdiag_parse.c) and the socket
 * statistics rows (record/sockstats_out.c), from message bytes laid out as
 * the kernel sends them: struct inet_diag_msg, then netlink attributes
 * (INET_DIAG_INFO, INET_DIAG_CONG, INET_DIAG_BBRINFO), each 4-aligned.
 */
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>

#include "net/sockdiag.h"
#include "record/sockstats_out.h"
#include "tsu.h"

struct msgbuf {
	uint8_t b[1024];
	size_t len;
};

static void put_attr(struct msgbuf *m, uint16_t type, const void *data, size_t len)
{
	struct nlattr a = {.nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type};

	memcpy(m->b + m->len, &a, sizeof(a));
	memcpy(m->b + m->len + NLA_HDRLEN, data, len);
	m->len += NLA_ALIGN(NLA_HDRLEN + len);
}

/* 100.64.0.6:40000 -> 100.64.0.1:5201, established, BBR, with tcp_info of @info_len bytes. */
static void build(struct msgbuf *m, size_t info_len)
{
	struct inet_diag_msg d;
	struct tcp_info ti;
	struct tcp_bbr_info bbr = {.bbr_bw_lo = 1500000,
				   .bbr_bw_hi = 0,
				   .bbr_min_rtt = 40000,
				   .bbr_pacing_gain = 739,
				   .bbr_cwnd_gain = 512};

	memset(m, 0, sizeof(*m));
	memset(&d, 0, sizeof(d));
	d.idiag_family = AF_INET;
	d.idiag_state = 1; /* TCP_ESTABLISHED */
	d.id.idiag_sport = htons(40000);
	d.id.idiag_dport = htons(5201);
	inet_pton(AF_INET, "100.64.0.6", d.id.idiag_src);
	inet_pton(AF_INET, "100.64.0.1", d.id.idiag_dst);
	d.idiag_inode = 1234;
	memcpy(m->b, &d, sizeof(d));
	m->len = NLMSG_ALIGN(sizeof(d));
	memset(&ti, 0, sizeof(ti));
	ti.tcpi_snd_cwnd = 10;
	ti.tcpi_snd_ssthresh = 0x7fffffff; /* infinite: still in slow start */
	ti.tcpi_snd_mss = 1448;
	ti.tcpi_rtt = 40123;
	ti.tcpi_rttvar = 2000;
	ti.tcpi_min_rtt = 40000;
	ti.tcpi_pacing_rate = 1250000;	 /* bytes/s */
	ti.tcpi_delivery_rate = 1000000; /* bytes/s */
	ti.tcpi_unacked = 8;
	ti.tcpi_retrans = 1;
	ti.tcpi_total_retrans = 3;
	ti.tcpi_bytes_acked = 100000;
	ti.tcpi_bytes_sent = 120000;
	put_attr(m, INET_DIAG_INFO, &ti, info_len);
	put_attr(m, INET_DIAG_CONG, "bbr", 4);
	put_attr(m, INET_DIAG_BBRINFO, &bbr, sizeof(bbr));
}

static void test_parse(void)
{
	struct ts_sockstat st;
	struct msgbuf m;

	build(&m, sizeof(struct tcp_info));
	TSU_EQ(ts_sockdiag_parse(m.b, m.len, &st), 0);
	TSU_EQ(st.family, AF_INET);
	CU_ASSERT_STRING_EQUAL(st.src, "100.64.0.6");
	CU_ASSERT_STRING_EQUAL(st.dst, "100.64.0.1");
	TSU_EQ(st.sport, 40000);
	TSU_EQ(st.dport, 5201);
	TSU_EQ(st.inode, 1234);
	CU_ASSERT_STRING_EQUAL(st.cca, "bbr");
	CU_ASSERT(st.have_info);
	TSU_EQ(st.info.tcpi_snd_cwnd, 10);
	TSU_EQ(st.info.tcpi_rtt, 40123);
	CU_ASSERT(st.have_bbr);
	TSU_EQ(st.bbr_bw, 1500000);
	TSU_EQ(st.bbr_pacing_gain, 739);
}

/*
 * The row: srtt 40123 us = 40.123 ms; pacing 1,250,000 B/s = 10,000,000
 * bit/s; delivery 8,000,000; in flight (8 unacked - 0 sacked - 0 lost + 1
 * retransmitted) * 1448 = 13,032 bytes; BBR bw 1,500,000 B/s = 12,000,000
 * bit/s, pacing gain 739/256 = 2.887, cwnd gain 512/256 = 2.000;
 * ssthresh infinite: empty.
 */
static void test_row(void)
{
	struct ts_sockstat st;
	struct msgbuf m;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	build(&m, sizeof(struct tcp_info));
	TSU_EQ(ts_sockdiag_parse(m.b, m.len, &st), 0);
	ts_sockstats_row(f, 1.25, &st, NULL);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "1.250,100.64.0.6:40000-100.64.0.1:5201,100.64.0.6,40000,"
				    "100.64.0.1,5201,ESTAB,bbr,10,,1448,40.123,2.000,40.000,"
				    "10000000,8000000,8,13032,1,3,100000,120000,12000000,40.000,"
				    "2.887,2.000,,,,0\n");
	free(buf);
}

/*
 * A Wi-Fi station's flow: the pacing rate its TSQ budget used (1,250,000
 * B/s = 10,000,000 bit/s), the shift, and that it is emulated.
 */
static void test_row_station(void)
{
	struct ts_sockstats_station stn = {.pacing_rate = 1250000, .shift = 7, .emulated = true};
	struct ts_sockstat st;
	struct msgbuf m;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	build(&m, sizeof(struct tcp_info));
	TSU_EQ(ts_sockdiag_parse(m.b, m.len, &st), 0);
	ts_sockstats_row(f, 1.25, &st, &stn);
	stn.emulated = false;
	stn.shift = 10;
	ts_sockstats_row(f, 1.5, &st, &stn);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",2.887,2.000,10000000,7,emulated,0\n1.500,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, ",2.887,2.000,10000000,10,kernel,0\n"));
	free(buf);
}

/* An older kernel's shorter tcp_info (104 bytes, up to tcpi_total_retrans): the rest reads 0. */
static void test_short_info(void)
{
	struct ts_sockstat st;
	struct msgbuf m;

	build(&m, 104);
	TSU_EQ(ts_sockdiag_parse(m.b, m.len, &st), 0);
	TSU_EQ(st.info_len, 104);
	TSU_EQ(st.info.tcpi_total_retrans, 3);
	TSU_EQ(st.info.tcpi_pacing_rate, 0);
	TSU_EQ(st.info.tcpi_min_rtt, 0);
	CU_ASSERT_STRING_EQUAL(st.cca, "bbr");
}

/* A message shorter than inet_diag_msg, or an attribute running past the end: -EINVAL. */
static void test_malformed(void)
{
	struct ts_sockstat st;
	struct msgbuf m;

	build(&m, sizeof(struct tcp_info));
	TSU_EQ(ts_sockdiag_parse(m.b, sizeof(struct inet_diag_msg) - 1, &st), -EINVAL);
	/* Cut inside the INFO attribute: its nla_len promises more than there is. */
	TSU_EQ(ts_sockdiag_parse(m.b, NLMSG_ALIGN(sizeof(struct inet_diag_msg)) + 40, &st),
	       -EINVAL);
	/* No attributes at all is fine: a socket without tcp_info. */
	TSU_EQ(ts_sockdiag_parse(m.b, NLMSG_ALIGN(sizeof(struct inet_diag_msg)), &st), 0);
	CU_ASSERT(!st.have_info);
}

/* IPv6 endpoints are bracketed in the flow key. */
static void test_v6(void)
{
	struct inet_diag_msg d;
	struct ts_sockstat st;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	memset(&d, 0, sizeof(d));
	d.idiag_family = AF_INET6;
	d.idiag_state = 1;
	d.id.idiag_sport = htons(1);
	d.id.idiag_dport = htons(2);
	inet_pton(AF_INET6, "fd74::2", d.id.idiag_src);
	inet_pton(AF_INET6, "fd74::1", d.id.idiag_dst);
	TSU_EQ(ts_sockdiag_parse(&d, sizeof(d), &st), 0);
	f = open_memstream(&buf, &len);
	ts_sockstats_row(f, 0, &st, NULL);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "0.000,[fd74::2]:1-[fd74::1]:2,fd74::2,1,fd74::1,2,ESTAB,,"
				    ",,,,,,,,,,,,,,,,,,,,,0\n");
	free(buf);
}

static const struct tsu_test tests[] = {
	{"parse", test_parse},
	{"row", test_row},
	{"row of a station flow", test_row_station},
	{"short tcp_info", test_short_info},
	{"malformed", test_malformed},
	{"IPv6", test_v6},
};

TSU_MAIN("sockdiag", tests)

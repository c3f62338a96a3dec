/* SPDX-License-Identifier: MIT */
/*
 * The pure part of "trace import pcap": finding the IP header behind each
 * link-layer header, and counting received bytes into 1500-byte delivery
 * opportunities. The fixture captures are read here with a few lines of
 * pcap parsing (the file format is 24 + 16 bytes of headers), so the
 * counting is checked on the same bytes the CLI test feeds libpcap.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsu.h"
#include "tasshape/trace_pcap.h"

#define MS TS_NSEC_PER_MSEC

/* An IPv4 header (20 bytes): total length @len, 10.0.0.1 -> 10.0.0.2. */
static void ip4(uint8_t *p, uint16_t len)
{
	static const uint8_t h[20] = {0x45, 0, 0,  0, 0, 1, 0x40, 0, 0x40, 6,
				      0,    0, 10, 0, 0, 1, 10,	  0, 0,	   2};

	memcpy(p, h, 20);
	p[2] = (uint8_t)(len >> 8);
	p[3] = (uint8_t)len;
}

static void test_link_types(void)
{
	uint8_t f[128] = {0};
	struct ts_pcap_ip ip;

	/* Ethernet: type 0x0800 at 12 */
	f[12] = 0x08;
	ip4(f + 14, 1500);
	TSU_EQ(ts_pcap_ip_parse(TS_DLT_EN10MB, f, 54, &ip), 0);
	TSU_EQ(ip.version, 4);
	TSU_EQ(ip.ip_len, 1500);
	TSU_EQ(ip.src[3], 1);
	TSU_EQ(ip.dst[3], 2);
	/* cut inside the IP header */
	TSU_EQ(ts_pcap_ip_parse(TS_DLT_EN10MB, f, 30, &ip), -EINVAL);
	/* an 802.1Q tag: 0x8100, 4 bytes, then 0x0800 */
	memset(f, 0, sizeof(f));
	f[12] = 0x81;
	f[16] = 0x08;
	ip4(f + 18, 1400);
	TSU_EQ(ts_pcap_ip_parse(TS_DLT_EN10MB, f, 58, &ip), 0);
	TSU_EQ(ip.ip_len, 1400);
	/* ARP is not IP */
	memset(f, 0, sizeof(f));
	f[12] = 0x08;
	f[13] = 0x06;
	TSU_EQ(ts_pcap_ip_parse(TS_DLT_EN10MB, f, 42, &ip), -EINVAL);
	/* Linux cooked v1: protocol at 14, IP at 16 */
	memset(f, 0, sizeof(f));
	f[14] = 0x08;
	ip4(f + 16, 52);
	TSU_EQ(ts_pcap_ip_parse(TS_DLT_LINUX_SLL, f, 36, &ip), 0);
	TSU_EQ(ip.ip_len, 52);
	/* raw IPv6: payload length 1460 + 40 */
	memset(f, 0, sizeof(f));
	f[0] = 0x60;
	f[4] = 0x05;
	f[5] = 0xb4;
	f[23] = 1;
	f[39] = 2;
	TSU_EQ(ts_pcap_ip_parse(TS_DLT_RAW, f, 40, &ip), 0);
	TSU_EQ(ip.version, 6);
	TSU_EQ(ip.ip_len, 1500);
	TSU_EQ(ip.src[15], 1);
	TSU_EQ(ip.dst[15], 2);
	/* an IPv4 header under an IPv6 ethertype is not trusted */
	memset(f, 0, sizeof(f));
	f[12] = 0x86;
	f[13] = 0xdd;
	ip4(f + 14, 1500);
	TSU_EQ(ts_pcap_ip_parse(TS_DLT_EN10MB, f, 74, &ip), -EINVAL);
	/* loopback: 4 bytes of address family */
	memset(f, 0, sizeof(f));
	f[0] = 2;
	ip4(f + 4, 100);
	TSU_EQ(ts_pcap_ip_parse(TS_DLT_NULL, f, 24, &ip), 0);
	TSU_EQ(ip.ip_len, 100);
	/* 802.11 radiotap (127) is not supported */
	TSU_EQ(ts_pcap_ip_parse(127, f, 24, &ip), -EPROTONOSUPPORT);
}

static void test_builder(void)
{
	struct ts_opp_builder b;
	struct ts_trace *t;
	struct ts_err err;

	ts_opp_builder_init(&b);
	/* t0 = 5 ms; millisecond = (t - t0) / 1 ms + 1 */
	TSU_EQ(ts_opp_builder_add(&b, 5 * MS, 3000), 0);	  /* 2 at ms 1 */
	TSU_EQ(ts_opp_builder_add(&b, 5 * MS + 999999, 1000), 0); /* carry 1000 */
	TSU_EQ(ts_opp_builder_add(&b, 6 * MS, 1000), 0);	  /* 2000: 1 at ms 2, carry 500 */
	TSU_EQ(ts_opp_builder_add(&b, 5 * MS, 1000), 0);  /* earlier: at 6 ms, 1500: 1 at ms 2 */
	TSU_EQ(ts_opp_builder_add(&b, 12 * MS, 1600), 0); /* 1 at ms 8, carry 100 */
	TSU_EQ(b.reordered, 1);
	TSU_EQ(b.packets, 5);
	TSU_EQ(b.bytes, 7600);
	TSU_EQ(ts_opp_builder_finish(&b, "cap", &t, &err), 0);
	/* 7600 bytes: 5 opportunities, the last 100 bytes dropped */
	TSU_EQ(t->kind, TS_TRACE_OPPS);
	TSU_EQ(t->n, 3);
	TSU_EQ(t->opps[0].ms, 1);
	TSU_EQ(t->opps[0].count, 2);
	TSU_EQ(t->opps[1].ms, 2);
	TSU_EQ(t->opps[1].count, 2);
	TSU_EQ(t->opps[2].ms, 8);
	TSU_EQ(t->opps[2].count, 1);
	TSU_EQ(t->period, 8 * MS);
	ts_trace_free(t);
	ts_opp_builder_free(&b);
	/* less than one opportunity */
	ts_opp_builder_init(&b);
	TSU_EQ(ts_opp_builder_add(&b, 0, 1499), 0);
	TSU_EQ(ts_opp_builder_finish(&b, "cap", &t, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cap: less than 1500 bytes received"));
	ts_opp_builder_free(&b);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * Count the fixture capture @name the way the CLI does for a known
 * direction (source address byte @src_last) and return the opportunities
 * as "ms ms ...".
 */
static void count_fixture(const char *name, int src_index, uint8_t src_last, char *out, size_t size)
{
	char path[512];
	uint8_t *buf = malloc(1 << 16);
	struct ts_opp_builder b;
	struct ts_trace *t;
	struct ts_err err;
	size_t len, off = 24, i, used = 0;
	int dlt;
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), TS_TEST_DATA "/import/%s", name);
	f = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	len = fread(buf, 1, 1 << 16, f);
	fclose(f);
	TSU_EQ(le32(buf), 0xa1b2c3d4); /* microsecond timestamps, little endian */
	dlt = (int)le32(buf + 20);
	ts_opp_builder_init(&b);
	while (off + 16 <= len) {
		ts_ns_t at = (ts_ns_t)le32(buf + off) * TS_NSEC_PER_SEC +
			     (ts_ns_t)le32(buf + off + 4) * 1000;
		uint32_t caplen = le32(buf + off + 8);
		struct ts_pcap_ip ip;

		if (!ts_pcap_ip_parse(dlt, buf + off + 16, caplen, &ip) &&
		    ip.src[src_index] == src_last)
			TSU_EQ(ts_opp_builder_add(&b, at, ip.ip_len), 0);
		off += 16 + caplen;
	}
	TSU_EQ(off, len);
	TSU_EQ(ts_opp_builder_finish(&b, name, &t, &err), 0);
	for (i = 0; i < t->n; i++) {
		uint32_t k;

		for (k = 0; k < t->opps[i].count; k++)
			used += (size_t)snprintf(out + used, size - used, "%s%u", used ? " " : "",
						 t->opps[i].ms);
	}
	ts_trace_free(t);
	ts_opp_builder_free(&b);
	free(buf);
}

static void test_fixtures(void)
{
	char got[256];

	/*
	 * download.pcap (see make-pcaps.sh): 1500-byte packets at 1.0000, 1.0004, 1.0010,
	 * 1.0011, 1.0025 (2), 1.0030, 1.0100 (2), 1.0101 s and two of 750 bytes at 1.0200 and
	 * 1.0205 s: ms 1, 1, 2, 2, 3, 3, 4, 11, 11, 11, then the two halves make one at 21.
	 * The ACKs (from 10.0.0.2) and the ARP frame are not counted.
	 */
	count_fixture("download.pcap", 3, 1, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, "1 1 2 2 3 3 4 11 11 11 21");
	/* download-sll2.pcap: 3000 bytes at 5.0000 and 5.0015 s, 1500 at 5.004999 s */
	count_fixture("download-sll2.pcap", 15, 1, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, "1 1 2 2 5");
}

static const struct tsu_test tests[] = {
	{"IP header behind Ethernet, VLAN, cooked, raw, loopback", test_link_types},
	{"1500 bytes per opportunity, at the millisecond", test_builder},
	{"the fixture captures", test_fixtures},
};

TSU_MAIN("trace_pcap", tests)

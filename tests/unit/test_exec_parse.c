/* SPDX-License-Identifier: MIT */
/*
 * The executor's readers (src/exec/exec_parse.c) on output captured from
 * the real tools on this project's link (tests/data/exp: iperf3 3.12,
 * iputils ping -D, irtt 0.9.0, the wrapper's --summary-json and
 * --sockstats, from one 2 s rrul run of CUBIC over a 20 Mbit/s, 20 ms
 * link). Expected numbers are the files' own, read by eye.
 */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/exec_files.h"
#include "exec/exec_parse.h"
#include "tsu.h"

#define NEAR(a, b) CU_ASSERT(fabs((a) - (b)) < 1e-6)

static char *fixture(const char *name)
{
	char *t = ts_exp_slurp(TS_TEST_DATA "/exp", name);

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	return t;
}

static double at(json_object *series, const char *key, size_t i)
{
	json_object *a = json_object_object_get(series, key);

	return json_object_get_double(json_object_array_get_idx(a, i));
}

static size_t len(json_object *series, const char *key)
{
	return json_object_array_length(json_object_object_get(series, key));
}

static void test_iperf3_upload(void)
{
	char *t = fixture("iperf3-up.json");
	struct ts_err err = {""};
	struct ts_exp_iperf ip;

	/* Started 2.5 s after t0. */
	TSU_EQ(ts_exp_parse_iperf3(t, 1002.5, 1000.0, &ip, &err), 0);
	TSU_EQ(ip.bytes, 1203288);
	NEAR(ip.seconds, 2.106015);
	NEAR(ip.throughput_mbps, 1203288 * 8 / 2.106015 / 1e6); /* 4.5709 */
	TSU_EQ(ip.retransmits, 4);
	CU_ASSERT_STRING_EQUAL(ip.sender_cca, "cubic");
	CU_ASSERT_STRING_EQUAL(ip.receiver_cca, "cubic");
	TSU_EQ(ip.local_port, 38802);
	TSU_EQ(ip.tos, 0);
	CU_ASSERT_FALSE(ip.reverse);
	TSU_EQ(len(ip.series, "t"), 10);
	TSU_EQ(len(ip.series, "mbps"), 10);
	NEAR(at(ip.series, "t", 0), 2.5 + 0.369506);
	NEAR(at(ip.series, "mbps", 0), 4.138195); /* 4138195.30 bit/s, to 1e-6 Mbit/s */
	NEAR(at(ip.series, "t", 9), 2.5 + 2.000176);
	NEAR(at(ip.series, "mbps", 9), 0);
	json_object_put(ip.series);
	free(t);
}

static void test_iperf3_download(void)
{
	char *t = fixture("iperf3-down.json");
	struct ts_err err = {""};
	struct ts_exp_iperf ip;

	TSU_EQ(ts_exp_parse_iperf3(t, 10.0, 10.0, &ip, &err), 0);
	/* -R: the client receives; sum_received is its count. */
	TSU_EQ(ip.bytes, 1081656);
	NEAR(ip.seconds, 2.000184);
	NEAR(ip.throughput_mbps, 1081656 * 8 / 2.000184 / 1e6);
	TSU_EQ(ip.retransmits, 13); /* the server's, sent back to the client */
	TSU_EQ(ip.tos, 184);	    /* EF: DSCP 46 << 2 */
	CU_ASSERT_TRUE(ip.reverse);
	TSU_EQ(ip.local_port, 57866);
	TSU_EQ(len(ip.series, "t"), 10);
	NEAR(at(ip.series, "t", 0), 0.200103);
	NEAR(at(ip.series, "mbps", 0), 1.736706); /* 1736705.598 bit/s rounded */
	NEAR(at(ip.series, "mbps", 9), 9.437185);
	json_object_put(ip.series);
	free(t);
}

static void test_iperf3_errors(void)
{
	char *t = fixture("iperf3-error.json");
	struct ts_err err = {""};
	struct ts_exp_iperf ip;

	TSU_EQ(ts_exp_parse_iperf3(t, 0, 0, &ip, &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "iperf3: unable to connect to server: Connection refused");
	CU_ASSERT_PTR_NULL(ip.series);
	TSU_EQ(ts_exp_parse_iperf3("{\"start\": {", 0, 0, &ip, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not JSON"));
	TSU_EQ(ts_exp_parse_iperf3("{\"start\": {}}", 0, 0, &ip, &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "iperf3 JSON has no end.sum_received");
	free(t);
}

static void test_ping(void)
{
	char *t = fixture("ping.txt");
	long sent = 0;
	json_object *s = ts_exp_parse_ping(t, 1796118975.0, &sent);

	TSU_EQ(sent, 15);
	TSU_EQ(len(s, "t"), 15);
	TSU_EQ(len(s, "seq"), 15);
	NEAR(at(s, "t", 0), 0.589318);
	TSU_EQ((long)at(s, "seq", 0), 1);
	NEAR(at(s, "rtt_ms", 0), 68.0);
	NEAR(at(s, "t", 1), 1.196296);
	NEAR(at(s, "rtt_ms", 1), 64.4);
	NEAR(at(s, "t", 14), 3.969912);
	TSU_EQ((long)at(s, "seq", 14), 15);
	NEAR(at(s, "rtt_ms", 14), 128);
	json_object_put(s);
	free(t);

	/* No statistics line (ping killed), a timeout line and an unreachable reply are skipped. */
	s = ts_exp_parse_ping("PING 10.0.0.1 (10.0.0.1) 56(84) bytes of data.\n"
			      "[100.5] 64 bytes from 10.0.0.1: icmp_seq=3 ttl=63 time=40.25 ms\n"
			      "[101.0] no answer yet for icmp_seq=4\n"
			      "[101.5] From 10.0.0.2 icmp_seq=5 Destination Host Unreachable\n",
			      100.0, &sent);
	TSU_EQ(sent, -1);
	TSU_EQ(len(s, "t"), 1);
	NEAR(at(s, "t", 0), 0.5);
	NEAR(at(s, "rtt_ms", 0), 40.25);
	json_object_put(s);
}

static void test_irtt(void)
{
	char *t = fixture("irtt.json");
	struct ts_err err = {""};
	long lost = -1;
	json_object *s = ts_exp_parse_irtt(t, 1796118976.0, &lost, &err);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	TSU_EQ(lost, 0);
	TSU_EQ(len(s, "t"), 14);
	NEAR(at(s, "t", 0), 0.306811);	   /* client send wall 1796118976306811000 ns */
	NEAR(at(s, "rtt_ms", 0), 170.032); /* 170032000 ns */
	TSU_EQ((long)at(s, "seq", 13), 13);
	NEAR(at(s, "t", 13), 3.100391);
	NEAR(at(s, "rtt_ms", 13), 114.453939);
	json_object_put(s);
	free(t);

	s = ts_exp_parse_irtt(
		"{\"round_trips\":[{\"seqno\":0,\"lost\":\"true\"},"
		"{\"seqno\":1,\"lost\":\"true_down\",\"delay\":{}},"
		"{\"seqno\":2,\"lost\":\"false\",\"timestamps\":{\"client\":{\"send\":"
		"{\"wall\":2500000000}}},\"delay\":{\"rtt\":41000000}}]}",
		2.0, &lost, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	TSU_EQ(lost, 2);
	TSU_EQ(len(s, "t"), 1);
	NEAR(at(s, "t", 0), 0.5);
	NEAR(at(s, "rtt_ms", 0), 41.0);
	json_object_put(s);
	CU_ASSERT_PTR_NULL(ts_exp_parse_irtt("{}", 0, &lost, &err));
	CU_ASSERT_STRING_EQUAL(err.msg, "irtt JSON has no round_trips");
}

static void test_summary_and_fidelity(void)
{
	char *t = fixture("summary.json");
	struct ts_err err = {""}, why = {""};
	struct ts_exp_fidelity f[2], g;

	TSU_EQ(ts_exp_parse_summary(t, f, &err), 0);
	CU_ASSERT_TRUE(f[0].present && f[1].present);
	NEAR(f[0].utilisation, 0.38640886242693917);
	NEAR(f[0].release_err_p50_us, 60.416);
	NEAR(f[0].release_err_p99_us, 106954.752);
	NEAR(f[0].release_err_max_us, 129804.164);
	NEAR(f[1].release_err_p99_us, 26214.4);
	TSU_EQ(f[0].unexplained + f[0].kernel_drops + f[0].no_descriptor, 0);
	TSU_EQ(f[0].loop_work_permille, -1); /* a summary from before the field */
	/* This run fell behind (a loaded 2-core machine): p99 107 ms > 200 us (run/fidelity.h). */
	CU_ASSERT_TRUE(ts_exp_fell_behind(&f[0], &why));
	CU_ASSERT_STRING_EQUAL(why.msg, "release timing error p99 106954.752 us > 200 us");
	free(t);

	/* The JSON's p99 is whole ns read as us: 200.000 us passes, 200.001 us does not. */
	g = (struct ts_exp_fidelity){
		.present = true, .have_release_err = true, .release_err_p99_us = 200.000};
	CU_ASSERT_FALSE(ts_exp_fell_behind(&g, &why));
	g.release_err_p99_us = 200.001;
	CU_ASSERT_TRUE(ts_exp_fell_behind(&g, &why));
	CU_ASSERT_STRING_EQUAL(why.msg, "release timing error p99 200.001 us > 200 us");
	g.release_err_p99_us = 150;
	CU_ASSERT_FALSE(ts_exp_fell_behind(&g, &why));
	g.kernel_drops = 3;
	CU_ASSERT_TRUE(ts_exp_fell_behind(&g, &why));
	CU_ASSERT_STRING_EQUAL(why.msg, "3 packets dropped by the kernel");
	g.unexplained = 1;
	CU_ASSERT_TRUE(ts_exp_fell_behind(&g, &why));
	CU_ASSERT_STRING_EQUAL(why.msg, "1 unexplained drops");
	g = (struct ts_exp_fidelity){0};
	CU_ASSERT_FALSE(ts_exp_fell_behind(&g, &why)); /* absent direction */
	TSU_EQ(ts_exp_parse_summary("{\"title\":\"x\"}", f, &err), -EINVAL);
	/* The loop's work is the run's: both directions get it; out of 0-1000 is not believed. */
	TSU_EQ(ts_exp_parse_summary("{\"directions\":[{\"name\":\"uplink\"}],"
				    "\"loop_work_max_permille\":873}",
				    f, &err),
	       0);
	TSU_EQ(f[0].loop_work_permille, 873);
	TSU_EQ(f[1].loop_work_permille, 873);
	CU_ASSERT_FALSE(f[1].present);
	TSU_EQ(ts_exp_parse_summary("{\"directions\":[],\"loop_work_max_permille\":1001}", f, &err),
	       0);
	TSU_EQ(f[0].loop_work_permille, -1);

	/* host_cpu: a direction fell behind and the loop worked 800 permille or more. */
	f[0] = (struct ts_exp_fidelity){
		.present = true, .have_release_err = true, .release_err_p99_us = 300};
	f[1] = (struct ts_exp_fidelity){.present = true, .have_release_err = true};
	f[0].loop_work_permille = f[1].loop_work_permille = 800;
	CU_ASSERT_TRUE(ts_exp_host_cpu(f));
	f[0].loop_work_permille = f[1].loop_work_permille = 799;
	CU_ASSERT_FALSE(ts_exp_host_cpu(f));
	f[0].loop_work_permille = f[1].loop_work_permille = -1;
	CU_ASSERT_FALSE(ts_exp_host_cpu(f));
	f[0].loop_work_permille = f[1].loop_work_permille = 950;
	f[0].release_err_p99_us = 200; /* kept its timing: a busy loop alone is no flag */
	CU_ASSERT_FALSE(ts_exp_host_cpu(f));
	f[1].kernel_drops = 1; /* the downlink fell behind */
	CU_ASSERT_TRUE(ts_exp_host_cpu(f));

	/* The host's steal is the run's: both get it; absent or negative is -1. */
	TSU_EQ(ts_exp_parse_summary("{\"directions\":[],\"host_steal_ms\":310}", f, &err), 0);
	TSU_EQ(f[0].host_steal_ms, 310);
	TSU_EQ(f[1].host_steal_ms, 310);
	TSU_EQ(ts_exp_parse_summary("{\"directions\":[],\"host_steal_ms\":-5}", f, &err), 0);
	TSU_EQ(f[0].host_steal_ms, -1);
	TSU_EQ(ts_exp_parse_summary("{\"directions\":[]}", f, &err), 0);
	TSU_EQ(f[1].host_steal_ms, -1);
	/* host_steal: a direction fell behind and the hypervisor took 10 ms or more. */
	f[0] = (struct ts_exp_fidelity){
		.present = true, .have_release_err = true, .release_err_p99_us = 300};
	f[1] = (struct ts_exp_fidelity){.present = true, .have_release_err = true};
	f[0].host_steal_ms = f[1].host_steal_ms = 10;
	CU_ASSERT_TRUE(ts_exp_host_steal(f));
	f[0].host_steal_ms = f[1].host_steal_ms = 9;
	CU_ASSERT_FALSE(ts_exp_host_steal(f));
	f[0].host_steal_ms = f[1].host_steal_ms = -1;
	CU_ASSERT_FALSE(ts_exp_host_steal(f));
	f[0].host_steal_ms = f[1].host_steal_ms = 500;
	f[0].release_err_p99_us = 150; /* kept its timing: steal alone is no flag */
	CU_ASSERT_FALSE(ts_exp_host_steal(f));
}

static void test_sockstats(void)
{
	char *t = fixture("sockstats.csv");
	struct ts_err err = {""};
	struct ts_exp_sock s[3] = {{.port = 38802}, {.port = 38802, .peer = 5999}, {.port = 45790}};

	TSU_EQ(ts_exp_parse_sockstats(t, 0.5, s, 3, &err), 0);
	/*
	 * Nine rows of the data socket; only the two after it sent more than its 37-byte cookie
	 * count. The row at 1.840 s caught it between the cookie and iperf3's -C: bbr, 37 bytes.
	 */
	TSU_EQ(s[0].rows, 9);
	TSU_EQ(s[0].evidence, 2);
	CU_ASSERT_STRING_EQUAL(s[0].cca, "cubic");
	TSU_EQ(len(s[0].series, "t"), 9);
	NEAR(at(s[0].series, "t", 0), 1.601 + 0.5);
	NEAR(at(s[0].series, "rtt_ms", 6), 179.551);
	NEAR(at(s[0].series, "pacing_rate_bps", 6), 1290320);
	NEAR(at(s[0].series, "delivery_rate_bps", 6), 114392);
	NEAR(at(s[0].series, "cwnd", 8), 20);
	CU_ASSERT_PTR_NULL(json_object_array_get_idx(
		json_object_object_get(s[0].series, "pacing_rate_bps"), 0)); /* empty field: null */
	TSU_EQ(s[1].rows, 0);						     /* wrong peer */
	TSU_EQ(s[2].rows, 1);
	TSU_EQ(s[2].evidence, 0);
	CU_ASSERT_STRING_EQUAL(s[2].cca, "");
	for (int i = 0; i < 3; i++)
		json_object_put(s[i].series);
	free(t);

	/* Two controls on one sending socket are both reported, in order of appearance. */
	s[0] = (struct ts_exp_sock){.port = 1};
	TSU_EQ(ts_exp_parse_sockstats("bytes_sent,time_s,sport,dport,cca,cwnd_pkts,srtt_ms,"
				      "pacing_rate_bps,delivery_rate_bps\n"
				      "38,0.1,1,2,cubic,10,1,,\n38,0.2,1,2,bbr,10,1,,\n"
				      "38,0.3,1,2,cubic,10,1,,\n",
				      0, s, 1, &err),
	       0);
	CU_ASSERT_STRING_EQUAL(s[0].cca, "cubic,bbr");
	json_object_put(s[0].series);
	TSU_EQ(ts_exp_parse_sockstats("time_s,sport\n", 0, s, 1, &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "socket statistics: no column dport");
	json_object_put(s[0].series);
}

/*
 * The file goes through its strict reader (record/sockstats_in.h): a doctored row and a row cut
 * short (a wrapper killed while writing) are left out, the 2 sound rows count.
 */
static void test_sockstats_refused_rows(void)
{
	struct ts_exp_sock s = {.port = 1};
	struct ts_err err = {""};

	TSU_EQ(ts_exp_parse_sockstats("time_s,flow,sport,dport,cca,cwnd_pkts,srtt_ms,"
				      "pacing_rate_bps,delivery_rate_bps,bytes_sent\n"
				      "0.1,1:1-2:2,1,2,cubic,10,1,,,100\n"
				      "EOD,1:1-2:2,1,2,cubic,10,1,,,100\n"
				      "0.2,1:1-2:2,1,2,cub'ic,10,1,,,100\n"
				      "0.3,1:1-2:2,1,2,cubic,12,1.5,8000,,100\n"
				      "0.4,1:1-2:2,1,2,cub",
				      0, &s, 1, &err),
	       0);
	TSU_EQ(s.rows, 2);
	TSU_EQ(s.evidence, 2);
	CU_ASSERT_STRING_EQUAL(s.cca, "cubic");
	NEAR(at(s.series, "t", 1), 0.3);
	NEAR(at(s.series, "cwnd", 1), 12);
	NEAR(at(s.series, "pacing_rate_bps", 1), 8000);
	json_object_put(s.series);
}

/*
 * Real Wi-Fi stations: each station's namespace has ports of its own, so
 * two stations' sockets may share a port; the station column tells them
 * apart. Station 1's flow on port 40000 takes its 2 rows, station 0's its
 * 1 row; a socket matched at any station (-1: the far side's) takes all 3.
 */
static void test_sockstats_stations(void)
{
	static const char csv[] = "time_s,sport,dport,cca,cwnd_pkts,srtt_ms,pacing_rate_bps,"
				  "delivery_rate_bps,bytes_sent,station\n"
				  "0.1,40000,5201,cubic,10,1,,,10,1\n"
				  "0.1,40000,5202,cubic,20,1,,,10,0\n"
				  "0.2,40000,5201,cubic,11,1,,,10,1\n";
	struct ts_exp_sock s[3] = {{.port = 40000, .station = 1},
				   {.port = 40000, .station = 0},
				   {.port = 40000, .station = -1}};
	struct ts_err err = {""};
	int i;

	TSU_EQ(ts_exp_parse_sockstats(csv, 0, s, 3, &err), 0);
	TSU_EQ(s[0].rows, 2);
	NEAR(at(s[0].series, "cwnd", 1), 11);
	TSU_EQ(s[1].rows, 1);
	NEAR(at(s[1].series, "cwnd", 0), 20);
	TSU_EQ(s[2].rows, 3);
	for (i = 0; i < 3; i++)
		json_object_put(s[i].series);
}

/*
 * A run directory's files are read whole only when they are regular files
 * reached without a link: the run's programs wrote those names, and a
 * link or FIFO there must not make tasshape read another file or block.
 */
static void test_slurp_refuses(void)
{
	char dir[] = "/tmp/tsu-slurp.XXXXXX", path[64];
	char *t;
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("{\"end\": {}}\n", f);
	fclose(f);
	t = ts_exp_slurp(dir, "out.json");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_STRING_EQUAL(t, "{\"end\": {}}\n");
	free(t);
	snprintf(path, sizeof(path), "%s/link.json", dir);
	TSU_EQ(symlink("out.json", path), 0);
	errno = 0;
	CU_ASSERT_PTR_NULL(ts_exp_slurp(dir, "link.json"));
	TSU_EQ(errno, ELOOP);
	unlink(path);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	TSU_EQ(mkfifo(path, 0600), 0);
	errno = 0;
	CU_ASSERT_PTR_NULL(ts_exp_slurp(dir, "fifo"));
	TSU_EQ(errno, EINVAL);
	unlink(path);
	errno = 0;
	CU_ASSERT_PTR_NULL(ts_exp_slurp(dir, "../etc/passwd"));
	TSU_EQ(errno, EXDEV);
	CU_ASSERT_PTR_NULL(ts_exp_slurp(dir, "absent"));
	TSU_EQ(errno, ENOENT);
	snprintf(path, sizeof(path), "%s/out.json", dir);
	unlink(path);
	TSU_EQ(rmdir(dir), 0);
}

static const struct tsu_test tests[] = {
	{"iperf3 upload", test_iperf3_upload},
	{"iperf3 download (-R)", test_iperf3_download},
	{"iperf3 errors", test_iperf3_errors},
	{"ping -D", test_ping},
	{"irtt", test_irtt},
	{"summary and fidelity", test_summary_and_fidelity},
	{"socket statistics", test_sockstats},
	{"socket statistics: refused rows", test_sockstats_refused_rows},
	{"socket statistics: real stations", test_sockstats_stations},
	{"run files: links, FIFOs, escapes refused", test_slurp_refuses},
};

TSU_MAIN("exec_parse", tests)

/* SPDX-License-Identifier: MIT */
/*
 * Flent's test shapes as the executor plans them (src/exec/exec_plan.c):
 * series names, directions, DSCP marks, far-side hosts, ports, and the
 * exact iperf3, ping and irtt command lines.
 */
#include <errno.h>
#include <string.h>

#include "exec/exec_plan.h"
#include "tsu.h"

static struct ts_exp_run mkrun(const char *test)
{
	struct ts_exp_run r = {0};

	r.test = test;
	r.length = 30 * TS_NSEC_PER_SEC;
	r.delay = 5 * TS_NSEC_PER_SEC;
	r.nservers = 1;
	return r;
}

static void join(char *buf, size_t len, char **argv)
{
	buf[0] = 0;
	for (; *argv; argv++) {
		strncat(buf, *argv, len - strlen(buf) - 2);
		if (argv[1])
			strcat(buf, " ");
	}
}

static void test_rrul(void)
{
	struct ts_exp_run r = mkrun("rrul");
	struct ts_exp_plan p;
	struct ts_err err;
	static const char *const names[8] = {
		"TCP upload BE",   "TCP upload BK",   "TCP upload CS5",	  "TCP upload EF",
		"TCP download BE", "TCP download BK", "TCP download CS5", "TCP download EF"};
	static const unsigned dscp[4] = {0, 8, 40, 46};
	size_t i;

	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	TSU_EQ(p.nflows, 8);
	TSU_EQ(p.nservers, 1);
	for (i = 0; i < 8; i++) {
		CU_ASSERT_STRING_EQUAL(p.flow[i].name, names[i]);
		TSU_EQ(p.flow[i].dir, i < 4 ? TS_EXP_UP : TS_EXP_DOWN);
		TSU_EQ(p.flow[i].mark.dscp, dscp[i % 4]);
		TSU_EQ(p.flow[i].port, 5201 + i);
		TSU_EQ(p.flow[i].server, 0);
	}
	CU_ASSERT_STRING_EQUAL(p.flow[4].file, "iperf3-down-5.json");
	TSU_EQ(p.nprobes, 4);
	CU_ASSERT_STRING_EQUAL(p.probe[0].name, "Ping (ms) ICMP");
	TSU_EQ(p.probe[0].kind, TS_EXP_ICMP);
	CU_ASSERT_STRING_EQUAL(p.probe[1].name, "Ping (ms) UDP EF");
	TSU_EQ(p.probe[1].mark.dscp, 46);
	CU_ASSERT_STRING_EQUAL(p.probe[2].name, "Ping (ms) UDP BK");
	TSU_EQ(p.probe[2].mark.dscp, 8);
	CU_ASSERT_STRING_EQUAL(p.probe[3].name, "Ping (ms) UDP BE");
	CU_ASSERT_STRING_EQUAL(p.probe[3].file, "irtt-BE-4.json");
}

static void test_rrul_be_and_streams(void)
{
	struct ts_exp_run r = mkrun("rrul_be");
	struct ts_exp_plan p;
	struct ts_err err;
	size_t i;

	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	TSU_EQ(p.nflows, 8);
	CU_ASSERT_STRING_EQUAL(p.flow[3].name, "TCP upload BE4");
	CU_ASSERT_STRING_EQUAL(p.flow[4].name, "TCP download BE1");
	for (i = 0; i < 8; i++)
		TSU_EQ(p.flow[i].mark.dscp, 0);
	CU_ASSERT_STRING_EQUAL(p.probe[3].name, "Ping (ms) UDP BE3");

	r = mkrun("tcp_nup");
	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	TSU_EQ(p.nflows, 4); /* Flent's default upload_streams */
	CU_ASSERT_STRING_EQUAL(p.flow[3].name, "TCP upload::4");
	r.upload_streams = 6;
	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	TSU_EQ(p.nflows, 6);
	r = mkrun("tcp_8up");
	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	TSU_EQ(p.nflows, 8);
	CU_ASSERT_STRING_EQUAL(p.flow[7].name, "TCP upload::8");
	r = mkrun("tcp_8down");
	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	TSU_EQ(p.nflows, 8);
	TSU_EQ(p.flow[7].dir, TS_EXP_DOWN);
	r = mkrun("tcp_ndown");
	r.download_streams = 2;
	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	TSU_EQ(p.nflows, 2);
	TSU_EQ(p.flow[1].dir, TS_EXP_DOWN);
	CU_ASSERT_STRING_EQUAL(p.flow[1].name, "TCP download::2");
	r.download_streams = 17;
	TSU_EQ(ts_exp_plan_build(&r, &p, &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "tcp_ndown: 17 streams, at most 16");
	r = mkrun("tcp_upload");
	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	TSU_EQ(p.nflows, 1);
	CU_ASSERT_STRING_EQUAL(p.flow[0].name, "TCP upload");
	TSU_EQ(p.nprobes, 1);
	r = mkrun("tcp_download");
	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	CU_ASSERT_STRING_EQUAL(p.flow[0].name, "TCP download");
}

static void test_rtt_fair_and_errors(void)
{
	struct ts_exp_run r = mkrun("rtt_fair");
	struct ts_exp_plan p;
	struct ts_err err;
	size_t i;

	r.nservers = 4;
	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	TSU_EQ(p.nservers, 4);
	TSU_EQ(p.nflows, 4);
	TSU_EQ(p.nprobes, 4);
	for (i = 0; i < 4; i++) {
		TSU_EQ(p.flow[i].server, i);
		TSU_EQ(p.probe[i].server, i);
		TSU_EQ(p.probe[i].kind, TS_EXP_ICMP);
	}
	CU_ASSERT_STRING_EQUAL(p.flow[2].name, "TCP upload::3");
	CU_ASSERT_STRING_EQUAL(p.probe[2].name, "Ping (ms)::3");
	r = mkrun("tcp_bidir");
	TSU_EQ(ts_exp_plan_build(&r, &p, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown test 'tcp_bidir'"));
	r = mkrun("rrul");
	r.length = 0;
	TSU_EQ(ts_exp_plan_build(&r, &p, &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "rrul: length must be positive");
}

static void test_command_lines(void)
{
	struct ts_exp_run r = mkrun("rrul");
	struct ts_exp_plan p;
	struct ts_exp_argv a;
	char line[1024];
	struct ts_err err;

	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	TSU_EQ(ts_exp_flow_argv(&p, &p.flow[7], "{BASE}", "bbr", &a), 0);
	join(line, sizeof(line), a.argv);
	CU_ASSERT_STRING_EQUAL(line, "iperf3 --client {BASE} --port 5208 --time 30 --interval 0.2 "
				     "--json --congestion bbr --connect-timeout 3000 --tos 184 "
				     "--reverse");
	TSU_EQ(ts_exp_flow_argv(&p, &p.flow[0], "100.64.0.1", "cubic", &a), 0);
	join(line, sizeof(line), a.argv);
	CU_ASSERT_STRING_EQUAL(line, "iperf3 --client 100.64.0.1 --port 5201 --time 30 --interval "
				     "0.2 --json --congestion cubic --connect-timeout 3000");
	/* Probes run length + 2 x delay = 40 s: 200 pings at 0.2 s, bounded by 42 s. */
	TSU_EQ(ts_exp_probe_argv(&p, &p.probe[0], "{BASE}", NULL, &a), 0);
	join(line, sizeof(line), a.argv);
	CU_ASSERT_STRING_EQUAL(line, "ping -D -n -i 0.2 -c 200 -w 42 {BASE}");
	TSU_EQ(ts_exp_probe_argv(&p, &p.probe[1], "{BASE}", "/r/irtt-EF-2.json", &a), 0);
	join(line, sizeof(line), a.argv);
	CU_ASSERT_STRING_EQUAL(line, "irtt client -i 200ms -d 40s --dscp=184 -Q -o "
				     "/r/irtt-EF-2.json {BASE}:2112");
	r.length = 1500 * TS_NSEC_PER_MSEC;
	r.delay = 250 * TS_NSEC_PER_MSEC;
	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	TSU_EQ(ts_exp_probe_argv(&p, &p.probe[2], "h", "o.json", &a), 0);
	join(line, sizeof(line), a.argv);
	CU_ASSERT_STRING_EQUAL(line, "irtt client -i 200ms -d 2s --dscp=32 -Q -o o.json h:2112");
	TSU_EQ(ts_exp_flow_argv(&p, &p.flow[0], "h", "cubic", &a), 0);
	CU_ASSERT_STRING_EQUAL(a.argv[6], "1.5");
}

/* Real Wi-Fi stations: flows dealt round, or as the link's flow_stations says; probes stay on 0. */
static void test_stations(void)
{
	struct ts_exp_run r = mkrun("rrul");
	static const unsigned fs[2] = {2, 0};
	struct ts_exp_plan p;
	struct ts_err err;
	size_t i;

	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	TSU_EQ(p.stations, 1);
	for (i = 0; i < p.nflows; i++)
		TSU_EQ(p.flow[i].station, 0);
	r.stations = 3;
	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	TSU_EQ(p.stations, 3);
	for (i = 0; i < p.nflows; i++)
		TSU_EQ(p.flow[i].station, i % 3);
	r.nflow_stations = 2;
	r.flow_stations = fs;
	TSU_EQ(ts_exp_plan_build(&r, &p, &err), 0);
	TSU_EQ(p.flow[0].station, 2);
	TSU_EQ(p.flow[1].station, 0);
	TSU_EQ(p.flow[6].station, 2);
	TSU_EQ(p.flow[7].station, 0);
}

static const struct tsu_test tests[] = {
	{"rrul", test_rrul},
	{"rrul_be, tcp_nup, tcp_8up, tcp_ndown, tcp_upload", test_rrul_be_and_streams},
	{"rtt_fair and errors", test_rtt_fair_and_errors},
	{"command lines", test_command_lines},
	{"real Wi-Fi stations", test_stations},
};

TSU_MAIN("exec_plan", tests)

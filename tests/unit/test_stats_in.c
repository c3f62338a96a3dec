/* SPDX-License-Identifier: MIT */
/*
 * The readers of stats.csv and sockstats.csv (record/stats_in.c,
 * record/sockstats_in.c) against their writers (record/stats_out.c,
 * record/sockstats_out.c): what the writer writes reads back with the same
 * numbers, and the rows a results directory could be doctored with are
 * refused with the file, the line and what was expected.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/sockstats_in.h"
#include "record/sockstats_out.h"
#include "record/stats_in.h"
#include "record/stats_out.h"
#include "tsu.h"

#define MS TS_NSEC_PER_MSEC

static struct ts_pool pool;

static void release(void *ctx, struct ts_pkt *p, ts_ns_t t)
{
	(void)ctx;
	(void)t;
	ts_pool_put(&pool, p);
}

static void drop(void *ctx, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t t)
{
	(void)ctx;
	(void)cause;
	(void)t;
	ts_pool_put(&pool, p);
}

/* Feed @text to a stats reader line by line; the rows into @rows (at most @max). */
static int read_stats(const char *text, struct ts_stats_row *rows, int max, int *nrows,
		      struct ts_err *err)
{
	struct ts_stats_in r;
	const char *p = text;
	int ret = 0;

	*nrows = 0;
	ts_stats_in_init(&r, "stats.csv");
	while (*p && ret >= 0) {
		size_t len = strcspn(p, "\n");

		ret = ts_stats_in_line(&r, p, len + (p[len] == '\n'), &rows[*nrows], err);
		if (ret == 1 && *nrows < max - 1)
			(*nrows)++;
		p += len + (p[len] == '\n');
	}
	return ret < 0 ? ret : ts_stats_in_finish(&r, err);
}

/*
 * The writer's scenario of test_stats_out.c (an uplink of 12 Mbit/s,
 * 100 ms windows): window 0 has arrivals of 2500 bytes, one 1500-byte
 * delivery that spent 5 ms on the link and one drop; window 1 an arrival
 * of 500 bytes; the close at 250 ms writes the partial window of 50 ms.
 * Read back: 3 rows with exactly those numbers.
 */
static void test_stats_round_trip(void)
{
	struct ts_dir_conf c = {.name = "uplink", .seed = 1, .place = TS_PLACE_NETWORK};
	struct ts_stats_row rows[8];
	const struct ts_dir *dirs[2];
	struct ts_trace *t;
	struct ts_stats s;
	struct ts_err err;
	struct ts_dir d;
	size_t len = 0;
	char *buf = NULL;
	FILE *f;
	int n;

	t = ts_trace_const(12000000);
	c.trace = t;
	CU_ASSERT_EQUAL_FATAL(ts_dir_build(&d, &c, release, drop, NULL, &err), 0);
	dirs[0] = NULL;
	dirs[1] = &d; /* written as the downlink */
	f = open_memstream(&buf, &len);
	ts_stats_init(&s, f, dirs, 0, 100 * MS);
	ts_stats_arrival(&s, 1, 1500, 10 * MS);
	ts_stats_link_delay(&s, 1, 5 * MS, 20 * MS);
	ts_stats_delivered(&s, 1, 1500, 20 * MS);
	ts_stats_arrival(&s, 1, 1000, 50 * MS);
	ts_stats_drop(&s, 1, TS_DROP_OVERLIMIT, 60 * MS);
	ts_stats_arrival(&s, 1, 500, 150 * MS);
	TSU_EQ(ts_stats_close(&s, 250 * MS), 0);
	fclose(f);
	TSU_EQ(read_stats(buf, rows, 8, &n, &err), 0);
	TSU_EQ(n, 3);
	TSU_EQ(rows[0].dir, 1);
	CU_ASSERT_DOUBLE_EQUAL(rows[0].v[TS_STATS_TIME], 0.1, 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[0].v[TS_STATS_INTERVAL], 0.1, 0);
	TSU_EQ(rows[0].v[TS_STATS_CAPACITY], 12000000);
	TSU_EQ(rows[0].v[TS_STATS_THROUGHPUT], 120000);
	TSU_EQ(rows[0].v[TS_STATS_ARRIVED], 2500);
	TSU_EQ(rows[0].v[TS_STATS_DELIVERED], 1500);
	TSU_EQ(rows[0].v[TS_STATS_DELIVERED_PKTS], 1);
	TSU_EQ(rows[0].v[TS_STATS_QUEUE], 0);
	TSU_EQ(rows[0].v[TS_STATS_P50], 5);
	TSU_EQ(rows[0].v[TS_STATS_MAX], 5);
	TSU_EQ(rows[0].v[TS_STATS_DROPS], 1);
	TSU_EQ(rows[1].v[TS_STATS_ARRIVED], 500);
	CU_ASSERT(isnan(rows[1].v[TS_STATS_P50]) && isnan(rows[1].v[TS_STATS_MAX]));
	CU_ASSERT_DOUBLE_EQUAL(rows[2].v[TS_STATS_TIME], 0.25, 0);
	CU_ASSERT_DOUBLE_EQUAL(rows[2].v[TS_STATS_INTERVAL], 0.05, 0);
	TSU_EQ(rows[2].v[TS_STATS_CAPACITY], 12000000); /* 75,000 B * 8 / 0.05 s */
	free(buf);
	ts_dir_fini(&d, 0);
	ts_trace_free(t);
}

/* A hand-made file with only some columns (as older ones): the rest read as NAN. */
static void test_stats_few_columns(void)
{
	struct ts_stats_row rows[4];
	struct ts_err err;
	int n;

	TSU_EQ(read_stats("dir,time_s,throughput_bps\nuplink,0.5,1e6\ndownlink,0.5,250\n", rows, 4,
			  &n, &err),
	       0);
	TSU_EQ(n, 2);
	CU_ASSERT_DOUBLE_EQUAL(rows[0].v[TS_STATS_TIME], 0.5, 0);
	TSU_EQ(rows[0].v[TS_STATS_THROUGHPUT], 1000000);
	TSU_EQ(rows[1].dir, 1);
	CU_ASSERT(isnan(rows[1].v[TS_STATS_CAPACITY]) && isnan(rows[1].v[TS_STATS_DROPS]));
}

static void bad_stats(const char *text, const char *msg)
{
	struct ts_stats_row rows[4];
	struct ts_err err = {""};
	int n;

	TSU_EQ(read_stats(text, rows, 4, &n, &err), -EINVAL);
	if (strcmp(err.msg, msg))
		fprintf(stderr, "\n  got      [%s]\n  expected [%s]\n", err.msg, msg);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
}

#define HDR "time_s,dir,capacity_bps,qdelay_p50_ms,drops\n"

static void test_stats_bad(void)
{
	/* The attack of issue 19: a row that would end a gnuplot datablock, then a command. */
	bad_stats(HDR "0.1,uplink,1,2,0\nEOD,uplink,1,2,0\n!touch /tmp/m #,uplink,1,2,0\n",
		  "stats.csv:3: time_s: expected a non-negative decimal number, got 'EOD'");
	bad_stats(HDR "0.1,EOD,1,2,0\n",
		  "stats.csv:2: dir: expected uplink or downlink, got 'EOD'");
	bad_stats(HDR "0.1,uplink,1,2\n", "stats.csv:2: 4 fields, expected 5 as in the header");
	bad_stats(HDR "0.1,uplink,1,2,0,\n", "stats.csv:2: 6 fields, expected 5 as in the header");
	bad_stats(HDR "0.1,uplink,inf,2,0\n", "stats.csv:2: capacity_bps: expected a non-negative "
					      "decimal number or nothing, got 'inf'");
	bad_stats(HDR "0.1,uplink,-1,2,0\n", "stats.csv:2: capacity_bps: expected a non-negative "
					     "decimal number or nothing, got '-1'");
	bad_stats(HDR "0.1,uplink,0x10,2,0\n",
		  "stats.csv:2: capacity_bps: expected a "
		  "non-negative decimal number or nothing, got '0x10'");
	bad_stats(HDR "0.1,uplink, 1,2,0\n", "stats.csv:2: capacity_bps: expected a non-negative "
					     "decimal number or nothing, got ' 1'");
	bad_stats(HDR "0.1,uplink,1e999,2,0\n", "stats.csv:2: capacity_bps: expected a "
						"non-negative decimal number or nothing, got "
						"'1e999'");
	bad_stats(HDR "0.1,uplink,1,2,1.5\n",
		  "stats.csv:2: drops: expected a whole number, got '1.5'");
	bad_stats(HDR "0.1,uplink,1,2,18446744073709551616\n",
		  "stats.csv:2: drops: expected a whole number, got '18446744073709551616'");
	bad_stats(HDR "0.1,uplink,1,,\n", "stats.csv:2: drops: expected a whole number, got ''");
	bad_stats(HDR "0.2,uplink,1,2,0\n0.1,uplink,1,2,0\n",
		  "stats.csv:3: time_s 0.10000000000000001 goes back (the line before: "
		  "0.20000000000000001)");
	bad_stats("time_s,dir,time_s\n", "stats.csv:1: column time_s given twice, expected once");
	bad_stats("time,dir\n", "stats.csv:1: no column time_s in the header (expected the header "
				"tasshape writes)");
	bad_stats("", "stats.csv: empty, expected a header line naming time_s and dir");
}

static int count_row(void *ctx, const struct ts_stats_row *row)
{
	(void)row;
	(*(int *)ctx)++;
	return 0;
}

/* Lines too long, too many fields, a NUL byte; through the file reader (path:line). */
static void test_stats_file_limits(void)
{
	char path[] = "/tmp/test_stats_in.XXXXXX", *line;
	struct ts_err err = {""};
	int fd, rows = 0;
	FILE *f;

	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	f = fdopen(fd, "w");
	line = malloc(TS_CSV_IN_LINE_MAX + 10);
	memset(line, '1', TS_CSV_IN_LINE_MAX + 9);
	line[TS_CSV_IN_LINE_MAX + 9] = '\0';
	fprintf(f, "time_s,dir\n0.1,uplink\n%s\n", line);
	fclose(f);
	TSU_EQ(ts_stats_in_file(path, count_row, &rows, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ":3: line longer than 4096 bytes"));
	CU_ASSERT(strncmp(err.msg, path, strlen(path)) == 0);
	TSU_EQ(rows, 1);
	f = fopen(path, "w");
	fwrite("time_s,dir\n0.1,up\0link\n", 1, 24, f);
	fclose(f);
	TSU_EQ(ts_stats_in_file(path, count_row, &rows, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ":2: a NUL byte, expected text"));
	f = fopen(path, "w");
	fputs("time_s,dir", f);
	for (fd = 0; fd < TS_CSV_IN_COLS_MAX; fd++)
		fputs(",x", f);
	fclose(f);
	TSU_EQ(ts_stats_in_file(path, count_row, &rows, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ":1: more than 64 fields, expected at most 64"));
	unlink(path);
	TSU_EQ(ts_stats_in_file(path, count_row, &rows, &err), -ENOENT);
	free(line);
}

/* A socket row as test_sockdiag.c's, written by the writer and read back. */
static void test_sockstats_round_trip(void)
{
	struct ts_sockstats_station stn = {.pacing_rate = 1250000, .shift = 7, .emulated = true};
	struct ts_sockstat st = {.family = AF_INET, .src = "100.64.0.6", .dst = "100.64.0.1"};
	struct ts_sockstats_row row;
	struct ts_sockstats_in r;
	struct ts_err err;
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f;

	st.sport = 40000;
	st.dport = 5201;
	st.state = 1;
	strcpy(st.cca, "bbr");
	st.have_info = true;
	st.info.tcpi_snd_cwnd = 10;
	st.info.tcpi_snd_ssthresh = 0x7fffffff; /* infinite: written empty */
	st.info.tcpi_snd_mss = 1448;
	st.info.tcpi_rtt = 40123;
	st.info.tcpi_rttvar = 2000;
	st.info.tcpi_min_rtt = 40000;
	st.info.tcpi_pacing_rate = 1250000;
	st.info.tcpi_delivery_rate = 1000000;
	st.info.tcpi_unacked = 8;
	st.info.tcpi_bytes_sent = 120000;
	f = open_memstream(&buf, &len);
	ts_sockstats_header(f);
	ts_sockstats_row(f, 1.25, &st, &stn);
	st.station = 3; /* a real Wi-Fi station's socket (run/obs.c tags it) */
	ts_sockstats_row(f, 1.5, &st, NULL);
	fclose(f);
	ts_sockstats_in_init(&r, "sockstats.csv");
	line = strtok_r(buf, "\n", &save);
	TSU_EQ(ts_sockstats_in_line(&r, line, strlen(line), &row, &err), 0);
	line = strtok_r(NULL, "\n", &save);
	TSU_EQ(ts_sockstats_in_line(&r, line, strlen(line), &row, &err), 1);
	CU_ASSERT_STRING_EQUAL(row.flow, "100.64.0.6:40000-100.64.0.1:5201");
	CU_ASSERT_STRING_EQUAL(row.src, "100.64.0.6");
	CU_ASSERT_STRING_EQUAL(row.state, "ESTAB");
	CU_ASSERT_STRING_EQUAL(row.cca, "bbr");
	CU_ASSERT_STRING_EQUAL(row.station_tsq, "emulated");
	CU_ASSERT_DOUBLE_EQUAL(row.v[TS_SS_TIME], 1.25, 0);
	TSU_EQ(row.v[TS_SS_SPORT], 40000);
	TSU_EQ(row.v[TS_SS_DPORT], 5201);
	TSU_EQ(row.v[TS_SS_CWND], 10);
	CU_ASSERT(isnan(row.v[TS_SS_SSTHRESH]));
	TSU_EQ(row.v[TS_SS_MSS], 1448);
	CU_ASSERT_DOUBLE_EQUAL(row.v[TS_SS_SRTT], 40.123, 0);
	TSU_EQ(row.v[TS_SS_PACING], 10000000); /* bytes/s * 8 */
	TSU_EQ(row.v[TS_SS_DELIVERY], 8000000);
	TSU_EQ(row.v[TS_SS_UNACKED], 8);
	TSU_EQ(row.v[TS_SS_INFLIGHT], 8 * 1448);
	TSU_EQ(row.v[TS_SS_BYTES_SENT], 120000);
	TSU_EQ(row.v[TS_SS_STATION_PACING], 10000000);
	TSU_EQ(row.v[TS_SS_STATION_SHIFT], 7);
	TSU_EQ(row.v[TS_SS_STATION], 0);
	line = strtok_r(NULL, "\n", &save);
	TSU_EQ(ts_sockstats_in_line(&r, line, strlen(line), &row, &err), 1);
	CU_ASSERT(isnan(row.v[TS_SS_STATION_SHIFT]));
	CU_ASSERT_STRING_EQUAL(row.station_tsq, "");
	TSU_EQ(row.v[TS_SS_STATION], 3);
	TSU_EQ(ts_sockstats_in_finish(&r, &err), 0);
	free(buf);
}

static void bad_sock(const char *row, const char *msg)
{
	static const char hdr[] = "time_s,flow,src,sport,state,cca,cwnd_pkts,station_tsq";
	struct ts_sockstats_row out;
	struct ts_sockstats_in r;
	struct ts_err err = {""};

	ts_sockstats_in_init(&r, "s.csv");
	TSU_EQ(ts_sockstats_in_line(&r, hdr, strlen(hdr), &out, &err), 0);
	TSU_EQ(ts_sockstats_in_line(&r, row, strlen(row), &out, &err), -EINVAL);
	if (strcmp(err.msg, msg))
		fprintf(stderr, "\n  got      [%s]\n  expected [%s]\n", err.msg, msg);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
}

static void test_sockstats_bad(void)
{
	bad_sock("1,x:1-y:2,1.2.3.4,1,ESTAB,bbr,10,", "s.csv:2: flow: expected SRC:PORT-DST:PORT, "
						      "got 'x:1-y:2'");
	bad_sock("1,1.1.1.1:1-2.2.2.2:2' #,1.2.3.4,1,ESTAB,bbr,10,",
		 "s.csv:2: flow: expected SRC:PORT-DST:PORT, got '1.1.1.1:1-2.2.2.2:2' #'");
	bad_sock("1,1:1-2:2,1.2.3.400,1,ESTAB,bbr,10,",
		 "s.csv:2: src: expected an IPv4 or IPv6 address, got '1.2.3.400'");
	bad_sock("1,1:1-2:2,::1,65536,ESTAB,bbr,10,",
		 "s.csv:2: sport: expected a port number (0-65535), got '65536'");
	bad_sock("1,1:1-2:2,::1,1,EOD,bbr,10,", "s.csv:2: state: expected a TCP state as ss names "
						"it (ESTAB, SYN-SENT, ...), got 'EOD'");
	bad_sock("1,1:1-2:2,::1,1,ESTAB,Bbr',10,",
		 "s.csv:2: cca: expected a congestion control name (a-z, 0-9, _; at most 15) or "
		 "nothing, got 'Bbr''");
	bad_sock("1,1:1-2:2,::1,1,ESTAB,bbr,1e3,",
		 "s.csv:2: cwnd_pkts: expected a whole number or nothing, got '1e3'");
	bad_sock("1,1:1-2:2,::1,1,ESTAB,bbr,10,yes",
		 "s.csv:2: station_tsq: expected emulated, kernel or nothing, got 'yes'");
	bad_sock(",1:1-2:2,::1,1,ESTAB,bbr,10,",
		 "s.csv:2: time_s: expected a non-negative decimal number, got ''");
}

static const struct tsu_test tests[] = {
	{"stats: the writer's rows read back", test_stats_round_trip},
	{"stats: a file with few columns", test_stats_few_columns},
	{"stats: bad rows", test_stats_bad},
	{"stats: file limits", test_stats_file_limits},
	{"sockstats: the writer's rows read back", test_sockstats_round_trip},
	{"sockstats: bad rows", test_sockstats_bad},
};

TSU_MAIN("stats_in", tests)

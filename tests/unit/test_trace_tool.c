/* SPDX-License-Identifier: MIT */
/*
 * What the trace tools build on: the loader of `trace check/stats/plot`
 * (Wi-Fi PHY-rate files; malformed files give FILE:LINE and their own
 * message), the line reader, the CSV writer of generators and importers,
 * and exact decimal formatting.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsu.h"
#include "tasshape/series.h"
#include "tasshape/trace_file.h"

static char dir[64];

static const char *put_file(const char *name, const char *data, size_t len)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
	fclose(f);
	return path;
}

static int load(const char *name, const char *data, size_t len, struct ts_trace **d,
		struct ts_trace **u, struct ts_trace_file_info *info, struct ts_err *err)
{
	const char *path = put_file(name, data, len);

	err->msg[0] = '\0';
	return ts_trace_load_tool(path, d, u, info, err);
}

static void expect_bad(const char *name, const char *data, size_t len, const char *want)
{
	struct ts_trace *d, *u;
	struct ts_trace_file_info info;
	struct ts_err err;
	char full[256];

	TSU_EQ(load(name, data, len, &d, &u, &info, &err) < 0, 1);
	CU_ASSERT_PTR_NULL(d);
	CU_ASSERT_PTR_NULL(u);
	snprintf(full, sizeof(full), "%s/%s", dir, want);
	if (!strstr(err.msg, full))
		fprintf(stderr, "\n  '%s'\n  lacks '%s'\n", err.msg, full);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, full));
}

#define BAD(name, text, want) expect_bad(name, text, sizeof(text) - 1, want)

static void test_phy_file(void)
{
	static const char text[] = "# duration=20s\ntime_s,phy_mbps\n0,1201\n10,600.4\n";
	struct ts_trace *d, *u;
	struct ts_trace_file_info info;
	struct ts_err err;

	TSU_EQ(load("phy.csv", text, sizeof(text) - 1, &d, &u, &info, &err), 0);
	CU_ASSERT_TRUE(info.phy);
	TSU_EQ(info.fmt, TS_FMT_CSV);
	CU_ASSERT_PTR_NULL(u);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	TSU_EQ(d->n, 2);
	TSU_EQ(d->rows[0].bps, 1201000000);
	TSU_EQ(d->rows[1].bps, 600400000);
	TSU_EQ(d->period, 20 * TS_NSEC_PER_SEC);
	ts_trace_free(d);
	/* a capacity file with a phy column is read as a capacity file */
	{
		static const char both[] = "time_s,down_mbps,phy_mbps\n0,10,1201\n1,20,600\n";

		TSU_EQ(load("both.csv", both, sizeof(both) - 1, &d, &u, &info, &err), 0);
		CU_ASSERT_FALSE(info.phy);
		TSU_EQ(d->rows[0].bps, 10000000);
		ts_trace_free(d);
	}
	/* mahimahi */
	TSU_EQ(load("m.mahi", "1\n1\n3\n", 6, &d, &u, &info, &err), 0);
	TSU_EQ(info.fmt, TS_FMT_MAHIMAHI);
	TSU_EQ(d->n, 2);
	ts_trace_free(d);
}

static void test_malformed(void)
{
	BAD("hdr.csv", "time,bandwidth\n0,1\n", "hdr.csv:1: missing time column");
	BAD("col.csv", "time_s,speed\n0,1\n", "col.csv:1: no capacity column");
	BAD("order.csv", "time_s,down_mbps\n0,1\n2,1\n1,1\n",
	    "order.csv:4: time_s 1 is not after 2 on line 3; times must increase");
	BAD("neg.csv", "time_s,down_mbps\n0,-1\n", "neg.csv:2: down_mbps is negative ('-1')");
	BAD("nan.csv", "time_s,down_mbps\n0,nan\n1,2\n",
	    "nan.csv:2: down_mbps: expected a finite non-negative decimal number, got 'nan'");
	BAD("huge.csv", "time_s,down_mbps\n0,1e20\n",
	    "huge.csv:2: down_mbps '1e20' is above the limit of 10 Tbit/s (wrong unit?)");
	BAD("empty.csv", "", "empty.csv: empty trace");
	BAD("junk.bin",
	    "\x7f"
	    "ELF\x02\x01\x01\x00\x00\x00",
	    "junk.bin:1: control character 0x7f: binary data, not a text trace file");
	BAD("nul.csv", "time_s,down_mbps\n0,1\0\n", "nul.csv:2: NUL byte: binary data");
	BAD("mm.mahi", "1\n5\n3\n", "mm.mahi:3: timestamp 3 is before 5 on line 2");
	BAD("phybad.csv", "time_s,phy_mbps\n0,fast\n", "phybad.csv:2:");
	BAD("phy0.csv", "time_s,phy_mbps\n0,100\n1,0\n", "phy0.csv:3:");
	{
		struct ts_trace *d, *u;
		struct ts_trace_file_info info;
		struct ts_err err;

		TSU_EQ(ts_trace_load_tool("/nonexistent/t.csv", &d, &u, &info, &err), -ENOENT);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/t.csv: cannot open: "));
	}
}

struct lines {
	char got[256];
	unsigned long last;
};

static int on_line(void *ctx, const char *line, size_t len, unsigned long lineno,
		   struct ts_err *err)
{
	struct lines *l = ctx;
	size_t used = strlen(l->got);

	(void)err;
	snprintf(l->got + used, sizeof(l->got) - used, "[%.*s]", (int)len, line);
	l->last = lineno;
	return 0;
}

static void test_lines(void)
{
	struct lines l = {"", 0};
	struct ts_err err;
	char *big;
	const char *path = put_file("l.txt", "a\r\n\nb\nlast", 11);

	TSU_EQ(ts_file_lines(path, on_line, &l, &err), 0);
	/* the '\r' is the caller's to remove; the last line has no '\n' */
	CU_ASSERT_STRING_EQUAL(l.got, "[a\r][][b][last]");
	TSU_EQ(l.last, 4);
	big = malloc(70000);
	memset(big, 'x', 70000);
	path = put_file("big.txt", big, 70000);
	free(big);
	TSU_EQ(ts_file_lines(path, on_line, &l, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "big.txt:1: line longer than 65536 bytes"));
}

static void test_series_csv(void)
{
	struct ts_series s;
	struct ts_text b;
	struct ts_series_row r = {0};

	ts_series_init(&s, TS_COL_DOWN | TS_COL_UP | TS_COL_DELAY | TS_COL_LOSS);
	ts_text_init(&b);
	r.down = 12500000;
	r.up = 1;
	r.delay = 20000001;
	r.loss_ppm = 100;
	TSU_EQ(ts_series_add(&s, &r), 0);
	r.t = 1500000000;
	TSU_EQ(ts_series_add(&s, &r), 0); /* same values: merged */
	TSU_EQ(s.n, 1);
	r.t = 2000000001;
	r.down = 0;
	TSU_EQ(ts_series_add(&s, &r), 0);
	r.down = 7;
	TSU_EQ(ts_series_add(&s, &r), 0); /* same time: replaces */
	TSU_EQ(s.n, 2);
	r.t = 1;
	TSU_EQ(ts_series_add(&s, &r), -EINVAL); /* before the last row */
	s.period = 3 * TS_NSEC_PER_SEC;
	TSU_EQ(ts_series_write_csv(&s, "line one\nline two", &b), 0);
	/* every number exact: 12.5 Mbit/s, 1 bit/s, 20.000001 ms, 100 ppm, 2.000000001 s */
	CU_ASSERT_STRING_EQUAL(b.p, "# line one\n# line two\n# duration=3s\n"
				    "time_s,down_mbps,up_mbps,delay_ms,loss\n"
				    "0,12.5,0.000001,20.000001,0.0001\n"
				    "2.000000001,0.000007,0.000001,20.000001,0.0001\n");
	ts_text_fini(&b);
	/* a period not after the last row is refused */
	s.period = 2 * TS_NSEC_PER_SEC;
	TSU_EQ(ts_series_write_csv(&s, NULL, &b), -EINVAL);
	ts_series_fini(&s);
	ts_text_fini(&b);
	/* the PHY column */
	ts_series_init(&s, TS_COL_DOWN | TS_COL_PHY);
	r.t = 0;
	r.down = 1200980000;
	TSU_EQ(ts_series_add(&s, &r), 0);
	s.period = TS_NSEC_PER_SEC;
	TSU_EQ(ts_series_write_csv(&s, NULL, &b), 0);
	CU_ASSERT_STRING_EQUAL(b.p, "# duration=1s\ntime_s,phy_mbps\n0,1200.98\n");
	ts_series_fini(&s);
	ts_text_fini(&b);
}

static void test_fixed(void)
{
	struct ts_text b;

	ts_text_init(&b);
	ts_text_fixed(&b, 12500000, 6);
	ts_text_add(&b, " ", 1);
	ts_text_fixed(&b, 3, 0);
	ts_text_add(&b, " ", 1);
	ts_text_fixed(&b, 1000, 3);
	ts_text_add(&b, " ", 1);
	ts_text_fixed(&b, 5, 9);
	ts_text_add(&b, " ", 1);
	ts_text_fixed(&b, 18446744073709551615ull, 9);
	CU_ASSERT_STRING_EQUAL(b.p, "12.5 3 1 0.000000005 18446744073.709551615");
	ts_text_fini(&b);
}

static void test_setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/tasshape-tool-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
}

static void test_cleanup(void)
{
	static const char *const names[] = {
		"phy.csv",    "both.csv", "m.mahi",   "hdr.csv",   "col.csv",  "order.csv",
		"neg.csv",    "nan.csv",  "huge.csv", "empty.csv", "junk.bin", "mm.mahi",
		"phybad.csv", "l.txt",	  "big.txt",  "nul.csv",   "phy0.csv"};
	char path[128];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	TSU_EQ(rmdir(dir), 0);
}

static const struct tsu_test tests[] = {
	{"(temporary directory)", test_setup},
	{"PHY-rate, capacity and mahimahi files", test_phy_file},
	{"malformed files: FILE:LINE and what is wrong", test_malformed},
	{"line reader", test_lines},
	{"CSV writer: merged rows, exact numbers", test_series_csv},
	{"exact decimals", test_fixed},
	{"(remove the directory)", test_cleanup},
};

TSU_MAIN("trace_tool", tests)

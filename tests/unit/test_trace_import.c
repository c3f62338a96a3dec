/* SPDX-License-Identifier: MIT */
/*
 * Importers: every fixture of tests/data/import (written in each
 * dataset's exact header and with its quirks) imports to the rows worked
 * out by hand below, and files that do not match give their own message.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tsu.h"
#include "tasshape/trace_file.h"
#include "tasshape/trace_import.h"

#define MS  TS_NSEC_PER_MSEC
#define SEC TS_NSEC_PER_SEC
#define DIR TS_TEST_DATA "/import/"

struct feed {
	struct ts_import *im;
	size_t input;
};

static int feed_line(void *ctx, const char *line, size_t len, unsigned long lineno,
		     struct ts_err *err)
{
	struct feed *f = ctx;

	(void)lineno;
	return ts_import_line(f->im, f->input, line, len, err);
}

/* Import the fixture files @files (NULL-terminated) as @fmt into @s; returns the status. */
static int import_files(const char *fmt, const char *const *files, const struct ts_import_opts *o,
			struct ts_series *s, struct ts_text *notes, struct ts_err *err)
{
	char paths[2][512];
	const char *names[2];
	struct ts_import *im;
	struct feed f;
	size_t n = 0, i;
	int ret;

	for (; files[n]; n++) {
		snprintf(paths[n], sizeof(paths[n]), DIR "%s", files[n]);
		names[n] = paths[n];
	}
	ts_series_init(s, 0);
	ret = ts_import_new(fmt, names, n, o, &im, err);
	if (ret)
		return ret;
	for (i = 0; i < n && !ret; i++) {
		f.im = im;
		f.input = i;
		ret = ts_file_lines(paths[i], feed_line, &f, err);
	}
	if (!ret)
		ret = ts_import_finish(im, s, notes, err);
	ts_import_free(im);
	return ret;
}

/* Import text given in memory (inputs separated as given) and expect an error. */
static void expect_fail(const char *fmt, const char *in0, const char *in1,
			const struct ts_import_opts *o, const char *want)
{
	const char *names[2] = {"a", "b"}, *texts[2] = {in0, in1};
	struct ts_import_opts none = {0};
	struct ts_import *im;
	struct ts_series s;
	struct ts_text notes;
	struct ts_err err;
	size_t n = in1 ? 2 : 1, i;
	int ret;

	ts_series_init(&s, 0);
	ts_text_init(&notes);
	err.msg[0] = '\0';
	ret = ts_import_new(fmt, names, n, o ? o : &none, &im, &err);
	for (i = 0; i < n && !ret; i++) {
		const char *p = texts[i], *end = p + strlen(p);

		while (p < end && !ret) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

			ret = ts_import_line(im, i, p, len, &err);
			p += len + 1;
		}
	}
	if (!ret)
		ret = ts_import_finish(im, &s, &notes, &err);
	if (!ret || !strstr(err.msg, want))
		fprintf(stderr, "\n  ret %d, message '%s'\n  lacks '%s'\n", ret, err.msg, want);
	CU_ASSERT_TRUE(ret < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
	if (im)
		ts_import_free(im);
	ts_series_fini(&s);
	ts_text_fini(&notes);
}

struct row {
	ts_ns_t t;
	uint64_t down, up;
	ts_ns_t delay;
};

static void expect_rows(const struct ts_series *s, const struct row *want, size_t n, ts_ns_t period)
{
	size_t i;

	TSU_EQ(s->n, n);
	TSU_EQ(s->period, period);
	for (i = 0; i < n && i < s->n; i++) {
		TSU_EQ(s->rows[i].t, want[i].t);
		TSU_EQ(s->rows[i].down, want[i].down);
		TSU_EQ(s->rows[i].up, want[i].up);
		TSU_EQ(s->rows[i].delay, want[i].delay);
	}
}

static void expect_note(const struct ts_text *notes, const char *want)
{
	if (!notes->p || !strstr(notes->p, want))
		fprintf(stderr, "\n  notes '%s'\n  lack '%s'\n", notes->p ? notes->p : "", want);
	CU_ASSERT_PTR_NOT_NULL(notes->p ? strstr(notes->p, want) : NULL);
}

static void test_gnettrack(void)
{
	const char *files[] = {"gnettrack.csv", NULL};
	struct ts_import_opts o = {0};
	struct ts_series s;
	struct ts_text notes;
	struct ts_err err;
	/*
	 * 07.00.01 5000/300 kbit/s; 07.00.02 twice: (6000 + 8000) / 2 and (200 + 400) / 2;
	 * 07.00.03 DL '-' keeps 7000, UL 100; 07.00.04-05 idle, cut out: 07.00.06 moves 2 s
	 * earlier, to 3 s; 07.00.09 (3 s later, a gap) to 6 s; the last row lasts 1 s.
	 */
	const struct row want[] = {{0, 5000000, 300000, 0},
				   {SEC, 7000000, 300000, 0},
				   {2 * SEC, 7000000, 100000, 0},
				   {3 * SEC, 12000000, 500000, 0},
				   {6 * SEC, 3000000, 50000, 0}};
	/* with the idle rows: 0/0 from 3 s, 12 Mbit/s at 07.00.06 = 5 s, 07.00.09 = 8 s */
	const struct row keep[] = {{0, 5000000, 300000, 0},	   {SEC, 7000000, 300000, 0},
				   {2 * SEC, 7000000, 100000, 0},  {3 * SEC, 0, 0, 0},
				   {5 * SEC, 12000000, 500000, 0}, {8 * SEC, 3000000, 50000, 0}};

	ts_text_init(&notes);
	TSU_EQ(import_files("gnettrack", files, &o, &s, &notes, &err), 0);
	TSU_EQ(s.cols, TS_COL_DOWN | TS_COL_UP);
	expect_rows(&s, want, 5, 7 * SEC);
	expect_note(&notes, "8 rows as 5 seconds");
	expect_note(&notes, "1 rows in the same second");
	expect_note(&notes, "2 rows in State I (idle) dropped");
	expect_note(&notes, "1 missing bitrates");
	expect_note(&notes, "1 gaps in the timestamps");
	ts_series_fini(&s);
	ts_text_fini(&notes);
	o.keep_idle = true;
	TSU_EQ(import_files("gnettrack", files, &o, &s, &notes, &err), 0);
	expect_rows(&s, keep, 6, 9 * SEC);
	ts_series_fini(&s);
	ts_text_fini(&notes);
}

static void test_lumos5g(void)
{
	const char *files[] = {"lumos5g.csv", NULL};
	struct ts_import_opts o = {0};
	struct ts_series s;
	struct ts_text notes;
	struct ts_err err;
	/* run 1 (the first): seq_num 1-4, Throughput 880.5, 1204, 0, 35.25 Mbit/s */
	const struct row run1[] = {{0, 880500000, 0, 0},
				   {SEC, 1204000000, 0, 0},
				   {2 * SEC, 0, 0, 0},
				   {3 * SEC, 35250000, 0, 0}};
	const struct row run2[] = {{0, 10000000, 0, 0}, {SEC, 20000000, 0, 0}};

	ts_text_init(&notes);
	TSU_EQ(import_files("lumos5g", files, &o, &s, &notes, &err), 0);
	TSU_EQ(s.cols, TS_COL_DOWN);
	expect_rows(&s, run1, 4, 4 * SEC);
	expect_note(&notes, "run_num 1, 4 seconds of iperf downlink Throughput, walking");
	expect_note(&notes, "2 rows of other runs skipped (runs in the file: 1, 2");
	ts_series_fini(&s);
	ts_text_fini(&notes);
	o.has_run = true;
	o.run = 2;
	TSU_EQ(import_files("lumos5g", files, &o, &s, &notes, &err), 0);
	expect_rows(&s, run2, 2, 2 * SEC);
	expect_note(&notes, "driving");
	ts_series_fini(&s);
	ts_text_fini(&notes);
}

static void test_5gophers(void)
{
	const char *files[] = {"5gophers.csv", NULL};
	struct ts_import_opts o = {.operator_name = "Verizon"};
	struct ts_series s;
	struct ts_text notes;
	struct ts_err err;
	/*
	 * Verizon, Mbit/s rounded half up to bit/s: 53.48353650061554 -> 53483537;
	 * 1663.6981353240105 -> 1663698135; 94.37175000008585 -> 94371750. seq_num 5 after 2:
	 * the 2 s row holds over the gap; the last row lasts 1 s: 6 s.
	 */
	const struct row vz[] = {{0, 53483537, 0, 0},
				 {SEC, 0, 0, 0},
				 {2 * SEC, 1663698135, 0, 0},
				 {5 * SEC, 94371750, 0, 0}};

	ts_text_init(&notes);
	TSU_EQ(import_files("5gophers", files, &o, &s, &notes, &err), 0);
	expect_rows(&s, vz, 4, 6 * SEC);
	expect_note(&notes, "column Verizon_throughput_mbps, 4 seconds");
	expect_note(&notes, "1 gaps in seq_num");
	ts_series_fini(&s);
	ts_text_fini(&notes);
	/* TMobile at seq 5: 0.009807999999999999 Mbit/s = 9807.999... bit/s -> 9808 */
	o.operator_name = "tmobile";
	TSU_EQ(import_files("5gophers", files, &o, &s, &notes, &err), 0);
	TSU_EQ(s.rows[s.n - 1].down, 9808);
	ts_series_fini(&s);
	ts_text_fini(&notes);
}

static void test_pensieve(void)
{
	const char *files[] = {"pensieve.txt", NULL};
	struct ts_import_opts o = {0};
	struct ts_series s;
	struct ts_text notes;
	struct ts_err err;
	/* intervals 1, 1.5, 0.5 s: the lower median 1 s is the last row's length: 4 s */
	const struct row want[] = {{0, 1500000, 0, 0},
				   {SEC, 2250000, 0, 0},
				   {2500 * MS, 0, 0, 0},
				   {3 * SEC, 4000000, 0, 0}};

	ts_text_init(&notes);
	TSU_EQ(import_files("pensieve", files, &o, &s, &notes, &err), 0);
	expect_rows(&s, want, 4, 4 * SEC);
	ts_series_fini(&s);
	ts_text_fini(&notes);
}

static void test_leoreplayer(void)
{
	const char *files[] = {"leo_bw.txt", "leo_delay.txt", NULL};
	struct ts_import_opts o = {0};
	struct ts_series s;
	struct ts_text notes;
	struct ts_err err;
	/*
	 * bw: opportunities at ms 1 (2), 2, 5, 9, 10 (3), 15, 25, 30 (ms 0: first pass only);
	 * 10 ms bins (a, b]: 8, 1 and 2 opportunities = 9.6, 1.2, 2.4 Mbit/s. Delays 20, 25,
	 * 22.5 ms, one per 10 ms.
	 */
	const struct row want[] = {{0, 9600000, 0, 20 * MS},
				   {10 * MS, 1200000, 0, 25 * MS},
				   {20 * MS, 2400000, 0, 22500 * 1000}};

	ts_text_init(&notes);
	TSU_EQ(import_files("leoreplayer", files, &o, &s, &notes, &err), 0);
	TSU_EQ(s.cols, TS_COL_DOWN | TS_COL_DELAY);
	expect_rows(&s, want, 3, 30 * MS);
	expect_note(&notes, "3 delays of 0.01 s (as long as the capacity)");
	ts_series_fini(&s);
	ts_text_fini(&notes);
	/* 30 ms bins: 11 opportunities = 132000 bits / 30 ms = 4.4 Mbit/s; delay mean 22.5 ms */
	o.bin = 30 * MS;
	TSU_EQ(import_files("leoreplayer", files, &o, &s, &notes, &err), 0);
	TSU_EQ(s.n, 1);
	TSU_EQ(s.rows[0].down, 4400000);
	TSU_EQ(s.rows[0].delay, 22500 * 1000);
	ts_series_fini(&s);
	ts_text_fini(&notes);
}

static void test_mahimahi_pair(void)
{
	const char *files[] = {"mm_up.mahi", "mm_down.mahi", NULL};
	const char *one[] = {"mm_up.mahi", NULL};
	struct ts_import_opts o = {0};
	struct ts_series s;
	struct ts_text notes;
	struct ts_err err;
	/*
	 * down: 10 opportunities in (0,100], 3 in (100,200] (150 twice, 200), 1 at 300; up
	 * (period 200 ms) loops to 300 ms: 50, 100 | 150, 200 | 250, 300, two per bin. One
	 * opportunity per 100 ms is 120 kbit/s.
	 */
	const struct row want[] = {{0, 1200000, 240000, 0},
				   {100 * MS, 360000, 240000, 0},
				   {200 * MS, 120000, 240000, 0}};

	ts_text_init(&notes);
	TSU_EQ(import_files("mahimahi", files, &o, &s, &notes, &err), 0);
	TSU_EQ(s.cols, TS_COL_DOWN | TS_COL_UP);
	expect_rows(&s, want, 3, 300 * MS);
	expect_note(&notes, "the shorter trace loops");
	ts_series_fini(&s);
	ts_text_fini(&notes);
	/* one file as the uplink */
	o.up = true;
	TSU_EQ(import_files("mahimahi", one, &o, &s, &notes, &err), 0);
	TSU_EQ(s.cols, TS_COL_UP);
	TSU_EQ(s.n, 1);
	TSU_EQ(s.rows[0].up, 240000);
	TSU_EQ(s.period, 200 * MS);
	ts_series_fini(&s);
	ts_text_fini(&notes);
}

#define GNET_HEAD                                                                                  \
	"Timestamp,Longitude,Latitude,Speed,Operatorname,CellID,NetworkMode,RSRP,RSRQ,SNR,CQI,"    \
	"RSSI,DL_bitrate,UL_bitrate,State\n"
#define GNET_ROW(ts, dl, state) ts ",-8.4,51.8,0,A,12,5G,-95,-11,7.0,12,-," dl ",300," state "\n"

static void test_malformed(void)
{
	struct ts_import_opts run9 = {.has_run = true, .run = 9}, att = {.operator_name = "ATT"};

	/* wrong or missing columns name what was expected */
	expect_fail("gnettrack", "time_s,down_mbps\n0,1\n", NULL, NULL,
		    "a:1: not a G-NetTrack CSV: no column 'Timestamp'; expected a header with "
		    "Timestamp, DL_bitrate, UL_bitrate and State");
	expect_fail("gnettrack", "Timestamp,DL_bitrate,State\n", NULL, NULL,
		    "no column 'UL_bitrate'");
	expect_fail("gnettrack", GNET_HEAD GNET_ROW("2019-11-28 07:00:01", "5000", "D"), NULL, NULL,
		    "a:2: Timestamp: expected YYYY.MM.DD_hh.mm.ss such as 2019.11.28_07.00.01");
	expect_fail("gnettrack", GNET_HEAD GNET_ROW("2019.11.28_07.00.01", "5000", "X"), NULL, NULL,
		    "a:2: State: expected D (downloading) or I (idle), got 'X'");
	expect_fail("gnettrack", GNET_HEAD GNET_ROW("2019.11.28_07.00.01", "-5", "D"), NULL, NULL,
		    "a:2: DL_bitrate is negative ('-5')");
	expect_fail("gnettrack", GNET_HEAD GNET_ROW("2019.11.28_07.00.01", "nan", "D"), NULL, NULL,
		    "a:2: DL_bitrate: expected a finite non-negative decimal number, got 'nan'");
	expect_fail("gnettrack",
		    GNET_HEAD GNET_ROW("2019.11.28_07.00.05", "1", "D")
			    GNET_ROW("2019.11.28_07.00.04", "1", "D"),
		    NULL, NULL, "a:3: Timestamp '2019.11.28_07.00.04' is before the row on line 2");
	expect_fail("gnettrack", GNET_HEAD "2019.11.28_07.00.05,1\n", NULL, NULL,
		    "a:2: fields: 2 here, 15 in the header on line 1");
	expect_fail("gnettrack", "", NULL, NULL, "a: no data rows");
	expect_fail(
		"lumos5g", "run_num,seq_num,Speed\n1,1,3\n", NULL, NULL,
		"a:1: not a Lumos5G CSV: expected a header with run_num, seq_num and Throughput");
	expect_fail("lumos5g", "run_num,seq_num,Throughput\n1,1,3\n2,1,4\n", NULL, &run9,
		    "a: no rows of run_num 9 (runs in the file: 1, 2)");
	expect_fail("lumos5g", "run_num,seq_num,Throughput\n1,2,3\n1,2,4\n", NULL, NULL,
		    "a:3: seq_num 2 is not after 2 on line 2");
	expect_fail("lumos5g", "run_num,seq_num,Throughput\n1,x,3\n", NULL, NULL,
		    "a:2: seq_num: expected a whole number, got 'x'");
	expect_fail(
		"5gophers",
		"protocol,num_tcp_conn,seq_num,Sprint_throughput_mbps,TMobile_throughput_mbps\n",
		NULL, NULL, "a:1: 2 operators (Sprint, TMobile): choose one with --operator");
	expect_fail("5gophers", "seq_num,Sprint_throughput_mbps,TMobile_throughput_mbps\n", NULL,
		    &att,
		    "no column 'ATT_throughput_mbps'; the operators in this file are Sprint, "
		    "TMobile");
	expect_fail("5gophers", "seq_num,throughput\n", NULL, NULL,
		    "not a 5Gophers throughput CSV: expected seq_num and "
		    "<Operator>_throughput_mbps columns");
	expect_fail("5gophers", "seq_num,Sprint_throughput_mbps\n0,1e20\n", NULL, NULL,
		    "a:2: Sprint_throughput_mbps '1e20' is too large (wrong unit?)");
	expect_fail("pensieve", "time bandwidth\n0 1\n", NULL, NULL,
		    "a:1: expected two numbers 'TIME_S BW_MBPS' separated by blanks (a Pensieve "
		    "cooked trace), got 'time bandwidth'");
	expect_fail("pensieve", "0 1 2\n", NULL, NULL, "a:1: expected two numbers");
	expect_fail("pensieve", "0 1\n1 2\n1 3\n", NULL, NULL,
		    "a:3: time 1 is not after 1 on line 2; times must increase");
	expect_fail("pensieve", "0 1\n", NULL, NULL, "a: a single row");
	expect_fail("pensieve", "0 1\n\x7f\x45LF\x01\x00junk\n", NULL, NULL,
		    "a:2: expected two numbers");
	expect_fail("leoreplayer", "1\n2\n", "20\n\n25\n", NULL,
		    "b:2: empty line: each line is the one-way delay in ms of one interval");
	expect_fail("leoreplayer", "3\n2\n", "20\n", NULL,
		    "a:2: timestamp 2 is before 3 on line 1; timestamps must not decrease");
	expect_fail("leoreplayer", "1\n2\n", "20 ms\n", NULL,
		    "b:1: delay: expected a finite non-negative decimal number, got '20 ms'");
	expect_fail("leoreplayer", "1\n2\n", "", NULL, "b: no delays");
	expect_fail("mahimahi", "1\n1.5\n", NULL, NULL,
		    "a:2: expected a millisecond timestamp (an unsigned integer), got '1.5'");
	expect_fail("mahimahi", "", NULL, NULL, "a: no timestamps");
	expect_fail("leoreplayer", "1\n", NULL, NULL, "leoreplayer: expected BW DELAY");
	expect_fail("cellsim", "1\n", NULL, NULL, "unknown format 'cellsim'");
}

/* Inputs the fuzzers (tests/fuzz/fuzz_import.c) found, each once a crash or a wrong answer. */
static void test_fuzz_found(void)
{
	/* rows 7.8e9 s apart: the period (last row + the median interval) overflowed ts_ns_t */
	expect_fail("pensieve", "0 1\n7777771776.2 1\n", NULL, NULL, "a: longer than 49.7 days");
	/* the trace reader refuses a direction without capacity: the import must too */
	expect_fail("pensieve", "0 0\n1 0\n", NULL, NULL,
		    "a: the downlink capacity is 0 in every row: a link that never delivers");
	expect_fail("lumos5g", "run_num,seq_num,Throughput\n1,1,0\n1,2,0\n", NULL, NULL,
		    "a: the downlink capacity is 0 in every row");
	/* year 0: seconds since 1970 times 10^9 overflowed 64 bits */
	expect_fail("gnettrack", GNET_HEAD GNET_ROW("0000.11.28_07.00.01", "5000", "D"), NULL, NULL,
		    "a:2: Timestamp '0000.11.28_07.00.01': expected a year from 1970 to 2200");
}

static void test_binary(void)
{
	const char junk[] = "Timestamp,DL_bitrate\0\x01\x02";
	const char *names[] = {"bin"};
	struct ts_import_opts o = {0};
	struct ts_import *im;
	struct ts_err err;

	TSU_EQ(ts_import_new("gnettrack", names, 1, &o, &im, &err), 0);
	TSU_EQ(ts_import_line(im, 0, junk, sizeof(junk) - 1, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(err.msg, "bin:1: NUL byte: binary data, not a gnettrack file"));
	/* after an error the importer repeats it */
	TSU_EQ(ts_import_line(im, 0, "x", 1, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bin:1: NUL byte"));
	ts_import_free(im);
}

/*
 * A line is @len bytes that need not end in NUL (a fuzzer found the
 * Lumos5G reader checking a number with strspn, reading past the line when the
 * number is the last field):
 * feed each line from a heap copy of exactly its bytes, so the sanitizer
 * build sees any read beyond them.
 */
static void test_lines_without_nul(void)
{
	static const char *const lines[] = {"Throughput,run_num,seq_num", "3,1,1", "41,1,2"};
	const char *names[1] = {"a"};
	struct ts_import_opts none = {0};
	struct ts_import *im = NULL;
	struct ts_series s;
	struct ts_text notes;
	struct ts_err err;
	size_t i;
	int ret;

	ts_series_init(&s, 0);
	ts_text_init(&notes);
	ret = ts_import_new("lumos5g", names, 1, &none, &im, &err);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]) && !ret; i++) {
		size_t len = strlen(lines[i]);
		char *copy = malloc(len);

		CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
		memcpy(copy, lines[i], len);
		ret = ts_import_line(im, 0, copy, len, &err);
		free(copy);
	}
	TSU_EQ(ret, 0);
	TSU_EQ(ts_import_finish(im, &s, &notes, &err), 0);
	TSU_EQ(s.n, 2);
	ts_import_free(im);
	ts_series_fini(&s);
	ts_text_fini(&notes);
}

static const struct tsu_test tests[] = {
	{"lines without a NUL", test_lines_without_nul},
	{"gnettrack: same-second rows, '-', idle rows, gaps", test_gnettrack},
	{"lumos5g: the first run or --run", test_lumos5g},
	{"5gophers: one operator's column", test_5gophers},
	{"pensieve: blanks, median last interval", test_pensieve},
	{"leoreplayer: bw bins and delays", test_leoreplayer},
	{"mahimahi: up/down pair, loops, one file", test_mahimahi_pair},
	{"malformed inputs give their own message", test_malformed},
	{"binary junk", test_binary},
	{"inputs the fuzzers found", test_fuzz_found},
};

TSU_MAIN("trace_import", tests)

/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for what `tasshape plot` and `exp report` read from a
 * results directory, which is untrusted input (it travels between
 * colleagues and CI artifacts) and is read as root: the readers of
 * stats.csv and sockstats.csv (src/record/stats_in.c, sockstats_in.c),
 * result.json (src/results/result.c), experiment.json and a whole experiment
 * directory as exp report loads it (src/results/expdir.c, summary.c,
 * report.c), and the one function that puts strings into gnuplot scripts
 * (src/io/gnuplot_quote.c), and the one that puts them into Markdown
 * (src/io/md_escape.c). The first byte picks the target:
 *   0 stats.csv  1 sockstats.csv  2 result.json  3 experiment.json (as the
 *     summary, exp report and exp merge read it)
 *   4 a run's result.json in an experiment directory (ts_report_load and
 *     the report's data files)  5 ts_gnuplot_quote
 *   6 a run's done record (src/results/done.c)  7 ts_md_escape
 * Besides crashes, leaks and sanitizer reports it checks the contracts:
 * an error is -EINVAL with a message naming the input; an accepted row
 * holds only what the writer can write (non-negative finite numbers or
 * NAN, uplink/downlink, strings of their character sets); a quoted string
 * is one gnuplot single-quoted string with no control character, no
 * backquote and no lone quote inside; Markdown text has no tag, code span,
 * unescaped '|', '[' or ']' and no line break; a merge either is refused
 * (-EINVAL, -E2BIG, ...) with a message or writes a directory that reads
 * back; a done record is none, intact, broken or refused with a reason.
 * Seeds: tools/fuzz.sh (the test fixtures and tests/interop/make_results.py,
 * each with its first byte) and tests/fuzz/seeds/fuzz_results.txt.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "io/md.h"
#include "io/rmtree.h"
#include "results/done.h"
#include "results/expdir.h"
#include "results/merge.h"
#include "results/report.h"
#include "results/result.h"
#include "results/summary.h"
#include "io/gnuplot.h"
#include "record/sockstats_in.h"
#include "record/stats_in.h"

/* A private directory for the file-based readers, made once. */
static char dir[64];

/* At exit (libFuzzer ends with exit()): the private directory and what the targets wrote. */
static void remove_dir(void)
{
	struct ts_err rm;
	static const char *const files[] = {
		"c/rep-1/result.json", "c/rep-1/done", "experiment.json", "c/rep-1", "c", ""};
	char path[128];
	size_t i;

	snprintf(path, sizeof(path), "%s/m", dir);
	ts_rmtree(path, &rm);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		remove(path);
	}
}

static void write_file(const char *path, const char *data, size_t size)
{
	FILE *f = fopen(path, "w");

	CHECK(f);
	CHECK(fwrite(data, 1, size, f) == size || !size);
	CHECK(fclose(f) == 0);
}

static bool ok_num(double v)
{
	return isnan(v) || (isfinite(v) && v >= 0);
}

static bool charset(const char *s, const char *set)
{
	for (; *s; s++)
		if (!strchr(set, *s))
			return false;
	return true;
}

static int stats_line(void *ctx, const char *line, size_t len, struct ts_err *err)
{
	struct ts_stats_row row;
	int ret = ts_stats_in_line(ctx, line, len, &row, err), k;

	CHECK(ret == 0 || ret == 1 || ret == -EINVAL);
	if (ret == 1) {
		CHECK(row.dir == 0 || row.dir == 1);
		CHECK(!isnan(row.v[TS_STATS_TIME]));
		for (k = 0; k < TS_STATS__N; k++)
			CHECK(ok_num(row.v[k]));
	}
	return ret < 0 ? ret : 0;
}

static int sock_line(void *ctx, const char *line, size_t len, struct ts_err *err)
{
	struct ts_sockstats_row row;
	int ret = ts_sockstats_in_line(ctx, line, len, &row, err), k;

	CHECK(ret == 0 || ret == 1 || ret == -EINVAL);
	if (ret == 1) {
		for (k = 0; k < TS_SS__N; k++)
			CHECK(ok_num(row.v[k]));
		CHECK(isnan(row.v[TS_SS_SPORT]) || row.v[TS_SS_SPORT] <= 65535);
		CHECK(charset(row.flow, "0123456789abcdefABCDEF.:[]-"));
		CHECK(charset(row.cca, "abcdefghijklmnopqrstuvwxyz0123456789_"));
		CHECK(charset(row.src, "0123456789abcdefABCDEF.:"));
		CHECK(charset(row.dst, "0123456789abcdefABCDEF.:"));
	}
	return ret < 0 ? ret : 0;
}

static void csv(const uint8_t *data, size_t size, bool sock)
{
	struct ts_stats_in r;
	struct ts_sockstats_in s;
	struct ts_err err = {""};
	int ret;

	if (sock) {
		ts_sockstats_in_init(&s, "fuzz");
		ret = fuzz_lines(data, size, sock_line, &s, &err);
		if (!ret)
			ret = ts_sockstats_in_finish(&s, &err);
	} else {
		ts_stats_in_init(&r, "fuzz");
		ret = fuzz_lines(data, size, stats_line, &r, &err);
		if (!ret)
			ret = ts_stats_in_finish(&r, &err);
	}
	CHECK(ret == 0 || (ret == -EINVAL && !strncmp(err.msg, "fuzz", 4)));
}

/* The report's data files of every test, into /dev/null: they must not trip on any input. */
static void report_files(const struct ts_report *rep)
{
	FILE *f = fopen("/dev/null", "w");
	size_t k;

	CHECK(f);
	for (k = 0; k < rep->ntests; k++) {
		const struct ts_rep_test *t = &rep->tests[k];

		ts_rep_write_throughput(f, t, 1);
		ts_rep_write_latency(f, t, 0);
		ts_rep_write_cdf(f, t);
		ts_rep_write_scatter(f, t);
		ts_rep_write_ellipse(f, t);
		ts_rep_write_centroids(f, t);
	}
	fclose(f);
}

/* exp merge of the directory as its one shard, into dir/m: refused with a message, or whole. */
static void merge_dir(void)
{
	const char *dirs[1] = {dir};
	char out[128];
	struct ts_err err = {""};
	struct ts_expdir m;
	FILE *msg = fopen("/dev/null", "w");
	int ret;

	CHECK(msg);
	snprintf(out, sizeof(out), "%s/m", dir);
	ret = ts_exp_merge(out, dirs, 1, msg, &err);
	fclose(msg);
	CHECK(ret <= 0);
	if (ret < 0) {
		CHECK(err.msg[0]);
		CHECK(access(out, F_OK) != 0); /* nothing written */
		return;
	}
	CHECK(ts_expdir_read(out, &m, &err) == 0);
	ts_expdir_free(&m);
	{
		struct ts_err rm;

		CHECK(ts_rmtree(out, &rm) == 0);
	}
}

static void experiment(const char *text, size_t size)
{
	char path[128];
	struct ts_err err = {""};
	struct ts_exp_summary s;
	struct ts_expdir p;
	struct ts_report rep;
	int ret;

	snprintf(path, sizeof(path), "%s/experiment.json", dir);
	write_file(path, text, size);
	ret = ts_expdir_read(dir, &p, &err);
	CHECK(ret == 0 || (ret == -EINVAL && err.msg[0]));
	if (!ret)
		ts_expdir_free(&p);
	ts_exp_summary_init(&s, NULL);
	ts_exp_summary_from_dir(&s, dir, &err);
	ts_exp_summary_free(&s);
	if (ts_report_load(&rep, dir, &err) == 0) {
		report_files(&rep);
		ts_report_free(&rep);
	}
	merge_dir();
}

/* One configuration "c" of test "rrul", one run: its result.json is the input. */
static void run_in_dir(const char *text, size_t size)
{
	static const char exp[] =
		"{\"version\":1,\"name\":\"f\",\"spec\":\"f.ini\",\"spec_sha256\":null,"
		"\"configs\":[{\"id\":\"c\",\"axes\":{\"test\":\"rrul\"}}],"
		"\"runs\":[{\"index\":1,\"rep\":1,\"id\":\"c\"}]}";
	char path[128];
	struct ts_err err = {""};
	struct ts_report rep;

	snprintf(path, sizeof(path), "%s/experiment.json", dir);
	write_file(path, exp, sizeof(exp) - 1);
	snprintf(path, sizeof(path), "%s/c/rep-1/result.json", dir);
	write_file(path, text, size);
	if (ts_report_load(&rep, dir, &err) == 0) {
		report_files(&rep);
		ts_report_free(&rep);
	}
}

/* A done record of run c/rep-1 (beside a fixed result.json): a state, or refused with why. */
static void done_record(const char *text, size_t size)
{
	char path[128];
	struct ts_err why = {""};
	int ret;

	snprintf(path, sizeof(path), "%s/c/rep-1/result.json", dir);
	write_file(path, "{}", 2);
	snprintf(path, sizeof(path), "%s/c/rep-1/done", dir);
	write_file(path, text, size);
	snprintf(path, sizeof(path), "%s/c/rep-1", dir);
	ret = ts_done_check(path, &why);
	CHECK(ret == TS_DONE_NONE || ret == TS_DONE_OK || ret == TS_DONE_BROKEN ||
	      (ret < 0 && why.msg[0]));
	CHECK(ret != TS_DONE_BROKEN || why.msg[0]);
	snprintf(path, sizeof(path), "%s/c/rep-1/done", dir);
	unlink(path);
}

/* Markdown text: no tag, entity but ours, code span, unescaped | [ ], line break. */
static void markdown(const char *s)
{
	static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#96;"};
	char *buf = NULL;
	size_t len = 0, i, k;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f);
	ts_md_escape(f, s);
	CHECK(fclose(f) == 0);
	CHECK(!strpbrk(buf, "<>`\"'\n\r"));
	for (i = 0; i < len; i++) {
		if (buf[i] == '\\') {
			CHECK(i + 1 < len && strchr("\\|[]", buf[i + 1]));
			i++; /* an escape and what it escapes */
			continue;
		}
		CHECK(!strchr("|[]", buf[i]));
		if (buf[i] == '&') {
			for (k = 0; k < sizeof(ents) / sizeof(ents[0]); k++)
				if (!strncmp(buf + i, ents[k], strlen(ents[k])))
					break;
			CHECK(k < sizeof(ents) / sizeof(ents[0]));
		}
	}
	free(buf);
}

static void quote(const char *s)
{
	struct ts_text b;
	size_t i;

	ts_text_init(&b);
	CHECK(ts_gnuplot_quote(&b, s) == 0);
	CHECK(b.len >= 2 && b.p[0] == '\'' && b.p[b.len - 1] == '\'');
	for (i = 1; i + 1 < b.len; i++) {
		unsigned char c = (unsigned char)b.p[i];

		CHECK(c >= 0x20 && c != 0x7f && c != '`');
		if (c == '\'') {
			/* inside, a quote only as the pair '' */
			CHECK(i + 2 < b.len && b.p[i + 1] == '\'');
			i++;
		}
	}
	ts_text_fini(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_exp_result r;
	char *text, path[128];
	struct ts_err err = {""};
	int ret;

	if (size < 1)
		return 0;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz_results.XXXXXX");
		CHECK(mkdtemp(dir));
		snprintf(path, sizeof(path), "%s/c", dir);
		CHECK(mkdir(path, 0700) == 0);
		snprintf(path, sizeof(path), "%s/c/rep-1", dir);
		CHECK(mkdir(path, 0700) == 0);
		atexit(remove_dir);
	}
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 8) {
	case 0:
		csv(data + 1, size - 1, false);
		break;
	case 1:
		csv(data + 1, size - 1, true);
		break;
	case 2:
		ret = ts_exp_result_parse(&r, "fuzz", text, &err);
		CHECK(ret == 0 || (ret < 0 && err.msg[0]));
		if (!ret)
			ts_exp_result_free(&r);
		break;
	case 3:
		experiment(text, strlen(text));
		break;
	case 4:
		run_in_dir(text, strlen(text));
		break;
	case 5:
		quote(text);
		break;
	case 6:
		done_record(text, strlen(text));
		break;
	default:
		markdown(text);
		break;
	}
	free(text);
	return 0;
}

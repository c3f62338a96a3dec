/* SPDX-License-Identifier: MIT */
/*
 * exp run's console (campaign/console.c): which finished runs get their
 * line, each read back from its result.json, and the lines of the
 * verdict. Everything goes to a memory stream, which is no terminal: the
 * live line is asked for with progress 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign/console.h"
#include "tsu.h"

#define S(x) ((ts_ns_t)(x)*TS_NSEC_PER_SEC)

static char dir[64], ok_path[128];
static const char *const missing = "/nonexistent/tsu-console/result.json";

/* A result.json of an ok run with one upload at 19.25 Mbit/s. */
static int setup(void)
{
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/tsu-console.XXXXXX");
	if (!mkdtemp(dir))
		return perror("mkdtemp"), 1;
	snprintf(ok_path, sizeof(ok_path), "%s/result.json", dir);
	f = fopen(ok_path, "w");
	if (!f)
		return perror(ok_path), 1;
	fprintf(f, "{\"version\":1,\"id\":\"cca=cubic\",\"rep\":1,\"index\":1,\"seed\":1,"
		   "\"axes\":{\"cca\":\"cubic\"},\"test\":\"tcp_upload\",\"t0\":1700000000.5,"
		   "\"length_s\":10,\"delay_s\":2,\"ok\":true,\"error\":null,\"flags\":[],"
		   "\"flows\":[{\"name\":\"TCP up\",\"dir\":\"up\",\"throughput_mbps\":19.25,"
		   "\"retransmits\":0,\"series\":{\"t\":[3,4],\"mbps\":[19,19]}}],"
		   "\"latency\":[]}\n");
	return fclose(f) ? 1 : 0;
}

static int cleanup(void)
{
	unlink(ok_path);
	return rmdir(dir) ? 1 : 0;
}

/* Two runs through a console: the ok one, then one without a result. Returns what it printed. */
static char *two_runs(int progress, unsigned jobs)
{
	struct ts_exp_run runs[2] = {{.config_id = "cca=cubic", .rep = 1, .index = 1},
				     {.config_id = "cca=cubic", .rep = 2, .index = 2}};
	struct ts_exp_matrix plan = {.nruns = 2, .runs = runs};
	struct ts_campaign_report rep = {0};
	struct ts_campaign_console con;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	ts_campaign_console_init(&con, out, progress, jobs, &plan, &rep);
	CU_ASSERT_PTR_EQUAL(rep.ctx, &con);
	CU_ASSERT_PTR_NULL(rep.notice); /* the caller's */
	rep.begin(rep.ctx, 2);
	rep.run_start(rep.ctx, &runs[0], 1, 2);
	rep.run_end(rep.ctx, &runs[0], 1, 2, ok_path, S(12) + S(1) / 2);
	rep.run_start(rep.ctx, &runs[1], 2, 2);
	rep.run_end(rep.ctx, &runs[1], 2, 2, missing, S(2));
	rep.end(rep.ctx);
	fclose(out);
	return text;
}

/* No live line: every finished run gets its line, as CI logs need. */
static void test_lines(void)
{
	char *text = two_runs(0, 1);

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_NSTRING_EQUAL(text,
				"exp 1/2 cca=cubic rep 1: ok in 12.5 s, up 19.25 Mbit/s\n"
				"exp 2/2 cca=cubic rep 2: no result: ",
				strlen("exp 1/2 cca=cubic rep 1: ok in 12.5 s, up 19.25 Mbit/s\n"
				       "exp 2/2 cca=cubic rep 2: no result: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, missing));
	free(text);
}

/* A live line: only the failed run gets a line of its own, unless --jobs overlaps runs. */
static void test_live(void)
{
	char *text = two_runs(1, 1);

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NULL(strstr(text, "rep 1: ok in"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\r\033[Kexp 2/2 cca=cubic rep 2: no result: "));
	free(text);
	text = two_runs(1, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "exp 1/2 cca=cubic rep 1: ok in 12.5 s"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "exp 2/2 cca=cubic rep 2: no result: "));
	free(text);
}

static void print_verdict(FILE *f, const void *v)
{
	ts_campaign_verdict_print(v, f);
}

static char *verdict_text(const struct ts_campaign_verdict *v)
{
	char *text = tsu_capture(print_verdict, v);

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	return text;
}

/* The verdict's lines beyond the exit status; none for a clean campaign. */
static void test_verdict(void)
{
	struct ts_campaign_verdict v = {
		.strict = true, .runs = 5, .failed = 2, .fell_behind = 1, .nconfigs = 3, .tcg = 1};
	char *text = verdict_text(&v);

	CU_ASSERT_STRING_EQUAL(text, "tasshape: exp: 2 of 5 runs failed (see summary.md)\n"
				     "tasshape: exp: the emulator fell behind in 1 of 5 runs "
				     "(--strict: failing)\n"
				     "tasshape: exp: 1 of 3 configurations ran in a VM under TCG "
				     "(software emulation: coarser timing, flag tcg) (--strict: "
				     "failing)\n");
	free(text);
	v = (struct ts_campaign_verdict){.runs = 5, .fell_behind = 4};
	text = verdict_text(&v);
	CU_ASSERT_STRING_EQUAL(text, "tasshape: exp: the emulator fell behind in 4 of 5 runs\n");
	free(text);
	v = (struct ts_campaign_verdict){.runs = 5, .nconfigs = 2};
	text = verdict_text(&v);
	CU_ASSERT_STRING_EQUAL(text, "");
	free(text);
}

static const struct tsu_test tests[] = {
	{"a line per finished run without a live line", test_lines},
	{"a live line: failed runs only, unless --jobs", test_live},
	{"the verdict's lines", test_verdict},
};

TSU_MAIN_FIXTURE("exp run's console", tests, setup, cleanup)

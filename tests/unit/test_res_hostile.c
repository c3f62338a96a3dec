/* SPDX-License-Identifier: MIT */
/*
 * Results directories are anyone's (docs/security.md): a result.json value
 * JSON cannot hold, an experiment.json larger than any matrix exp run
 * plans, a configuration id written to be HTML. Each is refused with the
 * file, the field or the limit named, or written as text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/report.h"
#include "results/result.h"
#include "results/rjson.h"
#include "results/summary.h"
#include "tsu.h"
#include "tsu_tmp.h"

static char root[] = "/tmp/test_res_hostile.XXXXXX";

/* @text as @root/@name. */
static void put(const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, name);
	f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* @root/@name: "[" then @n times @elem (comma-separated) then "]", inside @pre ... @post. */
static void put_list(const char *name, const char *pre, const char *elem, size_t n,
		     const char *post)
{
	char p[512];
	size_t i;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, name);
	f = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "%s[", pre);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "", elem);
	fprintf(f, "]%s", post);
	fclose(f);
}

/* result.json of one upload flow whose throughput is @thr (as written) and one ICMP sample. */
static int parse(const char *thr, const char *rtt, const char *rep, struct ts_err *err)
{
	struct ts_exp_result r;
	char text[512];
	int ret;

	snprintf(text, sizeof(text),
		 "{\"version\":1,\"id\":\"c\",\"rep\":%s,\"axes\":{},\"ok\":true,"
		 "\"flows\":[{\"dir\":\"up\",\"throughput_mbps\":%s}],"
		 "\"latency\":[{\"kind\":\"icmp\",\"samples\":{\"t\":[1],\"rtt_ms\":[%s]}}]}",
		 rep, thr, rtt);
	err->msg[0] = '\0';
	ret = ts_exp_result_parse(&r, "s2/c/rep-1/result.json", text, err);
	if (!ret)
		ts_exp_result_free(&r);
	return ret;
}

/*
 * json-c reads NaN, Infinity, -Infinity (and 1e999) as numbers: each is an invalid value
 * named with its file and field, not a missing field and not a number in the summary.
 */
static void test_nonfinite(void)
{
	static const char *const bad[] = {"-Infinity", "Infinity", "NaN", "1e999"};
	char want[256];
	struct ts_err err;
	size_t i;

	TSU_EQ(parse("9.5", "20", "1", &err), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TSU_EQ(parse(bad[i], "20", "1", &err), -EINVAL);
		snprintf(want, sizeof(want),
			 "s2/c/rep-1/result.json: flows[0]: \"throughput_mbps\": expected a finite "
			 "number, got %s",
			 bad[i]);
		CU_ASSERT_STRING_EQUAL(err.msg, want);
		TSU_EQ(parse("9.5", bad[i], "1", &err), -EINVAL);
		CU_ASSERT_STRING_EQUAL(err.msg, "s2/c/rep-1/result.json: latency[0].samples: "
						"\"rtt_ms\"[0]: expected a finite number");
	}
	/* Missing stays missing; a rep out of range is named (its cast would be undefined). */
	TSU_EQ(parse("null", "20", "1", &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "s2/c/rep-1/result.json: flows[0]: no \"throughput_mbps\" "
					"(expected a number >= 0)");
	TSU_EQ(parse("9.5", "20", "1e300", &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg, "s2/c/rep-1/result.json: \"rep\": expected a whole number "
					"from 0 to 4294967295");
	TSU_EQ(parse("9.5", "20", "-Infinity", &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg,
			       "s2/c/rep-1/result.json: \"rep\": expected a finite number, "
			       "got -Infinity");
}

/* experiment.json beyond the limits: refused before anything is declared, the limit named. */
static void test_limits(void)
{
	struct ts_exp_summary s;
	char id[32];
	struct ts_err err;
	size_t i;

	/* 100,001 configurations (one id: cheap to declare if it were read). */
	put_list("experiment.json", "{\"configs\":", "{\"id\":\"c\",\"axes\":{}}",
		 TS_EXP_SUM_MAX_CONFIGS + 1, "}");
	ts_exp_summary_init(&s, NULL);
	err.msg[0] = '\0';
	TSU_EQ(ts_exp_summary_from_dir(&s, root, &err), -E2BIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg,
				      "experiment.json: 100001 configurations, more than the "
				      "100000 of the largest matrix"));
	TSU_EQ(s.nconfigs, 0);
	ts_exp_summary_free(&s);
	/* 65 skipped controls: each is compared with every configuration. */
	put_list("experiment.json", "{\"skipped\":", "{\"cca\":\"x\",\"why\":\"y\"}",
		 TS_EXP_SUM_MAX_SKIPPED + 1, "}");
	ts_exp_summary_init(&s, NULL);
	TSU_EQ(ts_exp_summary_from_dir(&s, root, &err), -E2BIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "65 skipped congestion controls, more than the 64"));
	ts_exp_summary_free(&s);
	/* Declared one by one: configuration 100,001 is refused. */
	ts_exp_summary_init(&s, NULL);
	for (i = 0; i < TS_EXP_SUM_MAX_CONFIGS; i++) {
		snprintf(id, sizeof(id), "c%zu", i);
		if (ts_exp_summary_declare(&s, id, NULL, 0)) {
			CU_FAIL("a configuration under the limit was refused");
			break;
		}
	}
	TSU_EQ(s.nconfigs, TS_EXP_SUM_MAX_CONFIGS);
	TSU_EQ(ts_exp_summary_declare(&s, "one more", NULL, 0), -E2BIG);
	TSU_EQ(ts_exp_summary_declare(&s, "c99999", NULL, 0), 0); /* known: found, not added */
	CU_ASSERT_PTR_NOT_NULL(ts_exp_summary_find(&s, "c4242"));
	CU_ASSERT_STRING_EQUAL(ts_exp_summary_find(&s, "c4242")->id, "c4242");
	CU_ASSERT_PTR_NULL(ts_exp_summary_find(&s, "c100000"));
	ts_exp_summary_free(&s);
}

/*
 * More JSON objects than the largest experiment.json holds: refused before json-c builds
 * them (1 KiB each). A brace inside a string is no object.
 */
static void test_objects(void)
{
	struct json_object *o = NULL;
	char path[600];
	struct ts_err err;
	static const char s1[] = "{\"a\":\"{\\\"{\",\"b\":[{},{}]}";

	TSU_EQ(ts_rj_count_objects(s1, sizeof(s1) - 1), 3);
	TSU_EQ(ts_rj_count_objects("\"{{{\"", 5), 0);
	put_list("big.json", "{\"configs\":", "{}", TS_RJ_MAX_OBJECTS, "}");
	snprintf(path, sizeof(path), "%s/big.json", root);
	err.msg[0] = '\0';
	TSU_EQ(ts_rj_load(path, &o, &err), -EINVAL);
	CU_ASSERT_PTR_NULL(o);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "big.json: more than 304096 JSON objects"));
	put_list("big.json", "{\"configs\":", "{}", TS_RJ_MAX_OBJECTS - 1, "}");
	TSU_EQ(ts_rj_load(path, &o, &err), 0); /* the largest record still reads */
	json_object_put(o);
	unlink(path);
}

/* An id written to be HTML is text in summary.md: no tag, and its '|' does not split the row. */
static void test_md_table(void)
{
	static const char id[] = "<img src=x onerror=alert(1)>|x";
	struct ts_exp_summary s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	ts_exp_summary_init(&s, "<b>name</b>");
	TSU_EQ(ts_exp_summary_declare(&s, id, NULL, 0), 0);
	f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	TSU_EQ(ts_exp_summary_write_md(&s, f), 0);
	fclose(f);
	CU_ASSERT_PTR_NULL(strstr(buf, "<img"));
	CU_ASSERT_PTR_NULL(strstr(buf, "<b>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "# &lt;b&gt;name&lt;/b&gt;\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\n| &lt;img src=x onerror=alert(1)&gt;\\|x | 0 | - |"));
	free(buf);
	ts_exp_summary_free(&s);
}

/* 65 tests in one directory: more sections of figures than a spec's test axis may give. */
static void test_report_tests(void)
{
	struct ts_report rep;
	char *text = NULL, elem[96];
	struct ts_err err;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("{\"configs\":[", f);
	for (i = 0; i <= TS_REP_MAX_TESTS; i++) {
		snprintf(elem, sizeof(elem), "%s{\"id\":\"c%zu\",\"axes\":{\"test\":\"t%zu\"}}",
			 i ? "," : "", i, i);
		fputs(elem, f);
	}
	fputs("]}", f);
	fclose(f);
	put("experiment.json", text);
	free(text);
	err.msg[0] = '\0';
	TSU_EQ(ts_report_load(&rep, root, &err), -E2BIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "more than 64 tests"));
}

/* The suite's fixture: a private directory, each test writing the files it reads. */
static int setup(void)
{
	return tsu_tmp_make(root);
}

static int teardown(void)
{
	return tsu_tmp_remove(root);
}

static const struct tsu_test tests[] = {
	{"NaN and infinities in result.json are named", test_nonfinite},
	{"configurations and skipped controls beyond the limits", test_limits},
	{"JSON objects beyond the limit", test_objects},
	{"ids and names in summary.md are text", test_md_table},
	{"tests beyond the limit", test_report_tests},
};

TSU_MAIN_FIXTURE("hostile results", tests, setup, teardown)

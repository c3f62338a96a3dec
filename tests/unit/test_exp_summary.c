/* SPDX-License-Identifier: MIT */
/*
 * Statistics, result.json reading, the summary across a matrix and the
 * --check grammar, on made-up results whose every number is worked out
 * by hand in the comments (t quantiles from a printed table).
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/check.h"
#include "results/dirlist.h"
#include "results/stats.h"
#include "results/summary.h"
#include "tsu.h"

#define NEAR(a, b, eps) CU_ASSERT_DOUBLE_EQUAL((a), (b), (eps))

static void test_stats(void)
{
	double two[] = {10, 12}, three[] = {18, 19, 20}, five[] = {1, 2, 3, 4, 5};
	double ten[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, lo, hi;
	double eq[] = {1, 1, 1, 1}, hog[] = {4, 0, 0, 0}, ramp[] = {1, 2, 3, 4}, zero[] = {0, 0};

	/* n = 2: mean 11, sd sqrt(2), half = t(1) 12.7062 * sqrt(2) / sqrt(2) = 12.7062 */
	TSU_EQ(ts_stats_ci95(two, 2, &lo, &hi), 0);
	NEAR(lo, 11 - 12.7062, 1e-9);
	NEAR(hi, 11 + 12.7062, 1e-9);
	/* n = 3: mean 19, sd 1, half = t(2) 4.3027 / sqrt(3) = 2.484166 */
	TSU_EQ(ts_stats_ci95(three, 3, &lo, &hi), 0);
	NEAR(lo, 16.515834, 1e-6);
	NEAR(hi, 21.484166, 1e-6);
	/* n = 5: mean 3, sd sqrt(10/4) = 1.581139, half = t(4) 2.7764 * 1.581139 / sqrt(5) = 1.963212 */
	NEAR(ts_stats_sd(five, 5), 1.5811388, 1e-7);
	TSU_EQ(ts_stats_ci95(five, 5, &lo, &hi), 0);
	NEAR(lo, 1.036788, 1e-6);
	NEAR(hi, 4.963212, 1e-6);
	TSU_EQ(ts_stats_ci95(five, 1, &lo, &hi), -1); /* one run: no interval */
	/* Past the table: t(0.975, 40) = 2.0211, t(120) = 1.9799 */
	NEAR(ts_stats_t975(40), 2.0211, 1e-4);
	NEAR(ts_stats_t975(120), 1.9799, 1e-4);
	/* Type 7 on 1..10: p50 at h = 4.5 -> 5.5; p95 at 8.55 -> 9.55; p99 at 8.91 -> 9.91 */
	NEAR(ts_stats_quantile(ten, 10, 0.50), 5.5, 1e-12);
	NEAR(ts_stats_quantile(ten, 10, 0.95), 9.55, 1e-12);
	NEAR(ts_stats_quantile(ten, 10, 0.99), 9.91, 1e-12);
	NEAR(ts_stats_quantile(ten, 1, 0.99), 1, 1e-12);
	/* Jain: equal 1; one of four takes all 16/(4*16) = 0.25; 1..4: 100/(4*30) */
	NEAR(ts_stats_jain(eq, 4), 1, 1e-12);
	NEAR(ts_stats_jain(hog, 4), 0.25, 1e-12);
	NEAR(ts_stats_jain(ramp, 4), 100.0 / 120, 1e-12);
	NEAR(ts_stats_jain(zero, 2), -1, 0);
}

/*
 * Configuration A (tcp_upload, cubic), two repetitions:
 *   rep 1: 10 Mbit/s, 3 retransmits; ICMP at t 1, 5, 6, 7, 40 = 20, 30, 40, 50, 99 ms, loaded
 *          5..35 s, so 30, 40, 50 count; the executor flagged its downlink (release p99 500 us)
 *          as fallen behind.
 *   rep 2: 12 Mbit/s, 5 retransmits; ICMP 60, 70 ms inside; flagged "tcg" by the executor.
 * Configuration B (rrul, bbr): rep 1 with uploads 1, 2, 3, 4 and downloads 5 x 4 and UDP 10, 20;
 *   rep 2 failed.
 */
#define FLOW(dir, mbps, retr)                                                                      \
	"{\"name\":\"TCP " dir "\",\"dir\":\"" dir "\",\"throughput_mbps\":" mbps                  \
	",\"retransmits\":" retr "}"

static const char *const res_a1 =
	"{\"version\":1,\"id\":\"cca=cubic,test=tcp_upload\",\"rep\":1,\"index\":1,\"seed\":2,"
	"\"axes\":{\"cca\":\"cubic\",\"test\":\"tcp_upload\"},\"test\":\"tcp_upload\",\"ok\":true,"
	"\"error\":null,\"flags\":[\"fell_behind:down\"],\"flows\":[" FLOW(
		"up", "10", "3") "],"
				 "\"latency\":[{\"name\":\"Ping (ms) "
				 "ICMP\",\"kind\":\"icmp\",\"samples\":{\"t\":[1,5,6,7,40],"
				 "\"seq\":[1,2,3,4,5],\"rtt_ms\":[20,30,40,50,99]},\"loaded\":{"
				 "\"from_s\":5,\"to_s\":35}}],"
				 "\"fidelity\":{\"up\":{\"release_err_p99_us\":300,\"unexplained_"
				 "drops\":0,\"kernel_drops\":0},"
				 "\"down\":{\"release_err_p99_us\":500,\"unexplained_drops\":0,"
				 "\"kernel_drops\":0}}}";
static const char *const res_a2 =
	"{\"version\":1,\"id\":\"cca=cubic,test=tcp_upload\",\"rep\":2,\"index\":3,\"seed\":3,"
	"\"axes\":{\"cca\":\"cubic\",\"test\":\"tcp_upload\"},\"ok\":true,\"flags\":[\"tcg\"],"
	"\"flows\":[" FLOW("up", "12", "5") "],"
					    "\"latency\":[{\"kind\":\"icmp\",\"samples\":{\"t\":[5."
					    "5,6.5],\"rtt_ms\":[60,70]},"
					    "\"loaded\":{\"from_s\":5,\"to_s\":35}}],"
					    "\"fidelity\":{\"up\":{\"release_err_p99_us\":450}}}";
static const char *const res_b1 =
	"{\"version\":1,\"id\":\"cca=bbr,test=rrul\",\"rep\":1,\"index\":2,\"seed\":2,"
	"\"axes\":{\"cca\":\"bbr\",\"test\":\"rrul\"},\"ok\":true,\"flags\":[],\"flows\":"
	"[" FLOW("up", "1", "0") "," FLOW("up", "2", "0") "," FLOW("up", "3", "1") "," FLOW(
		"up", "4",
		"1") "," FLOW("down", "5",
			      "0") "," FLOW("down", "5",
					    "0") "," FLOW("down", "5",
							  "0") "," FLOW("down", "5",
									"0") "],"
									     "\"latency\":["
									     "{\"kind\":"
									     "\"udp\","
									     "\"samples\":{"
									     "\"t\":[6,7],"
									     "\"rtt_ms\":["
									     "10,20]},"
									     "\"loaded\":{"
									     "\"from_s\":5,"
									     "\"to_s\":35}}"
									     "]}";
static const char *const res_b2 = "{\"version\":1,\"id\":\"cca=bbr,test=rrul\",\"rep\":2,"
				  "\"axes\":{\"cca\":\"bbr\",\"test\":\"rrul\"},\"ok\":false,"
				  "\"error\":\"iperf3 failed\",\"flows\":[]}";

static void check_summary(const struct ts_exp_summary *s)
{
	const struct ts_exp_sum_config *a = ts_exp_summary_find(s, "cca=cubic,test=tcp_upload");
	const struct ts_exp_sum_config *b = ts_exp_summary_find(s, "cca=bbr,test=rrul");
	size_t i;
	int down = 0, tcg = 0;

	CU_ASSERT_FATAL(a && b);
	TSU_EQ(s->runs, 4);
	TSU_EQ(s->failed, 1);
	TSU_EQ(s->fell_behind, 1);
	TSU_EQ(a->n, 2);
	TSU_EQ(a->thr_up.n, 2);
	NEAR(a->thr_up.mean, 11, 1e-12);
	NEAR(a->thr_up.lo, 11 - 12.7062, 1e-9);
	NEAR(a->thr_up.max, 12, 0);
	TSU_EQ(a->thr_down.n, 0); /* no download flow: no value, not 0 */
	NEAR(a->retransmits.mean, 4, 1e-12);
	/* Pooled 30, 40, 50, 60, 70: p50 50; p95 at h 3.8 -> 68; p99 at 3.96 -> 69.6; mean 50 */
	TSU_EQ(a->icmp.n, 5);
	NEAR(a->icmp.p50, 50, 1e-12);
	NEAR(a->icmp.p95, 68, 1e-12);
	NEAR(a->icmp.p99, 69.6, 1e-12);
	NEAR(a->icmp.mean, 50, 1e-12);
	TSU_EQ(a->udp.n, 0);
	TSU_EQ(a->fell_behind, 1);
	for (i = 0; i < a->nflags; i++) {
		down += !strcmp(a->flags[i], "fell_behind:down");
		tcg += !strcmp(a->flags[i], "tcg");
		CU_ASSERT(strcmp(a->flags[i], "fell_behind:up") != 0);
	}
	TSU_EQ(down, 1);
	TSU_EQ(tcg, 1);
	TSU_EQ(b->n, 1);
	TSU_EQ(b->failed, 1);
	NEAR(b->thr_up.mean, 10, 1e-12);
	NEAR(b->thr_down.mean, 20, 1e-12);
	CU_ASSERT(isnan(b->thr_up.lo)); /* one repetition: no interval */
	NEAR(b->jain_up.mean, 100.0 / 120, 1e-12);
	NEAR(b->jain_down.mean, 1, 1e-12);
	NEAR(b->retransmits.mean, 2, 1e-12);
	NEAR(b->udp.p50, 15, 1e-12);
}

static void load(struct ts_exp_result *r, const char *json)
{
	struct ts_err err = {""};
	int ret = ts_exp_result_parse(r, "r.json", json, &err);

	if (ret)
		fprintf(stderr, "\n  %s\n", err.msg);
	TSU_EQ(ret, 0);
}

static void test_summary(void)
{
	struct ts_exp_result r[4];
	struct ts_exp_summary s;
	size_t i;

	load(&r[0], res_a1);
	load(&r[1], res_b1);
	load(&r[2], res_a2);
	load(&r[3], res_b2);
	ts_exp_summary_init(&s, "t");
	TSU_EQ(ts_exp_summary_add(&s, r, 4), 0);
	check_summary(&s);
	TSU_EQ(s.nconfigs, 2);
	CU_ASSERT_STRING_EQUAL(s.configs[0].id, "cca=cubic,test=tcp_upload"); /* first seen */
	ts_exp_summary_free(&s);
	for (i = 0; i < 4; i++)
		ts_exp_result_free(&r[i]);
}

static void test_result_errors(void)
{
	struct ts_exp_result r;
	struct ts_err err;

	TSU_EQ(ts_exp_result_parse(&r, "x.json", "{", &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "x.json: not JSON"));
	TSU_EQ(ts_exp_result_parse(&r, "x.json", "{\"version\":2}", &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "\"version\": expected 1"));
	TSU_EQ(ts_exp_result_parse(&r, "x.json",
				   "{\"version\":1,\"id\":\"a\",\"axes\":{},\"ok\":true,"
				   "\"flows\":[{\"dir\":\"sideways\"}]}",
				   &err),
	       -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "flows[0]: \"dir\" must be up or down"));
}

/*
 * A flow whose iperf3 was interrupted or failed has no measurement: the executor writes it
 * without "throughput_mbps" and fails the run. That run is read (its error and flags reach the
 * summary, as a failure), its flow's throughput not a number; the same flow in a run that
 * claims success is refused.
 */
static void test_result_unmeasured_flow(void)
{
	static const char failed[] =
		"{\"version\":1,\"id\":\"cca=cubic,test=tcp_upload\",\"rep\":2,\"index\":3,"
		"\"axes\":{\"cca\":\"cubic\",\"test\":\"tcp_upload\"},\"ok\":false,\"error\":\"TCP "
		"upload: iperf3: interrupt - the client has terminated\","
		"\"flows\":[{\"name\":\"TCP upload\",\"dir\":\"up\",\"server\":0}]}";
	static const char claimed[] = "{\"version\":1,\"id\":\"a\",\"rep\":1,\"axes\":{},"
				      "\"ok\":true,\"flows\":[{\"dir\":\"up\"}]}";
	struct ts_exp_result r, all[2];
	struct ts_exp_summary s;
	struct ts_err err = {""};

	TSU_EQ(ts_exp_result_parse(&r, "f.json", failed, &err), 0);
	CU_ASSERT(!r.ok);
	TSU_EQ(r.nflows, 1);
	CU_ASSERT_FATAL(r.nflows == 1 && r.error);
	CU_ASSERT(isnan(r.flows[0].throughput_mbps));
	CU_ASSERT_STRING_EQUAL(r.error,
			       "TCP upload: iperf3: interrupt - the client has terminated");
	ts_exp_result_free(&r);
	TSU_EQ(ts_exp_result_parse(&r, "c.json", claimed, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "c.json: flows[0]: no \"throughput_mbps\""));
	/* Beside a measured run of its configuration: counted as failed, the metrics the other's. */
	load(&all[0], res_a1);
	load(&all[1], failed);
	ts_exp_summary_init(&s, "t");
	TSU_EQ(ts_exp_summary_add(&s, all, 2), 0);
	TSU_EQ(s.runs, 2);
	TSU_EQ(s.failed, 1);
	TSU_EQ(s.configs[0].n, 1);
	NEAR(s.configs[0].thr_up.mean, 10, 1e-12);
	ts_exp_summary_free(&s);
	ts_exp_result_free(&all[0]);
	ts_exp_result_free(&all[1]);
}

static void write_file(const char *dir, const char *sub, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static void mkdirs(const char *dir, const char *sub)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	mkdir(path, 0755);
}

static void test_from_dir_and_writers(void)
{
	char dir[] = "/tmp/tasshape-test-summary.XXXXXX", path[600], line[1024];
	struct ts_err err = {""};
	struct ts_exp_summary s;
	json_object *root, *cfg, *v;
	FILE *f;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	mkdirs(dir, "cca=cubic,test=tcp_upload");
	mkdirs(dir, "cca=cubic,test=tcp_upload/rep-1");
	mkdirs(dir, "cca=cubic,test=tcp_upload/rep-2");
	mkdirs(dir, "cca=bbr,test=rrul");
	mkdirs(dir, "cca=bbr,test=rrul/rep-1");
	mkdirs(dir, "cca=bbr,test=rrul/rep-2");
	mkdirs(dir, "cca=bbr,test=rrul/rep-3"); /* an unfinished run: no result.json */
	write_file(dir, "cca=cubic,test=tcp_upload/rep-1/result.json", res_a1);
	write_file(dir, "cca=cubic,test=tcp_upload/rep-2/result.json", res_a2);
	write_file(dir, "cca=bbr,test=rrul/rep-1/result.json", res_b1);
	write_file(dir, "cca=bbr,test=rrul/rep-2/result.json", res_b2);
	write_file(dir, "experiment.json",
		   "{\"version\":1,\"name\":\"made-up\",\"skipped\":[{\"cca\":\"tas\",\"why\":"
		   "\"tas: module tcp_bbr_tas not loaded\"}],\"configs\":["
		   "{\"id\":\"cca=cubic,test=tcp_upload\",\"axes\":{\"cca\":\"cubic\",\"test\":"
		   "\"tcp_upload\"}},{\"id\":\"cca=bbr,test=rrul\",\"axes\":{\"cca\":\"bbr\","
		   "\"test\":\"rrul\"}},{\"id\":\"cca=tas,test=rrul\",\"axes\":{\"cca\":\"tas\","
		   "\"test\":\"rrul\"}}]}");
	ts_exp_summary_init(&s, NULL);
	TSU_EQ(ts_exp_summary_from_dir(&s, dir, &err), 0);
	check_summary(&s);
	TSU_EQ(s.nconfigs, 3); /* in plan order, with the skipped one */
	CU_ASSERT_STRING_EQUAL(s.configs[2].id, "cca=tas,test=rrul");
	CU_ASSERT(s.configs[2].skipped);
	TSU_EQ(s.configs[2].n, 0);
	CU_ASSERT_STRING_EQUAL(s.name, "made-up");

	TSU_EQ(ts_exp_summary_write_all(&s, dir, &err), 0);
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	root = json_object_from_file(path);
	CU_ASSERT_FATAL(root != NULL);
	cfg = json_object_array_get_idx(json_object_object_get(root, "configs"), 0);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(cfg, "cca")), "cubic");
	TSU_EQ(json_object_get_int(json_object_object_get(cfg, "n")), 2);
	v = json_object_object_get(json_object_object_get(cfg, "metrics"), "throughput_up_mbps");
	NEAR(json_object_get_double(json_object_object_get(v, "mean")), 11, 1e-9);
	NEAR(json_object_get_double(
		     json_object_array_get_idx(json_object_object_get(v, "ci95"), 1)),
	     23.7062, 1e-9);
	CU_ASSERT_PTR_NULL(json_object_object_get(json_object_object_get(cfg, "metrics"),
						  "throughput_down_mbps"));
	v = json_object_object_get(root, "flags");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(
				       v, json_object_array_length(v) - 1)),
			       "cca_skipped:tas");
	json_object_put(root);

	snprintf(path, sizeof(path), "%s/summary.csv", dir);
	f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof(line), f));
	CU_ASSERT(strncmp(line, "id,cca,test,n,failed,fell_behind,throughput_up_mbps_mean,", 57) ==
		  0);
	CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof(line), f));
	{
		const char *want =
			"\"cca=cubic,test=tcp_upload\",cubic,tcp_upload,2,0,1,11,-1.7062,"
			"23.7062,10,12,,,,,,50,68,69.6,50,,,,,4,,,fell_behind:down tcg\n";

		CU_ASSERT_STRING_EQUAL(line, want);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/summary.md", dir);
	f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	{
		int fell = 0, skipped = 0;

		while (fgets(line, sizeof(line), f)) {
			if (strstr(line,
				   "| cca=cubic,test=tcp_upload | 2 | 11.00 [-1.71, 23.71] |") &&
			    strstr(line, "**fell behind** (1 of 2 runs, release p99 up to 500 us)"))
				fell = 1;
			if (strstr(line, "| cca=tas,test=rrul | 0 |") &&
			    strstr(line, "**skipped**"))
				skipped = 1;
		}
		TSU_EQ(fell, 1);
		TSU_EQ(skipped, 1);
	}
	fclose(f);
	ts_exp_summary_free(&s);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (getenv("TS_KEEP"))
		fprintf(stderr, "kept %s\n", dir);
	else
		TSU_EQ(system(path), 0);
}

/*
 * Configuration ids name directories (the report reads DIR/ID/rep-N): an
 * id from a file anyone may have written that is not one directory name
 * ("..", "../x", "/etc", "", null) is refused, as are a "configs" and
 * "skipped" that are not lists (json-c asserts on those) and an axis
 * value of null (no string to copy).
 */
static void test_hostile_ids(void)
{
	static const char *const bad[] = {"\"..\"",  "\".\"", "\"../x\"", "\"/etc\"",
					  "\"a/b\"", "\"\"",  "null",	  "5"};
	char dir[] = "/tmp/tasshape-test-ids.XXXXXX", text[256], path[600];
	struct ts_err err;
	struct ts_exp_summary s;
	struct ts_exp_result r;
	size_t i;

	CU_ASSERT(ts_exp_id_is_dirname("cca=bbr,link=a..b"));
	CU_ASSERT(ts_exp_id_is_dirname("x'\n!touch M #"));
	CU_ASSERT(!ts_exp_id_is_dirname(".."));
	CU_ASSERT(!ts_exp_id_is_dirname("a/.."));
	CU_ASSERT(!ts_exp_id_is_dirname(NULL));
	memset(text, 'a', 256);
	text[255] = '\0';
	CU_ASSERT(ts_exp_id_is_dirname(text)); /* NAME_MAX bytes */
	text[255] = 'a';
	text[sizeof(text) - 1] = '\0';
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "{\"configs\":[{\"id\":%s,\"axes\":{}}]}", bad[i]);
		write_file(dir, "experiment.json", text);
		ts_exp_summary_init(&s, NULL);
		err.msg[0] = '\0';
		TSU_EQ(ts_exp_summary_from_dir(&s, dir, &err), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(
			strstr(err.msg, "configs[0]: expected \"id\" (a directory name"));
		TSU_EQ(s.nconfigs, 0);
		ts_exp_summary_free(&s);
	}
	write_file(dir, "experiment.json",
		   "{\"configs\":5,\"skipped\":{\"cca\":1},\"name\":\"n\"}");
	ts_exp_summary_init(&s, NULL);
	TSU_EQ(ts_exp_summary_from_dir(&s, dir, &err), 0);
	TSU_EQ(s.nconfigs, 0);
	ts_exp_summary_free(&s);
	write_file(dir, "experiment.json",
		   "{\"configs\":[{\"id\":\"c\",\"axes\":{\"cca\":null}}],"
		   "\"skipped\":[{\"cca\":null,\"why\":null}]}");
	ts_exp_summary_init(&s, NULL);
	TSU_EQ(ts_exp_summary_from_dir(&s, dir, &err), 0);
	TSU_EQ(s.nconfigs, 1);
	CU_ASSERT_STRING_EQUAL(s.configs[0].axes[0].value, "?");
	TSU_EQ(s.nskipped, 0);
	ts_exp_summary_free(&s);
	/* A result.json whose id leads out of the directory. */
	TSU_EQ(ts_exp_result_parse(
		       &r, "r.json",
		       "{\"version\":1,\"id\":\"..\",\"axes\":{},\"ok\":true,\"flows\":[]}", &err),
	       0);
	ts_exp_summary_init(&s, NULL);
	TSU_EQ(ts_exp_summary_add(&s, &r, 1), -EINVAL);
	TSU_EQ(s.nconfigs, 0);
	ts_exp_summary_free(&s);
	ts_exp_result_free(&r);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	TSU_EQ(system(path), 0);
}

/* rep-K in the order of K (rep-2 before rep-10), names by strcmp, dot entries left out. */
static void test_dirlist(void)
{
	char dir[] = "/tmp/tasshape-test-dirlist.XXXXXX", path[600];
	char **v = NULL;
	size_t n = 0;

	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	mkdirs(dir, "b");
	mkdirs(dir, "b/rep-10");
	mkdirs(dir, "b/rep-2");
	mkdirs(dir, "b/rep-1");
	mkdirs(dir, "b/rep-x");
	mkdirs(dir, "b/.hidden");
	mkdirs(dir, "a");
	write_file(dir, "experiment.json", "{}");
	write_file(dir, "b/notes", "");
	snprintf(path, sizeof(path), "%s/b", dir);
	TSU_EQ(ts_dirlist(path, "rep-", &v, &n), 0);
	TSU_EQ(n, 4);
	if (n == 4) {
		/* rep-x has no number: K 0, before rep-1 */
		CU_ASSERT_STRING_EQUAL(v[0], "rep-x");
		CU_ASSERT_STRING_EQUAL(v[1], "rep-1");
		CU_ASSERT_STRING_EQUAL(v[2], "rep-2");
		CU_ASSERT_STRING_EQUAL(v[3], "rep-10");
	}
	ts_dirlist_free(v, n);
	TSU_EQ(ts_dirlist(dir, NULL, &v, &n), 0);
	TSU_EQ(n, 3);
	if (n == 3) {
		CU_ASSERT_STRING_EQUAL(v[0], "a");
		CU_ASSERT_STRING_EQUAL(v[1], "b");
		CU_ASSERT_STRING_EQUAL(v[2], "experiment.json");
	}
	ts_dirlist_free(v, n);
	snprintf(path, sizeof(path), "%s/experiment.json", dir);
	TSU_EQ(ts_dirlist(path, NULL, &v, &n), -ENOTDIR);
	CU_ASSERT(v == NULL && n == 0);
	snprintf(path, sizeof(path), "%s/missing", dir);
	TSU_EQ(ts_dirlist(path, NULL, &v, &n), -ENOENT);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	TSU_EQ(system(path), 0);
}

static void check_reject(const char *expr, const char *phrase)
{
	struct ts_exp_check c;
	struct ts_err err = {""};

	TSU_EQ(ts_exp_check_parse(&c, expr, &err), -EINVAL);
	if (!strstr(err.msg, phrase))
		fprintf(stderr, "\n  '%s': got '%s'\n", expr, err.msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, phrase));
}

static void test_check_parse(void)
{
	struct ts_exp_check c;
	struct ts_err err;

	TSU_EQ(ts_exp_check_parse(&c,
				  "rrul[cca=bbr, link=fiveg].ping_icmp_ms.p95 <= "
				  "0.8 * rrul[cca=cubic].ping_icmp_ms.p95",
				  &err),
	       0);
	TSU_EQ(c.op, TS_CMP_LE);
	CU_ASSERT_STRING_EQUAL(c.side[0].test, "rrul");
	TSU_EQ(c.side[0].nsel, 2);
	CU_ASSERT_STRING_EQUAL(c.side[0].sel[1].axis, "link");
	CU_ASSERT_STRING_EQUAL(c.side[0].sel[1].value, "fiveg");
	NEAR(c.side[1].factor, 0.8, 0);
	CU_ASSERT_STRING_EQUAL(c.side[1].text, "0.8 * rrul[cca=cubic].ping_icmp_ms.p95");
	TSU_EQ(ts_exp_check_parse(&c, "tcp_upload[tas_shift=9/10].throughput_up_mbps.mean >= 18.5",
				  &err),
	       0);
	CU_ASSERT_STRING_EQUAL(c.side[0].sel[0].value, "9/10");
	TSU_EQ(c.side[1].is_num, 1);
	NEAR(c.side[1].num, 18.5, 0);
	check_reject("rrul[cca=bbr].ping_icmp.p95 < 5", "unknown metric 'ping_icmp'");
	check_reject("rrul[cca=bbr].ping_icmp_ms < 5", "ping_icmp_ms needs a field (p50, p95");
	check_reject("rrul[cca=bbr].ping_icmp_ms.p90 < 5", "ping_icmp_ms has no field 'p90'");
	check_reject("rrul[cca=bbr].n = 3", "expected a comparison");
	check_reject("rrul[cca=bbr].n >= 3 junk", "unexpected 'junk'");
	check_reject("rrul[cca].n >= 3", "expected '=' after axis 'cca'");
	check_reject("rrul[cca=bbr.n >= 3", "expected ',' or ']'");
	check_reject("3 < 4", "compares two numbers");
	check_reject("< 4", "at column 1: expected a number or TEST");
}

static void test_check_resolve_eval(void)
{
	struct ts_exp_result r[4];
	struct ts_exp_summary s;
	struct ts_exp_point *pts;
	struct ts_exp_check c;
	char *out = NULL;
	struct ts_err err;
	size_t len = 0, i;
	FILE *f;

	load(&r[0], res_a1);
	load(&r[1], res_b1);
	load(&r[2], res_a2);
	load(&r[3], res_b2);
	ts_exp_summary_init(&s, "t");
	TSU_EQ(ts_exp_summary_add(&s, r, 4), 0);
	pts = ts_exp_summary_points(&s);
	f = open_memstream(&out, &len);

	/* 11 >= 10.5 holds; 11 > 12 does not; both printed */
	TSU_EQ(ts_exp_check_parse(&c, "tcp_upload[cca=cubic].throughput_up_mbps.mean >= 10.5",
				  &err),
	       0);
	TSU_EQ(ts_exp_check_resolve(&c, pts, s.nconfigs, &err), 0);
	CU_ASSERT_STRING_EQUAL(c.side[0].id, "cca=cubic,test=tcp_upload");
	TSU_EQ(ts_exp_check_eval(&c, &s, f), 1);
	/* UDP p95 of B: 10 + 0.95 * 10 = 19.5; ICMP p95 of A 68: 19.5 < 0.5 * 68 = 34 */
	TSU_EQ(ts_exp_check_parse(&c, "rrul.ping_udp_ms.p95 < 0.5 * tcp_upload.ping_icmp_ms.p95",
				  &err),
	       0);
	TSU_EQ(ts_exp_check_resolve(&c, pts, s.nconfigs, &err), 0);
	TSU_EQ(ts_exp_check_eval(&c, &s, f), 1);
	TSU_EQ(ts_exp_check_parse(
		       &c, "tcp_upload.throughput_up_mbps.mean > tcp_upload.throughput_up_mbps.max",
		       &err),
	       0);
	TSU_EQ(ts_exp_check_resolve(&c, pts, s.nconfigs, &err), 0);
	TSU_EQ(ts_exp_check_eval(&c, &s, f), 0);
	/* No download in tcp_upload: no value, so the check fails */
	TSU_EQ(ts_exp_check_parse(&c, "tcp_upload.throughput_down_mbps.mean >= 0", &err), 0);
	TSU_EQ(ts_exp_check_resolve(&c, pts, s.nconfigs, &err), 0);
	TSU_EQ(ts_exp_check_eval(&c, &s, f), 0);
	TSU_EQ(ts_exp_check_parse(&c, "rrul.n == 1", &err), 0);
	TSU_EQ(ts_exp_check_resolve(&c, pts, s.nconfigs, &err), 0);
	TSU_EQ(ts_exp_check_eval(&c, &s, f), 1);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(out,
				      "check PASS: tcp_upload[cca=cubic].throughput_up_mbps.mean "
				      ">= 10.5\n  tcp_upload[cca=cubic].throughput_up_mbps.mean = "
				      "11\n  10.5 = 10.5\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "0.5 * tcp_upload.ping_icmp_ms.p95 = 34\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "check FAIL: tcp_upload.throughput_up_mbps.mean > "));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "tcp_upload.throughput_down_mbps.mean = no value\n"));
	free(out);

	TSU_EQ(ts_exp_check_parse(&c, "rrul[cca=reno].n > 0", &err), 0);
	TSU_EQ(ts_exp_check_resolve(&c, pts, s.nconfigs, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rrul[cca=reno].n matches no configuration"));
	TSU_EQ(ts_exp_check_resolve(&c, pts, s.nconfigs, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rrul[cca=reno].n matches no configuration"));
	TSU_EQ(ts_exp_check_parse(&c, "rrul[cca=bbr].n > 0", &err), 0);
	TSU_EQ(ts_exp_summary_declare(
		       &s, "cca=bbr,test=rrul,link=x",
		       (struct ts_exp_axis_val[]){{"cca", "bbr"}, {"test", "rrul"}, {"link", "x"}},
		       3),
	       0);
	free(pts);
	pts = ts_exp_summary_points(&s);
	TSU_EQ(ts_exp_check_resolve(&c, pts, s.nconfigs, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "matches 2 configurations (cca=bbr,test=rrul; "
					       "cca=bbr,test=rrul,link=x): name more axes"));
	free(pts);
	ts_exp_summary_free(&s);
	for (i = 0; i < 4; i++)
		ts_exp_result_free(&r[i]);
}

static const struct tsu_test tests[] = {
	{"mean, Student t intervals n=2,3,5, quantiles, Jain", test_stats},
	{"summary of made-up results", test_summary},
	{"result.json errors", test_result_errors},
	{"a failed run's unmeasured flow is read, a successful one's refused",
	 test_result_unmeasured_flow},
	{"summary from a directory, json/csv/md writers", test_from_dir_and_writers},
	{"ids that are not a directory name are refused", test_hostile_ids},
	{"directory entries: rep-K by K", test_dirlist},
	{"check grammar", test_check_parse},
	{"check resolve and evaluate", test_check_resolve_eval},
};

TSU_MAIN("exp summary", tests)

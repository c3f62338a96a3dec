/* SPDX-License-Identifier: MIT */
/*
 * Flent export (exp/flent*.c): Flent's grid interpolation, the series of
 * its test definitions, and a made-up result.json turned into a Flent
 * document whose numbers are worked out by hand here.
 */
#include <math.h>
#include <string.h>

#include <json-c/json.h>

#include "results/flent.h"
#include "tsu.h"

/* Samples at 1.0 s (10) and 2.0 s (20), grid from 0.9 in 0.2 s steps. */
static void test_grid_interpolation(void)
{
	const double t[] = {1.0, 2.0}, v[] = {10, 20};
	double out[9];

	ts_flent_grid(t, v, 2, 0.9, 0.2, 9, out);
	/* 0.9: before the first sample, within half a step (0.1): its value, not interpolated. */
	CU_ASSERT_DOUBLE_EQUAL(out[0], 10, 1e-9);
	/* 1.1 .. 1.9: linear between (1.0, 10) and (2.0, 20). */
	CU_ASSERT_DOUBLE_EQUAL(out[1], 11, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(out[2], 13, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(out[5], 19, 1e-9);
	/* 2.1: past the last sample, after an interpolated point: the last value, once. */
	CU_ASSERT_DOUBLE_EQUAL(out[6], 20, 1e-9);
	CU_ASSERT(isnan(out[7]));
	CU_ASSERT(isnan(out[8]));
}

/* A gap of more than 5 steps between samples leaves nulls; a far first sample too. */
static void test_grid_gaps(void)
{
	const double t[] = {1.0, 3.0}, v[] = {5, 7};
	double out[4];

	/* Step 1.5: 0.0 is 1.0 s before the first sample, more than half a step (0.75): null. */
	ts_flent_grid(t, v, 2, 0.0, 1.5, 4, out);
	CU_ASSERT(isnan(out[0]));
	/* 1.5: between the samples, the next one 1.5 s away (within 5 steps): 5 + 2 x 0.5 / 2. */
	CU_ASSERT_DOUBLE_EQUAL(out[1], 5.5, 1e-9);
	/* 3.0: on the last sample, none after it: the last value once, then null. */
	CU_ASSERT_DOUBLE_EQUAL(out[2], 7, 1e-9);
	CU_ASSERT(isnan(out[3]));
	/* Step 0.2: every point is more than 0.1 s before the first sample. */
	ts_flent_grid(t, v, 2, 0.0, 0.2, 4, out);
	CU_ASSERT(isnan(out[0]) && isnan(out[3]));
	ts_flent_grid(t, v, 0, 0.0, 0.2, 4, out);
	CU_ASSERT(isnan(out[1]));
}

static void test_jain(void)
{
	const double eq[] = {3, 3, 3, 3}, one[] = {4, 0}, zero[] = {0, 0};

	CU_ASSERT_DOUBLE_EQUAL(ts_flent_jain(eq, 4), 1.0, 1e-12);
	/* (4 + 0)^2 / (2 x 16) = 0.5 */
	CU_ASSERT_DOUBLE_EQUAL(ts_flent_jain(one, 2), 0.5, 1e-12);
	CU_ASSERT(isnan(ts_flent_jain(zero, 2)));
}

static int has(const struct ts_flent_test *d, const char *name, enum ts_flent_kind kind)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->s[i].name, name))
			return d->s[i].kind == kind;
	return 0;
}

/* The names of Flent 2.1's tests/rrul.conf, tcp_nup.conf and rtt_fair.inc, exactly. */
static void test_definitions(void)
{
	const char *hosts[] = {"a", "b", "c", "d"};
	struct ts_flent_test d;

	TSU_EQ(ts_flent_test_def("rrul", 0, 0, NULL, 0, &d), 0);
	TSU_EQ(d.n, 18);
	CU_ASSERT(has(&d, "TCP upload CS5", TS_FLENT_FLOW));
	CU_ASSERT(has(&d, "TCP download EF", TS_FLENT_FLOW));
	CU_ASSERT(has(&d, "Ping (ms) UDP BK", TS_FLENT_PING));
	CU_ASSERT(has(&d, "Ping (ms) ICMP", TS_FLENT_PING));
	CU_ASSERT(has(&d, "TCP totals", TS_FLENT_SUM));
	CU_ASSERT(has(&d, "Ping (ms) avg", TS_FLENT_AVG));
	TSU_EQ(ts_flent_test_def("rrul_be", 0, 0, NULL, 0, &d), 0);
	CU_ASSERT(has(&d, "TCP download BE4", TS_FLENT_FLOW));
	CU_ASSERT(has(&d, "Ping (ms) UDP BE3", TS_FLENT_PING));
	TSU_EQ(ts_flent_test_def("tcp_nup", 8, 0, NULL, 0, &d), 0);
	TSU_EQ(d.n, 8 + 1 + 2);
	CU_ASSERT(has(&d, "TCP upload::8", TS_FLENT_FLOW));
	CU_ASSERT(!has(&d, "TCP upload::9", TS_FLENT_FLOW));
	TSU_EQ(ts_flent_test_def("tcp_upload", 1, 0, NULL, 0, &d), 0);
	TSU_EQ(d.n, 2);
	CU_ASSERT(has(&d, "TCP upload", TS_FLENT_FLOW));
	TSU_EQ(ts_flent_test_def("rtt_fair", 4, 4, hosts, 4, &d), 0);
	CU_ASSERT(has(&d, "TCP upload BK1 c", TS_FLENT_FLOW));
	CU_ASSERT(has(&d, "Ping (ms) ICMP4 d", TS_FLENT_PING));
	CU_ASSERT(has(&d, "TCP download fairness", TS_FLENT_FAIR));
	TSU_EQ(ts_flent_test_def("rtt_fair", 4, 4, hosts, 3, &d), -EINVAL);
	TSU_EQ(ts_flent_test_def("voip", 0, 0, NULL, 0, &d), -ENOENT);
	TSU_EQ(ts_flent_test_def("tcp_nup", 0, 0, NULL, 0, &d), -EINVAL);
}

/* tcp_upload with t0 = 1000, delay 1 s: throughput at 1.4 s (8) and 1.6 s (12), pings at 1.0 and 1.2. */
static const char *result_json =
	"{\"version\":1,\"id\":\"cca=bbr,test=tcp_upload\",\"rep\":2,\"test\":\"tcp_upload\","
	"\"length_s\":0.6,\"delay_s\":1.0,\"t0\":1000.0,\"ok\":true,\"axes\":{\"cca\":\"bbr\"},"
	"\"flows\":[{\"name\":\"TCP upload\",\"dir\":\"up\",\"dscp\":\"BE\",\"cca_used\":\"bbr\","
	"\"throughput_mbps\":10.0,\"seconds\":0.6,\"bytes\":750000,"
	"\"series\":{\"t\":[1.4,1.6],\"mbps\":[8,12]}}],"
	"\"latency\":[{\"name\":\"Ping (ms) ICMP\",\"kind\":\"icmp\","
	"\"samples\":{\"t\":[1.0,1.2],\"seq\":[1,2],\"rtt_ms\":[40,50]}}],"
	"\"sockstats\":[{\"flow\":\"TCP upload\",\"t\":[1.5],\"cwnd\":[20],\"rtt_ms\":[45],"
	"\"pacing_rate_bps\":[12000000],\"delivery_rate_bps\":[9500000]}]}";

static struct json_object *at(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, k, &v);
	return v;
}

static double num_at(struct json_object *arr, size_t i)
{
	return json_object_get_double(json_object_array_get_idx(arr, i));
}

static void test_build_document(void)
{
	struct json_object *r = json_tokener_parse(result_json), *doc = NULL, *md, *x, *res, *raw;
	struct json_object *up, *ping, *pt;
	struct ts_flent_ctx ctx = {"host1", "0.1.0", NULL};
	struct ts_err err = {""};

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	TSU_EQ(ts_flent_build(r, &ctx, &doc, &err), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	TSU_EQ(json_object_get_int(at(doc, "version")), 4);
	md = at(doc, "metadata");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(at(md, "NAME")), "tcp_upload");
	/* T0 is the earliest sample (the ping at 1001.0), TIME the run's start (1000.0). */
	CU_ASSERT_STRING_EQUAL(json_object_get_string(at(md, "T0")), "1970-01-01T00:16:41.000000Z");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(at(md, "TIME")),
			       "1970-01-01T00:16:40.000000Z");
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(at(md, "TOTAL_LENGTH")), 2.6, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(at(md, "STEP_SIZE")), 0.2, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(
		json_object_get_double(at(at(at(md, "SERIES_META"), "TCP upload"), "MEAN_VALUE")),
		10.0, 1e-12);
	CU_ASSERT_PTR_NOT_NULL(at(at(md, "TASSHAPE"), "axes"));
	/* Grid from 1001.0 to 1001.6: ceil(0.6 / 0.2) = 3 points, 0, 0.2, 0.4. */
	x = at(doc, "x_values");
	TSU_EQ(json_object_array_length(x), 3);
	CU_ASSERT_DOUBLE_EQUAL(num_at(x, 2), 0.4, 1e-12);
	res = at(doc, "results");
	up = at(res, "TCP upload");
	ping = at(res, "Ping (ms) ICMP");
	TSU_EQ(json_object_array_length(up), 3);
	TSU_EQ(json_object_array_length(ping), 3);
	/* Upload: 1001.0 and 1001.2 are more than half a step before its first sample: null. */
	CU_ASSERT_PTR_NULL(json_object_array_get_idx(up, 0));
	CU_ASSERT_PTR_NULL(json_object_array_get_idx(up, 1));
	/* 1001.4 equals the first sample: interpolated from it, 8. */
	CU_ASSERT_DOUBLE_EQUAL(num_at(up, 2), 8, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(num_at(ping, 0), 40, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(num_at(ping, 1), 50, 1e-9);
	/* 1001.4: after the last ping, and the previous point was the same value: null. */
	CU_ASSERT_PTR_NULL(json_object_array_get_idx(ping, 2));
	/* Raw values: flow points with dur (first: since the flows started at 1001.0), then the
	 * socket statistics point at 1001.5 between them, rates in Mbit/s. */
	raw = at(at(doc, "raw_values"), "TCP upload");
	TSU_EQ(json_object_array_length(raw), 3);
	pt = json_object_array_get_idx(raw, 0);
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(at(pt, "t")), 1001.4, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(at(pt, "dur")), 0.4, 1e-9);
	pt = json_object_array_get_idx(raw, 1);
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(at(pt, "tcp_cwnd")), 20, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(at(pt, "tcp_pacing_rate")), 12, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(at(pt, "tcp_delivery_rate")), 9.5, 1e-9);
	CU_ASSERT_PTR_NULL(at(pt, "val"));
	pt = json_object_array_get_idx(at(at(doc, "raw_values"), "Ping (ms) ICMP"), 1);
	TSU_EQ(json_object_get_int(at(pt, "seq")), 2);
	json_object_put(doc);
	json_object_put(r);
}

/*
 * A flow named otherwise than Flent names it goes to the free series of its direction
 * (its own name kept in SERIES_META); one more flow than the test has is an error naming them.
 */
static void test_build_maps_other_names(void)
{
	struct json_object *r = json_tokener_parse(result_json), *doc = NULL, *flow, *flows, *m;
	struct ts_err err = {""};

	flows = at(r, "flows");
	flow = json_object_array_get_idx(flows, 0);
	json_object_object_add(flow, "name", json_object_new_string("TCP upload BE"));
	json_object_object_add(json_object_array_get_idx(at(r, "sockstats"), 0), "flow",
			       json_object_new_string("TCP upload BE"));
	TSU_EQ(ts_flent_build(r, NULL, &doc, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(at(at(doc, "results"), "TCP upload"));
	m = at(at(at(doc, "metadata"), "SERIES_META"), "TCP upload");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(at(m, "TASSHAPE_NAME")), "TCP upload BE");
	/* The socket statistics, named after the flow as the result names it, still join it. */
	TSU_EQ(json_object_array_length(at(at(doc, "raw_values"), "TCP upload")), 3);
	json_object_put(doc);
	doc = NULL;
	json_object_get(flow);
	json_object_array_add(flows, flow);
	TSU_EQ(ts_flent_build(r, NULL, &doc, &err), -EINVAL);
	CU_ASSERT_PTR_NULL(doc);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg,
				      "is not a flow of Flent's test tcp_upload, and none of "
				      "its ('TCP upload') is left"));
	json_object_object_add(r, "test", json_object_new_string("voip"));
	TSU_EQ(ts_flent_build(r, NULL, &doc, &err), -ENOENT);
	json_object_put(r);
}

/* rtt_fair as the executor names it (one upload and one ICMP probe per server) in Flent's names. */
static void test_build_rtt_fair(void)
{
	struct json_object *r = json_object_new_object(), *flows = json_object_new_array();
	struct json_object *lat = json_object_new_array(), *doc = NULL, *res;
	char buf[64];
	struct ts_err err = {""};
	int i;

	json_object_object_add(r, "test", json_object_new_string("rtt_fair"));
	json_object_object_add(r, "t0", json_object_new_double(100));
	json_object_object_add(r, "delay_s", json_object_new_double(1));
	json_object_object_add(r, "length_s", json_object_new_double(1));
	for (i = 0; i < 4; i++) {
		char js[512];

		snprintf(js, sizeof(js),
			 "{\"name\":\"TCP upload::%d\",\"dir\":\"up\",\"server\":%d,"
			 "\"throughput_mbps\":%d,\"series\":{\"t\":[1.5,2.0],\"mbps\":[%d,%d]}}",
			 i + 1, i, i + 1, i + 1, i + 1);
		json_object_array_add(flows, json_tokener_parse(js));
		snprintf(js, sizeof(js),
			 "{\"name\":\"Ping (ms)::%d\",\"kind\":\"icmp\",\"server\":%d,"
			 "\"samples\":{\"t\":[0.5,1.5],\"seq\":[1,2],\"rtt_ms\":[10,20]}}",
			 i + 1, i);
		json_object_array_add(lat, json_tokener_parse(js));
	}
	json_object_object_add(r, "flows", flows);
	json_object_object_add(r, "latency", lat);
	TSU_EQ(ts_flent_build(r, NULL, &doc, &err), 0);
	res = at(doc, "results");
	CU_ASSERT_PTR_NOT_NULL(at(res, "TCP upload BE1 server1"));
	CU_ASSERT_PTR_NOT_NULL(at(res, "TCP upload BK2 server4"));
	CU_ASSERT_PTR_NOT_NULL(at(res, "Ping (ms) ICMP3 server3"));
	/* Server index 2 carries 3 Mbit/s: its MEAN_VALUE; fairness of 1, 2, 3, 4 = 100 / 120. */
	snprintf(buf, sizeof(buf), "%s", "TCP upload BK1 server3");
	CU_ASSERT_DOUBLE_EQUAL(
		json_object_get_double(
			at(at(at(at(doc, "metadata"), "SERIES_META"), buf), "MEAN_VALUE")),
		3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(at(at(at(at(doc, "metadata"), "SERIES_META"),
							    "TCP upload fairness"),
							 "MEAN_VALUE")),
			       100.0 / 120.0, 1e-12);
	json_object_put(doc);
	json_object_put(r);
}

static const struct tsu_test tests[] = {
	{"grid interpolation as Flent's aggregator", test_grid_interpolation},
	{"grid gaps and far samples are null", test_grid_gaps},
	{"Jain's fairness index", test_jain},
	{"series names of Flent's test definitions", test_definitions},
	{"document from a result.json", test_build_document},
	{"other names mapped, one flow too many rejected", test_build_maps_other_names},
	{"rtt_fair in Flent's per-host names", test_build_rtt_fair},
};

TSU_MAIN("flent", tests)

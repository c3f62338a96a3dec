/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the Wi-Fi PHY-rate trace reader (time_s,phy_mbps
 * CSV, read by the Wi-Fi MAC for phy_trace=FILE). An error always has a
 * message and leaves no trace behind; an accepted trace has rows with
 * increasing times from 0, every rate > 0, all within its period, and
 * replays like a capacity trace.
 */
#include <stdlib.h>

#include "fuzz_common.h"
#include "tasshape/wifi6.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_trace *t = (struct ts_trace *)1;
	struct ts_err err;
	size_t i;
	int ret;

	err.msg[0] = '\0';
	ret = ts_wifi6_phy_trace_parse("fuzz", (const char *)data, size, &t, &err);
	if (ret < 0) {
		CHECK(!t && !strncmp(err.msg, "fuzz", 4));
		return 0;
	}
	CHECK(t);
	fuzz_check_rate(t, true);
	for (i = 0; i < t->n; i++)
		CHECK(t->rows[i].bps > 0);
	CHECK(ts_wifi6_trace_bps_at(t, (ts_ns_t)size * 1000003) > 0);
	fuzz_check_replay(t, data, size);
	ts_trace_free(t);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the Wi-Fi 6 spec, "--mac wifi6:k=v,...": the spec
 * splitter, the keys (ts_wifi6_conf_parse) and building the medium from
 * what they accepted. An error always has a message; accepted keys give
 * a PHY that carries at least one bit per symbol and an aggregate limit
 * within the BlockAck window, and the medium builds. A phy_trace= key
 * names a file: its reader has its own harness (fuzz_phy_trace), so the
 * medium is not built then.
 */
#include <stdlib.h>

#include "fuzz_common.h"
#include "tasshape/wifi6.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[TS_SPEC_MAX_LEN + 8] = "wifi6:";
	struct ts_wifi6_conf c;
	struct ts_wifi6 *m = NULL;
	struct ts_spec spec;
	struct ts_err err;
	size_t n = size < TS_SPEC_MAX_LEN ? size : TS_SPEC_MAX_LEN;

	memcpy(s + 6, data, n);
	s[6 + n] = '\0';
	err.msg[0] = '\0';
	if (ts_spec_parse(&spec, s, &err) < 0) {
		CHECK(err.msg[0]);
		return 0;
	}
	ts_wifi6_conf_init(&c);
	if (ts_wifi6_conf_parse(&c, &spec, &err) < 0) {
		CHECK(err.msg[0]);
		return 0;
	}
	CHECK(c.phy.ndbps >= 1 && c.mpdus >= 1 && c.mpdus <= c.ba && c.cwmin <= c.cwmax);
	CHECK(c.ppdu_max > 0 && c.ampdu_bytes > 0);
	if (c.phy_trace[0])
		return 0;
	err.msg[0] = '\0';
	if (ts_wifi6_create(&m, &c, 1, &err) < 0) {
		CHECK(!m && err.msg[0]);
		return 0;
	}
	CHECK(m);
	ts_wifi6_put(m);
	return 0;
}

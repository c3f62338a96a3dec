/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the mahimahi reader alone (format forced, as the
 * mahimahi and leoreplayer importers read it): run-length
 * opportunities, 32-bit millisecond bounds, the period, replay. Shares
 * its checks with fuzz_trace (fuzz_common.h).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_trace_reader(data, size, TS_FMT_MAHIMAHI);
	return 0;
}

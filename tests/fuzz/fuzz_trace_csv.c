/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the native CSV reader alone (format forced):
 * header columns and units, exact decimals, the duration directive,
 * delay and loss columns, both directions. Shares its checks with
 * fuzz_trace (fuzz_common.h).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_trace_reader(data, size, TS_FMT_CSV);
	return 0;
}

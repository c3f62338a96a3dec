/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the trace reader with the format detected from
 * the first content line (what --trace FILE does): the input is a trace
 * file, split into lines and fed to the incremental reader. A parse may
 * fail (with a message naming the input); a trace that loads must
 * satisfy the invariants the cursor relies on, and its capacity must be
 * the same with and without the index, else the harness aborts. The
 * readers with the format forced: fuzz_trace_mahimahi, fuzz_trace_csv.
 * Build with clang and -DTS_FUZZ=ON; run with tools/fuzz.sh.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_trace_reader(data, size, TS_FMT_AUTO);
	return 0;
}

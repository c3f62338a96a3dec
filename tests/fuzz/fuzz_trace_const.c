/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for "--trace const:RATE" (ts_trace_open_spec with the
 * const: prefix, so it never opens a file): accepted exactly when
 * ts_parse_rate accepts the rest with a rate > 0 and at most 10 Tbit/s
 * (the limit of every trace), giving one row of that rate named after
 * the spec; an error names the spec.
 */
#include <errno.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "tasshape/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_trace *down = (struct ts_trace *)1, *up = (struct ts_trace *)1;
	char *s = malloc(size + 7);
	struct ts_err err, e2;
	uint64_t bps = 0;
	int ret, ref;

	if (!s)
		return 0;
	memcpy(s, "const:", 6);
	memcpy(s + 6, data, size);
	s[size + 6] = '\0';
	err.msg[0] = '\0';
	ret = ts_trace_open_spec(s, &down, &up, &err);
	ref = ts_parse_rate(s + 6, &bps, 0, &e2);
	CHECK(!up);
	CHECK((ret == 0) == (ref == 0 && bps <= FUZZ_RATE_MAX));
	if (ret) {
		CHECK(!down && ret == (ref ? ref : -ERANGE));
		CHECK(!strncmp(err.msg, s, strlen(s) < 40 ? strlen(s) : 40));
	} else {
		CHECK(down && down->n == 1 && down->rows[0].bps == bps && bps > 0);
		CHECK(!strncmp(down->name, s, sizeof(down->name) - 1));
		fuzz_check_rate(down, true);
		fuzz_check_replay(down, data, size);
		ts_trace_free(down);
	}
	free(s);
	return 0;
}

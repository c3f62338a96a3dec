/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the experiment parsers (built with -DTS_FUZZ=ON
 * and clang): the input's first byte picks the spec parser (INI, with the
 * wrapper's link options) and, when it parses, the planner; or the --check
 * grammar. Besides crashes and sanitizer reports it checks the contracts:
 * an error is -EINVAL with a message naming the file, an accepted spec
 * plans at least one run, an accepted check has a metric on one side.
 *   ./fuzz_exp -dict=tests/fuzz/exp.dict -max_total_time=60
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "results/check.h"
#include "plan/matrix.h"

static void fuzz_spec(const char *text)
{
	struct ts_exp_spec spec;
	struct ts_exp_matrix plan;
	struct ts_err err = {""};
	int ret;

	ret = ts_exp_spec_parse(&spec, "f.ini", text, &err);
	if (ret < 0) {
		if (ret != -EINVAL || strncmp(err.msg, "f.ini", 5))
			abort();
		return;
	}
	err.msg[0] = '\0';
	ret = ts_exp_matrix_build(&spec, NULL, &plan, &err);
	if (ret == 0) {
		if (!plan.nruns || !plan.nconfigs)
			abort();
		ts_exp_matrix_free(&plan);
	} else if (!err.msg[0]) {
		abort();
	}
	ts_exp_spec_free(&spec);
}

static void fuzz_check(const char *text)
{
	struct ts_exp_check c;
	struct ts_err err = {""};
	int ret = ts_exp_check_parse(&c, text, &err);

	if (ret < 0 && (ret != -EINVAL || !err.msg[0]))
		abort();
	if (ret == 0 && c.side[0].is_num && c.side[1].is_num)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1 || size > 8192)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (data[0] & 1)
		fuzz_check(s);
	else
		fuzz_spec(s);
	free(s);
	return 0;
}

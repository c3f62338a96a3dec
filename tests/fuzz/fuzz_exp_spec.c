/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for experiment specs (`tasshape exp`, INI read with
 * libinih, link sections checked by the wrapper's own link option
 * parser) and their expansion into a matrix of runs. Checks: an error
 * names the spec file ("fuzz.ini:LINE: ..." or "fuzz.ini: ..."); a spec
 * that parses expands into a plan, or is refused with a message, and a
 * plan has every configuration repetitions times, each run of a known
 * configuration.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "plan/matrix.h"
#include "plan/expspec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_exp_matrix plan;
	struct ts_exp_spec spec;
	struct ts_err err = {""};
	char *text = malloc(size + 1);
	size_t i;
	int ret;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&spec, 0, sizeof(spec));
	ret = ts_exp_spec_parse(&spec, "fuzz.ini", text, &err);
	free(text);
	if (ret) {
		CHECK(!strncmp(err.msg, "fuzz.ini", 8));
		return 0;
	}
	memset(&plan, 0, sizeof(plan));
	err.msg[0] = '\0';
	ret = ts_exp_matrix_build(&spec, NULL, &plan, &err);
	if (ret) {
		CHECK(err.msg[0]);
	} else {
		CHECK(plan.nconfigs >= 1 && plan.nruns == plan.nconfigs * plan.repetitions);
		for (i = 0; i < plan.nruns; i++)
			CHECK(ts_exp_matrix_config(&plan, &plan.runs[i]) != NULL);
		ts_exp_matrix_free(&plan);
	}
	ts_exp_spec_free(&spec);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* A spec file to its matrix of runs (plan/planload.h). */
#include "plan/planload.h"

int ts_exp_plan_load(const char *path, const struct ts_exp_matrix_opts *o, bool kernel_files,
		     struct ts_exp_spec *spec, struct ts_exp_matrix *plan,
		     char sha[2 * TS_SHA256_LEN + 1], struct ts_err *err)
{
	int ret;

	ret = ts_exp_spec_load(spec, path, err);
	if (ret < 0)
		return ret;
	if (ts_sha256_file(path, sha) == 0)
		spec->sha256 = sha;
	ret = ts_exp_spec_check_links(spec, err);
	if (ret >= 0 && kernel_files)
		ret = ts_exp_spec_check_kernels(spec, err);
	if (ret >= 0)
		ret = ts_exp_matrix_build(spec, o, plan, err);
	if (ret < 0)
		ts_exp_spec_free(spec);
	return ret < 0 ? ret : 0;
}

/* SPDX-License-Identifier: MIT */
/* The checks of one command (results/checks.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "results/checks.h"

int ts_exp_checks_parse(char *const *exprs, size_t n, struct ts_exp_check **out, struct ts_err *err)
{
	struct ts_exp_check *c = calloc(n ? n : 1, sizeof(*c));
	size_t i;
	int ret;

	*out = c;
	if (!c) {
		ts_err_set(err, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		ret = ts_exp_check_parse(&c[i], exprs[i], err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int ts_exp_checks_resolve(struct ts_exp_check *c, size_t n, const struct ts_exp_point *pts,
			  size_t npts, struct ts_err *err)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = ts_exp_check_resolve(&c[i], pts, npts, err);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int ts_exp_checks_for_plan(char *const *exprs, size_t n, const struct ts_exp_matrix *plan,
			   struct ts_exp_check **out, struct ts_err *err)
{
	struct ts_exp_point *pts;
	int ret = ts_exp_checks_parse(exprs, n, out, err);

	if (ret < 0)
		return ret;
	pts = ts_exp_matrix_points(plan);
	if (!pts) {
		ts_err_set(err, "out of memory");
		return -ENOMEM;
	}
	ret = ts_exp_checks_resolve(*out, n, pts, plan->nconfigs, err);
	free(pts);
	return ret;
}

unsigned ts_exp_checks_eval(const struct ts_exp_check *c, size_t n, const struct ts_exp_summary *s,
			    FILE *out)
{
	unsigned failed = 0;
	size_t i;

	for (i = 0; i < n; i++)
		failed += !ts_exp_check_eval(&c[i], s, out);
	if (n)
		fprintf(out, "checks: %zu, %u failed\n", n, failed);
	return failed;
}

long ts_exp_checks_dir(const char *dir, char *const *exprs, size_t n, FILE *out, struct ts_err *err)
{
	struct ts_exp_check *checks = NULL;
	struct ts_exp_point *pts = NULL;
	struct ts_exp_summary s;
	long ret;

	ts_exp_summary_init(&s, NULL);
	ret = ts_exp_checks_parse(exprs, n, &checks, err);
	if (ret < 0)
		goto out;
	ret = ts_exp_summary_from_dir(&s, dir, err);
	if (ret < 0)
		goto out;
	pts = ts_exp_summary_points(&s);
	if (!pts) {
		ts_err_set(err, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	ret = ts_exp_checks_resolve(checks, n, pts, s.nconfigs, err);
	if (ret < 0)
		goto out;
	ret = ts_exp_checks_eval(checks, n, &s, out);
out:
	free(pts);
	free(checks);
	ts_exp_summary_free(&s);
	return ret;
}

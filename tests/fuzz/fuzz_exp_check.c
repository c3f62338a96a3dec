/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the `--check` grammar of `tasshape exp`
 * ("rrul[cca=bbr].ping_icmp_ms.p95 < rrul[cca=cubic].ping_icmp_ms.p95"):
 * parsing, then resolving the selectors against four configurations (two
 * congestion controls by two tests). Checks: an error has a message; an
 * accepted check has an operator, two sides each a number or a known
 * test/metric with at most TS_EXP_CHECK_SELS selectors; a side that
 * resolves names one of the configurations.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "results/check.h"

static const struct ts_exp_axis_val axes[4][3] = {
	{{"cca", "bbr"}, {"link", "fiveg"}, {"test", "rrul"}},
	{{"cca", "cubic"}, {"link", "fiveg"}, {"test", "rrul"}},
	{{"cca", "bbr"}, {"link", "fiveg"}, {"test", "tcp_upload"}},
	{{"cca", "cubic"}, {"link", "fiveg"}, {"test", "tcp_upload"}},
};
static const struct ts_exp_point pts[4] = {
	{"cca=bbr,link=fiveg,test=rrul", 3, axes[0]},
	{"cca=cubic,link=fiveg,test=rrul", 3, axes[1]},
	{"cca=bbr,link=fiveg,test=tcp_upload", 3, axes[2]},
	{"cca=cubic,link=fiveg,test=tcp_upload", 3, axes[3]},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_exp_check *c = calloc(1, sizeof(*c));
	char *expr = malloc(size + 1);
	struct ts_err err = {""};
	int ret, s, k;

	if (!c || !expr)
		goto out;
	memcpy(expr, data, size);
	expr[size] = '\0';
	ret = ts_exp_check_parse(c, expr, &err);
	if (ret) {
		CHECK(err.msg[0]);
		goto out;
	}
	CHECK(c->op >= TS_CMP_LT && c->op <= TS_CMP_NE);
	for (s = 0; s < 2; s++) {
		CHECK(c->side[s].nsel <= TS_EXP_CHECK_SELS);
		CHECK(c->side[s].is_num || c->side[s].test[0]);
	}
	err.msg[0] = '\0';
	ret = ts_exp_check_resolve(c, pts, 4, &err);
	if (ret) {
		CHECK(err.msg[0]);
		goto out;
	}
	for (s = 0; s < 2; s++) {
		bool found = c->side[s].is_num;

		for (k = 0; k < 4 && !found; k++)
			found = !strcmp(c->side[s].id, pts[k].id);
		CHECK(found);
	}
out:
	free(expr);
	free(c);
	return 0;
}

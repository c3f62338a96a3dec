/* SPDX-License-Identifier: MIT */
/*
 * CI checks over a summary (docs/experiments.md, "Checks"):
 *
 *   check   := side OP side            OP: < <= > >= == !=
 *   side    := [NUMBER '*'] operand | operand '*' NUMBER
 *   operand := NUMBER | TEST ['[' AXIS=VALUE {',' AXIS=VALUE} ']'] '.' METRIC ['.' FIELD]
 *
 * e.g. "rrul[cca=bbr].ping_icmp_ms.p95 < rrul[cca=cubic].ping_icmp_ms.p95" or
 * "tcp_upload[cca=cubic,link=fiveg].throughput_up_mbps.mean >= 18.5". Parsing
 * and resolving a selector against the configurations happen before the
 * matrix runs, so a typo never costs a sweep. Pure.
 */
#ifndef TS_RESULTS_CHECK_H
#define TS_RESULTS_CHECK_H

#include <stdio.h>

#include "tasshape/err.h"

#include "results/summary.h"

#define TS_EXP_CHECK_SELS 8

enum ts_exp_cmp { TS_CMP_LT, TS_CMP_LE, TS_CMP_GT, TS_CMP_GE, TS_CMP_EQ, TS_CMP_NE };

struct ts_exp_check_side {
	int is_num;
	double num;    /* is_num: the number */
	double factor; /* operand * factor (1 when none) */
	char test[64];
	size_t nsel;
	struct {
		char axis[32], value[256];
	} sel[TS_EXP_CHECK_SELS];
	int metric, field; /* indexes into the metric table of check.c */
	char text[512];	   /* the operand as written, for messages */
	char id[1024];	   /* after ts_exp_check_resolve: the configuration */
};

struct ts_exp_check {
	char expr[1024];
	enum ts_exp_cmp op;
	struct ts_exp_check_side side[2];
};

/* A configuration as checks see it: its id and axis values. */
struct ts_exp_point {
	const char *id;
	size_t naxes;
	const struct ts_exp_axis_val *axes;
};

/* Parse @expr; 0, or -EINVAL with @err saying where and what was expected (unknown metric, ...). */
int ts_exp_check_parse(struct ts_exp_check *c, const char *expr, struct ts_err *err);

/*
 * ts_exp_check_resolve - find each side's configuration among @pts: the one
 * whose test axis is TEST and whose axes have every AXIS=VALUE. 0, or
 * -EINVAL with @err when a selector matches none or more than one (their
 * ids are listed).
 */
int ts_exp_check_resolve(struct ts_exp_check *c, const struct ts_exp_point *pts, size_t n,
			 struct ts_err *err);

/*
 * ts_exp_check_eval - evaluate a resolved check on @s and print one line
 * to @out with both sides' numbers and PASS or FAIL. Returns 1 when it
 * holds, 0 when it does not or a side has no value (no run done, no
 * sample), which is printed as such.
 */
int ts_exp_check_eval(const struct ts_exp_check *c, const struct ts_exp_summary *s, FILE *out);

/* @s's configurations as points (valid while @s is); caller frees the array. */
struct ts_exp_point *ts_exp_summary_points(const struct ts_exp_summary *s);

/* @plan's configurations as points; caller frees the array. */
struct ts_exp_point *ts_exp_matrix_points(const struct ts_exp_matrix *plan);

#endif

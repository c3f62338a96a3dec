/* SPDX-License-Identifier: MIT */
/*
 * One run's normalised result.json (docs/experiments.md, "Per-run
 * result"), read with json-c into what statistics and checks need. Pure
 * apart from reading the file.
 */
#ifndef TS_RESULTS_RESULT_H
#define TS_RESULTS_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasshape/err.h"

#include "plan/run.h"

#define TS_EXP_MAX_FLAGS 32

struct ts_exp_flow_res {
	int up;			/* dir "up" (1) or "down" (0) */
	double throughput_mbps; /* NAN in a failed run whose flow was not measured */
	double retransmits;
};

struct ts_exp_res_fidelity {
	bool present;
	double release_err_p50_us, release_err_p99_us, release_err_max_us;
	double unexplained_drops, kernel_drops, no_descriptor, utilisation;
};

struct ts_exp_result {
	char *path; /* the file it was read from (or the name given) */
	char *id;
	unsigned rep, index;
	uint64_t seed;
	size_t naxes;
	struct ts_exp_axis_val axes[TS_EXP_MAX_AXES]; /* strings owned */
	char *test;
	bool ok;
	char *error; /* NULL when ok */
	size_t nflags;
	char *flags[TS_EXP_MAX_FLAGS];
	size_t nflows;
	struct ts_exp_flow_res *flows;
	/* Latency samples inside each series' loaded window, by kind; all ICMP samples' minimum. */
	size_t nicmp, nudp;
	double *icmp_ms, *udp_ms;
	double min_rtt_ms;			/* < 0: no ICMP sample */
	struct ts_exp_res_fidelity fidelity[2]; /* [0] up, [1] down; the executor flags from it */
};

/*
 * ts_exp_result_parse - read the result.json text @json (@name in
 * messages). Returns 0, or -EINVAL with @err saying which field is
 * missing or of the wrong type. Free with ts_exp_result_free.
 */
int ts_exp_result_parse(struct ts_exp_result *r, const char *name, const char *json,
			struct ts_err *err);

/* ts_exp_result_load - read and parse the file @path; -errno or -EINVAL with @err. */
int ts_exp_result_load(struct ts_exp_result *r, const char *path, struct ts_err *err);

void ts_exp_result_free(struct ts_exp_result *r);

/*
 * ts_exp_result_headline - @r's headline numbers as exp run's line for a
 * finished run ends them, into @buf: ", up U Mbit/s" and ", down D Mbit/s"
 * (the sum of the direction's measured flows), ", ICMP p95 P ms", then
 * "; FLAG FLAG...". Sorts @r's ICMP samples.
 */
void ts_exp_result_headline(struct ts_exp_result *r, char *buf, size_t len);

/*
 * ts_exp_result_write_unrun - write @path as the result.json of @run that
 * could not be carried out at all ("ok": false, "error": @error, flag
 * "not_run"), so the summary counts it as failed. 0 or -errno.
 */
int ts_exp_result_write_unrun(const struct ts_exp_run *run, const char *path, const char *error);

/* Add @flag to @r's flags unless it is there already. */
int ts_exp_result_flag(struct ts_exp_result *r, const char *flag);

/* The value of axis @axis of @r, or NULL. */
const char *ts_exp_result_axis(const struct ts_exp_result *r, const char *axis);

/* Did the run's emulator fall behind (a "fell_behind:DIR" flag, set by the executor)? */
bool ts_exp_result_fell_behind(const struct ts_exp_result *r);

#endif

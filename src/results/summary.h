/* SPDX-License-Identifier: MIT */
/*
 * Summaries across an experiment's matrix: per configuration, the
 * metrics of docs/experiments.md ("Summary") over its repetitions,
 * computed only from result.json files, so a results directory can be
 * summarised again at any time (exp check, report, merge of shards).
 * Writers for summary.json, summary.csv and summary.md, and for the
 * directory's experiment.json (the plan and the skipped congestion
 * controls). Pure apart from reading and writing those files.
 */
#ifndef TS_RESULTS_SUMMARY_H
#define TS_RESULTS_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "tasshape/err.h"

#include "plan/matrix.h"
#include "results/result.h"

/* A metric over repetitions (one value per run). n = 0: no value; n < 2: no interval. */
struct ts_exp_mstat {
	size_t n;
	double mean, min, max, lo, hi;
};

/* A latency distribution pooled over every sample of every repetition. */
struct ts_exp_lstat {
	size_t n; /* samples */
	double p50, p95, p99, mean;
};

struct ts_exp_acc;

struct ts_exp_sum_config {
	char *id;
	size_t naxes;
	struct ts_exp_axis_val axes[TS_EXP_MAX_AXES]; /* owned */
	unsigned n;				      /* runs done with "ok": true */
	unsigned failed;			      /* runs with "ok": false */
	unsigned fell_behind;			      /* runs whose emulator fell behind */
	double worst_release_p99_us;		      /* the worst direction's p99 among those */
	bool skipped;				      /* its congestion control is unavailable */
	struct ts_exp_mstat thr_up, thr_down, retransmits, jain_up, jain_down;
	struct ts_exp_lstat icmp, udp;
	size_t nflags;
	char *flags[TS_EXP_MAX_FLAGS]; /* union of its runs' flags */
	struct ts_exp_acc *acc;	       /* per-run values and pooled samples behind the statistics */
};

struct ts_exp_skip {
	char *cca, *why;
};

/*
 * Limits of a summary (and so of exp report, exp check, exp merge), which
 * reads what anyone may have written: at most as many configurations as the
 * largest matrix exp run plans, at most as many skipped congestion controls
 * as a spec's cca axis may list. More is refused, naming the limit, before
 * anything is declared.
 */
#define TS_EXP_SUM_MAX_CONFIGS TS_EXP_MAX_CONFIGS
#define TS_EXP_SUM_MAX_SKIPPED TS_EXP_MAX_VALUES

struct ts_exp_summary {
	char *name;
	size_t nconfigs;
	struct ts_exp_sum_config *configs;
	size_t nskipped;
	struct ts_exp_skip *skipped;
	unsigned runs, failed, fell_behind;
	size_t cap; /* configs allocated */
	void *ids;  /* the configurations by id (a tsearch tree: no linear search per id) */
};

void ts_exp_summary_init(struct ts_exp_summary *s, const char *name);
void ts_exp_summary_free(struct ts_exp_summary *s);

/*
 * ts_exp_id_is_dirname - whether configuration id @id may name a directory
 * of the results directory: not NULL or empty, at most NAME_MAX bytes, no
 * '/', not "." or "..". Ids come from files anyone may have written, and the
 * report reads DIR/ID/rep-N: an id such as "../../x" must not lead it out.
 */
bool ts_exp_id_is_dirname(const char *id);

/*
 * Declare a configuration (so it is listed, in this order, even with no
 * run). -EINVAL when @id is not a directory name (ts_exp_id_is_dirname),
 * -E2BIG when @s has TS_EXP_SUM_MAX_CONFIGS configurations already.
 */
int ts_exp_summary_declare(struct ts_exp_summary *s, const char *id,
			   const struct ts_exp_axis_val *axes, size_t naxes);

/*
 * Record that congestion control @cca could not run, and why; its configurations are marked.
 * -E2BIG when TS_EXP_SUM_MAX_SKIPPED are recorded already.
 */
int ts_exp_summary_skip(struct ts_exp_summary *s, const char *cca, const char *why);

/*
 * ts_exp_summary_add - fold the results @res[0..n) into @s: each one's
 * configuration declared if new, its values and flags added (a run is
 * counted as fallen behind by the executor's "fell_behind:DIR" flags),
 * and every configuration's statistics computed again. Returns 0,
 * -EINVAL when a result's id is not a directory name, -E2BIG when it
 * would be configuration TS_EXP_SUM_MAX_CONFIGS + 1, or -ENOMEM.
 */
int ts_exp_summary_add(struct ts_exp_summary *s, struct ts_exp_result *res, size_t n);

/*
 * ts_exp_summary_from_dir - summarise the results directory @dir: its
 * experiment.json when present (name, configurations in plan order,
 * skipped congestion controls), then every DIR/ID/rep-K/result.json.
 * Returns 0, or a negative errno with @err naming the file at fault
 * (-E2BIG: more configurations or skipped controls than the limits above,
 * or more than TS_EXP_MAX_RUNS results, refused before the next is read).
 */
int ts_exp_summary_from_dir(struct ts_exp_summary *s, const char *dir, struct ts_err *err);

const struct ts_exp_sum_config *ts_exp_summary_find(const struct ts_exp_summary *s, const char *id);

/* The value of axis @axis of @c, or NULL. */
const char *ts_exp_sum_axis(const struct ts_exp_sum_config *c, const char *axis);

/* Writers: 0, or -EIO when the stream failed. */
int ts_exp_summary_write_json(const struct ts_exp_summary *s, FILE *f);
int ts_exp_summary_write_csv(const struct ts_exp_summary *s, FILE *f);
int ts_exp_summary_write_md(const struct ts_exp_summary *s, FILE *f);

/* Write summary.json, summary.csv and summary.md into @dir; -errno with @err. */
int ts_exp_summary_write_all(const struct ts_exp_summary *s, const char *dir, struct ts_err *err);

/*
 * ts_exp_matrix_write_json - write @plan (configurations, runs in order)
 * and the skipped congestion controls of @s (may be NULL) as
 * experiment.json, the record that lets a directory be summarised,
 * resumed or merged without the spec.
 */
int ts_exp_matrix_write_json(const struct ts_exp_matrix *plan, const struct ts_exp_summary *s,
			     FILE *f);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What an experiment directory was asked to run: <out>/experiment.json
 * (written by exp run before any run, summary.h), with a copy of the spec
 * beside it (<out>/spec.ini). The parts resume and merge read: the spec's
 * SHA-256, every run of the whole matrix in order, and the shard of it
 * this directory runs ("shard", absent for the whole matrix), so resume
 * can tell a changed spec from the same one, and merge which runs of the
 * matrix are missing or were run twice, without reading the spec again.
 *
 *   {"version": 1, "spec_sha256": "...", "spec": "docs/examples/x.ini", "shard": "2/4",
 *    "runs": [{"index": 1, "rep": 1, "seed": 2, "id": "cca=bbr,..."}, ...], ...}
 *
 * Shards: --shard i/N (1 <= i <= N) takes the runs whose position in the
 * run order is i, i + N, i + 2N, ... (ts_exp_plan_shard): a pure function
 * of the order, which a spec and its seed fix, so the same spec and seed
 * always give every shard the same runs.
 */
#ifndef TS_RESULTS_EXPDIR_H
#define TS_RESULTS_EXPDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "tasshape/err.h"

struct json_object;

#define TS_EXPDIR_FILE "experiment.json"
#define TS_EXPDIR_SPEC "spec.ini"

struct ts_exp_shard {
	unsigned i, n; /* shard i of n, 1-based; {1, 1}: the whole matrix */
};

/*
 * ts_exp_shard_parse - "i/N" into @sh: decimal, 1 <= i <= N <= 100000, nothing
 * else. Returns 0, or -EINVAL with @err saying what was expected.
 */
int ts_exp_shard_parse(const char *s, struct ts_exp_shard *sh, struct ts_err *err);

struct ts_expdir_run {
	char *id;
	unsigned rep, index;
};

struct ts_expdir {
	char *spec_sha256, *spec; /* "" when unknown */
	struct ts_exp_shard shard;
	size_t n;		    /* runs of the whole matrix */
	struct ts_expdir_run *runs; /* in run order */
	struct json_object *doc;    /* the whole record as read (written back with its shard) */
};

/* ts_expdir_add - append a run (copies @id). Returns 0 or -ENOMEM. */
int ts_expdir_add(struct ts_expdir *p, const char *id, unsigned rep, unsigned index);

void ts_expdir_free(struct ts_expdir *p);

/*
 * ts_expdir_write - @dir/experiment.json (atomically): @p's record as read
 * with its "shard" set from @p, or, for a plan built with ts_expdir_add,
 * one of its fields alone. 0 or a negative errno with @err.
 */
int ts_expdir_write(const char *dir, const struct ts_expdir *p, struct ts_err *err);

/*
 * ts_expdir_read - @dir/experiment.json into @p (zeroed first; free with
 * ts_expdir_free). Returns 0, -ENOENT when there is none (with @err), or
 * -EINVAL with @err naming the file and what is wrong.
 */
int ts_expdir_read(const char *dir, struct ts_expdir *p, struct ts_err *err);

/* ts_expdir_same_runs - do @a and @b list the same runs in the same order? */
bool ts_expdir_same_runs(const struct ts_expdir *a, const struct ts_expdir *b);

/*
 * ts_expdir_check_fresh - may exp run start in @dir? Returns 0 when @dir
 * does not exist or is empty; -EEXIST when it holds anything, with @err
 * saying that results are there and naming exp resume.
 */
int ts_expdir_check_fresh(const char *dir, struct ts_err *err);

/*
 * ts_expdir_copy_spec - copy @spec_path to @dir/spec.ini (created with its
 * parents), unless it is that file already. Returns 0 or a negative errno
 * with @err.
 */
int ts_expdir_copy_spec(const char *dir, const char *spec_path, struct ts_err *err);

/*
 * ts_expdir_spec - the copy of the spec kept in @dir (@dir/spec.ini, what
 * exp resume reads when given no SPEC) into @path (@len bytes). Returns 0
 * when it can be read, or a negative errno with @err ("PATH: reason").
 */
int ts_expdir_spec(const char *dir, char *path, size_t len, struct ts_err *err);

enum ts_resume_action {
	TS_RESUME_KEEP = 1, /* done and intact: not run again */
	TS_RESUME_RUN = 0,  /* not done: run it (a partial directory was removed) */
};

/*
 * ts_expdir_prepare_run - before run @r of the resumed experiment in @dir:
 * a run whose done record is intact is kept; a partial one (no record, or
 * files that no longer match it) is removed so that it runs again from an
 * empty directory, with @why saying what was wrong (empty when there was
 * nothing). The removal stays inside @dir/<id> (io/rmtree.h), and only
 * when that configuration directory is a directory of root or the
 * invoking user, not a link: anything else is refused before anything is
 * removed. A run directory that ts_done_check refuses to read (a FIFO, a
 * link, too deep) is refused too. Returns a ts_resume_action, or a
 * negative errno with @why.
 */
int ts_expdir_prepare_run(const char *dir, const struct ts_expdir_run *r, struct ts_err *why);

/*
 * ts_expdir_mkdirs - create @path and its missing parents (mode 0755), or check an existing
 * one, as ts_out_mkdir does (the reason goes to stderr). Returns 0 or -errno.
 */
int ts_expdir_mkdirs(const char *path);

#endif

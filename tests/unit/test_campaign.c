/* SPDX-License-Identifier: MIT */
/*
 * The campaign driven whole with a fake executor: made-up results written
 * into a temporary directory, no root, no network. The plan, built by hand:
 *
 *   configurations A cca=cubic, B cca=bbr, C cca=nosuch (all test=tcp_upload), two
 *   repetitions, interleaved: index 1 A rep 1, 2 B rep 1, 3 C rep 1, 4 A rep 2,
 *   5 B rep 2, 6 C rep 2.
 *
 * The fake's congestion-control probe refuses "nosuch" (unless told to accept
 * everything), so C is skipped: four runs, 1, 2, 4 and 5. Run k reports one
 * upload flow of 10 * k Mbit/s (two samples of it, so its Flent file can be written and no
 * notice but the skip is expected): A's mean is (10 + 40) / 2 = 25, B's (20 + 50) / 2 = 35.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "campaign/campaign.h"
#include "results/checks.h"
#include "results/done.h"
#include "results/expdir.h"
#include "results/result.h"
#include "tsu.h"

#define NCONF 3
#define NRUNS 6

static const char *const ccas[NCONF] = {"cubic", "bbr", "nosuch"};
static const char *const ids[NCONF] = {"cca=cubic,test=tcp_upload", "cca=bbr,test=tcp_upload",
				       "cca=nosuch,test=tcp_upload"};

struct fixture {
	char dir[64], spec_path[128], out[128], log[128];
	struct ts_exp_spec spec;
	struct ts_exp_config configs[NCONF];
	struct ts_exp_run runs[NRUNS];
	struct ts_exp_matrix plan;
};

static void make_run(struct ts_exp_run *r, size_t conf)
{
	memset(r, 0, sizeof(*r));
	r->config_id = ids[conf];
	r->naxes = 2;
	r->axes[0] = (struct ts_exp_axis_val){"cca", ccas[conf]};
	r->axes[1] = (struct ts_exp_axis_val){"test", "tcp_upload"};
	r->cca = ccas[conf];
	r->test = "tcp_upload";
	r->upload_streams = 1;
	r->length = 10 * TS_NSEC_PER_SEC;
	r->delay = 2 * TS_NSEC_PER_SEC;
	r->tas_shift_startup = r->tas_shift_steady = -1;
	r->nservers = 1;
}

static void fixture_init(struct fixture *f)
{
	size_t i;
	FILE *s;

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/tasshape-test-campaign.XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(f->dir) != NULL);
	snprintf(f->spec_path, sizeof(f->spec_path), "%s/t.ini", f->dir);
	snprintf(f->out, sizeof(f->out), "%s/out", f->dir);
	snprintf(f->log, sizeof(f->log), "%s/calls", f->dir);
	s = fopen(f->spec_path, "w");
	CU_ASSERT_FATAL(s != NULL);
	fputs("[experiment]\nname = t\n", s);
	fclose(s);
	f->spec.path = f->spec_path;
	f->spec.name = (char *)"t";
	f->spec.repetitions = 2;
	f->spec.seed = 1;
	for (i = 0; i < NCONF; i++) {
		f->configs[i].id = (char *)ids[i];
		make_run(&f->configs[i].tmpl, i);
	}
	for (i = 0; i < NRUNS; i++) {
		make_run(&f->runs[i], i % NCONF);
		f->runs[i].rep = (unsigned)(i / NCONF + 1);
		f->runs[i].index = (unsigned)(i + 1);
		f->runs[i].seed = 1 + f->runs[i].rep;
	}
	f->plan = (struct ts_exp_matrix){&f->spec, 2, NCONF, f->configs, NRUNS, f->runs};
}

static void fixture_free(struct fixture *f)
{
	char cmd[256];

	/* Only the mkdtemp directory this test made. */
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", f->dir);
	TSU_EQ(system(cmd), 0);
}

/* ---- the fake executor -------------------------------------------------------------------- */

struct fake {
	const char *log;    /* every call appended: "index\n" (in a worker process too) */
	const char *refuse; /* the congestion control the probe refuses, or NULL */
	unsigned fail;	    /* the run written with "ok": false */
	unsigned no_start;  /* the run that cannot start (-EIO) */
	unsigned flag;	    /* the run flagged flag_name */
	const char *flag_name;
	unsigned stop_after; /* set *stop to SIGTERM after this run */
	volatile sig_atomic_t *stop;
	ts_ns_t clock; /* the executor's clock: one second later at every reading */
};

static ts_ns_t fake_now(void *ctx)
{
	struct fake *k = ctx;

	k->clock += TS_NSEC_PER_SEC;
	return k->clock;
}

static int fake_probe(void *ctx, const char *cca, struct ts_err *why)
{
	const struct fake *k = ctx;

	if (!k->refuse || strcmp(cca, k->refuse))
		return 0;
	ts_err_set(why, "%s: module not loaded", cca);
	return -ENOENT;
}

static int fake_run(void *ctx, const struct ts_exp_run *run, const char *rundir, struct ts_err *err)
{
	const struct fake *k = ctx;
	char path[PATH_MAX], line[32];
	FILE *f;
	int fd, n;

	fd = open(k->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = snprintf(line, sizeof(line), "%u\n", run->index);
	if (write(fd, line, (size_t)n) != n)
		n = -1;
	close(fd);
	if (n < 0)
		return -EIO;
	if (run->index == k->stop_after && k->stop)
		*k->stop = SIGTERM;
	if (run->index == k->no_start) {
		ts_err_set(err, "fake: no namespaces today");
		return -EIO;
	}
	snprintf(path, sizeof(path), "%s/result.json", rundir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f,
		"{\"version\":1,\"id\":\"%s\",\"rep\":%u,\"index\":%u,\"seed\":%llu,"
		"\"axes\":{\"cca\":\"%s\",\"test\":\"tcp_upload\"},\"test\":\"tcp_upload\","
		"\"t0\":1700000000.5,\"length_s\":10,\"delay_s\":2,\"ok\":%s,\"error\":%s,"
		"\"flags\":[%s%s%s],"
		"\"flows\":[{\"name\":\"TCP up\",\"dir\":\"up\",\"throughput_mbps\":%u,"
		"\"retransmits\":0,\"series\":{\"t\":[3,4],\"mbps\":[%u,%u]}}],\"latency\":[]}\n",
		run->config_id, run->rep, run->index, (unsigned long long)run->seed, run->cca,
		run->index == k->fail ? "false" : "true",
		run->index == k->fail ? "\"fake: the flows failed\"" : "null",
		run->index == k->flag ? "\"" : "", run->index == k->flag ? k->flag_name : "",
		run->index == k->flag ? "\"" : "", 10 * run->index, 10 * run->index,
		10 * run->index);
	return fclose(f) ? -EIO : 0;
}

/* The indexes the executor was called for, in call order; their count. */
static size_t calls(const char *log, unsigned *idx, size_t max)
{
	FILE *f = fopen(log, "r");
	size_t n = 0;

	if (!f)
		return 0;
	while (n < max && fscanf(f, "%u", &idx[n]) == 1)
		n++;
	fclose(f);
	return n;
}

/* ---- the report: what the front end would print, recorded --------------------------------- */

struct seen {
	char notices[8][512];
	size_t nnotices;
	size_t begin_total, nstart, nend, nsummary, ends;
	size_t end_pos[NRUNS], end_total[NRUNS];
	unsigned end_index[NRUNS];
	ts_ns_t took[NRUNS];
	double mean_a, mean_b; /* throughput_up means of A and B in the summary */
};

static void on_notice(void *ctx, const char *msg)
{
	struct seen *s = ctx;

	if (s->nnotices < 8)
		snprintf(s->notices[s->nnotices++], sizeof(s->notices[0]), "%s", msg);
}

static void on_begin(void *ctx, size_t total)
{
	((struct seen *)ctx)->begin_total = total;
}

static void on_start(void *ctx, const struct ts_exp_run *run, size_t pos, size_t total)
{
	(void)run;
	(void)pos;
	(void)total;
	((struct seen *)ctx)->nstart++;
}

static void on_run_end(void *ctx, const struct ts_exp_run *run, size_t pos, size_t total,
		       const char *result, ts_ns_t took)
{
	struct seen *s = ctx;

	(void)result;
	if (s->nend < NRUNS) {
		s->took[s->nend] = took;
		s->end_pos[s->nend] = pos;
		s->end_total[s->nend] = total;
		s->end_index[s->nend] = run->index;
	}
	s->nend++;
}

static void on_end(void *ctx)
{
	((struct seen *)ctx)->ends++;
}

static void on_summary(void *ctx, const struct ts_exp_summary *sum, const char *out)
{
	struct seen *s = ctx;
	const struct ts_exp_sum_config *a = ts_exp_summary_find(sum, ids[0]);
	const struct ts_exp_sum_config *b = ts_exp_summary_find(sum, ids[1]);

	(void)out;
	s->nsummary++;
	s->mean_a = a && a->n ? a->thr_up.mean : -1;
	s->mean_b = b && b->n ? b->thr_up.mean : -1;
}

static int campaign(struct fixture *f, struct ts_campaign_opts *o, struct fake *k, struct seen *s,
		    struct ts_campaign_verdict *v)
{
	const struct ts_campaign_executor ex = {k, NULL, fake_probe, fake_run, fake_now};
	const struct ts_campaign_report rep = {s,	   on_notice, on_begin,	 on_start,
					       on_run_end, on_end,    on_summary};

	o->out = f->out;
	o->spec_path = f->spec_path;
	k->log = f->log;
	if (!k->refuse)
		k->refuse = "nosuch";
	return ts_campaign_run(&f->plan, o, &ex, &rep, v);
}

/*
 * A campaign with the one check @expr, parsed and resolved against the plan as exp run does:
 * the campaign evaluates it on the summary itself, and writes its line and the count.
 */
static int check_campaign(struct fixture *f, const char *expr, struct fake *k, struct seen *s,
			  struct ts_campaign_verdict *v)
{
	struct ts_campaign_opts o = {0};
	struct ts_exp_check *checks = NULL;
	char *exprs[1] = {(char *)expr}, *text = NULL;
	struct ts_err err;
	size_t len = 0;
	int ret;

	TSU_EQ(ts_exp_checks_for_plan(exprs, 1, &f->plan, &checks, &err), 0);
	o.checks = checks;
	o.nchecks = 1;
	o.checks_out = open_memstream(&text, &len);
	CU_ASSERT_FATAL(o.checks_out != NULL);
	memset(s, 0, sizeof(*s));
	ret = campaign(f, &o, k, s, v);
	fclose(o.checks_out);
	CU_ASSERT(strstr(text, v->checks_failed ? "checks: 1, 1 failed\n"
						: "checks: 1, 0 failed\n") != NULL);
	CU_ASSERT(strstr(text, expr) != NULL);
	free(text);
	free(checks);
	return ret;
}

static bool done(const struct fixture *f, size_t conf, unsigned rep)
{
	char dir[PATH_MAX];
	struct ts_err why;

	snprintf(dir, sizeof(dir), "%s/%s/rep-%u", f->out, ids[conf], rep);
	return ts_done_check(dir, &why) == TS_DONE_OK;
}

/* ---- the tests ---------------------------------------------------------------------------- */

/* The whole plan, one run after the other: run order, the skipped control, the summary. */
static void test_order_and_skip(void)
{
	struct ts_campaign_opts o = {0};
	struct ts_campaign_verdict v;
	struct fake k = {0};
	struct seen s = {0};
	struct fixture f;
	unsigned idx[16];
	size_t i;

	fixture_init(&f);
	TSU_EQ(campaign(&f, &o, &k, &s, &v), 0);
	TSU_EQ(calls(f.log, idx, 16), 4);
	TSU_EQ(idx[0], 1);
	TSU_EQ(idx[1], 2);
	TSU_EQ(idx[2], 4);
	TSU_EQ(idx[3], 5);
	/* The skip is said once, with the probe's reason, and recorded. */
	TSU_EQ(s.nnotices, 1);
	CU_ASSERT_STRING_EQUAL(s.notices[0], "exp: skipping cca=nosuch: nosuch: module not loaded");
	TSU_EQ(v.skipped_ccas, 1);
	/* Progress: 4 to do, each one started and ended at its position, 1/4 .. 4/4. */
	TSU_EQ(s.begin_total, 4);
	TSU_EQ(s.nstart, 4);
	TSU_EQ(s.nend, 4);
	TSU_EQ(s.ends, 1);
	/* The duration of each run is read from the executor's clock: one tick, exactly. */
	for (i = 0; i < 4; i++) {
		TSU_EQ(s.end_pos[i], i + 1);
		TSU_EQ(s.end_total[i], 4);
		TSU_EQ(s.end_index[i], idx[i]);
		TSU_EQ(s.took[i], TS_NSEC_PER_SEC);
	}
	TSU_EQ(v.selected, 4);
	TSU_EQ(v.carried, 4);
	TSU_EQ(v.runs, 4);
	TSU_EQ(v.failed, 0);
	TSU_EQ(v.fell_behind, 0);
	TSU_EQ(v.tcg, 0);
	TSU_EQ(v.stop_signal, 0);
	TSU_EQ(s.nsummary, 1);
	CU_ASSERT_DOUBLE_EQUAL(s.mean_a, 25, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(s.mean_b, 35, 1e-12);
	CU_ASSERT(done(&f, 0, 1) && done(&f, 0, 2) && done(&f, 1, 1) && done(&f, 1, 2));
	CU_ASSERT(!done(&f, 2, 1));
	TSU_EQ(ts_campaign_status(&v), 0);

	/* The directory is not empty now: a second exp run into it is refused before any run. */
	TSU_EQ(campaign(&f, &o, &k, &s, &v), -EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(v.msg, "not empty (results are never mixed)"));
	TSU_EQ(calls(f.log, idx, 16), 4);
	TSU_EQ(ts_campaign_status(&v), 1);
	fixture_free(&f);
}

/* --strict: an unavailable control fails the campaign before its first run. */
static void test_strict_skip(void)
{
	struct ts_campaign_opts o = {.strict = true};
	struct ts_campaign_verdict v;
	struct fake k = {0};
	struct seen s = {0};
	struct fixture f;
	unsigned idx[16];

	fixture_init(&f);
	TSU_EQ(campaign(&f, &o, &k, &s, &v), -ENOENT);
	CU_ASSERT_STRING_EQUAL(v.msg,
			       "exp: cca=nosuch cannot run: nosuch: module not loaded (--strict)");
	TSU_EQ(calls(f.log, idx, 16), 0);
	TSU_EQ(s.begin_total, 0);
	TSU_EQ(s.nsummary, 0);
	TSU_EQ(ts_campaign_status(&v), 1);
	fixture_free(&f);
}

/* --shard i/N: the runs at positions i, i + N, ... of the order, and the shard recorded. */
static void test_shards(void)
{
	struct ts_campaign_opts o = {.shard = {1, 2}, .shard_given = true};
	struct ts_campaign_verdict v;
	struct fake k = {0};
	struct seen s = {0};
	struct ts_expdir rec;
	struct fixture f;
	unsigned idx[16];
	struct ts_err err;

	fixture_init(&f);
	/* 1/2: positions 1, 3, 5; 3 is C (skipped): runs 1 (A rep 1) and 5 (B rep 2). */
	TSU_EQ(campaign(&f, &o, &k, &s, &v), 0);
	TSU_EQ(calls(f.log, idx, 16), 2);
	TSU_EQ(idx[0], 1);
	TSU_EQ(idx[1], 5);
	TSU_EQ(v.selected, 2);
	TSU_EQ(v.runs, 2);
	CU_ASSERT_DOUBLE_EQUAL(s.mean_a, 10, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(s.mean_b, 50, 1e-12);
	TSU_EQ(ts_expdir_read(f.out, &rec, &err), 0);
	TSU_EQ(rec.shard.i, 1);
	TSU_EQ(rec.shard.n, 2);
	TSU_EQ(rec.n, 6); /* the whole matrix is recorded, for merge */
	ts_expdir_free(&rec);
	fixture_free(&f);

	/* 3/3: positions 3 and 6, both C: nothing to run, an empty summary, exit 0. */
	fixture_init(&f);
	o.shard = (struct ts_exp_shard){3, 3};
	memset(&s, 0, sizeof(s));
	TSU_EQ(campaign(&f, &o, &k, &s, &v), 0);
	TSU_EQ(calls(f.log, idx, 16), 0);
	TSU_EQ(v.selected, 0);
	TSU_EQ(v.runs, 0);
	TSU_EQ(ts_campaign_status(&v), 0);
	fixture_free(&f);
}

/*
 * A campaign stopped by a signal after its second run (exit 128 + 15), a third run left
 * half-written, then resumed: only the runs not done are carried out, in order.
 */
static void test_resume(void)
{
	volatile sig_atomic_t stop = 0;
	struct ts_campaign_opts o = {.stop = &stop};
	struct ts_campaign_verdict v;
	struct fake k = {.stop_after = 2, .stop = &stop};
	struct seen s = {0};
	struct fixture f;
	unsigned idx[16];
	char path[PATH_MAX];
	FILE *p;

	fixture_init(&f);
	TSU_EQ(campaign(&f, &o, &k, &s, &v), 0);
	TSU_EQ(calls(f.log, idx, 16), 2);
	TSU_EQ(v.stop_signal, SIGTERM);
	TSU_EQ(v.selected, 4);
	TSU_EQ(v.carried, 2);
	TSU_EQ(v.runs, 2);
	TSU_EQ(ts_campaign_status(&v), 128 + SIGTERM);
	TSU_EQ(s.nnotices, 2);
	CU_ASSERT_STRING_EQUAL(s.notices[1],
			       "exp: stopped by signal 15 after 2 of 4 runs; summarising those");
	/* Run 4 (A rep 2) was under way when the host went down: a partial directory. */
	snprintf(path, sizeof(path), "%s/%s/rep-2", f.out, ids[0]);
	TSU_EQ(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/rep-2/stats.csv", f.out, ids[0]);
	p = fopen(path, "w");
	CU_ASSERT_FATAL(p != NULL);
	fputs("t_ms,dir\n", p);
	fclose(p);

	/* Another spec: refused, nothing run. */
	o = (struct ts_campaign_opts){.resume = true, .spec_sha256 = "00ff"};
	k = (struct fake){0};
	memset(&s, 0, sizeof(s));
	TSU_EQ(campaign(&f, &o, &k, &s, &v), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(v.msg, "exp resume: the spec differs"));
	TSU_EQ(calls(f.log, idx, 16), 2);

	o.spec_sha256 = NULL; /* the same spec (no hash recorded, none given) */
	TSU_EQ(campaign(&f, &o, &k, &s, &v), 0);
	TSU_EQ(calls(f.log, idx, 16), 4);
	TSU_EQ(idx[2], 4);
	TSU_EQ(idx[3], 5);
	TSU_EQ(v.selected, 2);
	TSU_EQ(v.carried, 2);
	TSU_EQ(v.runs, 4);
	TSU_EQ(v.stop_signal, 0);
	TSU_EQ(ts_campaign_status(&v), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.mean_a, 25, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(s.mean_b, 35, 1e-12);
	/* The skip again, then the partial run named as redone. */
	TSU_EQ(s.nnotices, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(s.notices[1], "exp resume: redoing "));
	CU_ASSERT(done(&f, 0, 2));
	/* The stats.csv of the partial run is gone: the fake wrote result.json alone. */
	CU_ASSERT(access(path, F_OK) < 0);
	fixture_free(&f);
}

/*
 * A stop signal that made the run under way fail (Slurm, Kubernetes and a terminal's ^C signal
 * every process of the job, the run's iperf3 too): that run is recorded as not run, without a
 * done record, so resume carries it out again instead of keeping the failure it caused.
 */
static void test_stop_fails_run(void)
{
	volatile sig_atomic_t stop = 0;
	struct ts_campaign_opts o = {.stop = &stop};
	struct ts_campaign_verdict v;
	struct fake k = {.fail = 2, .stop_after = 2, .stop = &stop};
	struct seen s = {0};
	struct fixture f;
	struct ts_exp_result r;
	unsigned idx[16];
	char path[PATH_MAX];
	struct ts_err err;

	fixture_init(&f);
	TSU_EQ(campaign(&f, &o, &k, &s, &v), 0);
	TSU_EQ(calls(f.log, idx, 16), 2);
	TSU_EQ(ts_campaign_status(&v), 128 + SIGTERM);
	CU_ASSERT(done(&f, 0, 1));
	CU_ASSERT(!done(&f, 1, 1));
	snprintf(path, sizeof(path), "%s/%s/rep-1/result.json", f.out, ids[1]);
	TSU_EQ(ts_exp_result_load(&r, path, &err), 0);
	CU_ASSERT(!r.ok);
	TSU_EQ(r.nflags, 1);
	CU_ASSERT_FATAL(r.nflags == 1 && r.error);
	CU_ASSERT_STRING_EQUAL(r.flags[0], "not_run");
	CU_ASSERT_STRING_EQUAL(r.error, "stopped by signal 15 while under way: it failed then; "
					"exp resume runs it again");
	ts_exp_result_free(&r);
	TSU_EQ(v.runs, 2);
	TSU_EQ(v.failed, 1);

	o = (struct ts_campaign_opts){.resume = true};
	k = (struct fake){0};
	memset(&s, 0, sizeof(s));
	TSU_EQ(campaign(&f, &o, &k, &s, &v), 0);
	TSU_EQ(calls(f.log, idx, 16), 5);
	TSU_EQ(idx[2], 2);
	TSU_EQ(idx[3], 4);
	TSU_EQ(idx[4], 5);
	TSU_EQ(v.runs, 4);
	TSU_EQ(v.failed, 0);
	TSU_EQ(ts_campaign_status(&v), 0);
	CU_ASSERT(done(&f, 1, 1));
	fixture_free(&f);
}

/* --jobs 2: every run once, by worker processes; the same verdict and summary as one by one. */
static void test_jobs(void)
{
	static const int cpus[4] = {0, 0, 0, 0}; /* two CPUs per job, whatever this host has */
	struct ts_campaign_opts o = {.jobs = 2, .cpus = cpus, .ncpus = 4};
	struct ts_campaign_verdict v;
	struct fake k = {0};
	struct seen s = {0};
	struct fixture f;
	unsigned idx[16], seen_idx[7] = {0};
	size_t i, n;

	fixture_init(&f);
	TSU_EQ(campaign(&f, &o, &k, &s, &v), 0);
	n = calls(f.log, idx, 16);
	TSU_EQ(n, 4);
	for (i = 0; i < n; i++)
		if (idx[i] < 7)
			seen_idx[idx[i]]++;
	TSU_EQ(seen_idx[1], 1);
	TSU_EQ(seen_idx[2], 1);
	TSU_EQ(seen_idx[4], 1);
	TSU_EQ(seen_idx[5], 1);
	/* Overlapping runs get no start callback; each end says its position out of 4. */
	TSU_EQ(s.nstart, 0);
	TSU_EQ(s.nend, 4);
	for (i = 0; i < 4; i++)
		TSU_EQ(s.end_total[i], 4);
	TSU_EQ(s.end_pos[0] + s.end_pos[1] + s.end_pos[2] + s.end_pos[3], 1 + 2 + 3 + 4);
	TSU_EQ(v.selected, 4);
	TSU_EQ(v.carried, 4);
	TSU_EQ(v.runs, 4);
	TSU_EQ(v.failed, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.mean_a, 25, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(s.mean_b, 35, 1e-12);
	CU_ASSERT(done(&f, 0, 1) && done(&f, 0, 2) && done(&f, 1, 1) && done(&f, 1, 2));
	TSU_EQ(ts_campaign_status(&v), 0);
	fixture_free(&f);

	/* Three jobs of two CPUs do not fit in four: refused before any run. */
	fixture_init(&f);
	o.jobs = 3;
	TSU_EQ(campaign(&f, &o, &k, &s, &v), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(v.msg, "--jobs 3: this host lets tasshape use 4 CPUs"));
	CU_ASSERT_PTR_NOT_NULL(strstr(v.msg, "at most 2 jobs here"));
	TSU_EQ(calls(f.log, idx, 16), 0);
	fixture_free(&f);
}

/* The exit policy of exp run, kept: failures, flags with and without --strict, checks. */
static void test_verdict(void)
{
	struct ts_campaign_opts o = {0};
	struct ts_campaign_verdict v;
	struct fake k;
	struct seen s;
	struct fixture f;

	/* Run 2 failed: exit 1. */
	fixture_init(&f);
	k = (struct fake){.fail = 2};
	memset(&s, 0, sizeof(s));
	TSU_EQ(campaign(&f, &o, &k, &s, &v), 0);
	TSU_EQ(v.runs, 4);
	TSU_EQ(v.failed, 1);
	TSU_EQ(ts_campaign_status(&v), 1);
	fixture_free(&f);

	/* Run 4 could not start: recorded as failed, not done (resume will try it again). */
	fixture_init(&f);
	k = (struct fake){.no_start = 4};
	TSU_EQ(campaign(&f, &o, &k, &s, &v), 0);
	TSU_EQ(v.runs, 4);
	TSU_EQ(v.failed, 1);
	CU_ASSERT(!done(&f, 0, 2));
	CU_ASSERT(done(&f, 0, 1));
	TSU_EQ(ts_campaign_status(&v), 1);
	fixture_free(&f);

	/* Run 1's emulator fell behind: reported, exit 0; --strict: exit 1. */
	fixture_init(&f);
	k = (struct fake){.flag = 1, .flag_name = "fell_behind:up"};
	TSU_EQ(campaign(&f, &o, &k, &s, &v), 0);
	TSU_EQ(v.fell_behind, 1);
	TSU_EQ(v.failed, 0);
	TSU_EQ(ts_campaign_status(&v), 0);
	fixture_free(&f);
	fixture_init(&f);
	o.strict = true;
	k = (struct fake){.flag = 1, .flag_name = "fell_behind:up", .refuse = "none"};
	TSU_EQ(campaign(&f, &o, &k, &s, &v), 0);
	TSU_EQ(v.fell_behind, 1);
	TSU_EQ(v.runs, 6); /* nothing refused: C runs too */
	TSU_EQ(ts_campaign_status(&v), 1);
	fixture_free(&f);

	/* Run 5 (B) ran under TCG: one configuration flagged; exit 0, --strict 1. */
	fixture_init(&f);
	o.strict = false;
	k = (struct fake){.flag = 5, .flag_name = "tcg"};
	TSU_EQ(campaign(&f, &o, &k, &s, &v), 0);
	TSU_EQ(v.tcg, 1);
	TSU_EQ(v.fell_behind, 0);
	TSU_EQ(ts_campaign_status(&v), 0);
	v.strict = true;
	TSU_EQ(ts_campaign_status(&v), 1);
	fixture_free(&f);

	/* A check failed: exit 1; a stop signal wins over everything but an error. */
	fixture_init(&f);
	k = (struct fake){0};
	TSU_EQ(check_campaign(&f, "tcp_upload[cca=cubic].throughput_up_mbps.mean > 30", &k, &s, &v),
	       0);
	TSU_EQ(v.checks_failed, 1);
	TSU_EQ(ts_campaign_status(&v), 1);
	v.stop_signal = SIGINT;
	TSU_EQ(ts_campaign_status(&v), 128 + SIGINT);
	v.err = -EIO;
	TSU_EQ(ts_campaign_status(&v), 1);
	fixture_free(&f);
	/* The same configuration's mean (25 Mbit/s) under the bound: it passes, exit 0. */
	fixture_init(&f);
	k = (struct fake){0};
	TSU_EQ(check_campaign(&f, "tcp_upload[cca=cubic].throughput_up_mbps.mean < 30", &k, &s, &v),
	       0);
	TSU_EQ(v.checks_failed, 0);
	TSU_EQ(ts_campaign_status(&v), 0);
	fixture_free(&f);
}

static void test_check_jobs(void)
{
	struct ts_err err;

	TSU_EQ(ts_campaign_check_jobs(1, 2, 1, &err), 0);
	TSU_EQ(ts_campaign_check_jobs(2, 0, 4, &err), 0);
	TSU_EQ(ts_campaign_check_jobs(3, 2, 5, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "use 5 CPUs, and each run needs 2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "at most 2 jobs here"));
	TSU_EQ(ts_campaign_check_jobs(2, 1, 2, &err), 0);
	TSU_EQ(ts_campaign_check_jobs(3, 1, 2, &err), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err.msg,
			       "--jobs 3: this host lets tasshape use 2 CPUs, one per guest "
			       "in virtual time: at most 2 jobs here");
}

/*
 * experiment.json is written whole or not at all: a write that fails half-way
 * (RLIMIT_FSIZE below the record's size, in a child process) fails the
 * campaign and leaves no experiment.json and no temporary file, for the whole
 * matrix and for a shard (whose record carries its shard in the same write).
 */
static void half_write(const struct ts_exp_shard *sh)
{
	struct rlimit lim = {256, 256};
	struct ts_campaign_verdict v;
	char path[PATH_MAX];
	struct fake k = {0};
	struct seen s = {0};
	struct fixture f;
	struct dirent *d;
	unsigned names = 0;
	int st = -1;
	DIR *dir;
	pid_t pid;

	fixture_init(&f);
	fflush(NULL);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		struct ts_campaign_opts o = {.shard = *sh, .shard_given = sh->n > 1};

		signal(SIGXFSZ, SIG_IGN); /* the write fails with EFBIG instead */
		if (setrlimit(RLIMIT_FSIZE, &lim) < 0)
			_exit(2);
		_exit(campaign(&f, &o, &k, &s, &v) < 0 ? 0 : 1);
	}
	TSU_EQ(waitpid(pid, &st, 0), pid);
	TSU_EQ(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0);
	snprintf(path, sizeof(path), "%s/%s", f.out, TS_EXPDIR_FILE);
	TSU_EQ(access(path, F_OK) < 0 ? errno : 0, ENOENT);
	dir = opendir(f.out);
	CU_ASSERT_FATAL(dir != NULL);
	while ((d = readdir(dir)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			names++;
	closedir(dir);
	TSU_EQ(names, 0); /* no temporary file either */
	fixture_free(&f);
}

static void test_experiment_whole(void)
{
	const struct ts_exp_shard whole = {1, 1}, shard = {1, 2};

	half_write(&whole);
	half_write(&shard);
}

/* exp run's checks are refused before any run: malformed, or naming no configuration. */
static void test_checks_for_plan(void)
{
	char *bad[1] = {(char *)"tcp_upload[cca=reno].n > 0"};
	char *junk[1] = {(char *)"tcp_upload.n >"};
	struct ts_exp_check *checks = NULL;
	struct fixture f;
	struct ts_err err;

	fixture_init(&f);
	TSU_EQ(ts_exp_checks_for_plan(bad, 1, &f.plan, &checks, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cca=reno"));
	free(checks);
	checks = NULL;
	TSU_EQ(ts_exp_checks_for_plan(junk, 1, &f.plan, &checks, &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "check 'tcp_upload.n >': at column"));
	free(checks);
	fixture_free(&f);
}

static const struct tsu_test tests[] = {
	{"checks refused against the plan", test_checks_for_plan},
	{"run order, a skipped control, the summary", test_order_and_skip},
	{"--strict and an unavailable control", test_strict_skip},
	{"--shard i/N", test_shards},
	{"stopped, then resumed after a partial run", test_resume},
	{"a run that failed when a stop signal came is not done", test_stop_fails_run},
	{"--jobs 2", test_jobs},
	{"the exit verdict", test_verdict},
	{"--jobs limits", test_check_jobs},
	{"experiment.json whole or not at all", test_experiment_whole},
};

TSU_MAIN("campaign", tests)

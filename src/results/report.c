/* SPDX-License-Identifier: MIT */
/* The numbers behind exp report's figures (see report.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "results/dirlist.h"
#include "results/report.h"
#include "results/result.h"
#include "results/rjson.h"
#include "results/rundir.h"
#include "results/stats.h"
#include "results/summary.h"

#define CDF_POINTS 400 /* at most this many points per CDF: enough for a figure */

/* Append @x to *@v (*@n values): the capacity doubles (16, 32, ...), a run adds thousands. */
static int push(double **v, size_t *n, double x)
{
	if (*n == 0 || (*n >= 16 && !(*n & (*n - 1)))) {
		double *nv = realloc(*v, (*n ? 2 * *n : 16) * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	(*v)[(*n)++] = x;
	return 0;
}

/*
 * The seconds of one run's loaded window, each a bin: per bin, the sum over flows of the
 * mean of their intervals ending in it (with how many flows had one), and the sum and count
 * of the ICMP samples in it. Every sample is put in its bin directly, so a run costs its
 * samples plus its seconds, not their product.
 */
struct bins {
	size_t nb, ntouched;
	double delay;
	double *thr, *lsum, *fsum;		    /* fsum: the current flow's, per bin */
	size_t *nthr, *nlat, *fk, *stamp, *touched; /* stamp: the flow (+1) fsum/fk belong to */
};

static void bins_free(struct bins *b)
{
	free(b->thr);
	free(b->lsum);
	free(b->fsum);
	free(b->nthr);
	free(b->nlat);
	free(b->fk);
	free(b->stamp);
	free(b->touched);
}

static int bins_init(struct bins *b, size_t nb, double delay)
{
	size_t n = nb ? nb : 1;

	memset(b, 0, sizeof(*b));
	b->nb = nb;
	b->delay = delay;
	b->thr = calloc(n, sizeof(double));
	b->lsum = calloc(n, sizeof(double));
	b->fsum = calloc(n, sizeof(double));
	b->nthr = calloc(n, sizeof(size_t));
	b->nlat = calloc(n, sizeof(size_t));
	b->fk = calloc(n, sizeof(size_t));
	b->stamp = calloc(n, sizeof(size_t));
	b->touched = calloc(n, sizeof(size_t));
	if (b->thr && b->lsum && b->fsum && b->nthr && b->nlat && b->fk && b->stamp && b->touched)
		return 0;
	bins_free(b);
	return -ENOMEM;
}

/*
 * The bins whose window holds time @t, into @out (at most 3): bin k spans (lo, lo + 1] for
 * throughput (@upper), [lo, lo + 1) for latency, lo = delay + k. The bounds are computed as
 * the per-bin loop computed them, so a sample on a boundary lands where it always did.
 */
static size_t bins_of(const struct bins *b, double t, int upper, size_t out[3])
{
	double x = t - b->delay;
	size_t n = 0;
	long k, k0;

	if (!isfinite(x) || x < -2 || x > (double)b->nb + 2)
		return 0;
	k0 = (long)floor(x);
	for (k = k0 - 1; k <= k0 + 1; k++) {
		double lo = b->delay + (double)k, hi = lo + 1.0;

		if (k < 0 || (size_t)k >= b->nb)
			continue;
		if (upper ? (t > lo && t <= hi) : (t >= lo && t < hi))
			out[n++] = (size_t)k;
	}
	return n;
}

/* Flow @f's throughput series (@t, @v; @n points) into the bins. */
static void bins_flow(struct bins *b, size_t f, json_object *t, json_object *v, size_t n)
{
	size_t j, i, k, in[3];

	b->ntouched = 0;
	for (j = 0; j < n; j++) {
		double tj = json_object_get_double(json_object_array_get_idx(t, j));

		k = bins_of(b, tj, 1, in);
		for (i = 0; i < k; i++) {
			size_t x = in[i];

			if (b->stamp[x] != f + 1) {
				b->stamp[x] = f + 1;
				b->fsum[x] = 0;
				b->fk[x] = 0;
				b->touched[b->ntouched++] = x;
			}
			b->fsum[x] += json_object_get_double(json_object_array_get_idx(v, j));
			b->fk[x]++;
		}
	}
	for (i = 0; i < b->ntouched; i++) {
		size_t x = b->touched[i];

		b->thr[x] += b->fsum[x] / (double)b->fk[x];
		b->nthr[x]++;
	}
}

/* An ICMP probe's samples (@t, @v; @n) into the bins. */
static void bins_ping(struct bins *b, json_object *t, json_object *v, size_t n)
{
	size_t j, i, k, in[3];

	for (j = 0; j < n; j++) {
		k = bins_of(b, json_object_get_double(json_object_array_get_idx(t, j)), 0, in);
		for (i = 0; i < k; i++) {
			b->lsum[in[i]] += json_object_get_double(json_object_array_get_idx(v, j));
			b->nlat[in[i]]++;
		}
	}
}

/* The length of a series pair: both arrays, the shorter one's. */
static size_t pair_len(json_object *s, const char *tk, const char *vk, json_object **t,
		       json_object **v)
{
	size_t nt, nv;

	*t = ts_rj_arr(s, tk, &nt);
	*v = ts_rj_arr(s, vk, &nv);
	return *t && *v ? (nt < nv ? nt : nv) : 0;
}

/*
 * Throughput-latency points of one run: per second of the loaded window,
 * the sum over flows of the mean of their intervals ending in it, and the
 * mean ICMP latency of the samples in it (Flent's ellipsis plot pairs the
 * same two series point by point). A window longer than a spec may ask
 * for (TS_REP_MAX_LENGTH_S) is refused, naming @path.
 */
static int run_points(struct ts_rep_config *c, const struct json_object *res, const char *path,
		      struct ts_err *err)
{
	double delay = ts_rj_num(res, "delay_s", 0), length = ts_rj_num(res, "length_s", 0);
	struct json_object *flows = ts_rj_arr(res, "flows", NULL),
			   *lat = ts_rj_arr(res, "latency", NULL), *t, *v;
	size_t i, n, np;
	struct bins b;
	int ret;

	if (length > TS_REP_MAX_LENGTH_S || fabs(delay) > TS_REP_MAX_LENGTH_S) {
		ts_err_set(err,
			   "%s: \"length_s\" and \"delay_s\": expected at most %d s (24 h, the "
			   "longest a spec may ask for)",
			   path, TS_REP_MAX_LENGTH_S);
		return -EINVAL;
	}
	ret = bins_init(&b, length > 0 ? (size_t)floor(length) : 0, delay);
	if (ret)
		return ret;
	for (i = 0; flows && i < json_object_array_length(flows); i++) {
		n = pair_len(ts_rj_obj(json_object_array_get_idx(flows, i), "series"), "t", "mbps",
			     &t, &v);
		bins_flow(&b, i, t, v, n);
	}
	for (i = 0; lat && i < json_object_array_length(lat); i++) {
		struct json_object *l = json_object_array_get_idx(lat, i);

		if (strcmp(ts_rj_str(l, "kind", ""), "icmp"))
			continue;
		n = pair_len(ts_rj_obj(l, "samples"), "t", "rtt_ms", &t, &v);
		bins_ping(&b, t, v, n);
	}
	for (i = 0; i < b.nb && !ret; i++) {
		if (!b.nthr[i] || !b.nlat[i])
			continue;
		np = c->npts;
		ret = push(&c->pt_lat, &np, b.lsum[i] / (double)b.nlat[i]);
		if (!ret) {
			np = c->npts;
			ret = push(&c->pt_thr, &np, b.thr[i]);
		}
		if (!ret)
			c->npts = np;
	}
	bins_free(&b);
	return ret;
}

static int add_run(struct ts_rep_config *c, const char *rundir, struct ts_err *err)
{
	struct ts_exp_result r;
	struct json_object *raw = NULL;
	char path[PATH_MAX];
	double sum[2] = {0, 0};
	size_t nd[2] = {0, 0}, i;
	int ret;

	if (snprintf(path, sizeof(path), "%s/result.json", rundir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = ts_exp_result_load(&r, path, err);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	if (!r.ok)
		goto out;
	c->nruns++;
	for (i = 0; i < r.nflows; i++) {
		int d = r.flows[i].up ? 0 : 1;

		sum[d] += r.flows[i].throughput_mbps;
		nd[d]++;
	}
	/* As the summary: a direction without flows has no throughput, not 0 Mbit/s. */
	if (nd[0])
		ret = push(&c->up, &c->nup, sum[0]);
	if (!ret && nd[1])
		ret = push(&c->down, &c->ndown, sum[1]);
	for (i = 0; i < r.nicmp && !ret; i++)
		ret = push(&c->icmp, &c->nicmp, r.icmp_ms[i]);
	for (i = 0; i < r.nudp && !ret; i++)
		ret = push(&c->udp, &c->nudp, r.udp_ms[i]);
	if (!ret && !c->first_run && !(c->first_run = strdup(rundir)))
		ret = -ENOMEM;
	if (!ret && ts_rj_load(path, &raw, err) == 0)
		ret = run_points(c, raw, path, err);
	json_object_put(raw);
out:
	ts_exp_result_free(&r);
	return ret;
}

/* The group of test @test, added when new: 0, -E2BIG (more than TS_REP_MAX_TESTS), -ENOMEM. */
static int test_of(struct ts_report *r, const char *test, struct ts_rep_test **out)
{
	struct ts_rep_test *t;
	size_t i;

	for (i = 0; i < r->ntests; i++)
		if (!strcmp(r->tests[i].test, test)) {
			*out = &r->tests[i];
			return 0;
		}
	if (r->ntests == TS_REP_MAX_TESTS)
		return -E2BIG;
	t = realloc(r->tests, (r->ntests + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	r->tests = t;
	t = &r->tests[r->ntests];
	memset(t, 0, sizeof(*t));
	t->test = strdup(test);
	if (!t->test)
		return -ENOMEM;
	r->ntests++;
	*out = t;
	return 0;
}

/* A new configuration @id of @t (its array doubles as it fills): 0 or -ENOMEM. */
static int config_add(struct ts_rep_test *t, const char *id, struct ts_rep_config **out)
{
	struct ts_rep_config *c;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;

		c = realloc(t->c, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		t->c = c;
		t->cap = cap;
	}
	c = &t->c[t->n++];
	memset(c, 0, sizeof(*c));
	c->id = strdup(id);
	*out = c;
	return c->id ? 0 : -ENOMEM;
}

/* The ok runs of configuration @c (directory @dir/@c->id). */
static int config_runs(struct ts_rep_config *c, const char *dir, struct ts_err *err)
{
	char cdir[PATH_MAX], **reps = NULL;
	size_t nreps = 0, k;
	int ret;

	snprintf(cdir, sizeof(cdir), "%s/%s", dir, c->id);
	ret = ts_dirlist(cdir, TS_RUNDIR_PREFIX, &reps, &nreps);
	if (ret == -ENOENT)
		ret = 0; /* a configuration with no run yet */
	for (k = 0; k < nreps && !ret; k++) {
		char rdir[PATH_MAX];

		if (snprintf(rdir, sizeof(rdir), "%s/%s", cdir, reps[k]) >= (int)sizeof(rdir))
			ret = -ENAMETOOLONG;
		else
			ret = add_run(c, rdir, err);
	}
	ts_dirlist_free(reps, nreps);
	if (!ret && c->nicmp)
		ts_stats_sort(c->icmp, c->nicmp);
	if (!ret && c->nudp)
		ts_stats_sort(c->udp, c->nudp);
	return ret;
}

int ts_report_load(struct ts_report *r, const char *dir, struct ts_err *err)
{
	struct ts_exp_summary s;
	size_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	ts_exp_summary_init(&s, NULL);
	/* The summary is bounded (TS_EXP_SUM_MAX_CONFIGS): a larger directory is refused here. */
	ret = ts_exp_summary_from_dir(&s, dir, err);
	for (i = 0; i < s.nconfigs && !ret; i++) {
		const struct ts_exp_sum_config *sc = &s.configs[i];
		const char *test = ts_exp_sum_axis(sc, "test");
		struct ts_rep_test *t = NULL;
		struct ts_rep_config *c;

		ret = test_of(r, test ? test : "?", &t);
		if (ret == -E2BIG)
			ts_err_set(err,
				   "%s: more than %d tests, the values a spec's test axis may have "
				   "(each is a section of figures)",
				   dir, TS_REP_MAX_TESTS);
		if (!ret)
			ret = config_add(t, sc->id, &c);
		if (!ret)
			ret = config_runs(c, dir, err);
	}
	ts_exp_summary_free(&s);
	if (ret == -ENOMEM)
		ts_err_set(err, "%s: out of memory", dir);
	if (ret)
		ts_report_free(r);
	return ret;
}

void ts_report_free(struct ts_report *r)
{
	size_t i, j;

	for (i = 0; i < r->ntests; i++) {
		for (j = 0; j < r->tests[i].n; j++) {
			struct ts_rep_config *c = &r->tests[i].c[j];

			free(c->id);
			free(c->up);
			free(c->down);
			free(c->icmp);
			free(c->udp);
			free(c->pt_lat);
			free(c->pt_thr);
			free(c->first_run);
		}
		free(r->tests[i].c);
		free(r->tests[i].test);
	}
	free(r->tests);
	memset(r, 0, sizeof(*r));
}

void ts_rep_box_of(const double *v, size_t n, struct ts_rep_box *b)
{
	double *s;

	memset(b, 0, sizeof(*b));
	b->n = n;
	if (!n)
		return;
	s = malloc(n * sizeof(*s));
	if (!s) {
		b->n = 0;
		return;
	}
	memcpy(s, v, n * sizeof(*s));
	ts_stats_sort(s, n);
	b->mean = ts_stats_mean(s, n);
	b->min = s[0];
	b->q1 = ts_stats_quantile(s, n, 0.25);
	b->med = ts_stats_quantile(s, n, 0.5);
	b->q3 = ts_stats_quantile(s, n, 0.75);
	b->max = s[n - 1];
	free(s);
}

int ts_rep_ellipse(const double *x, const double *y, size_t n, double *cx, double *cy, double *ex,
		   double *ey, size_t m)
{
	double sxx = 0, syy = 0, sxy = 0, tr, det, l1, l2, th;
	size_t i;

	if (n < 2)
		return -1;
	*cx = ts_stats_mean(x, n);
	*cy = ts_stats_mean(y, n);
	for (i = 0; i < n; i++) {
		sxx += (x[i] - *cx) * (x[i] - *cx);
		syy += (y[i] - *cy) * (y[i] - *cy);
		sxy += (x[i] - *cx) * (y[i] - *cy);
	}
	sxx /= (double)(n - 1);
	syy /= (double)(n - 1);
	sxy /= (double)(n - 1);
	/* Eigenvalues of [[sxx, sxy], [sxy, syy]]; the major axis at angle th. */
	tr = sxx + syy;
	det = sxx * syy - sxy * sxy;
	l1 = tr / 2 + sqrt(fmax(0, tr * tr / 4 - det));
	l2 = tr / 2 - sqrt(fmax(0, tr * tr / 4 - det));
	th = 0.5 * atan2(2 * sxy, sxx - syy);
	for (i = 0; i < m; i++) {
		double a = 2 * M_PI * (double)i / (double)(m - 1);
		double u = sqrt(fmax(0, l1)) * cos(a), w = sqrt(fmax(0, l2)) * sin(a);

		ex[i] = *cx + u * cos(th) - w * sin(th);
		ey[i] = *cy + u * sin(th) + w * cos(th);
	}
	return 0;
}

void ts_rep_put_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

/*
 * Configuration ids are written quoted: gnuplot reads "..." as one column. An id comes
 * from the results directory: a quote or a line break in it would split the row.
 */
static void put_id(FILE *f, const char *id)
{
	fputc('"', f);
	for (; *id; id++)
		fputc((unsigned char)*id < 0x20 || *id == 0x7f || *id == '"' ? '?' : *id, f);
	fputc('"', f);
}

size_t ts_rep_write_throughput(FILE *f, const struct ts_rep_test *t, int up)
{
	size_t i, have = 0;

	fprintf(f, "# ");
	ts_rep_put_text(f, t->test);
	fprintf(f, ": %s throughput per run (Mbit/s), per configuration\n",
		up ? "upload" : "download");
	fprintf(f, "# i id n mean min q1 median q3 max\n");
	for (i = 0; i < t->n; i++) {
		const struct ts_rep_config *c = &t->c[i];
		struct ts_rep_box b;

		ts_rep_box_of(up ? c->up : c->down, up ? c->nup : c->ndown, &b);
		fprintf(f, "%zu ", i);
		put_id(f, c->id);
		if (!b.n) {
			fprintf(f, " 0 NaN NaN NaN NaN NaN NaN\n");
			continue;
		}
		have++;
		fprintf(f, " %zu %.6f %.6f %.6f %.6f %.6f %.6f\n", b.n, b.mean, b.min, b.q1, b.med,
			b.q3, b.max);
	}
	return have;
}

size_t ts_rep_write_latency(FILE *f, const struct ts_rep_test *t, int udp)
{
	size_t i, have = 0;

	fprintf(f, "# ");
	ts_rep_put_text(f, t->test);
	fprintf(f, ": %s latency under load (ms), samples pooled over repetitions\n",
		udp ? "UDP" : "ICMP");
	fprintf(f, "# i id n mean p5 p25 p50 p75 p95 p99 max\n");
	for (i = 0; i < t->n; i++) {
		const struct ts_rep_config *c = &t->c[i];
		const double *s = udp ? c->udp : c->icmp;
		size_t n = udp ? c->nudp : c->nicmp;

		fprintf(f, "%zu ", i);
		put_id(f, c->id);
		if (!n) {
			fprintf(f, " 0 NaN NaN NaN NaN NaN NaN NaN NaN\n");
			continue;
		}
		have++;
		fprintf(f, " %zu %.6f %.6f %.6f %.6f %.6f %.6f %.6f %.6f\n", n, ts_stats_mean(s, n),
			ts_stats_quantile(s, n, 0.05), ts_stats_quantile(s, n, 0.25),
			ts_stats_quantile(s, n, 0.50), ts_stats_quantile(s, n, 0.75),
			ts_stats_quantile(s, n, 0.95), ts_stats_quantile(s, n, 0.99), s[n - 1]);
	}
	return have;
}

size_t ts_rep_write_cdf(FILE *f, const struct ts_rep_test *t)
{
	size_t i, k, have = 0;

	for (i = 0; i < t->n; i++) {
		const struct ts_rep_config *c = &t->c[i];
		size_t n = c->nicmp, step = n > CDF_POINTS ? n / CDF_POINTS : 1;

		fprintf(f, "%s# ", i ? "\n\n" : "");
		ts_rep_put_text(f, c->id);
		fprintf(f, ": ICMP latency under load, ms and cumulative fraction (n = %zu)\n", n);
		if (n)
			have++;
		for (k = 0; k < n; k += step)
			fprintf(f, "%.6f %.6f\n", c->icmp[k], (double)(k + 1) / (double)n);
		if (n && (n - 1) % step)
			fprintf(f, "%.6f 1.000000\n", c->icmp[n - 1]);
		if (!n)
			fprintf(f, "NaN NaN\n");
	}
	return have;
}

/* Does the comma-separated list @id hold the token @tok (of @len bytes)? */
static bool id_has(const char *id, const char *tok, size_t len)
{
	const char *p = id;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == len && !memcmp(p, tok, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

long ts_rep_qq_ref(const struct ts_rep_test *t, const char *ref)
{
	size_t i;

	if (!ref || !*ref)
		return t->n ? 0 : -1;
	for (i = 0; i < t->n; i++) {
		const char *p = ref;
		bool all = true;

		while (*p && all) {
			size_t n = strcspn(p, ",");

			all = id_has(t->c[i].id, p, n);
			p += n + (p[n] == ',');
		}
		if (all)
			return (long)i;
	}
	return -1;
}

/* The nearest-rank @pct-th percentile of the @n sorted values @v (n > 0). */
static double rank_pct(const double *v, size_t n, unsigned pct)
{
	size_t k = ((size_t)pct * n + 99) / 100;

	return v[k ? k - 1 : 0];
}

size_t ts_rep_write_qq(FILE *f, const struct ts_rep_test *t, size_t ref)
{
	const struct ts_rep_config *r = &t->c[ref];
	size_t i, have = 0, blocks = 0;
	unsigned p;

	for (i = 0; i < t->n; i++) {
		const struct ts_rep_config *c = &t->c[i];

		if (i == ref)
			continue;
		fprintf(f, "%s# ", blocks++ ? "\n\n" : "");
		ts_rep_put_text(f, c->id);
		fprintf(f, " against ");
		ts_rep_put_text(f, r->id);
		fprintf(f, ": ICMP latency percentiles 1-99 under load, ms\n");
		if (!c->nicmp || !r->nicmp) {
			fprintf(f, "NaN NaN\n");
			continue;
		}
		have++;
		for (p = 1; p <= 99; p++)
			fprintf(f, "%.6f %.6f\n", rank_pct(r->icmp, r->nicmp, p),
				rank_pct(c->icmp, c->nicmp, p));
	}
	return have;
}

size_t ts_rep_write_scatter(FILE *f, const struct ts_rep_test *t)
{
	size_t i, k, have = 0;

	for (i = 0; i < t->n; i++) {
		const struct ts_rep_config *c = &t->c[i];

		fprintf(f, "%s# ", i ? "\n\n" : "");
		ts_rep_put_text(f, c->id);
		fprintf(f, ": per second under load, ICMP ms and total Mbit/s (%zu points)\n",
			c->npts);
		if (c->npts)
			have++;
		for (k = 0; k < c->npts; k++)
			fprintf(f, "%.6f %.6f\n", c->pt_lat[k], c->pt_thr[k]);
		if (!c->npts)
			fprintf(f, "NaN NaN\n");
	}
	return have;
}

size_t ts_rep_write_ellipse(FILE *f, const struct ts_rep_test *t)
{
	double ex[65], ey[65], cx, cy;
	size_t i, k, have = 0;

	for (i = 0; i < t->n; i++) {
		const struct ts_rep_config *c = &t->c[i];

		fprintf(f, "%s# ", i ? "\n\n" : "");
		ts_rep_put_text(f, c->id);
		if (ts_rep_ellipse(c->pt_lat, c->pt_thr, c->npts, &cx, &cy, ex, ey, 65) < 0) {
			fprintf(f, ": fewer than 2 points, no ellipse\nNaN NaN\n");
			continue;
		}
		have++;
		fprintf(f, ": centroid %.6f %.6f (ICMP ms, Mbit/s), one-sigma ellipse\n", cx, cy);
		for (k = 0; k < 65; k++)
			fprintf(f, "%.6f %.6f\n", ex[k], ey[k]);
	}
	return have;
}

size_t ts_rep_write_centroids(FILE *f, const struct ts_rep_test *t)
{
	double ex[2], ey[2], cx, cy;
	size_t i, have = 0;

	fprintf(f, "# ");
	ts_rep_put_text(f, t->test);
	fprintf(f, ": centroid of each configuration's points: i id n latency_ms mbps\n");
	for (i = 0; i < t->n; i++) {
		const struct ts_rep_config *c = &t->c[i];

		fprintf(f, "%zu ", i);
		put_id(f, c->id);
		if (ts_rep_ellipse(c->pt_lat, c->pt_thr, c->npts, &cx, &cy, ex, ey, 2) < 0) {
			fprintf(f, " %zu NaN NaN\n", c->npts);
			continue;
		}
		have++;
		fprintf(f, " %zu %.6f %.6f\n", c->npts, cx, cy);
	}
	return have;
}

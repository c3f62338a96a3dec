/* SPDX-License-Identifier: MIT */
/* The numbers behind exp report's figures (see report.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "results/dirlist.h"
#include "results/report.h"
#include "results/result.h"
#include "results/rjson.h"
#include "results/stats.h"
#include "results/summary.h"

#define CDF_POINTS 400 /* at most this many points per CDF: enough for a figure */

static int push(double **v, size_t *n, double x)
{
	double *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = x;
	*v = nv;
	return 0;
}

/*
 * Throughput-latency points of one run: per second of the loaded window,
 * the sum over flows of the mean of their intervals ending in it, and the
 * mean ICMP latency of the samples in it (Flent's ellipsis plot pairs the
 * same two series point by point).
 */
static int run_points(struct ts_rep_config *c, const struct json_object *res)
{
	double delay = ts_rj_num(res, "delay_s", 0), length = ts_rj_num(res, "length_s", 0);
	struct json_object *flows = ts_rj_arr(res, "flows", NULL),
			   *lat = ts_rj_arr(res, "latency", NULL);
	size_t nb = (size_t)floor(length), b, i, j, nf, nl, np;
	int ret = 0;

	nf = flows ? json_object_array_length(flows) : 0;
	nl = lat ? json_object_array_length(lat) : 0;
	for (b = 0; b < nb && !ret; b++) {
		double lo = delay + (double)b, hi = lo + 1.0, thr = 0, lsum = 0;
		size_t nthr = 0, nlat = 0;

		for (i = 0; i < nf; i++) {
			struct json_object *s =
				ts_rj_obj(json_object_array_get_idx(flows, i), "series");
			struct json_object *t = ts_rj_arr(s, "t", NULL),
					   *v = ts_rj_arr(s, "mbps", NULL);
			size_t n = t && v ? json_object_array_length(t) : 0, k = 0;
			double sum = 0;

			for (j = 0; j < n && v && j < json_object_array_length(v); j++) {
				double tj = json_object_get_double(json_object_array_get_idx(t, j));

				if (tj > lo && tj <= hi) {
					sum += json_object_get_double(
						json_object_array_get_idx(v, j));
					k++;
				}
			}
			if (k) {
				thr += sum / (double)k;
				nthr++;
			}
		}
		for (i = 0; i < nl; i++) {
			struct json_object *l = json_object_array_get_idx(lat, i);
			struct json_object *s = ts_rj_obj(l, "samples");
			struct json_object *t = ts_rj_arr(s, "t", NULL),
					   *v = ts_rj_arr(s, "rtt_ms", NULL);
			size_t n = t && v ? json_object_array_length(t) : 0;

			if (strcmp(ts_rj_str(l, "kind", ""), "icmp"))
				continue;
			for (j = 0; j < n && j < json_object_array_length(v); j++) {
				double tj = json_object_get_double(json_object_array_get_idx(t, j));

				if (tj >= lo && tj < hi) {
					lsum += json_object_get_double(
						json_object_array_get_idx(v, j));
					nlat++;
				}
			}
		}
		if (!nthr || !nlat)
			continue;
		np = c->npts;
		ret = push(&c->pt_lat, &np, lsum / (double)nlat);
		if (!ret) {
			np = c->npts;
			ret = push(&c->pt_thr, &np, thr);
		}
		if (!ret)
			c->npts = np;
	}
	return ret;
}

static int add_run(struct ts_rep_config *c, const char *rundir, char *err, size_t errlen)
{
	struct ts_exp_result r;
	struct json_object *raw = NULL;
	char path[PATH_MAX];
	double sum[2] = {0, 0};
	size_t nd[2] = {0, 0}, i;
	int ret;

	if (snprintf(path, sizeof(path), "%s/result.json", rundir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = ts_exp_result_load(&r, path, err, errlen);
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
	if (!ret && ts_rj_load(path, &raw, err, errlen) == 0)
		ret = run_points(c, raw);
	json_object_put(raw);
out:
	ts_exp_result_free(&r);
	return ret;
}

static struct ts_rep_test *test_of(struct ts_report *r, const char *test)
{
	struct ts_rep_test *t;
	size_t i;

	for (i = 0; i < r->ntests; i++)
		if (!strcmp(r->tests[i].test, test))
			return &r->tests[i];
	t = realloc(r->tests, (r->ntests + 1) * sizeof(*t));
	if (!t)
		return NULL;
	r->tests = t;
	t = &r->tests[r->ntests];
	memset(t, 0, sizeof(*t));
	t->test = strdup(test);
	if (!t->test)
		return NULL;
	r->ntests++;
	return t;
}

int ts_report_load(struct ts_report *r, const char *dir, char *err, size_t errlen)
{
	struct ts_exp_summary s;
	size_t i, k;
	int ret;

	memset(r, 0, sizeof(*r));
	ts_exp_summary_init(&s, NULL);
	ret = ts_exp_summary_from_dir(&s, dir, err, errlen);
	for (i = 0; i < s.nconfigs && !ret; i++) {
		const struct ts_exp_sum_config *sc = &s.configs[i];
		const char *test = ts_exp_sum_axis(sc, "test");
		struct ts_rep_test *t = test_of(r, test ? test : "?");
		struct ts_rep_config *c;
		char cdir[PATH_MAX], **reps = NULL;
		size_t nreps = 0;

		if (!t) {
			ret = -ENOMEM;
			break;
		}
		c = realloc(t->c, (t->n + 1) * sizeof(*c));
		if (!c) {
			ret = -ENOMEM;
			break;
		}
		t->c = c;
		c = &t->c[t->n++];
		memset(c, 0, sizeof(*c));
		c->id = strdup(sc->id);
		if (!c->id) {
			ret = -ENOMEM;
			break;
		}
		snprintf(cdir, sizeof(cdir), "%s/%s", dir, sc->id);
		ret = ts_dirlist(cdir, "rep-", &reps, &nreps);
		if (ret == -ENOENT)
			ret = 0; /* a configuration with no run yet */
		for (k = 0; k < nreps && !ret; k++) {
			char rdir[PATH_MAX];

			if (snprintf(rdir, sizeof(rdir), "%s/%s", cdir, reps[k]) >=
			    (int)sizeof(rdir))
				ret = -ENAMETOOLONG;
			else
				ret = add_run(c, rdir, err, errlen);
		}
		ts_dirlist_free(reps, nreps);
		if (!ret && c->nicmp)
			ts_stats_sort(c->icmp, c->nicmp);
		if (!ret && c->nudp)
			ts_stats_sort(c->udp, c->nudp);
	}
	ts_exp_summary_free(&s);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", dir);
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

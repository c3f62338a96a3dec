/* SPDX-License-Identifier: MIT */
/*
 * The data behind exp report's figures, from an experiment directory's
 * result.json files, in the summary's order of configurations and with
 * its definitions (docs/experiments.md: per-run throughput of a direction
 * is the sum of its flows; latency under load pools the samples inside
 * each probe's loaded window over the repetitions; only runs with "ok":
 * true count), so that each figure's data file holds the summary's
 * numbers: a box's mean is throughput_*_mbps.mean, a latency box's p50,
 * p95 and p99 are ping_*_ms's. Pure apart from reading the results and
 * writing the data files (gnuplot's format: one block per configuration,
 * blocks separated by two blank lines, so "index i" picks one).
 */
#ifndef TS_RESULTS_REPORT_H
#define TS_RESULTS_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "tasshape/err.h"

#include "plan/expspec.h"

struct ts_rep_config {
	char *id;
	size_t nruns;	   /* ok runs */
	double *up, *down; /* per-run totals (Mbit/s); NAN for a direction without flows */
	size_t nup, ndown;
	double *icmp, *udp; /* pooled loaded samples (ms), sorted */
	size_t nicmp, nudp;
	/* Throughput-latency points: one per second of the loaded window of each run. */
	double *pt_lat, *pt_thr;
	size_t npts;
	char *first_run; /* the directory of its first ok run, for the time series */
};

struct ts_rep_test {
	char *test;
	size_t n, cap; /* configurations, allocated */
	struct ts_rep_config *c;
};

/*
 * Limits of a report, besides the summary's (TS_EXP_SUM_MAX_CONFIGS): at most
 * as many tests as a spec's test axis may list (each is a section of about
 * twenty gnuplot pictures); a run's loaded window at most 24 h (a spec's
 * longest test; one throughput-latency point per second).
 */
#define TS_REP_MAX_TESTS    TS_EXP_MAX_VALUES
#define TS_REP_MAX_LENGTH_S 86400
/*
 * A figure draws at most this many configurations: more boxes or curves
 * than a picture can tell apart, and gnuplot reads a CDF's or scatter's
 * data file once per configuration. The .dat file holds them all.
 */
#define TS_REP_FIGURE_MAX 256

struct ts_report {
	size_t ntests;
	struct ts_rep_test *tests;
};

/*
 * ts_report_load - read @dir: its summary's configurations (in order)
 * grouped by their "test" axis, each one's runs. Returns 0 or a negative
 * errno with @err naming the file at fault (-E2BIG: beyond a limit, named).
 * Free with ts_report_free.
 */
int ts_report_load(struct ts_report *r, const char *dir, struct ts_err *err);
void ts_report_free(struct ts_report *r);

/* Summary statistics of one box: n, mean, min, q1, median, q3, max (type-7 quantiles). */
struct ts_rep_box {
	size_t n;
	double mean, min, q1, med, q3, max;
};
void ts_rep_box_of(const double *v, size_t n, struct ts_rep_box *b);

/*
 * ts_rep_ellipse - the one-sigma ellipse of the points (@x, @y; @n >= 2):
 * centroid (*@cx, *@cy) and @m points on the ellipse (the last equal to
 * the first) into @ex, @ey: centroid + the covariance's eigenvectors
 * scaled by the square roots of its eigenvalues. Returns 0, -1 when @n < 2.
 */
int ts_rep_ellipse(const double *x, const double *y, size_t n, double *cx, double *cy, double *ex,
		   double *ey, size_t m);

/*
 * Data files of test @t (returns the number of configurations with data;
 * 0: the figure has nothing to show and says so).
 *   throughput: "i id n mean min q1 median q3 max" per configuration, @up or down
 *   latency:    "i id n mean p5 p25 p50 p75 p95 p99 max", ICMP (@udp 0) or UDP
 *   cdf:        blocks of "ms fraction" per configuration (empty block: no samples)
 *   scatter:    blocks of "latency_ms throughput_mbps" points per configuration
 *   ellipse:    blocks of the one-sigma ellipse, then "# centroid" lines per configuration
 */
size_t ts_rep_write_throughput(FILE *f, const struct ts_rep_test *t, int up);
size_t ts_rep_write_latency(FILE *f, const struct ts_rep_test *t, int udp);
size_t ts_rep_write_cdf(FILE *f, const struct ts_rep_test *t);

/*
 * ts_rep_qq_ref - the configuration of @t that the Q-Q plot compares the
 * others against: the first whose id holds every comma-separated
 * AXIS=VALUE of @ref as one of its own (ids write a tas_shift 8/8 as
 * 8-8), or the first configuration when @ref is NULL or empty. Returns its
 * index, or -1 when none matches.
 */
long ts_rep_qq_ref(const struct ts_rep_test *t, const char *ref);

/*
 * ts_rep_write_qq - quantile against quantile of ICMP latency under load:
 * for every configuration but @ref, one block of 99 lines "ref_ms own_ms",
 * the nearest-rank percentiles 1..99 of @ref's pooled samples and of its
 * own (an empty block when either has none). Returns how many blocks have
 * points.
 */
size_t ts_rep_write_qq(FILE *f, const struct ts_rep_test *t, size_t ref);
size_t ts_rep_write_scatter(FILE *f, const struct ts_rep_test *t);
size_t ts_rep_write_ellipse(FILE *f, const struct ts_rep_test *t);
size_t ts_rep_write_centroids(FILE *f, const struct ts_rep_test *t); /* "i id n lat_ms mbps" */

/*
 * ts_rep_put_text - @s (from a results directory) into a data file's comment or column:
 * control characters, which would start a new row, are written as '?'.
 */
void ts_rep_put_text(FILE *f, const char *s);

#endif

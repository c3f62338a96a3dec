/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>

#include "results/stats.h"

double ts_stats_mean(const double *x, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

double ts_stats_sd(const double *x, size_t n)
{
	double m = ts_stats_mean(x, n), s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return sqrt(s / (double)(n - 1));
}

/*
 * t(0.975, df) for df = 1..30 (any statistics table; e.g. NIST/SEMATECH
 * e-Handbook 1.3.6.7.2), then the Cornish-Fisher expansion in 1/df around
 * the normal quantile, within 2e-5 of the exact value from df = 31 on.
 */
static const double t975[31] = {
	0,	12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
	2.2010, 2.1788,	 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796,
	2.0739, 2.0687,	 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
};

double ts_stats_t975(size_t df)
{
	const double z = 1.959963984540054;
	double d = (double)df, z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;

	if (df == 0)
		return NAN;
	if (df <= 30)
		return t975[df];
	return z + (z3 + z) / (4 * d) + (5 * z5 + 16 * z3 + 3 * z) / (96 * d * d) +
	       (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * d * d * d);
}

int ts_stats_ci95(const double *x, size_t n, double *lo, double *hi)
{
	double m, h;

	if (n < 2)
		return -1;
	m = ts_stats_mean(x, n);
	h = ts_stats_t975(n - 1) * ts_stats_sd(x, n) / sqrt((double)n);
	*lo = m - h;
	*hi = m + h;
	return 0;
}

double ts_stats_quantile(const double *sorted, size_t n, double p)
{
	double h = (double)(n - 1) * p;
	size_t k = (size_t)floor(h);

	if (k + 1 >= n)
		return sorted[n - 1];
	return sorted[k] + (h - (double)k) * (sorted[k + 1] - sorted[k]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void ts_stats_sort(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cmp_double);
}

double ts_stats_jain(const double *x, size_t n)
{
	double s = 0, s2 = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	if (s2 == 0)
		return -1;
	return s * s / ((double)n * s2);
}

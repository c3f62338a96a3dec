/* SPDX-License-Identifier: MIT */
/*
 * Statistics of an experiment's metrics: pure functions over arrays.
 * Conventions (docs/experiments.md, "Statistics"): the standard deviation
 * is the sample one (n - 1), the 95% interval of a mean is Student's t,
 * percentiles interpolate linearly between order statistics (Hyndman and
 * Fan's type 7, the default of R and NumPy).
 */
#ifndef TS_RESULTS_STATS_H
#define TS_RESULTS_STATS_H

#include <stddef.h>

/* Arithmetic mean of @n > 0 values. */
double ts_stats_mean(const double *x, size_t n);

/* Sample standard deviation of @n >= 2 values. */
double ts_stats_sd(const double *x, size_t n);

/* The 0.975 quantile of Student's t with @df >= 1 degrees of freedom. */
double ts_stats_t975(size_t df);

/*
 * ts_stats_ci95 - the 95% confidence interval of the mean of @n values,
 * mean -/+ t975(n - 1) * sd / sqrt(n). Returns 0, or -1 when n < 2 (no
 * interval: one run says nothing of its spread).
 */
int ts_stats_ci95(const double *x, size_t n, double *lo, double *hi);

/* The @p (0..1) quantile of the @n > 0 values @sorted (ascending), type 7. */
double ts_stats_quantile(const double *sorted, size_t n, double p);

/* Sort @n values ascending in place. */
void ts_stats_sort(double *x, size_t n);

/*
 * ts_stats_jain - Jain's fairness index of @n > 0 throughputs,
 * (sum x)^2 / (n * sum x^2): 1 when all are equal, 1/n when one takes
 * all. Returns -1 when every value is 0 (no index).
 */
double ts_stats_jain(const double *x, size_t n);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Flent-compatible results: one <test>.flent.gz per run of a Flent-named
 * test, written from the run's result.json so that Flent 2.1 opens,
 * summarises and plots it as if it had run the test itself. The rules are
 * Flent's own (flent/resultset.py, flent/aggregators.py, flent/tests/NAME.conf):
 *
 *   - gzip'd JSON, "version" 4, keys metadata, x_values, results,
 *     raw_values (raw_values present even when empty);
 *   - metadata.NAME an existing Flent test (Flent re-reads tests/NAME.conf
 *     when it loads a file), every series name exactly one of that test's
 *     definition ("TCP upload BE", "TCP upload::1", "Ping (ms) ICMP", ...);
 *   - x_values a uniform grid from 0 in steps of STEP_SIZE (0.2 s) from
 *     T0, the earliest sample; results[name] as long as x_values, null for
 *     gaps, the values on the grid interpolated exactly as Flent's
 *     TimeseriesAggregator does; the computed series (avg, sum, totals,
 *     fairness) as Flent's ComputingRunners compute them;
 *   - raw_values[name]: {"t": unix time, "val": ...} points (pings add
 *     "seq", throughput adds "dur"); socket statistics merged into the
 *     flow's points as Flent's ss runner does (tcp_cwnd, tcp_rtt in ms,
 *     tcp_pacing_rate and tcp_delivery_rate in Mbit/s);
 *   - SERIES_META[name].MEAN_VALUE: the flow's mean throughput over the
 *     whole flow (what netperf reports and Flent's summary prints).
 *
 * tasshape's own context (configuration, link, congestion control,
 * kernel, version, fidelity) goes under the metadata key "TASSHAPE".
 */
#ifndef TS_RESULTS_FLENT_H
#define TS_RESULTS_FLENT_H

#include <stddef.h>

#include "tasshape/err.h"

struct json_object;

#define TS_FLENT_STEP	     0.2 /* seconds: Flent's default STEP_SIZE */
#define TS_FLENT_MAX_SERIES  48
#define TS_FLENT_NAME_LEN    96
#define TS_FLENT_FILE_SUFFIX ".flent.gz"

enum ts_flent_kind {
	TS_FLENT_FLOW, /* a TCP flow: Mbit/s */
	TS_FLENT_PING, /* a latency probe: ms */
	TS_FLENT_SUM,  /* computed: sum of the members at each point */
	TS_FLENT_AVG,  /* computed: mean of the members */
	TS_FLENT_FAIR, /* computed: Jain's index of the members */
};

/* Members of a computed series. */
enum ts_flent_group {
	TS_FLENT_G_NONE,
	TS_FLENT_G_UP,	 /* every upload flow */
	TS_FLENT_G_DOWN, /* every download flow */
	TS_FLENT_G_TCP,	 /* every flow */
	TS_FLENT_G_PING, /* every latency probe */
};

struct ts_flent_series {
	char name[TS_FLENT_NAME_LEN];
	enum ts_flent_kind kind;
	enum ts_flent_group group; /* computed series only */
	char dir;		   /* flows: 'u' or 'd' */
	unsigned server;	   /* flows and pings: server index */
};

struct ts_flent_test {
	size_t n;
	struct ts_flent_series s[TS_FLENT_MAX_SERIES];
};

/*
 * ts_flent_test_def - the series of Flent test @name, in Flent's order,
 * as its tests/NAME.conf defines them: @up/@down streams for tcp_nup and
 * tcp_ndown (ignored by the fixed-shape tests), @hosts (@nhosts, 4 for
 * rtt_fair) for the tests whose series names embed the host. Returns 0,
 * or -ENOENT when @name is not a test tasshape writes Flent files for,
 * -EINVAL when the streams or hosts do not fit.
 */
int ts_flent_test_def(const char *name, unsigned up, unsigned down, const char *const *hosts,
		      size_t nhosts, struct ts_flent_test *def);

/* ts_flent_is_test - does tasshape write Flent files for test @name? */
int ts_flent_is_test(const char *name);

/*
 * ts_flent_grid - Flent's TimeseriesAggregator for one series: the value
 * of the samples (@t seconds, @v; @n of them, @t ascending) at the grid
 * points t0 + k * step, k < @nsteps, into @out (NAN where Flent writes
 * null). A point between two samples is interpolated linearly when the
 * next sample is at most 5 steps away; before the first sample a point
 * takes the first value only within half a step; after the last sample
 * the last value is used at most once, as Flent does.
 */
void ts_flent_grid(const double *t, const double *v, size_t n, double t0, double step,
		   size_t nsteps, double *out);

/* Jain's fairness index of @n values (NAN when they are all zero or @n is 0). */
double ts_flent_jain(const double *v, size_t n);

struct ts_flent_ctx {
	const char *local_host;		    /* Flent's LOCAL_HOST: this machine's name */
	const char *tool_version;	    /* tasshape's version, for metadata.TASSHAPE */
	const struct json_object *manifest; /* the run's manifest.json, or NULL */
};

/*
 * ts_flent_build - the Flent document of one run from its parsed
 * result.json @result. *@out is a new json object the caller puts.
 * Returns 0; -ENOENT when the run's test is not a Flent test; -EINVAL
 * with @err saying what is wrong (a missing key, a flow whose name is
 * not one of the test's series, series of unequal lengths).
 */
int ts_flent_build(const struct json_object *result, const struct ts_flent_ctx *ctx,
		   struct json_object **out, struct ts_err *err);

/*
 * ts_flent_write - write @doc gzip'd to @path (replaced atomically via a
 * temporary file). Returns 0 or a negative errno with @err set.
 */
int ts_flent_write(const char *path, const struct json_object *doc, struct ts_err *err);

/*
 * ts_flent_export_run - read @rundir/result.json (and manifest.json when
 * present) and write @rundir/<test>.flent.gz. Returns 0, 1 when the run's
 * test has no Flent counterpart or the run failed (nothing written), or a
 * negative errno with @err naming the file and what is wrong.
 */
int ts_flent_export_run(const char *rundir, const char *tool_version, struct ts_err *err);

/* Runs of ts_flent_export_tree: written, nothing to write (1 above), failed. */
struct ts_flent_count {
	unsigned written, skipped, failed;
};

/*
 * ts_flent_export_tree - ts_flent_export_run for @dir when it holds a
 * result.json, else for every directory that does at most two levels
 * below it, counted into @c; a done run's record is written again to list
 * the new file. A run's problem is said through @say (and counted failed).
 * Returns 0, or a negative errno when a directory cannot be read.
 */
int ts_flent_export_tree(const char *dir, const char *tool_version, struct ts_flent_count *c,
			 void (*say)(void *ctx, const char *msg), void *ctx);

#endif

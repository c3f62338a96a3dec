/* SPDX-License-Identifier: MIT */
/*
 * exp report's figures of one run of a test (its first): offered capacity
 * against delivered throughput and queueing delay from stats.csv (read by
 * its strict reader, record/stats_in.h), and cwnd and pacing rate from the
 * socket statistics of result.json.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "io/gnuplot.h"
#include "record/stats_in.h"
#include "results/report.h"
#include "results/report_fig.h"
#include "results/rjson.h"

struct link_ctx {
	FILE *out;
	int dir;
	size_t rows;
};

/*
 * A stats.csv row of the wanted direction: capacity and throughput (Mbit/s), queueing
 * delay. Its time_s is the end of each window; a window is drawn at its centre, on the time
 * axis of the socket samples (instants, same origin), so that both panels line up.
 */
static int link_row(void *ctx, const struct ts_stats_row *row)
{
	struct link_ctx *c = ctx;
	double t = row->v[TS_STATS_TIME];

	if (row->dir != c->dir)
		return 0;
	if (!isnan(row->v[TS_STATS_INTERVAL]))
		t -= row->v[TS_STATS_INTERVAL] / 2;
	fprintf(c->out, "%.3f %.6f %.6f %.3f %.3f\n", t, row->v[TS_STATS_CAPACITY] / 1e6,
		row->v[TS_STATS_THROUGHPUT] / 1e6, row->v[TS_STATS_P50], row->v[TS_STATS_MAX]);
	c->rows++;
	return 0;
}

/* stats.csv of a run, per direction. Returns the rows, 0 without the file; -1 said why. */
static long link_series(const struct ts_rep_out *r, const char *rundir, FILE *out)
{
	struct link_ctx c = {.out = out};
	char path[PATH_MAX];
	struct ts_err err;
	int ret = 0;

	if (snprintf(path, sizeof(path), "%s/%s", rundir, "stats.csv") >= (int)sizeof(path))
		return 0;
	for (c.dir = 0; c.dir < 2 && !ret; c.dir++) {
		fprintf(out,
			"%s# %s: t capacity_mbps throughput_mbps qdelay_p50_ms qdelay_max_ms\n",
			c.dir ? "\n\n" : "", c.dir ? "downlink" : "uplink");
		ret = ts_stats_in_file(path, link_row, &c, &err);
	}
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		ts_rep_say(r, "%s: the run's link figure is drawn without it", err.msg);
		return -1;
	}
	return (long)c.rows;
}

/*
 * The socket statistics of result.json: per flow, t cwnd pacing_mbps delivery_mbps; the
 * flows' names as the gnuplot array flows[1..n] into @names.
 */
static size_t tcp_series(const char *rundir, FILE *out, struct ts_text *names, size_t *nflows)
{
	struct json_object *res = NULL, *ss;
	char path[PATH_MAX];
	struct ts_err err;
	size_t n, i, j, rows = 0;

	*nflows = 0;
	snprintf(path, sizeof(path), "%s/result.json", rundir);
	if (ts_rj_load(path, &res, &err))
		return 0;
	ss = ts_rj_arr(res, "sockstats", &n);
	ts_text_printf(names, "array flows[%zu]\n", n ? n : 1);
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(ss, i);
		struct json_object *t = ts_rj_arr(e, "t", NULL), *cw = ts_rj_arr(e, "cwnd", NULL);
		struct json_object *pr = ts_rj_arr(e, "pacing_rate_bps", NULL);
		struct json_object *dr = ts_rj_arr(e, "delivery_rate_bps", NULL);
		size_t m = t ? json_object_array_length(t) : 0;
		const char *flow = ts_rj_str(e, "flow", "flow");

		fprintf(out, "%s# ", i ? "\n\n" : "");
		ts_rep_put_text(out, flow);
		fprintf(out, ": t cwnd_pkts pacing_mbps delivery_mbps\n");
		for (j = 0; j < m; j++) {
			struct json_object *a = cw ? json_object_array_get_idx(cw, j) : NULL;
			struct json_object *b = pr ? json_object_array_get_idx(pr, j) : NULL;
			struct json_object *c = dr ? json_object_array_get_idx(dr, j) : NULL;

			fprintf(out, "%.3f %.6f %.6f %.6f\n",
				json_object_get_double(json_object_array_get_idx(t, j)),
				a ? json_object_get_double(a) : NAN,
				b ? json_object_get_double(b) / 1e6 : NAN,
				c ? json_object_get_double(c) / 1e6 : NAN);
			rows++;
		}
		if (!m)
			fputs("NaN NaN NaN NaN\n", out);
		ts_text_printf(names, "flows[%zu] = ", i + 1);
		ts_gnuplot_quote(names, flow);
		ts_text_printf(names, "\n");
	}
	*nflows = n;
	json_object_put(res);
	return rows;
}

void ts_rep_run_figures(struct ts_rep_out *r, const struct ts_rep_test *t)
{
	const char *rundir = NULL;
	char name[256], title[TS_REP_REF_LEN + 256];
	size_t i, rows, nflows = 0;
	struct ts_text b;
	long lrows;
	FILE *f;

	for (i = 0; i < t->n && !rundir; i++)
		rundir = t->c[i].first_run;
	ts_rep_stem(name, sizeof(name), t->test, "-run-link");
	f = ts_rep_open_data(r, name);
	if (!f)
		return;
	lrows = rundir ? link_series(r, rundir, f) : 0;
	fclose(f);
	if (lrows < 0)
		r->bad = 1;
	ts_text_init(&b);
	ts_text_printf(&b, "set multiplot layout 2,1\nset xlabel 'time since the run started "
			   "(s)'\nset ylabel 'Mbit/s'\nset key top right\nplot ");
	ts_rep_file_ref(&b, r, name);
	ts_text_printf(&b, " index 0 using 1:2 with steps lw 2 title 'uplink capacity offered', "
			   "'' index 0 using 1:3 with lines title 'uplink delivered', '' index 1 "
			   "using 1:2 with steps lw 2 title 'downlink capacity offered', '' index "
			   "1 using 1:3 with lines title 'downlink delivered'\nset ylabel "
			   "'queueing delay (ms)'\nplot ");
	ts_rep_file_ref(&b, r, name);
	ts_text_printf(&b, " index 0 using 1:4 with lines title 'uplink p50', '' index 0 using "
			   "1:5 with lines title 'uplink max', '' index 1 using 1:4 with lines "
			   "title 'downlink p50', '' index 1 using 1:5 with lines title 'downlink "
			   "max'\nunset multiplot\n");
	snprintf(title, sizeof(title), "%s: one run (%s): capacity, throughput, queueing delay",
		 t->test, rundir ? rundir + strlen(r->dir) + 1 : "none");
	ts_rep_figure(r, name, title, &b,
		      lrows > 0 ? NULL
		      : lrows < 0
			      ? "stats.csv of the run is malformed (see the message of exp report)"
			      : "no stats.csv (tasshape's per-interval link record) in the run");

	ts_rep_stem(name, sizeof(name), t->test, "-run-tcp");
	f = ts_rep_open_data(r, name);
	if (!f)
		goto out;
	b.len = 0;
	rows = rundir ? tcp_series(rundir, f, &b, &nflows) : 0;
	fclose(f);
	ts_text_printf(&b,
		       "set multiplot layout 2,1\nset xlabel 'time since the run started "
		       "(s)'\nset key top right\nset ylabel 'cwnd (packets)'\nplot for [i=1:%zu] ",
		       nflows);
	ts_rep_file_ref(&b, r, name);
	ts_text_printf(&b,
		       " index (i-1) using 1:2 with steps title flows[i]\nset ylabel 'pacing "
		       "rate (Mbit/s)'\nplot for [i=1:%zu] ",
		       nflows);
	ts_rep_file_ref(&b, r, name);
	ts_text_printf(&b, " index (i-1) using 1:3 with lines title flows[i]\nunset multiplot\n");
	snprintf(title, sizeof(title), "%s: one run (%s): cwnd and pacing rate", t->test,
		 rundir ? rundir + strlen(r->dir) + 1 : "none");
	ts_rep_figure(r, name, title, &b,
		      rows ? NULL
			   : "no socket statistics (upload flows' cwnd, pacing rate) in the run");
out:
	ts_text_fini(&b);
}

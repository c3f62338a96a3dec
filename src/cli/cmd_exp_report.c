/* SPDX-License-Identifier: MIT */
/*
 * tasshape exp report DIR [--out REPORT_DIR]: the figures of an
 * experiment (gnuplot, PNG and SVG) and report.md, which shows them with
 * the summary table. Per test: box plots of throughput per configuration
 * (upload, download), of ICMP (and UDP) latency under load, the latency
 * CDFs, and the throughput-latency scatter with each configuration's
 * one-sigma ellipse and centroid (Flent's ellipsis plot); for the first
 * run of the test: offered capacity against delivered throughput,
 * queueing delay, and cwnd and pacing rate from the socket statistics.
 * Every figure has its data file beside it (NAME.dat), holding the
 * numbers of the summary; a figure without data says so in the picture.
 *
 * An experiment directory is untrusted input: gnuplot (io/gnuplot.h, one
 * process per picture, the picture on its standard output) reads only
 * the .dat files written here, stats.csv is read by its strict reader
 * (record/stats_in.h), and every string that enters a script (a test name,
 * a configuration id, a flow name, a path) goes through
 * ts_gnuplot_quote().
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/cli.h"
#include "cli/cmd_exp_results.h"
#include "results/report.h"
#include "results/rjson.h"
#include "results/summary.h"
#include "io/gnuplot.h"
#include "io/md.h"
#include "io/outfile.h"
#include "record/stats_in.h"

#define REF_LEN (PATH_MAX + 300)

struct report {
	const char *dir, *out;
	const char *qq_ref; /* --qq-ref: the Q-Q plot's reference configuration (AXIS=VALUE,...) */
	FILE *md;
	unsigned figures, nodata;
	int bad; /* a picture was not drawn, or an input file was malformed */
};

static FILE *open_data(const struct report *r, const char *name)
{
	char path[REF_LEN];
	struct ts_err err;

	snprintf(path, sizeof(path), "%s/%s.dat", r->out, name);
	return ts_out_fopen(path, &err);
}

/* One picture: the script @b into the file @path. Returns 0 or -1 (said why). */
static int draw(const char *path, const struct ts_text *b)
{
	struct ts_err err;

	if (b->oom) {
		ts_cli_error("exp report: %s: out of memory", path);
		return -1;
	}
	if (ts_gnuplot_draw(b->p, b->len, path, TS_GNUPLOT_TIMEOUT_MS, &err) < 0) {
		ts_cli_error("exp report: %s", err.msg);
		return -1;
	}
	return 0;
}

/* Plot @body twice, as NAME.png and NAME.svg; @nodata: a picture that says why instead. */
static void figure(struct report *r, const char *name, const char *title,
		   const struct ts_text *body, const char *nodata)
{
	int svg;

	for (svg = 0; svg < 2; svg++) {
		char path[REF_LEN];
		struct ts_text b;

		ts_text_init(&b);
		if (svg)
			ts_text_printf(&b, "set terminal svg size 1000,600 dynamic noenhanced font "
					   "'Sans,11'\n");
		else
			ts_text_printf(&b, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set "
					   "terminal pngcairo size 1000,600 noenhanced font "
					   "'Sans,10' } else { set terminal png size 1000,600 "
					   "noenhanced }\n");
		ts_text_printf(&b, "set title ");
		ts_gnuplot_quote(&b, title);
		ts_text_printf(&b, "\n");
		if (nodata) {
			ts_text_printf(&b, "unset border\nunset tics\nunset key\nset label 1 ");
			ts_gnuplot_quote(&b, nodata);
			ts_text_printf(&b, " at graph 0.5, 0.5 center font ',16'\nplot [0:1] [0:1] "
					   "NaN notitle\n");
		} else {
			ts_text_printf(&b, "set grid\n");
			ts_text_add(&b, body->p, body->len);
			b.oom |= body->oom;
		}
		snprintf(path, sizeof(path), "%s/%s.%s", r->out, name, svg ? "svg" : "png");
		if (draw(path, &b))
			r->bad = 1;
		ts_text_fini(&b);
	}
	/* The title holds the test's name (data); the file names are stems (below). */
	fputs("\n### ", r->md);
	ts_md_escape(r->md, title);
	fputs("\n\n![", r->md);
	ts_md_escape(r->md, title);
	fprintf(r->md, "](%s.png)\n\n[SVG](%s.svg) · data: [%s.dat](%s.dat)", name, name, name,
		name);
	if (nodata) {
		fputs(" · **no data**: ", r->md);
		ts_md_escape(r->md, nodata);
	}
	fputc('\n', r->md);
	r->figures++;
	if (nodata)
		r->nodata++;
}

/*
 * The stem of a figure's files: the test's name, which comes from the results directory,
 * with every character but [A-Za-z0-9_+=,.-] (and a leading dot) as '_', so that it names
 * a file in the report directory and nothing else; then @suffix, @arg.
 */
static void __attribute__((format(printf, 4, 5)))
stem(char *buf, size_t len, const char *test, const char *suffix, ...)
{
	static const char ok[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+=,.-";
	size_t n = 0;
	va_list ap;

	for (; *test && n + 1 < len && n < 100; test++, n++)
		buf[n] = strchr(ok, *test) && !(n == 0 && *test == '.') ? *test : '_';
	buf[n] = '\0';
	va_start(ap, suffix);
	vsnprintf(buf + n, len - n, suffix, ap);
	va_end(ap);
}

/*
 * Why test @t's per-configuration figures are not drawn (into @buf), or NULL: more
 * configurations than one picture can show (TS_REP_FIGURE_MAX); their .dat files hold them.
 */
static const char *crowded(const struct ts_rep_test *t, char *buf, size_t len)
{
	if (t->n <= TS_REP_FIGURE_MAX)
		return NULL;
	snprintf(buf, len,
		 "%zu configurations, more than the %d one figure shows: the numbers are in the "
		 ".dat file",
		 t->n, TS_REP_FIGURE_MAX);
	return buf;
}

/* The data file NAME.dat of the report, as a quoted gnuplot string, into @b. */
static void file_ref(struct ts_text *b, const struct report *r, const char *name)
{
	char path[REF_LEN];

	snprintf(path, sizeof(path), "%s/%s.dat", r->out, name);
	ts_gnuplot_quote(b, path);
}

/* The configuration ids as a gnuplot array ids[1..n], for the keys. */
static void ids_var(struct ts_text *b, const struct ts_rep_test *t)
{
	size_t i;

	ts_text_printf(b, "array ids[%zu]\n", t->n ? t->n : 1);
	for (i = 0; i < t->n; i++) {
		ts_text_printf(b, "ids[%zu] = ", i + 1);
		ts_gnuplot_quote(b, t->c[i].id);
		ts_text_printf(b, "\n");
	}
}

static void box_figures(struct report *r, const struct ts_rep_test *t)
{
	char name[256], title[512], why[160];
	const char *crowd = crowded(t, why, sizeof(why));
	struct ts_text b;
	int up, udp;

	ts_text_init(&b);
	for (up = 1; up >= 0; up--) {
		FILE *f;
		size_t have;

		stem(name, sizeof(name), t->test, "-throughput-%s", up ? "up" : "down");
		f = open_data(r, name);
		if (!f)
			continue;
		have = ts_rep_write_throughput(f, t, up);
		fclose(f);
		b.len = 0;
		ts_text_printf(&b,
			       "set ylabel 'Mbit/s (per run, sum of the flows)'\nset xtics rotate "
			       "by -20\nset boxwidth 0.5\nset xrange [-0.6:%zu.6]\nset key top "
			       "right\nplot ",
			       t->n ? t->n - 1 : 0);
		file_ref(&b, r, name);
		ts_text_printf(&b, " using 1:6:5:9:8:xtic(2) with candlesticks title 'min, q1-q3, "
				   "max' whiskerbars 0.5, '' using 1:7:7:7:7 with candlesticks lt "
				   "-1 lw 2 title 'median', '' using 1:4 with points pt 7 ps 1.2 "
				   "title 'mean'\n");
		snprintf(title, sizeof(title), "%s: %s throughput per configuration", t->test,
			 up ? "upload" : "download");
		figure(r, name, title, &b,
		       crowd  ? crowd
		       : have ? NULL
		       : up   ? "no upload flows in these runs"
			      : "no download flows in these runs");
	}
	for (udp = 0; udp < 2; udp++) {
		FILE *f;
		size_t have;

		stem(name, sizeof(name), t->test, "-latency-%s", udp ? "udp" : "icmp");
		f = open_data(r, name);
		if (!f)
			continue;
		have = ts_rep_write_latency(f, t, udp);
		fclose(f);
		b.len = 0;
		ts_text_printf(&b,
			       "set ylabel 'ms (every sample under load)'\nset xtics rotate by "
			       "-20\nset boxwidth 0.5\nset xrange [-0.6:%zu.6]\nset key top "
			       "right\nplot ",
			       t->n ? t->n - 1 : 0);
		file_ref(&b, r, name);
		ts_text_printf(&b, " using 1:6:5:9:8:xtic(2) with candlesticks title 'p5, p25-p75, "
				   "p95' whiskerbars 0.5, '' using 1:7:7:7:7 with candlesticks lt "
				   "-1 lw 2 title 'p50', '' using 1:10 with points pt 2 ps 1.2 "
				   "title 'p99', '' using 1:4 with points pt 7 ps 1.2 title "
				   "'mean'\n");
		snprintf(title, sizeof(title), "%s: %s latency under load per configuration",
			 t->test, udp ? "UDP" : "ICMP");
		figure(r, name, title, &b,
		       crowd  ? crowd
		       : have ? NULL
		       : udp  ? "no UDP latency samples (irtt) under load in these runs"
			      : "no ICMP latency samples under load in these runs");
	}
	ts_text_fini(&b);
}

/*
 * The Q-Q plot of ICMP latency under load: every configuration's percentiles against the
 * reference's (--qq-ref), with the diagonal where they would be equal. Points below it: lower
 * latency than the reference at that percentile.
 */
static void qq_figure(struct report *r, const struct ts_rep_test *t)
{
	char name[256], title[512], why[160];
	const char *crowd = crowded(t, why, sizeof(why));
	long ref = ts_rep_qq_ref(t, r->qq_ref);
	size_t have = 0;
	struct ts_text b;
	FILE *f;

	stem(name, sizeof(name), t->test, "-qq");
	f = open_data(r, name);
	if (!f)
		return;
	if (ref >= 0)
		have = ts_rep_write_qq(f, t, (size_t)ref);
	fclose(f);
	ts_text_init(&b);
	if (!crowd && ref >= 0) {
		ids_var(&b, t);
		ts_text_printf(&b, "set xlabel ");
		ts_gnuplot_quote(&b, t->c[ref].id);
		/* Both axes over the same range, square: the diagonal is where they agree. */
		ts_text_printf(&b, "\nset ylabel 'each configuration (ms)'\nset key top left\nset "
				   "size square\nstats ");
		file_ref(&b, r, name);
		ts_text_printf(&b,
			       " using 1:2 nooutput\nlo = STATS_min_x < STATS_min_y ? STATS_min_x "
			       ": STATS_min_y\nhi = STATS_max_x > STATS_max_y ? STATS_max_x : "
			       "STATS_max_y\nset xrange [lo:hi]\nset yrange [lo:hi]\nplot x with "
			       "lines lt 0 title 'equal', for [i=0:%zu] ",
			       t->n > 1 ? t->n - 2 : 0);
		file_ref(&b, r, name);
		/* The reference has no block of its own: block i is configuration i or i + 1. */
		ts_text_printf(&b,
			       " index i using 1:2 with linespoints pt 7 ps 0.5 title "
			       "ids[i + 1 + (i >= %ld)]\n",
			       ref);
	}
	snprintf(title, sizeof(title), "%s: ICMP latency under load, Q-Q against one configuration",
		 t->test);
	figure(r, name, title, &b,
	       crowd	  ? crowd
	       : ref < 0  ? "no configuration matches --qq-ref"
	       : t->n < 2 ? "one configuration: nothing to compare"
	       : have	  ? NULL
			  : "no ICMP latency samples under load in these runs");
	ts_text_fini(&b);
}

static void cdf_scatter_figures(struct report *r, const struct ts_rep_test *t)
{
	char name[256], title[512], sname[256], ename[256], cname[256], why[160];
	const char *crowd = crowded(t, why, sizeof(why));
	size_t have, have2;
	struct ts_text b;
	FILE *f;

	ts_text_init(&b);
	stem(name, sizeof(name), t->test, "-latency-cdf");
	f = open_data(r, name);
	if (f) {
		have = ts_rep_write_cdf(f, t);
		fclose(f);
		if (!crowd)
			ids_var(&b, t);
		ts_text_printf(&b,
			       "set xlabel 'ICMP latency under load (ms)'\nset ylabel 'cumulative "
			       "fraction'\nset yrange [0:1]\nset key bottom right\nplot for "
			       "[i=0:%zu] ",
			       t->n ? t->n - 1 : 0);
		file_ref(&b, r, name);
		ts_text_printf(&b, " index i using 1:2 with lines lw 2 title ids[i+1]\n");
		snprintf(title, sizeof(title), "%s: ICMP latency CDF under load", t->test);
		figure(r, name, title, &b,
		       crowd  ? crowd
		       : have ? NULL
			      : "no ICMP latency samples under load in these runs");
	}
	stem(sname, sizeof(sname), t->test, "-scatter");
	stem(ename, sizeof(ename), t->test, "-ellipse");
	stem(cname, sizeof(cname), t->test, "-centroid");
	f = open_data(r, sname);
	if (!f)
		goto out;
	have = ts_rep_write_scatter(f, t);
	fclose(f);
	f = open_data(r, ename);
	if (!f)
		goto out;
	have2 = ts_rep_write_ellipse(f, t);
	fclose(f);
	f = open_data(r, cname);
	if (!f)
		goto out;
	ts_rep_write_centroids(f, t);
	fclose(f);
	b.len = 0;
	if (!crowd)
		ids_var(&b, t);
	ts_text_printf(&b,
		       "set xlabel 'ICMP latency (ms)'\nset ylabel 'throughput, all flows "
		       "(Mbit/s)'\nset key outside right\nplot for [i=0:%zu] ",
		       t->n ? t->n - 1 : 0);
	file_ref(&b, r, sname);
	ts_text_printf(&b,
		       " index i using 1:2 with points pt 7 ps 0.4 lc i+1 title ids[i+1], for "
		       "[i=0:%zu] ",
		       t->n ? t->n - 1 : 0);
	file_ref(&b, r, ename);
	ts_text_printf(&b, " index i using 1:2 with lines lw 2 lc i+1 notitle, ");
	file_ref(&b, r, cname);
	ts_text_printf(&b, " using 4:5:($1+1) with points pt 9 ps 2.5 lc variable title "
			   "'centroid'\n");
	snprintf(title, sizeof(title),
		 "%s: throughput against latency, one-sigma ellipse and centroid per configuration",
		 t->test);
	figure(r, sname, title, &b,
	       crowd	       ? crowd
	       : have && have2 ? NULL
			       : "fewer than two per-second points (throughput and ICMP latency) "
				 "under load");
out:
	ts_text_fini(&b);
}

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
static long link_series(const char *rundir, FILE *out)
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
		ts_cli_error("exp report: %s: the run's link figure is drawn without it", err.msg);
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
	char path[PATH_MAX], err[256];
	size_t n, i, j, rows = 0;

	*nflows = 0;
	snprintf(path, sizeof(path), "%s/result.json", rundir);
	if (ts_rj_load(path, &res, err, sizeof(err)))
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

static void run_figures(struct report *r, const struct ts_rep_test *t)
{
	const char *rundir = NULL;
	char name[256], title[REF_LEN + 256];
	size_t i, rows, nflows = 0;
	struct ts_text b;
	long lrows;
	FILE *f;

	for (i = 0; i < t->n && !rundir; i++)
		rundir = t->c[i].first_run;
	stem(name, sizeof(name), t->test, "-run-link");
	f = open_data(r, name);
	if (!f)
		return;
	lrows = rundir ? link_series(rundir, f) : 0;
	fclose(f);
	if (lrows < 0)
		r->bad = 1;
	ts_text_init(&b);
	ts_text_printf(&b, "set multiplot layout 2,1\nset xlabel 'time since the run started "
			   "(s)'\nset ylabel 'Mbit/s'\nset key top right\nplot ");
	file_ref(&b, r, name);
	ts_text_printf(&b, " index 0 using 1:2 with steps lw 2 title 'uplink capacity offered', "
			   "'' index 0 using 1:3 with lines title 'uplink delivered', '' index 1 "
			   "using 1:2 with steps lw 2 title 'downlink capacity offered', '' index "
			   "1 using 1:3 with lines title 'downlink delivered'\nset ylabel "
			   "'queueing delay (ms)'\nplot ");
	file_ref(&b, r, name);
	ts_text_printf(&b, " index 0 using 1:4 with lines title 'uplink p50', '' index 0 using "
			   "1:5 with lines title 'uplink max', '' index 1 using 1:4 with lines "
			   "title 'downlink p50', '' index 1 using 1:5 with lines title 'downlink "
			   "max'\nunset multiplot\n");
	snprintf(title, sizeof(title), "%s: one run (%s): capacity, throughput, queueing delay",
		 t->test, rundir ? rundir + strlen(r->dir) + 1 : "none");
	figure(r, name, title, &b,
	       lrows > 0   ? NULL
	       : lrows < 0 ? "stats.csv of the run is malformed (see the message of exp report)"
			   : "no stats.csv (tasshape's per-interval link record) in the run");

	stem(name, sizeof(name), t->test, "-run-tcp");
	f = open_data(r, name);
	if (!f)
		goto out;
	b.len = 0;
	rows = rundir ? tcp_series(rundir, f, &b, &nflows) : 0;
	fclose(f);
	ts_text_printf(&b,
		       "set multiplot layout 2,1\nset xlabel 'time since the run started "
		       "(s)'\nset key top right\nset ylabel 'cwnd (packets)'\nplot for [i=1:%zu] ",
		       nflows);
	file_ref(&b, r, name);
	ts_text_printf(&b,
		       " index (i-1) using 1:2 with steps title flows[i]\nset ylabel 'pacing "
		       "rate (Mbit/s)'\nplot for [i=1:%zu] ",
		       nflows);
	file_ref(&b, r, name);
	ts_text_printf(&b, " index (i-1) using 1:3 with lines title flows[i]\nunset multiplot\n");
	snprintf(title, sizeof(title), "%s: one run (%s): cwnd and pacing rate", t->test,
		 rundir ? rundir + strlen(r->dir) + 1 : "none");
	figure(r, name, title, &b,
	       rows ? NULL : "no socket statistics (upload flows' cwnd, pacing rate) in the run");
out:
	ts_text_fini(&b);
}

static int write_table(struct report *r, char *err, size_t errlen)
{
	struct ts_exp_summary s;
	int ret;

	ts_exp_summary_init(&s, NULL);
	ret = ts_exp_summary_from_dir(&s, r->dir, err, errlen);
	if (!ret) {
		fputs("# Report: ", r->md);
		ts_md_escape(r->md, s.name);
		fprintf(r->md,
			"\n\nFrom `%s` (every figure's numbers are in the .dat file beside "
			"it).\n\n## Summary\n\n",
			r->dir);
		ret = ts_exp_summary_write_md(&s, r->md);
	}
	ts_exp_summary_free(&s);
	return ret;
}

enum { OPT_OUT = 0x600, OPT_QQ_REF };

static const struct argp_option report_options[] = {
	{"out", OPT_OUT, "REPORT_DIR", 0, "Write the report here (default DIR/report)", 0},
	{"qq-ref", OPT_QQ_REF, "AXIS=VALUE,...", 0,
	 "The configuration each test's Q-Q plot compares the others against: the first whose "
	 "id holds every AXIS=VALUE given (e.g. cca=bbr3; a tas_shift 8/8 is written 8-8); "
	 "default: the test's first configuration",
	 0},
	{0}};

static error_t report_parse(int key, char *arg, struct argp_state *state)
{
	struct report *r = state->input;

	ts_cli_check_path(state, report_options, key, arg);
	switch (key) {
	case OPT_OUT:
		r->out = arg;
		break;
	case OPT_QQ_REF:
		r->qq_ref = arg;
		break;
	case ARGP_KEY_ARG:
		if (r->dir)
			argp_error(state, "unexpected '%s': one DIR", arg);
		if (!*arg)
			argp_error(state, "DIR is empty (expected an experiment directory)");
		r->dir = arg;
		break;
	case ARGP_KEY_END:
		if (!r->dir)
			argp_error(state, "expected DIR, an experiment directory");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp report_argp = {
	report_options,
	report_parse,
	"DIR",
	"Figures (gnuplot, PNG and SVG, each with its .dat data file) and report.md for the "
	"experiment directory DIR, written to REPORT_DIR (default DIR/report).",
	NULL,
	NULL,
	NULL};

int cmd_exp_report(int argc, char **argv)
{
	struct report r = {0};
	struct ts_report rep;
	char path[PATH_MAX], md[REF_LEN], err[1024];
	int ret = 1, fd;
	struct ts_err oerr;
	size_t k;

	if (argp_parse(&report_argp, argc, argv, 0, NULL, &r))
		return TS_EXIT_USAGE;
	if (!r.out) {
		snprintf(path, sizeof(path), "%s/report", r.dir);
		r.out = path;
	}
	if (!ts_gnuplot_available())
		return ts_cli_error("exp report: gnuplot is not installed (Debian: apt-get install "
				    "gnuplot-nox)");
	/* Read (and bounded) first: a directory refused leaves no report directory behind. */
	if (ts_report_load(&rep, r.dir, err, sizeof(err)))
		return ts_cli_error("exp report: %s", err);
	/* gnuplot reads the .dat files here by name: only in a directory no one else can write. */
	fd = ts_out_mkdir(r.out, &oerr);
	if (fd < 0 || ts_out_dir_private(r.out, &oerr) < 0) {
		if (fd >= 0)
			close(fd);
		ts_report_free(&rep);
		return ts_cli_error("exp report: %s", oerr.msg);
	}
	close(fd);
	snprintf(md, sizeof(md), "%s/report.md", r.out);
	r.md = ts_out_fopen(md, &oerr);
	if (!r.md) {
		ts_cli_error("exp report: %s", oerr.msg);
		goto out;
	}
	if (write_table(&r, err, sizeof(err))) {
		ts_cli_error("exp report: %s", err);
		goto out;
	}
	for (k = 0; k < rep.ntests; k++) {
		fputs("\n## ", r.md);
		ts_md_escape(r.md, rep.tests[k].test);
		fputc('\n', r.md);
		box_figures(&r, &rep.tests[k]);
		cdf_scatter_figures(&r, &rep.tests[k]);
		qq_figure(&r, &rep.tests[k]);
		run_figures(&r, &rep.tests[k]);
	}
	ret = r.bad ? 1 : 0;
out:
	if (r.md && fclose(r.md))
		ret = 1;
	if (!ret)
		printf("exp report: %u figures (%u saying their data is missing) and report.md in "
		       "%s\n",
		       r.figures, r.nodata, r.out);
	ts_report_free(&rep);
	return ret;
}

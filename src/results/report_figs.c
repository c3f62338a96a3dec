/* SPDX-License-Identifier: MIT */
/*
 * exp report's figures per configuration of a test: box plots of
 * throughput (upload, download) and of latency under load (ICMP, UDP),
 * the latency CDFs, the throughput-latency scatter with each
 * configuration's one-sigma ellipse and centroid, and the Q-Q plot of
 * ICMP latency against one configuration (--qq-ref).
 */
#include <stdio.h>

#include "io/gnuplot.h"
#include "results/report.h"
#include "results/report_fig.h"

/*
 * One box figure from data file @name: a candlestick per configuration drawn from columns
 * 1:6:5:9:8 (index, box bottom, whisker bottom, whisker top, box top), each labelled by
 * what sets it apart (ts_rep_label), then @series (the rest of the plot command: the
 * candlesticks' title and the median, mean or p99 drawn over them). Not drawn, and saying
 * why, when @why is set.
 */
static void box_figure(struct ts_rep_out *r, const struct ts_rep_test *t, const char *name,
		       const char *ylabel, const char *series, const char *title, const char *why)
{
	struct ts_text b;

	ts_text_init(&b);
	if (!why)
		ts_rep_ids_var(&b, t);
	ts_text_printf(&b,
		       "set ylabel '%s'\nset xtics rotate by -20\nset boxwidth 0.5\nset xrange "
		       "[-0.6:%zu.6]\nset key top right\nplot ",
		       ylabel, t->n ? t->n - 1 : 0);
	ts_rep_file_ref(&b, r, name);
	ts_text_printf(&b, " using 1:6:5:9:8:xtic(ids[int($1) + 1]) with candlesticks %s\n",
		       series);
	ts_rep_figure(r, name, title, &b, why);
	ts_text_fini(&b);
}

void ts_rep_box_figures(struct ts_rep_out *r, const struct ts_rep_test *t)
{
	char name[256], title[512], why[160];
	const char *crowd = ts_rep_crowded(t, why, sizeof(why));
	int up, udp;

	for (up = 1; up >= 0; up--) {
		FILE *f;
		size_t have;

		ts_rep_stem(name, sizeof(name), t->test, "-throughput-%s", up ? "up" : "down");
		f = ts_rep_open_data(r, name);
		if (!f)
			continue;
		have = ts_rep_write_throughput(f, t, up);
		fclose(f);
		snprintf(title, sizeof(title), "%s: %s throughput per configuration", t->test,
			 up ? "upload" : "download");
		box_figure(r, t, name, "Mbit/s (per run, sum of the flows)",
			   "title 'min, q1-q3, max' whiskerbars 0.5, '' using 1:7:7:7:7 with "
			   "candlesticks lt -1 lw 2 title 'median', '' using 1:4 with points pt 7 "
			   "ps 1.2 title 'mean'",
			   title,
			   crowd  ? crowd
			   : have ? NULL
			   : up	  ? "no upload flows in these runs"
				  : "no download flows in these runs");
	}
	for (udp = 0; udp < 2; udp++) {
		FILE *f;
		size_t have;

		ts_rep_stem(name, sizeof(name), t->test, "-latency-%s", udp ? "udp" : "icmp");
		f = ts_rep_open_data(r, name);
		if (!f)
			continue;
		have = ts_rep_write_latency(f, t, udp);
		fclose(f);
		snprintf(title, sizeof(title), "%s: %s latency under load per configuration",
			 t->test, udp ? "UDP" : "ICMP");
		box_figure(r, t, name, "ms (every sample under load)",
			   "title 'p5, p25-p75, p95' whiskerbars 0.5, '' using 1:7:7:7:7 with "
			   "candlesticks lt -1 lw 2 title 'p50', '' using 1:10 with points pt 2 ps "
			   "1.2 title 'p99', '' using 1:4 with points pt 7 ps 1.2 title 'mean'",
			   title,
			   crowd  ? crowd
			   : have ? NULL
			   : udp  ? "no UDP latency samples (irtt) under load in these runs"
				  : "no ICMP latency samples under load in these runs");
	}
}

/*
 * The Q-Q plot of ICMP latency under load: every configuration's percentiles against the
 * reference's (--qq-ref), with the diagonal where they would be equal. Points below it: lower
 * latency than the reference at that percentile.
 */
void ts_rep_qq_figure(struct ts_rep_out *r, const struct ts_rep_test *t)
{
	char name[256], title[512], why[160], label[512];
	const char *crowd = ts_rep_crowded(t, why, sizeof(why));
	long ref = ts_rep_qq_ref(t, r->qq_ref);
	size_t have = 0;
	struct ts_text b;
	FILE *f;

	ts_rep_stem(name, sizeof(name), t->test, "-qq");
	f = ts_rep_open_data(r, name);
	if (!f)
		return;
	if (ref >= 0)
		have = ts_rep_write_qq(f, t, (size_t)ref);
	fclose(f);
	ts_text_init(&b);
	if (!crowd && ref >= 0) {
		ts_rep_ids_var(&b, t);
		ts_rep_label(t, (size_t)ref, label, sizeof(label));
		ts_text_printf(&b, "set xlabel ");
		ts_gnuplot_quote(&b, label);
		/* Both axes over the same range, square: the diagonal is where they agree. */
		ts_text_printf(&b, "\nset ylabel 'each configuration (ms)'\nset key top left\nset "
				   "size square\nstats ");
		ts_rep_file_ref(&b, r, name);
		ts_text_printf(&b,
			       " using 1:2 nooutput\nlo = STATS_min_x < STATS_min_y ? STATS_min_x "
			       ": STATS_min_y\nhi = STATS_max_x > STATS_max_y ? STATS_max_x : "
			       "STATS_max_y\nset xrange [lo:hi]\nset yrange [lo:hi]\nplot x with "
			       "lines lt 0 title 'equal', for [i=0:%zu] ",
			       t->n > 1 ? t->n - 2 : 0);
		ts_rep_file_ref(&b, r, name);
		/* The reference has no block of its own: block i is configuration i or i + 1. */
		ts_text_printf(&b,
			       " index i using 1:2 with linespoints pt 7 ps 0.5 title "
			       "ids[i + 1 + (i >= %ld)]\n",
			       ref);
	}
	snprintf(title, sizeof(title), "%s: ICMP latency under load, Q-Q against one configuration",
		 t->test);
	ts_rep_figure(r, name, title, &b,
		      crowd	 ? crowd
		      : ref < 0	 ? "no configuration matches --qq-ref"
		      : t->n < 2 ? "one configuration: nothing to compare"
		      : have	 ? NULL
				 : "no ICMP latency samples under load in these runs");
	ts_text_fini(&b);
}

void ts_rep_cdf_scatter_figures(struct ts_rep_out *r, const struct ts_rep_test *t)
{
	char name[256], title[512], sname[256], ename[256], cname[256], why[160];
	const char *crowd = ts_rep_crowded(t, why, sizeof(why));
	size_t have, have2;
	struct ts_text b;
	FILE *f;

	ts_text_init(&b);
	ts_rep_stem(name, sizeof(name), t->test, "-latency-cdf");
	f = ts_rep_open_data(r, name);
	if (f) {
		have = ts_rep_write_cdf(f, t);
		fclose(f);
		if (!crowd)
			ts_rep_ids_var(&b, t);
		ts_text_printf(&b,
			       "set xlabel 'ICMP latency under load (ms)'\nset ylabel 'cumulative "
			       "fraction'\nset yrange [0:1]\nset key bottom right\nplot for "
			       "[i=0:%zu] ",
			       t->n ? t->n - 1 : 0);
		ts_rep_file_ref(&b, r, name);
		ts_text_printf(&b, " index i using 1:2 with lines lw 2 title ids[i+1]\n");
		snprintf(title, sizeof(title), "%s: ICMP latency CDF under load", t->test);
		ts_rep_figure(r, name, title, &b,
			      crowd  ? crowd
			      : have ? NULL
				     : "no ICMP latency samples under load in these runs");
	}
	ts_rep_stem(sname, sizeof(sname), t->test, "-scatter");
	ts_rep_stem(ename, sizeof(ename), t->test, "-ellipse");
	ts_rep_stem(cname, sizeof(cname), t->test, "-centroid");
	f = ts_rep_open_data(r, sname);
	if (!f)
		goto out;
	have = ts_rep_write_scatter(f, t);
	fclose(f);
	f = ts_rep_open_data(r, ename);
	if (!f)
		goto out;
	have2 = ts_rep_write_ellipse(f, t);
	fclose(f);
	f = ts_rep_open_data(r, cname);
	if (!f)
		goto out;
	ts_rep_write_centroids(f, t);
	fclose(f);
	b.len = 0;
	if (!crowd)
		ts_rep_ids_var(&b, t);
	ts_text_printf(&b,
		       "set xlabel 'ICMP latency (ms)'\nset ylabel 'throughput, all flows "
		       "(Mbit/s)'\nset key outside right\nplot for [i=0:%zu] ",
		       t->n ? t->n - 1 : 0);
	ts_rep_file_ref(&b, r, sname);
	ts_text_printf(&b,
		       " index i using 1:2 with points pt 7 ps 0.4 lc i+1 title ids[i+1], for "
		       "[i=0:%zu] ",
		       t->n ? t->n - 1 : 0);
	ts_rep_file_ref(&b, r, ename);
	ts_text_printf(&b, " index i using 1:2 with lines lw 2 lc i+1 notitle, ");
	ts_rep_file_ref(&b, r, cname);
	ts_text_printf(&b, " using 4:5:($1+1) with points pt 9 ps 2.5 lc variable title "
			   "'centroid'\n");
	snprintf(title, sizeof(title),
		 "%s: throughput against latency, one-sigma ellipse and centroid per configuration",
		 t->test);
	ts_rep_figure(r, sname, title, &b,
		      crowd ? crowd
		      : have && have2
			      ? NULL
			      : "fewer than two per-second points (throughput and ICMP latency) "
				"under load");
out:
	ts_text_fini(&b);
}

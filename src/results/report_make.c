/* SPDX-License-Identifier: MIT */
/*
 * exp report DIR: the figures of an experiment (gnuplot, PNG and SVG) and
 * report.md, which shows them with the summary table. Per test: box plots
 * of throughput per configuration (upload, download), of ICMP (and UDP)
 * latency under load, the latency CDFs, and the throughput-latency scatter
 * with each configuration's one-sigma ellipse and centroid (Flent's
 * ellipsis plot); for the first run of the test: offered capacity against
 * delivered throughput, queueing delay, and cwnd and pacing rate from the
 * socket statistics. Every figure has its data file beside it (NAME.dat),
 * holding the numbers of the summary; a figure without data says so in
 * the picture.
 *
 * An experiment directory is untrusted input: gnuplot (io/gnuplot.h, one
 * process per picture, the picture on its standard output) reads only the
 * .dat files written here, stats.csv is read by its strict reader
 * (record/stats_in.h), and every string that enters a script (a test name,
 * a configuration id, a flow name, a path) goes through ts_gnuplot_quote().
 */
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "io/gnuplot.h"
#include "io/md.h"
#include "io/outfile.h"
#include "results/report.h"
#include "results/report_fig.h"
#include "results/report_make.h"
#include "results/summary.h"

static int write_table(struct ts_rep_out *r, struct ts_err *err)
{
	struct ts_exp_summary s;
	int ret;

	ts_exp_summary_init(&s, NULL);
	ret = ts_exp_summary_from_dir(&s, r->dir, err);
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

/* The report directory, private (gnuplot reads the .dat files there by name), and report.md. */
static int open_out(struct ts_rep_out *r)
{
	char md[TS_REP_REF_LEN];
	struct ts_err err;
	int fd;

	fd = ts_out_mkdir(r->out, &err);
	if (fd < 0 || ts_out_dir_private(r->out, &err) < 0) {
		if (fd >= 0)
			close(fd);
		ts_rep_say(r, "%s", err.msg);
		return -1;
	}
	close(fd);
	snprintf(md, sizeof(md), "%s/report.md", r->out);
	r->md = ts_out_fopen(md, &err);
	if (!r->md) {
		ts_rep_say(r, "%s", err.msg);
		return -1;
	}
	return 0;
}

static int write_report(struct ts_rep_out *r, const struct ts_report *rep)
{
	struct ts_err err;
	size_t k;

	if (write_table(r, &err)) {
		ts_rep_say(r, "%s", err.msg);
		return -1;
	}
	for (k = 0; k < rep->ntests; k++) {
		fputs("\n## ", r->md);
		ts_md_escape(r->md, rep->tests[k].test);
		fputc('\n', r->md);
		ts_rep_box_figures(r, &rep->tests[k]);
		ts_rep_cdf_scatter_figures(r, &rep->tests[k]);
		ts_rep_qq_figure(r, &rep->tests[k]);
		ts_rep_run_figures(r, &rep->tests[k]);
	}
	return r->bad ? -1 : 0;
}

int ts_report_make(const struct ts_report_req *q, unsigned *figures, unsigned *nodata)
{
	struct ts_rep_out r = {
		.dir = q->dir, .out = q->out, .qq_ref = q->qq_ref, .say = q->say, .ctx = q->ctx};
	struct ts_report rep;
	struct ts_err err;
	int ret = -1;

	if (!ts_gnuplot_available()) {
		ts_rep_say(&r, "gnuplot is not installed (Debian: apt-get install gnuplot-nox)");
		return -1;
	}
	/* Read (and bounded) first: a directory refused leaves no report directory behind. */
	if (ts_report_load(&rep, r.dir, &err)) {
		ts_rep_say(&r, "%s", err.msg);
		return -1;
	}
	if (!open_out(&r))
		ret = write_report(&r, &rep);
	if (r.md && fclose(r.md))
		ret = -1;
	ts_report_free(&rep);
	*figures = r.figures;
	*nodata = r.nodata;
	return ret;
}

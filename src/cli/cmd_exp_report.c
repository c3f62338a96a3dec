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
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/cli.h"
#include "cli/cmd_exp_results.h"
#include "exp/report.h"
#include "exp/rjson.h"
#include "exp/summary.h"
#include "run/outfile.h"

/* Room for a gnuplot command naming three data files of PATH_MAX each. */
#define BODY_LEN (4 * PATH_MAX + 4096)
#define REF_LEN	 (PATH_MAX + 300)

struct report {
	const char *dir, *out;
	FILE *gp, *md;
	unsigned figures, nodata;
};

/* A gnuplot single-quoted string: quotes doubled. */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

static FILE *open_data(const struct report *r, const char *name)
{
	char path[REF_LEN];
	struct ts_err err;

	snprintf(path, sizeof(path), "%s/%s.dat", r->out, name);
	return ts_out_fopen(path, &err);
}

/* Plot @body twice, as NAME.png and NAME.svg; @nodata: a picture that says why instead. */
static void figure(struct report *r, const char *name, const char *title, const char *body,
		   const char *nodata)
{
	int svg;

	for (svg = 0; svg < 2; svg++) {
		char path[REF_LEN];

		if (svg)
			fputs("set terminal svg size 1000,600 dynamic noenhanced font 'Sans,11'\n",
			      r->gp);
		else
			fputs("if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal "
			      "pngcairo "
			      "size 1000,600 noenhanced font 'Sans,10' } else { set terminal png "
			      "size "
			      "1000,600 noenhanced }\n",
			      r->gp);
		snprintf(path, sizeof(path), "%s/%s.%s", r->out, name, svg ? "svg" : "png");
		fputs("reset\nset output ", r->gp);
		gp_str(r->gp, path);
		fputs("\nset title ", r->gp);
		gp_str(r->gp, title);
		fputc('\n', r->gp);
		if (nodata) {
			fputs("unset border\nunset tics\nunset key\nset label 1 ", r->gp);
			gp_str(r->gp, nodata);
			fputs(" at graph 0.5, 0.5 center font ',16'\nplot [0:1] [0:1] NaN "
			      "notitle\n",
			      r->gp);
		} else {
			fputs("set grid\n", r->gp);
			fputs(body, r->gp);
		}
		fputs("unset output\n", r->gp);
	}
	fprintf(r->md, "\n### %s\n\n![%s](%s.png)\n\n[SVG](%s.svg) · data: [%s.dat](%s.dat)%s%s\n",
		title, title, name, name, name, name, nodata ? " · **no data**: " : "",
		nodata ? nodata : "");
	r->figures++;
	if (nodata)
		r->nodata++;
}

static void file_ref(char *buf, size_t len, const struct report *r, const char *name)
{
	int n = snprintf(buf, len, "'");

	for (const char *p = r->out; *p && n + 3 < (int)len; p++) {
		if (*p == '\'')
			buf[n++] = '\'';
		buf[n++] = *p;
	}
	snprintf(buf + n, len - (size_t)n, "/%s.dat'", name);
}

/* Space-separated configuration ids, for gnuplot's word(). */
static void ids_var(FILE *gp, const struct ts_rep_test *t)
{
	size_t i;

	fputs("ids = '", gp);
	for (i = 0; i < t->n; i++)
		fprintf(gp, "%s%s", i ? " " : "", t->c[i].id);
	fputs("'\n", gp);
}

static void box_figures(struct report *r, const struct ts_rep_test *t)
{
	char name[256], title[512], body[BODY_LEN], ref[REF_LEN];
	int up, udp;

	for (up = 1; up >= 0; up--) {
		FILE *f;
		size_t have;

		snprintf(name, sizeof(name), "%s-throughput-%s", t->test, up ? "up" : "down");
		f = open_data(r, name);
		if (!f)
			continue;
		have = ts_rep_write_throughput(f, t, up);
		fclose(f);
		file_ref(ref, sizeof(ref), r, name);
		snprintf(
			body, sizeof(body),
			"set ylabel 'Mbit/s (per run, sum of the flows)'\nset xtics rotate by -20\n"
			"set boxwidth 0.5\nset xrange [-0.6:%zu.6]\nset key top right\n"
			"plot %s using 1:6:5:9:8:xtic(2) with candlesticks "
			"title 'min, q1-q3, max' whiskerbars 0.5, '' using 1:7:7:7:7 with "
			"candlesticks lt -1 lw 2 "
			"title 'median', '' using 1:4 with points pt 7 ps 1.2 title 'mean'\n",
			t->n ? t->n - 1 : 0, ref);
		snprintf(title, sizeof(title), "%s: %s throughput per configuration", t->test,
			 up ? "upload" : "download");
		figure(r, name, title, body,
		       have ? NULL
		       : up ? "no upload flows in these runs"
			    : "no download flows in these runs");
	}
	for (udp = 0; udp < 2; udp++) {
		FILE *f;
		size_t have;

		snprintf(name, sizeof(name), "%s-latency-%s", t->test, udp ? "udp" : "icmp");
		f = open_data(r, name);
		if (!f)
			continue;
		have = ts_rep_write_latency(f, t, udp);
		fclose(f);
		file_ref(ref, sizeof(ref), r, name);
		snprintf(body, sizeof(body),
			 "set ylabel 'ms (every sample under load)'\nset xtics rotate by -20\n"
			 "set boxwidth 0.5\nset xrange [-0.6:%zu.6]\nset key top right\n"
			 "plot %s using 1:6:5:9:8:xtic(2) with candlesticks "
			 "title 'p5, p25-p75, p95' whiskerbars 0.5, '' using 1:7:7:7:7 with "
			 "candlesticks lt -1 lw 2 "
			 "title 'p50', '' using 1:10 with points pt 2 ps 1.2 title 'p99', '' using "
			 "1:4 with points pt 7 ps 1.2 title 'mean'\n",
			 t->n ? t->n - 1 : 0, ref);
		snprintf(title, sizeof(title), "%s: %s latency under load per configuration",
			 t->test, udp ? "UDP" : "ICMP");
		figure(r, name, title, body,
		       have  ? NULL
		       : udp ? "no UDP latency samples (irtt) under load in these runs"
			     : "no ICMP latency samples under load in these runs");
	}
}

static void cdf_scatter_figures(struct report *r, const struct ts_rep_test *t)
{
	char name[256], title[512], body[BODY_LEN], ref[REF_LEN], eref[REF_LEN];
	char cref[REF_LEN];
	size_t have, have2;
	FILE *f;

	snprintf(name, sizeof(name), "%s-latency-cdf", t->test);
	f = open_data(r, name);
	if (f) {
		have = ts_rep_write_cdf(f, t);
		fclose(f);
		file_ref(ref, sizeof(ref), r, name);
		ids_var(r->gp, t);
		snprintf(body, sizeof(body),
			 "set xlabel 'ICMP latency under load (ms)'\nset ylabel 'cumulative "
			 "fraction'\n"
			 "set yrange [0:1]\nset key bottom right\n"
			 "plot for [i=0:%zu] %s index i using 1:2 with lines lw 2 title word(ids, "
			 "i+1)\n",
			 t->n ? t->n - 1 : 0, ref);
		snprintf(title, sizeof(title), "%s: ICMP latency CDF under load", t->test);
		figure(r, name, title, body,
		       have ? NULL : "no ICMP latency samples under load in these runs");
	}
	snprintf(name, sizeof(name), "%s-scatter", t->test);
	f = open_data(r, name);
	if (!f)
		return;
	have = ts_rep_write_scatter(f, t);
	fclose(f);
	file_ref(ref, sizeof(ref), r, name);
	snprintf(name, sizeof(name), "%s-ellipse", t->test);
	f = open_data(r, name);
	if (!f)
		return;
	have2 = ts_rep_write_ellipse(f, t);
	fclose(f);
	file_ref(eref, sizeof(eref), r, name);
	snprintf(name, sizeof(name), "%s-centroid", t->test);
	f = open_data(r, name);
	if (!f)
		return;
	ts_rep_write_centroids(f, t);
	fclose(f);
	file_ref(cref, sizeof(cref), r, name);
	ids_var(r->gp, t);
	snprintf(body, sizeof(body),
		 "set xlabel 'ICMP latency (ms)'\nset ylabel 'throughput, all flows (Mbit/s)'\n"
		 "set key outside right\n"
		 "plot for [i=0:%zu] %s index i using 1:2 with points pt 7 ps 0.4 lc i+1 title "
		 "word(ids, i+1), for [i=0:%zu] %s index i using 1:2 with lines lw 2 lc i+1 "
		 "notitle, %s using 4:5:($1+1) with points pt 9 ps 2.5 lc variable title "
		 "'centroid'\n",
		 t->n ? t->n - 1 : 0, ref, t->n ? t->n - 1 : 0, eref, cref);
	snprintf(title, sizeof(title),
		 "%s: throughput against latency, one-sigma ellipse and centroid per configuration",
		 t->test);
	snprintf(name, sizeof(name), "%s-scatter", t->test);
	figure(r, name, title, body,
	       have && have2 ? NULL
			     : "fewer than two per-second points (throughput and ICMP latency) "
			       "under load");
}

/*
 * stats.csv of a run: per direction, capacity and throughput (Mbit/s), queueing delay.
 * Its time_s is the end of each window; a window is drawn at its centre, on the time axis
 * of the socket samples (instants, same origin), so that both panels line up.
 */
static size_t link_series(const char *rundir, FILE *out)
{
	char path[PATH_MAX], line[2048];
	int col[7] = {-1, -1, -1, -1, -1, -1, -1}; /* time dir capacity throughput p50 max len */
	static const char *const names[7] = {"time_s",	       "dir",		"capacity_bps",
					     "throughput_bps", "qdelay_p50_ms", "qdelay_max_ms",
					     "interval_s"};
	size_t rows = 0;
	int d;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stats.csv", rundir);
	for (d = 0; d < 2; d++) {
		f = fopen(path, "r");
		if (!f)
			return 0;
		fprintf(out,
			"%s# %s: t capacity_mbps throughput_mbps qdelay_p50_ms qdelay_max_ms\n",
			d ? "\n\n" : "", d ? "downlink" : "uplink");
		if (fgets(line, sizeof(line), f)) {
			char *tok, *save = NULL;
			int k = 0, j;

			line[strcspn(line, "\r\n")] = '\0';
			for (tok = strtok_r(line, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save), k++)
				for (j = 0; j < 7; j++)
					if (!strcmp(tok, names[j]))
						col[j] = k;
		}
		while (col[0] >= 0 && col[1] >= 0 && fgets(line, sizeof(line), f)) {
			char *field[64], *p = line;
			double v[7];
			int n = 0, j;

			line[strcspn(line, "\r\n")] = '\0';
			while (n < 64) {
				field[n++] = p;
				p = strchr(p, ',');
				if (!p)
					break;
				*p++ = '\0';
			}
			if (col[1] >= n || strcmp(field[col[1]], d ? "downlink" : "uplink"))
				continue;
			for (j = 0; j < 7; j++)
				v[j] = j != 1 && col[j] >= 0 && col[j] < n && field[col[j]][0]
					       ? strtod(field[col[j]], NULL)
					       : NAN;
			if (!isnan(v[6]))
				v[0] -= v[6] / 2;
			fprintf(out, "%.3f %.6f %.6f %.3f %.3f\n", v[0], v[2] / 1e6, v[3] / 1e6,
				v[4], v[5]);
			rows++;
		}
		fclose(f);
	}
	return rows;
}

/* The socket statistics of result.json: per flow, t cwnd pacing_mbps delivery_mbps. */
static size_t tcp_series(const char *rundir, FILE *out, char *titles, size_t tlen)
{
	struct json_object *res = NULL, *ss;
	char path[PATH_MAX], err[256];
	size_t n, i, j, rows = 0, off = 0;

	titles[0] = '\0';
	snprintf(path, sizeof(path), "%s/result.json", rundir);
	if (ts_rj_load(path, &res, err, sizeof(err)))
		return 0;
	ss = ts_rj_arr(res, "sockstats", &n);
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(ss, i);
		struct json_object *t = ts_rj_arr(e, "t", NULL), *cw = ts_rj_arr(e, "cwnd", NULL);
		struct json_object *pr = ts_rj_arr(e, "pacing_rate_bps", NULL);
		struct json_object *dr = ts_rj_arr(e, "delivery_rate_bps", NULL);
		size_t m = t ? json_object_array_length(t) : 0;
		const char *flow = ts_rj_str(e, "flow", "flow");
		int w;

		fprintf(out, "%s# %s: t cwnd_pkts pacing_mbps delivery_mbps\n", i ? "\n\n" : "",
			flow);
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
		w = snprintf(titles + off, tlen - off, "%s%s", off ? " " : "", flow);
		if (w > 0 && (size_t)w < tlen - off) {
			for (j = off + (off ? 1 : 0); titles[j]; j++)
				if (titles[j] == ' ')
					titles[j] = '_';
			off += (size_t)w;
		}
	}
	json_object_put(res);
	return rows;
}

static void run_figures(struct report *r, const struct ts_rep_test *t)
{
	const char *rundir = NULL;
	char name[256], title[REF_LEN + 256], body[BODY_LEN], ref[REF_LEN], flows[2048];
	size_t i, rows;
	FILE *f;

	for (i = 0; i < t->n && !rundir; i++)
		rundir = t->c[i].first_run;
	snprintf(name, sizeof(name), "%s-run-link", t->test);
	f = open_data(r, name);
	if (!f)
		return;
	rows = rundir ? link_series(rundir, f) : 0;
	fclose(f);
	file_ref(ref, sizeof(ref), r, name);
	snprintf(body, sizeof(body),
		 "set multiplot layout 2,1\nset xlabel 'time since the run started (s)'\n"
		 "set ylabel 'Mbit/s'\nset key top right\n"
		 "plot %s index 0 using 1:2 with steps lw 2 title 'uplink capacity offered', '' "
		 "index 0 using 1:3 with lines title 'uplink delivered', '' index 1 using 1:2 "
		 "with steps lw 2 title 'downlink capacity offered', '' index 1 using 1:3 with "
		 "lines title 'downlink delivered'\n"
		 "set ylabel 'queueing delay (ms)'\n"
		 "plot %s index 0 using 1:4 with lines title 'uplink p50', '' index 0 using 1:5 "
		 "with lines title 'uplink max', '' index 1 using 1:4 with lines title 'downlink "
		 "p50', '' index 1 using 1:5 with lines title 'downlink max'\nunset multiplot\n",
		 ref, ref);
	snprintf(title, sizeof(title), "%s: one run (%s): capacity, throughput, queueing delay",
		 t->test, rundir ? rundir + strlen(r->dir) + 1 : "none");
	figure(r, name, title, body,
	       rows ? NULL : "no stats.csv (tasshape's per-interval link record) in the run");

	snprintf(name, sizeof(name), "%s-run-tcp", t->test);
	f = open_data(r, name);
	if (!f)
		return;
	rows = rundir ? tcp_series(rundir, f, flows, sizeof(flows)) : 0;
	fclose(f);
	file_ref(ref, sizeof(ref), r, name);
	fprintf(r->gp, "flows = ");
	gp_str(r->gp, flows);
	fputc('\n', r->gp);
	snprintf(body, sizeof(body),
		 "set multiplot layout 2,1\nset xlabel 'time since the run started (s)'\n"
		 "set key top right\nset ylabel 'cwnd (packets)'\n"
		 "plot for [i=0:words(flows)-1] %s index i using 1:2 with steps title "
		 "word(flows, i+1)\nset ylabel 'pacing rate (Mbit/s)'\n"
		 "plot for [i=0:words(flows)-1] %s index i using 1:3 with lines title "
		 "word(flows, i+1)\nunset multiplot\n",
		 ref, ref);
	snprintf(title, sizeof(title), "%s: one run (%s): cwnd and pacing rate", t->test,
		 rundir ? rundir + strlen(r->dir) + 1 : "none");
	figure(r, name, title, body,
	       rows ? NULL : "no socket statistics (upload flows' cwnd, pacing rate) in the run");
}

static FILE *start_gnuplot(pid_t *pid)
{
	int fd[2];
	FILE *f;

	if (pipe(fd) < 0)
		return NULL;
	*pid = fork();
	if (*pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (*pid == 0) {
		dup2(fd[0], STDIN_FILENO);
		close(fd[0]);
		close(fd[1]);
		execlp("gnuplot", "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(fd[0]);
	f = fdopen(fd[1], "w");
	if (!f)
		close(fd[1]);
	return f;
}

static int write_table(struct report *r, char *err, size_t errlen)
{
	struct ts_exp_summary s;
	int ret;

	ts_exp_summary_init(&s, NULL);
	ret = ts_exp_summary_from_dir(&s, r->dir, err, errlen);
	if (!ret) {
		fprintf(r->md,
			"# Report: %s\n\nFrom `%s` (every figure's numbers are in the .dat "
			"file beside it).\n\n## Summary\n\n",
			s.name, r->dir);
		ret = ts_exp_summary_write_md(&s, r->md);
	}
	ts_exp_summary_free(&s);
	return ret;
}

int cmd_exp_report(int argc, char **argv)
{
	struct report r = {0};
	struct ts_report rep;
	char path[PATH_MAX], md[REF_LEN], err[1024];
	int i, status = 0, ret = 1, fd;
	struct ts_err oerr;
	pid_t pid;
	size_t k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("Usage: tasshape exp report DIR [--out REPORT_DIR]\n"
			       "Figures (gnuplot, PNG and SVG, each with its .dat data file) and "
			       "report.md for the\nexperiment directory DIR, written to "
			       "REPORT_DIR (default DIR/report).\n");
			return 0;
		}
		if (!strcmp(argv[i], "--out") && i + 1 < argc)
			r.out = argv[++i];
		else if (argv[i][0] == '-' || r.dir)
			return ts_cli_error(
				       "exp report: unexpected '%s' (tasshape exp report --help)",
				       argv[i]),
			       2;
		else
			r.dir = argv[i];
	}
	if (!r.dir)
		return ts_cli_error("exp report: expected DIR, an experiment directory"), 2;
	if (!r.out) {
		snprintf(path, sizeof(path), "%s/report", r.dir);
		r.out = path;
	}
	/* gnuplot opens the pictures by name: only in a directory no one else can write. */
	fd = ts_out_mkdir(r.out, &oerr);
	if (fd < 0 || ts_out_dir_private(r.out, &oerr) < 0) {
		if (fd >= 0)
			close(fd);
		return ts_cli_error("exp report: %s", oerr.msg);
	}
	close(fd);
	if (ts_report_load(&rep, r.dir, err, sizeof(err)))
		return ts_cli_error("exp report: %s", err);
	snprintf(md, sizeof(md), "%s/report.md", r.out);
	r.md = ts_out_fopen(md, &oerr);
	r.gp = r.md ? start_gnuplot(&pid) : NULL;
	if (!r.md || !r.gp) {
		ts_cli_error("exp report: %s", r.md ? "gnuplot: cannot start" : oerr.msg);
		goto out;
	}
	if (write_table(&r, err, sizeof(err))) {
		ts_cli_error("exp report: %s", err);
		goto out;
	}
	for (k = 0; k < rep.ntests; k++) {
		fprintf(r.md, "\n## %s\n", rep.tests[k].test);
		box_figures(&r, &rep.tests[k]);
		cdf_scatter_figures(&r, &rep.tests[k]);
		run_figures(&r, &rep.tests[k]);
	}
	ret = 0;
out:
	if (r.gp) {
		fclose(r.gp);
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			ts_cli_error("exp report: gnuplot failed (exit status %d; Debian: apt-get "
				     "install gnuplot-nox)",
				     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			ret = 1;
		}
	}
	if (r.md && fclose(r.md))
		ret = 1;
	if (!ret)
		printf("exp report: %u figures (%u saying their data is missing) and report.md in "
		       "%s\n",
		       r.figures, r.nodata, r.out);
	ts_report_free(&rep);
	return ret;
}

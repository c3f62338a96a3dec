/* SPDX-License-Identifier: MIT */
/*
 * tasshape plot RUN_DIR: from a run's record (--out DIR) to pictures, with
 * gnuplot (io/gnuplot.h: one gnuplot per picture, the script on its
 * standard input, the picture on its standard output):
 *
 *   throughput.png/.svg  throughput and capacity over time, per direction (stats.csv)
 *   delay.png/.svg       queueing delay p50 and max per window, per direction (stats.csv)
 *   delay-cdf.png/.svg   CDF of the per-packet queueing delay (uplink.log, downlink.log)
 *   tcp.png/.svg         cwnd and smoothed RTT per flow over time (sockstats.csv)
 *
 * A picture whose input file is missing or empty is skipped with a note.
 * The run directory is untrusted input (it may come from anyone): its
 * files are read by the strict readers beside their writers
 * (record/stats_in.h, record/sockstats_in.h), and gnuplot sees only numbers
 * that tasshape parsed and wrote again into files of its own private
 * directory, and strings through ts_gnuplot_quote(). A malformed file
 * is named with its line; the other pictures are still drawn, and the
 * command exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/csv_in.h"
#include "io/gnuplot.h"
#include "run/obs.h"
#include "record/sockstats_in.h"
#include "record/stats_in.h"
#include "tasshape/units.h"

#define MAX_FLOWS 32

struct plot_args {
	const char *dir, *out;
	bool png, svg;
	unsigned int width, height;
};

enum { OPT_FORMAT = 0x600, OPT_SIZE, OPT_OUTDIR };

static const struct argp_option plot_options[] = {
	{"format", OPT_FORMAT, "png|svg|both", 0, "Picture formats (default both)", 0},
	{"size", OPT_SIZE, "WxH", 0, "Picture size in pixels (default 1024x640)", 0},
	{"out", OPT_OUTDIR, "DIR", 0, "Where to write the pictures (default RUN_DIR)", 0},
	{0}};

static error_t plot_parse(int key, char *arg, struct argp_state *state)
{
	struct plot_args *a = state->input;
	unsigned int w, h;
	int n = 0;

	ts_cli_check_path(state, plot_options, key, arg);
	switch (key) {
	case OPT_FORMAT:
		a->png = !strcmp(arg, "png") || !strcmp(arg, "both");
		a->svg = !strcmp(arg, "svg") || !strcmp(arg, "both");
		if (!a->png && !a->svg)
			argp_error(state, "--format: expected png, svg or both, got '%s'", arg);
		break;
	case OPT_SIZE:
		if (sscanf(arg, "%ux%u%n", &w, &h, &n) != 2 || arg[n] || w < 200 || h < 150 ||
		    w > 10000 || h > 10000)
			argp_error(state,
				   "--size: expected WxH from 200x150 to 10000x10000, got '%s'",
				   arg);
		a->width = w;
		a->height = h;
		break;
	case OPT_OUTDIR:
		a->out = arg;
		break;
	case ARGP_KEY_ARG:
		if (a->dir)
			argp_error(state, "unexpected argument '%s'", arg);
		a->dir = arg;
		break;
	case ARGP_KEY_END:
		if (!a->dir)
			argp_error(state, "RUN_DIR is required");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp plot_argp = {
	plot_options,
	plot_parse,
	"RUN_DIR",
	"Draw a run's record (written with --out RUN_DIR) with gnuplot: throughput.png (throughput "
	"and capacity over time), delay.png (queueing delay over time), delay-cdf.png (per-packet "
	"queueing delay CDF) and tcp.png (cwnd and RTT per flow), each also as SVG.\v"
	"Examples:\n"
	"  sudo tasshape --trace step-10-40mbit --out run1 -- \\\n"
	"      sh -c 'iperf3 -c $TASSHAPE_BASE -t 20'\n"
	"  tasshape plot run1\n"
	"  tasshape plot run1 --format svg --size 1600x900 --out figures",
	NULL,
	NULL,
	NULL};

struct plot {
	const struct plot_args *a;
	struct ts_gnuplot_tmp tmp;
	char stats[2][TS_OBS_PATH], cdf[2][TS_OBS_PATH], flow[MAX_FLOWS][TS_OBS_PATH];
	FILE *statf[2], *flowf[MAX_FLOWS];
	char keys[MAX_FLOWS][TS_SS_STR_MAX], titles[MAX_FLOWS][TS_SS_STR_MAX + 20];
	long stats_rows;
	bool have_cdf[2];
	int nflows;
	int bad; /* an input file was malformed, or a picture could not be drawn */
};

/* A number for gnuplot's data files: NAN is a missing value. */
static void put_num(FILE *f, double v, char sep)
{
	if (isnan(v))
		fprintf(f, "NaN%c", sep);
	else
		fprintf(f, "%.17g%c", v, sep);
}

/* A row of stats.csv into its direction's file: t cap tput p50 max (bit/s, ms). */
static int stats_row(void *ctx, const struct ts_stats_row *r)
{
	struct plot *p = ctx;
	FILE *f = p->statf[r->dir];

	put_num(f, r->v[TS_STATS_TIME], ' ');
	put_num(f, r->v[TS_STATS_CAPACITY], ' ');
	put_num(f, r->v[TS_STATS_THROUGHPUT], ' ');
	put_num(f, r->v[TS_STATS_P50], ' ');
	put_num(f, r->v[TS_STATS_MAX], '\n');
	p->stats_rows++;
	return 0;
}

/* stats.csv into stats-up.dat and stats-down.dat; returns the row count, or < 0. */
static long stats_data(struct plot *p)
{
	static const char *const names[2] = {"stats-up.dat", "stats-down.dat"};
	char path[TS_OBS_PATH];
	struct ts_err err;
	int d, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", p->a->dir, TS_OUT_STATS);
	for (d = 0; d < 2 && !ret; d++) {
		p->statf[d] =
			ts_gnuplot_tmp_file(&p->tmp, names[d], p->stats[d], sizeof(p->stats[d]));
		if (!p->statf[d])
			ret = -errno;
	}
	if (!ret)
		ret = ts_stats_in_file(path, stats_row, p, &err);
	for (d = 0; d < 2; d++)
		if (p->statf[d] && fclose(p->statf[d]) && !ret)
			ret = -EIO;
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		ts_cli_error("plot: %s: throughput and delay not drawn",
			     ret == -EINVAL ? err.msg : strerror(-ret));
		p->bad = 1;
		return ret;
	}
	return p->stats_rows;
}

/* The departures' delays of a mahimahi log, counted per millisecond. */
struct cdf_count {
	uint64_t *count, total;
	size_t ncount;
};

/* One line of a log: a departure's delay counted, anything else skipped. */
static int cdf_line(void *ctx, const char *line, size_t len, unsigned long lineno,
		    struct ts_err *err)
{
	struct cdf_count *c = ctx;
	unsigned long long t, size, delay;
	char type;

	(void)len, (void)lineno, (void)err;
	if (line[0] == '#' || sscanf(line, "%llu %c %llu %llu", &t, &type, &size, &delay) != 4 ||
	    type != '-' || delay > 10000000)
		return 0;
	if (delay >= c->ncount) {
		size_t nn = (size_t)delay * 2 + 64;
		uint64_t *k = realloc(c->count, nn * sizeof(*k));

		if (!k)
			return -ENOMEM;
		memset(k + c->ncount, 0, (nn - c->ncount) * sizeof(*k));
		c->count = k;
		c->ncount = nn;
	}
	c->count[delay]++;
	c->total++;
	return 0;
}

/* Per-packet queueing delays (ms) of a mahimahi log's departures, as a CDF data file. */
static int cdf_data(struct plot *p, int d)
{
	static const char *const log[2] = {"uplink.log", "downlink.log"};
	struct cdf_count c = {0};
	char path[TS_OBS_PATH];
	struct ts_err err;
	uint64_t seen = 0;
	FILE *out;
	size_t i;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", p->a->dir, log[d]);
	out = ts_gnuplot_tmp_file(&p->tmp, d ? "cdf-down.dat" : "cdf-up.dat", p->cdf[d],
				  sizeof(p->cdf[d]));
	if (!out)
		return -errno;
	/* The shared line reader: a regular file only, lines of a bounded length. */
	ret = ts_csv_in_file(path, cdf_line, &c, &err);
	if (ret && ret != -ENOENT) {
		ts_cli_error("plot: %s: delay CDF not drawn",
			     ret == -ENOMEM ? strerror(ENOMEM) : err.msg);
		p->bad = 1;
		c.total = 0;
	}
	for (i = 0; i < c.ncount && c.total; i++) {
		if (!c.count[i])
			continue;
		seen += c.count[i];
		fprintf(out, "%zu %.6f\n", i, (double)seen / (double)c.total);
	}
	free(c.count);
	if (fclose(out))
		return -EIO;
	return (int)(c.total > 0);
}

/* A row of sockstats.csv into its flow's file (t cwnd srtt); the first 32 flows. */
static int flow_row(void *ctx, const struct ts_sockstats_row *r)
{
	struct plot *p = ctx;
	char name[32];
	int k;

	if (!r->flow[0]) /* a file without the flow column: nothing to tell flows apart */
		return 0;
	for (k = 0; k < p->nflows && strcmp(p->keys[k], r->flow); k++)
		;
	if (k == MAX_FLOWS)
		return 0;
	if (k == p->nflows) {
		snprintf(name, sizeof(name), "flow%d.dat", k);
		p->flowf[k] = ts_gnuplot_tmp_file(&p->tmp, name, p->flow[k], sizeof(p->flow[k]));
		if (!p->flowf[k])
			return -errno;
		snprintf(p->keys[k], sizeof(p->keys[k]), "%s", r->flow);
		snprintf(p->titles[k], sizeof(p->titles[k]), "%s %s", r->flow, r->cca);
		p->nflows++;
	}
	put_num(p->flowf[k], r->v[TS_SS_TIME], ' ');
	put_num(p->flowf[k], r->v[TS_SS_CWND], ' ');
	put_num(p->flowf[k], r->v[TS_SS_SRTT], '\n');
	return 0;
}

static int flow_data(struct plot *p)
{
	char path[TS_OBS_PATH];
	struct ts_err err;
	int k, ret;

	snprintf(path, sizeof(path), "%s/%s", p->a->dir, TS_OUT_SOCKSTATS);
	ret = ts_sockstats_in_file(path, flow_row, p, &err);
	for (k = 0; k < p->nflows; k++)
		if (fclose(p->flowf[k]) && !ret)
			ret = -EIO;
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		ts_cli_error("plot: %s: cwnd and RTT not drawn",
			     ret == -EINVAL ? err.msg : strerror(-ret));
		p->nflows = 0;
		p->bad = 1;
		return ret;
	}
	return p->nflows;
}

static void terminal(struct ts_text *b, const struct plot_args *a, bool svg)
{
	if (svg)
		ts_text_printf(b, "set terminal svg size %u,%u dynamic noenhanced font 'Sans,11'\n",
			       a->width, a->height);
	else
		ts_text_printf(
			b,
			"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal "
			"pngcairo size %u,%u noenhanced font 'Sans,10' } else { set terminal "
			"png size %u,%u noenhanced }\n",
			a->width, a->height, a->width, a->height);
}

/* Draw @b (a script without its terminal) as RUN_DIR/NAME.png or .svg. */
static void draw(struct plot *p, const char *name, bool svg, const struct ts_text *body)
{
	char path[TS_OBS_PATH];
	struct ts_text b;
	struct ts_err err;
	bool failed = true;

	ts_text_init(&b);
	terminal(&b, p->a, svg);
	ts_text_add(&b, body->p, body->len);
	snprintf(path, sizeof(path), "%s/%s.%s", p->a->out, name, svg ? "svg" : "png");
	if (b.oom || body->oom)
		ts_cli_error("plot: %s: out of memory", path);
	else if (ts_gnuplot_draw(b.p, b.len, path, TS_GNUPLOT_TIMEOUT_MS, &err) < 0)
		ts_cli_error("plot: %s", err.msg);
	else
		failed = false;
	if (!failed)
		printf("wrote %s\n", path);
	p->bad |= failed;
	ts_text_fini(&b);
}

static void plot_stats(struct plot *p, bool svg)
{
	static const char *const dn[2] = {"up", "down"};
	struct ts_text b;
	int d;

	/* Headroom above the largest value, so the key does not sit on the curves. */
	ts_text_init(&b);
	ts_text_printf(&b, "set multiplot layout 2,1\nset grid\nset key top right\nset offsets 0, "
			   "0, graph 0.15, 0\nset xlabel 'time (s)'\nset ylabel 'Mbit/s'\nset "
			   "yrange [0:*]\n");
	for (d = 1; d >= 0; d--) {
		ts_text_printf(&b, "set title '%slink'\nplot ", dn[d]);
		ts_gnuplot_quote(&b, p->stats[d]);
		ts_text_printf(&b, " using 1:($2/1e6) with fsteps lw 1 lc rgb '#909090' title "
				   "'capacity', '' using 1:($3/1e6) with fsteps lw 2 lc rgb "
				   "'#d04020' title 'throughput'\n");
	}
	ts_text_printf(&b, "unset multiplot\n");
	draw(p, "throughput", svg, &b);
	b.len = 0;
	ts_text_printf(&b, "set multiplot layout 2,1\nset grid\nset key top right\nset offsets 0, "
			   "0, graph 0.15, 0\nset xlabel 'time (s)'\nset ylabel 'queueing delay "
			   "(ms)'\nset yrange [0:*]\n");
	for (d = 1; d >= 0; d--) {
		ts_text_printf(&b, "set title '%slink'\nplot ", dn[d]);
		ts_gnuplot_quote(&b, p->stats[d]);
		ts_text_printf(&b, " using 1:5 with fsteps lw 1 lc rgb '#4060c0' title 'max', '' "
				   "using 1:4 with fsteps lw 2 lc rgb '#20a040' title 'median'\n");
	}
	ts_text_printf(&b, "unset multiplot\n");
	draw(p, "delay", svg, &b);
	ts_text_fini(&b);
}

static void plot_cdf(struct plot *p, bool svg)
{
	struct ts_text b;

	ts_text_init(&b);
	ts_text_printf(&b, "set grid\nset key bottom right\nset offsets graph 0.02, 0, 0, 0\n"
			   "set xlabel 'queueing delay (ms)'\nset ylabel 'fraction of "
			   "packets'\nset yrange [0:1]\nplot ");
	if (p->have_cdf[1]) {
		ts_gnuplot_quote(&b, p->cdf[1]);
		ts_text_printf(&b, " using 1:2 with steps lw 2 title 'downlink'");
	}
	if (p->have_cdf[0]) {
		ts_text_printf(&b, "%s", p->have_cdf[1] ? ", " : "");
		ts_gnuplot_quote(&b, p->cdf[0]);
		ts_text_printf(&b, " using 1:2 with steps lw 2 title 'uplink'");
	}
	ts_text_printf(&b, "\n");
	draw(p, "delay-cdf", svg, &b);
	ts_text_fini(&b);
}

static void plot_flows(struct plot *p, bool svg)
{
	static const char *const what[2][2] = {{"cwnd (packets)", "2"}, {"smoothed RTT (ms)", "3"}};
	struct ts_text b;
	int k, w;

	ts_text_init(&b);
	ts_text_printf(&b, "set multiplot layout 2,1\nset grid\nset key top right\nset offsets 0, "
			   "0, graph 0.15, 0\nset xlabel 'time (s)'\nset yrange [0:*]\n");
	for (w = 0; w < 2; w++) {
		ts_text_printf(&b, "set ylabel '%s'\nplot ", what[w][0]);
		for (k = 0; k < p->nflows; k++) {
			ts_text_printf(&b, "%s", k ? ", " : "");
			ts_gnuplot_quote(&b, p->flow[k]);
			ts_text_printf(&b, " using 1:%s with lines lw 1.5 title ", what[w][1]);
			ts_gnuplot_quote(&b, p->titles[k]);
		}
		ts_text_printf(&b, "\n");
	}
	ts_text_printf(&b, "unset multiplot\n");
	draw(p, "tcp", svg, &b);
	ts_text_fini(&b);
}

int cmd_plot(int argc, char **argv)
{
	struct plot_args a = {.png = true, .svg = true, .width = 1024, .height = 640};
	struct plot *p = NULL;
	long stats_rows;
	struct ts_err err;
	struct stat st;
	int fmt, d, flows, ret = 1;

	argp_parse(&plot_argp, argc, argv, 0, NULL, &a);
	if (!a.out)
		a.out = a.dir;
	/* A wrong path is an error, not three "skipped" notes and success. */
	if (stat(a.dir, &st) < 0)
		return ts_cli_error("plot: %s: %s (expected the directory of a run's --out DIR)",
				    a.dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ts_cli_error("plot: %s: not a directory (expected the directory of a run's "
				    "--out DIR)",
				    a.dir);
	if (!ts_gnuplot_available())
		return ts_cli_error("plot: gnuplot is not installed (Debian: apt-get install "
				    "gnuplot-nox)");
	p = calloc(1, sizeof(*p));
	if (!p)
		return ts_cli_error("plot: out of memory");
	p->a = &a;
	if (ts_gnuplot_tmp_open(&p->tmp, &err)) {
		ts_cli_error("plot: %s", err.msg);
		goto out;
	}
	stats_rows = stats_data(p);
	for (d = 0; d < 2; d++) {
		int r = cdf_data(p, d);

		if (r < 0) {
			ts_cli_error("plot: %s: %s", p->tmp.dir, strerror(-r));
			goto out;
		}
		p->have_cdf[d] = r > 0;
	}
	flows = flow_data(p);
	for (fmt = 0; fmt < 2; fmt++) {
		if (!(fmt ? a.svg : a.png))
			continue;
		if (stats_rows > 0)
			plot_stats(p, fmt);
		if (p->have_cdf[0] || p->have_cdf[1])
			plot_cdf(p, fmt);
		if (p->nflows > 0)
			plot_flows(p, fmt);
	}
	if (!stats_rows)
		fprintf(stderr, "tasshape: plot: no %s/%s: throughput and delay skipped\n", a.dir,
			TS_OUT_STATS);
	if (!p->have_cdf[0] && !p->have_cdf[1])
		fprintf(stderr,
			"tasshape: plot: no departures in %s/uplink.log or downlink.log: "
			"delay CDF skipped\n",
			a.dir);
	if (!flows)
		fprintf(stderr, "tasshape: plot: no flows in %s/%s: cwnd and RTT skipped\n", a.dir,
			TS_OUT_SOCKSTATS);
	if (stats_rows <= 0 && !p->have_cdf[0] && !p->have_cdf[1] && p->nflows <= 0 && !p->bad) {
		ts_cli_error("plot: nothing to plot in %s (expected %s, uplink.log, "
			     "downlink.log or %s, as tasshape --out DIR writes them)",
			     a.dir, TS_OUT_STATS, TS_OUT_SOCKSTATS);
		goto out;
	}
	ret = p->bad ? 1 : 0;
out:
	ts_gnuplot_tmp_close(&p->tmp);
	free(p);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/*
 * tasshape plot RUN_DIR: from a run's record (--out DIR) to pictures, with
 * gnuplot (fork/exec, the script and the data on its standard input):
 *
 *   throughput.png/.svg  throughput and capacity over time, per direction (stats.csv)
 *   delay.png/.svg       queueing delay p50 and max per window, per direction (stats.csv)
 *   delay-cdf.png/.svg   CDF of the per-packet queueing delay (uplink.log, downlink.log)
 *   tcp.png/.svg         cwnd and smoothed RTT per flow over time (sockstats.csv)
 *
 * A picture whose input file is missing or empty is skipped with a note.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "run/obs.h"
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

/* True when an executable @name is on $PATH. */
static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (n &&
		    snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, name) < (int)sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return true;
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

/* A gnuplot single-quoted string: quotes are doubled. */
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

/* Split a CSV line in place (our files quote nothing); returns the field count. */
static int split(char *line, char **field, int max)
{
	int n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		field[n++] = line;
		line = strchr(line, ',');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

static int column(char **field, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(field[i], name))
			return i;
	return -1;
}

/* A number for gnuplot: empty fields are missing values. */
static const char *num(char **field, int n, int col)
{
	return col >= 0 && col < n && field[col][0] ? field[col] : "NaN";
}

/* stats.csv as datablocks $stats_up and $stats_down: t cap tput p50 max (Mbit/s, ms). */
static int stats_blocks(FILE *gp, const char *dir)
{
	static const char *const names[2] = {"uplink", "downlink"};
	char path[TS_OBS_PATH], *line = NULL, *f[64];
	int ct, cd, cc, cthr, cp50, cmax, n, d, rows = 0;
	size_t cap = 0;
	FILE *in;

	snprintf(path, sizeof(path), "%s/%s", dir, TS_OUT_STATS);
	for (d = 0; d < 2; d++) {
		in = fopen(path, "re");
		if (!in)
			return -errno;
		if (getline(&line, &cap, in) < 0) {
			fclose(in);
			break;
		}
		n = split(line, f, 64);
		ct = column(f, n, "time_s");
		cd = column(f, n, "dir");
		cc = column(f, n, "capacity_bps");
		cthr = column(f, n, "throughput_bps");
		cp50 = column(f, n, "qdelay_p50_ms");
		cmax = column(f, n, "qdelay_max_ms");
		fprintf(gp, "$stats_%s << EOD\n", d ? "down" : "up");
		while (ct >= 0 && cd >= 0 && getline(&line, &cap, in) > 0) {
			n = split(line, f, 64);
			if (cd >= n || strcmp(f[cd], names[d]))
				continue;
			fprintf(gp, "%s %s %s %s %s\n", num(f, n, ct), num(f, n, cc),
				num(f, n, cthr), num(f, n, cp50), num(f, n, cmax));
			rows++;
		}
		fputs("EOD\n", gp);
		fclose(in);
	}
	free(line);
	return rows;
}

/* Per-packet queueing delays (ms) of a mahimahi log's departures, as a CDF datablock. */
static int cdf_block(FILE *gp, const char *dir, const char *log, const char *name)
{
	char path[TS_OBS_PATH], *line = NULL;
	uint64_t *count = NULL, total = 0, seen = 0;
	size_t cap = 0, ncount = 0, i;
	FILE *in;

	snprintf(path, sizeof(path), "%s/%s", dir, log);
	in = fopen(path, "re");
	fprintf(gp, "$%s << EOD\n", name);
	while (in && getline(&line, &cap, in) > 0) {
		unsigned long long t, size, delay;
		char type;

		if (line[0] == '#' ||
		    sscanf(line, "%llu %c %llu %llu", &t, &type, &size, &delay) != 4 ||
		    type != '-' || delay > 10000000)
			continue;
		if (delay >= ncount) {
			size_t nn = (size_t)delay * 2 + 64;
			uint64_t *c = realloc(count, nn * sizeof(*c));

			if (!c)
				break;
			memset(c + ncount, 0, (nn - ncount) * sizeof(*c));
			count = c;
			ncount = nn;
		}
		count[delay]++;
		total++;
	}
	for (i = 0; i < ncount && total; i++) {
		if (!count[i])
			continue;
		seen += count[i];
		fprintf(gp, "%zu %.6f\n", i, (double)seen / (double)total);
	}
	fputs("EOD\n", gp);
	if (in)
		fclose(in);
	free(line);
	free(count);
	return (int)(total > 0);
}

/* sockstats.csv as one datablock per flow ($flowK: t cwnd srtt); returns the flow count. */
static int flow_blocks(FILE *gp, const char *dir, char titles[MAX_FLOWS][200])
{
	char path[TS_OBS_PATH], *line = NULL, *f[64], keys[MAX_FLOWS][160];
	int ct, cf, ccw, crtt, ccca, n, k, nflows = 0;
	size_t cap = 0;
	FILE *in;

	snprintf(path, sizeof(path), "%s/%s", dir, TS_OUT_SOCKSTATS);
	in = fopen(path, "re");
	if (!in || getline(&line, &cap, in) < 0)
		goto out;
	n = split(line, f, 64);
	ct = column(f, n, "time_s");
	cf = column(f, n, "flow");
	ccw = column(f, n, "cwnd_pkts");
	crtt = column(f, n, "srtt_ms");
	ccca = column(f, n, "cca");
	if (ct < 0 || cf < 0)
		goto out;
	/* First pass: the flows, in order of appearance. */
	while (getline(&line, &cap, in) > 0 && nflows < MAX_FLOWS) {
		n = split(line, f, 64);
		if (cf >= n)
			continue;
		for (k = 0; k < nflows && strcmp(keys[k], f[cf]); k++)
			;
		if (k < nflows)
			continue;
		snprintf(keys[nflows], sizeof(keys[0]), "%s", f[cf]);
		snprintf(titles[nflows], 200, "%s %s", f[cf], ccca >= 0 && ccca < n ? f[ccca] : "");
		nflows++;
	}
	for (k = 0; k < nflows; k++) {
		rewind(in);
		if (getline(&line, &cap, in) < 0)
			break;
		fprintf(gp, "$flow%d << EOD\n", k);
		while (getline(&line, &cap, in) > 0) {
			n = split(line, f, 64);
			if (cf < n && !strcmp(f[cf], keys[k]))
				fprintf(gp, "%s %s %s\n", num(f, n, ct), num(f, n, ccw),
					num(f, n, crtt));
		}
		fputs("EOD\n", gp);
	}
out:
	if (in)
		fclose(in);
	free(line);
	return nflows;
}

static void terminal(FILE *gp, const struct plot_args *a, bool svg, const char *name)
{
	char path[TS_OBS_PATH];

	if (svg)
		fprintf(gp, "set terminal svg size %u,%u dynamic noenhanced font 'Sans,11'\n",
			a->width, a->height);
	else
		fprintf(gp,
			"if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo "
			"size "
			"%u,%u noenhanced font 'Sans,10' } else { set terminal png size %u,%u "
			"noenhanced }\n",
			a->width, a->height, a->width, a->height);
	snprintf(path, sizeof(path), "%s/%s.%s", a->out, name, svg ? "svg" : "png");
	fputs("set output ", gp);
	gp_str(gp, path);
	fputc('\n', gp);
}

static void plot_stats(FILE *gp, const struct plot_args *a, bool svg)
{
	static const char *const dn[2] = {"up", "down"};
	int d;

	terminal(gp, a, svg, "throughput");
	/* Headroom above the largest value, so the key does not sit on the curves. */
	fputs("set multiplot layout 2,1\nset grid\nset key top right\nset offsets 0, 0, graph "
	      "0.15, 0\n"
	      "set xlabel 'time (s)'\nset ylabel 'Mbit/s'\nset yrange [0:*]\n",
	      gp);
	for (d = 1; d >= 0; d--)
		fprintf(gp,
			"set title '%slink'\nplot $stats_%s using 1:($2/1e6) with fsteps lw 1 lc "
			"rgb '#909090' title 'capacity', $stats_%s using 1:($3/1e6) with fsteps lw "
			"2 lc rgb '#d04020' title 'throughput'\n",
			dn[d], dn[d], dn[d]);
	fputs("unset multiplot\n", gp);
	terminal(gp, a, svg, "delay");
	fputs("set multiplot layout 2,1\nset ylabel 'queueing delay (ms)'\n", gp);
	for (d = 1; d >= 0; d--)
		fprintf(gp,
			"set title '%slink'\nplot $stats_%s using 1:5 with fsteps lw 1 lc rgb "
			"'#4060c0' title 'max', $stats_%s using 1:4 with fsteps lw 2 lc rgb "
			"'#20a040' title 'median'\n",
			dn[d], dn[d], dn[d]);
	fputs("unset multiplot\nunset title\nset yrange [*:*]\n", gp);
}

static void plot_cdf(FILE *gp, const struct plot_args *a, bool svg, const bool have[2])
{
	terminal(gp, a, svg, "delay-cdf");
	fputs("set grid\nset key bottom right\nset offsets graph 0.02, 0, 0, 0\n"
	      "set xlabel 'queueing delay (ms)'\n"
	      "set ylabel 'fraction of packets'\nset yrange [0:1]\nplot ",
	      gp);
	if (have[1])
		fputs("$cdf_down using 1:2 with steps lw 2 title 'downlink'", gp);
	if (have[0])
		fprintf(gp, "%s$cdf_up using 1:2 with steps lw 2 title 'uplink'",
			have[1] ? ", " : "");
	fputs("\nset yrange [*:*]\n", gp);
}

static void plot_flows(FILE *gp, const struct plot_args *a, bool svg, int nflows,
		       char titles[MAX_FLOWS][200])
{
	static const char *const what[2][2] = {{"cwnd (packets)", "2"}, {"smoothed RTT (ms)", "3"}};
	int k, w;

	terminal(gp, a, svg, "tcp");
	fputs("set multiplot layout 2,1\nset grid\nset key top right\nset offsets 0, 0, graph "
	      "0.15, 0\n"
	      "set xlabel 'time (s)'\nset yrange [0:*]\n",
	      gp);
	for (w = 0; w < 2; w++) {
		fprintf(gp, "set ylabel '%s'\nplot ", what[w][0]);
		for (k = 0; k < nflows; k++) {
			fprintf(gp, "%s$flow%d using 1:%s with lines lw 1.5 title ", k ? ", " : "",
				k, what[w][1]);
			gp_str(gp, titles[k]);
		}
		fputc('\n', gp);
	}
	fputs("unset multiplot\nset yrange [*:*]\n", gp);
}

/* Run gnuplot with its standard input from a pipe; returns the stream (and the pid). */
static FILE *start_gnuplot(pid_t *pid)
{
	int fd[2];
	FILE *f;

	if (pipe2(fd, O_CLOEXEC) < 0)
		return NULL;
	*pid = fork();
	if (*pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (*pid == 0) {
		dup2(fd[0], STDIN_FILENO);
		execlp("gnuplot", "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(fd[0]);
	f = fdopen(fd[1], "w");
	if (!f)
		close(fd[1]);
	return f;
}

static void report(const struct plot_args *a, const char *name)
{
	static const char *const ext[2] = {"png", "svg"};
	char path[TS_OBS_PATH];
	struct stat st;
	int i;

	for (i = 0; i < 2; i++) {
		if (!(i ? a->svg : a->png))
			continue;
		snprintf(path, sizeof(path), "%s/%s.%s", a->out, name, ext[i]);
		if (stat(path, &st) == 0 && st.st_size > 0)
			printf("wrote %s\n", path);
		else
			ts_cli_error("plot: gnuplot did not write %s", path);
	}
}

int cmd_plot(int argc, char **argv)
{
	struct plot_args a = {.png = true, .svg = true, .width = 1024, .height = 640};
	char titles[MAX_FLOWS][200];
	bool have_cdf[2];
	int stats_rows, nflows, status, fmt;
	struct stat st;
	pid_t pid;
	FILE *gp;

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
	if (!on_path("gnuplot"))
		return ts_cli_error("plot: gnuplot is not installed (Debian: apt-get install "
				    "gnuplot-nox)");
	gp = start_gnuplot(&pid);
	if (!gp)
		return ts_cli_error("plot: cannot start gnuplot: %s", strerror(errno));
	stats_rows = stats_blocks(gp, a.dir);
	have_cdf[0] = cdf_block(gp, a.dir, "uplink.log", "cdf_up") > 0;
	have_cdf[1] = cdf_block(gp, a.dir, "downlink.log", "cdf_down") > 0;
	nflows = flow_blocks(gp, a.dir, titles);
	for (fmt = 0; fmt < 2; fmt++) {
		if (!(fmt ? a.svg : a.png))
			continue;
		if (stats_rows > 0)
			plot_stats(gp, &a, fmt);
		if (have_cdf[0] || have_cdf[1])
			plot_cdf(gp, &a, fmt, have_cdf);
		if (nflows > 0)
			plot_flows(gp, &a, fmt, nflows, titles);
	}
	fputs("set output\nexit\n", gp);
	fclose(gp);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return ts_cli_error("plot: gnuplot failed (exit status %d)",
				    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	if (stats_rows > 0) {
		report(&a, "throughput");
		report(&a, "delay");
	} else {
		fprintf(stderr, "tasshape: plot: no %s/%s: throughput and delay skipped\n", a.dir,
			TS_OUT_STATS);
	}
	if (have_cdf[0] || have_cdf[1])
		report(&a, "delay-cdf");
	else
		fprintf(stderr,
			"tasshape: plot: no departures in %s/uplink.log or downlink.log: "
			"delay CDF skipped\n",
			a.dir);
	if (nflows > 0)
		report(&a, "tcp");
	else
		fprintf(stderr, "tasshape: plot: no flows in %s/%s: cwnd and RTT skipped\n", a.dir,
			TS_OUT_SOCKSTATS);
	if (stats_rows <= 0 && !have_cdf[0] && !have_cdf[1] && nflows <= 0)
		return ts_cli_error("plot: nothing to plot in %s (expected %s, uplink.log, "
				    "downlink.log or %s, as tasshape --out DIR writes them)",
				    a.dir, TS_OUT_STATS, TS_OUT_SOCKSTATS);
	return 0;
}

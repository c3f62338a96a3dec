/* SPDX-License-Identifier: MIT */
/*
 * tasshape trace check FILE...: validate (the reader's FILE:LINE message
 * on the first error, exit 1).
 * tasshape trace stats FILE: duration, mean, p5/p50/p95 over bins, the
 * largest bin, outages and delay; --series for the per-bin rates, --json
 * for a machine-readable form, --markdown for traces/README.md's table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_trace.h"
#include "io/json.h"
#include "tasshape/trace_stats.h"
#include "tasshape/units.h"

/* ---- check ------------------------------------------------------------- */

struct check_cli {
	char **files; /* argv's entries, in order */
	int n;
};

static error_t check_parse(int key, char *arg, struct argp_state *state)
{
	struct check_cli *a = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		a->files[a->n++] = arg;
		break;
	case ARGP_KEY_END:
		if (!a->n)
			argp_error(state, "which trace file?");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp check_argp = {
	NULL,
	check_parse,
	"FILE...",
	"Check that each FILE is a valid trace (mahimahi, native CSV, or a Wi-Fi PHY-rate CSV). "
	"Prints what each holds; on the first error in a file prints FILE:LINE: what is wrong, "
	"and the exit status is 1.\v"
	"Examples:\n"
	"  tasshape trace check my-drive.csv\n"
	"  tasshape trace check traces/*.csv traces/*.mahi",
	NULL,
	NULL,
	NULL};

static void describe(const char *path, const struct ts_trace *down, const struct ts_trace *up,
		     const struct ts_trace_file_info *info)
{
	const struct ts_trace *any = down ? down : up;
	struct ts_text b;

	ts_text_init(&b);
	ts_text_printf(&b, "%s: ok: %s, ", path,
		       info->fmt == TS_FMT_MAHIMAHI ? "mahimahi"
		       : info->phy		    ? "Wi-Fi PHY-rate CSV"
						    : "native CSV");
	if (info->fmt == TS_FMT_MAHIMAHI)
		ts_text_printf(&b, "%zu distinct milliseconds", any->n);
	else
		ts_text_printf(&b, "%zu rows, %s%s%s%s%s", any->n, info->phy ? "phy" : "",
			       down && !info->phy ? "down" : "", down && up ? " and " : "",
			       up ? "up" : "", any->delay ? ", delay" : "");
	ts_text_printf(&b, "%s, period ", any->loss_ppm ? ", loss" : "");
	ts_text_fixed(&b, (unsigned long long)any->period, 9);
	ts_text_printf(&b, " s\n");
	if (!b.oom)
		fputs(b.p, stdout);
	ts_text_fini(&b);
}

int trace_check(int argc, char **argv)
{
	struct check_cli a = {.files = calloc((size_t)argc, sizeof(char *))};
	int i, ret = 0;

	if (!a.files)
		return ts_cli_error("check: out of memory");
	argp_parse(&check_argp, argc, argv, 0, NULL, &a);
	for (i = 0; i < a.n; i++) {
		struct ts_trace *down, *up;
		struct ts_trace_file_info info;

		if (trace_load(a.files[i], &down, &up, &info)) {
			ret = 1;
			continue;
		}
		describe(a.files[i], down, up, &info);
		ts_trace_free(down);
		ts_trace_free(up);
	}
	free(a.files);
	return ret;
}

/* ---- stats ------------------------------------------------------------- */

struct stats_cli {
	const char *file, *md_name;
	ts_ns_t bin, outage_min;
	bool json, series;
};

enum { OPT_BIN = 0x300, OPT_OUTAGE, OPT_JSON, OPT_SERIES, OPT_MD };

static const struct argp_option stats_options[] = {
	{"bin", OPT_BIN, "TIME", 0, "Width of the bins of the percentiles and series (default 1s)",
	 0},
	{"outage-min", OPT_OUTAGE, "TIME", 0,
	 "Shortest stretch without capacity that counts as an outage (default 20ms)", 0},
	{"json", OPT_JSON, NULL, 0, "Print JSON", 0},
	{"series", OPT_SERIES, NULL, 0, "Also print the rate of every bin", 0},
	{"markdown", OPT_MD, "NAME", 0,
	 "Print the rows of traces/README.md's statistics table, naming the file NAME", 0},
	{0}};

static error_t stats_parse(int key, char *arg, struct argp_state *state)
{
	struct stats_cli *a = state->input;
	struct ts_err err;

	switch (key) {
	case OPT_BIN:
		if (ts_parse_time(arg, &a->bin, &err) < 0 || a->bin <= 0)
			argp_error(state, "--bin: %s", a->bin <= 0 ? "must be > 0" : err.msg);
		break;
	case OPT_OUTAGE:
		if (ts_parse_time(arg, &a->outage_min, &err) < 0)
			argp_error(state, "--outage-min: %s", err.msg);
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_SERIES:
		a->series = true;
		break;
	case OPT_MD:
		a->md_name = arg;
		break;
	case ARGP_KEY_ARG:
		if (a->file)
			argp_error(state, "one trace file at a time");
		a->file = arg;
		break;
	case ARGP_KEY_END:
		if (!a->file)
			argp_error(state, "which trace file?");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp stats_argp = {
	stats_options,
	stats_parse,
	"FILE",
	"What a trace contains, per direction: duration, mean capacity, p5/p50/p95 and the "
	"largest of the bin rates (time-weighted), the outage fraction (stretches without "
	"capacity of at least --outage-min) and the one-way delay. Computed over one period.\v"
	"Examples:\n"
	"  tasshape trace stats starlink\n"
	"  tasshape trace stats --bin 100ms --outage-min 50ms 5g-mmwave-driving\n"
	"  tasshape trace stats --json lte-driving",
	NULL,
	NULL,
	NULL};

/* Append @ns as milliseconds, exact. */
static void put_ms(struct ts_text *b, ts_ns_t ns)
{
	ts_text_fixed(b, (unsigned long long)ns, 6);
}

static void put_pct(struct ts_text *b, uint32_t ppm)
{
	ts_text_fixed(b, ppm, 4);
}

static void text_dir(struct ts_text *b, const char *dir, const struct ts_trace_stats *st,
		     ts_ns_t outage_min)
{
	ts_text_printf(b, "%-5s mean ", dir);
	ts_text_mbps(b, st->mean_bps, 3);
	ts_text_printf(b, " Mbit/s, p5 ");
	ts_text_mbps(b, st->p5_bps, 3);
	ts_text_printf(b, ", p50 ");
	ts_text_mbps(b, st->p50_bps, 3);
	ts_text_printf(b, ", p95 ");
	ts_text_mbps(b, st->p95_bps, 3);
	ts_text_printf(b, ", max ");
	ts_text_mbps(b, st->max_bps, 3);
	ts_text_printf(b, " Mbit/s; outage ");
	put_pct(b, st->outage_ppm);
	ts_text_printf(b, "%% (%llu stretches >= ", (unsigned long long)st->outages);
	put_ms(b, outage_min);
	ts_text_printf(b, " ms)\n");
}

/* The delay column, which both directions share: printed once. */
static void delay_out(struct ts_text *b, const struct ts_trace_stats *st)
{
	if (!st->has_delay)
		return;
	ts_text_printf(b, "delay min ");
	put_ms(b, st->delay_min);
	ts_text_printf(b, " ms, mean ");
	put_ms(b, st->delay_mean);
	ts_text_printf(b, " ms, max ");
	put_ms(b, st->delay_max);
	ts_text_printf(b, " ms (one way)\n");
}

/*
 * A number written exactly as @v / 10^@digits: json-c keeps the decimal
 * text, so 12.000000 Mbit/s reads back as written, not as 11.999999...
 */
static struct json_object *jfixed(unsigned long long v, int digits)
{
	struct json_object *o = NULL;
	struct ts_text t;

	ts_text_init(&t);
	if (ts_text_fixed(&t, v, digits) == 0 && !t.oom && t.p)
		o = json_object_new_double_s(strtod(t.p, NULL), t.p);
	ts_text_fini(&t);
	return o;
}

static struct json_object *json_dir(const struct ts_trace_stats *st, bool *nomem)
{
	struct json_object *o = json_object_new_object();

	ts_json_put(o, "mean_mbps", jfixed(st->mean_bps, 6), nomem);
	ts_json_put(o, "p5_mbps", jfixed(st->p5_bps, 6), nomem);
	ts_json_put(o, "p50_mbps", jfixed(st->p50_bps, 6), nomem);
	ts_json_put(o, "p95_mbps", jfixed(st->p95_bps, 6), nomem);
	ts_json_put(o, "min_mbps", jfixed(st->min_bps, 6), nomem);
	ts_json_put(o, "max_mbps", jfixed(st->max_bps, 6), nomem);
	ts_json_put(o, "outage_fraction", jfixed(st->outage_ppm, 6), nomem);
	ts_json_put(o, "outages", ts_json_count(st->outages), nomem);
	return o;
}

static struct json_object *json_delay(const struct ts_trace_stats *st, bool *nomem)
{
	struct json_object *o = json_object_new_object();

	ts_json_put(o, "min", jfixed((unsigned long long)st->delay_min, 6), nomem);
	ts_json_put(o, "mean", jfixed((unsigned long long)st->delay_mean, 6), nomem);
	ts_json_put(o, "max", jfixed((unsigned long long)st->delay_max, 6), nomem);
	return o;
}

/* The per-bin rates of both directions: into @b as CSV, or into @json as {columns, rows}. */
static int series(struct ts_text *b, struct json_object *json, const struct stats_cli *a,
		  struct ts_trace *tr[2], const char *names[2])
{
	uint64_t *bps[2] = {NULL, NULL};
	size_t n[2] = {0, 0}, j, nmax = 0;
	struct json_object *cols = NULL, *rows = NULL, *row, *o = NULL;
	char name[32];
	bool nomem = false;
	int d, ret = 0;

	for (d = 0; d < 2; d++) {
		if (tr[d] && !ret)
			ret = ts_trace_bins(tr[d], a->bin, &bps[d], &n[d]);
		if (n[d] > nmax)
			nmax = n[d];
	}
	if (ret)
		goto out;
	if (json) {
		o = json_object_new_object();
		cols = json_object_new_array();
		rows = json_object_new_array();
		ts_json_append(cols, json_object_new_string("time_s"), &nomem);
	} else {
		ts_text_printf(b, "time_s");
	}
	for (d = 0; d < 2; d++) {
		if (!tr[d])
			continue;
		snprintf(name, sizeof(name), "%s_mbps", names[d]);
		if (json)
			ts_json_append(cols, json_object_new_string(name), &nomem);
		else
			ts_text_printf(b, ",%s", name);
	}
	if (!json)
		ts_text_printf(b, "\n");
	for (j = 0; j < nmax && !nomem; j++) {
		unsigned long long t = (unsigned long long)((ts_ns_t)j * a->bin);

		row = json ? json_object_new_array() : NULL;
		if (json)
			ts_json_append(row, jfixed(t, 9), &nomem);
		else
			ts_text_fixed(b, t, 9);
		for (d = 0; d < 2; d++) {
			if (!tr[d])
				continue;
			if (json) {
				ts_json_append(row, jfixed(j < n[d] ? bps[d][j] : 0, 6), &nomem);
			} else {
				ts_text_add(b, ",", 1);
				ts_text_fixed(b, j < n[d] ? bps[d][j] : 0, 6);
			}
		}
		if (json)
			ts_json_append(rows, row, &nomem);
		else
			ts_text_printf(b, "\n");
	}
	if (json) {
		ts_json_put(o, "columns", cols, &nomem);
		ts_json_put(o, "rows", rows, &nomem);
		ts_json_put(json, "series", o, &nomem);
		cols = rows = o = NULL;
	}
	if (nomem)
		ret = -1;
out:
	json_object_put(cols);
	json_object_put(rows);
	json_object_put(o);
	free(bps[0]);
	free(bps[1]);
	return ret;
}

/* The message of a ts_trace_bins / ts_trace_stats error. */
static const char *bins_error(int ret)
{
	return ret == -E2BIG ? "more than 10000000 bins in the trace's period: use a wider --bin"
			     : "out of memory";
}

static struct json_object *stats_json(const struct stats_cli *a, struct ts_trace *tr[2],
				      const struct ts_trace_stats st[2],
				      const struct ts_trace_file_info *info, const char *names[2],
				      bool *nomem)
{
	struct json_object *o = json_object_new_object(), *dirs = json_object_new_object();
	int d, dd = tr[1] ? 1 : 0;

	ts_json_put_str(o, "file", a->file, nomem);
	ts_json_put_str(o, "format",
			info->fmt == TS_FMT_MAHIMAHI ? "mahimahi"
			: info->phy		     ? "phy-csv"
						     : "csv",
			nomem);
	ts_json_put(o, "duration_s", jfixed((unsigned long long)tr[dd]->period, 9), nomem);
	ts_json_put(o, "bin_s", jfixed((unsigned long long)a->bin, 9), nomem);
	ts_json_put(o, "outage_min_s", jfixed((unsigned long long)a->outage_min, 9), nomem);
	for (d = 1; d >= 0; d--)
		if (tr[d])
			ts_json_put(dirs, names[d], json_dir(&st[d], nomem), nomem);
	ts_json_put(o, "directions", dirs, nomem);
	if (st[dd].has_delay)
		ts_json_put(o, "delay_ms", json_delay(&st[dd], nomem), nomem);
	return o;
}

int trace_stats(int argc, char **argv)
{
	struct stats_cli a = {.bin = TS_NSEC_PER_SEC, .outage_min = 20 * TS_NSEC_PER_MSEC};
	struct ts_trace *tr[2] = {NULL, NULL};
	struct ts_trace_stats st[2];
	struct ts_trace_file_info info;
	const char *names[2];
	struct json_object *json = NULL;
	struct ts_text b;
	int d, r, ret = 1;
	bool nomem = false;

	argp_parse(&stats_argp, argc, argv, 0, NULL, &a);
	if (trace_load(a.file, &tr[TS_DIR_DOWN], &tr[TS_DIR_UP], &info))
		return 1;
	ts_text_init(&b);
	/* Down first, as people read a link's figures. */
	for (d = 1; d >= 0; d--) {
		names[d] = trace_dir_name(d, info.phy);
		r = tr[d] ? ts_trace_stats(tr[d], a.bin, a.outage_min, &st[d]) : 0;
		if (r < 0) {
			ts_cli_error("%s: %s", a.file, bins_error(r));
			goto out;
		}
	}
	if (a.md_name) {
		for (d = 1; d >= 0; d--) {
			if (!tr[d])
				continue;
			ts_trace_stats_md(&b, a.md_name, names[d], &st[d]);
			ts_text_add(&b, "\n", 1);
		}
	} else if (a.json) {
		json = stats_json(&a, tr, st, &info, names, &nomem);
	} else {
		ts_text_printf(&b, "%s: %s, duration ", a.file,
			       info.fmt == TS_FMT_MAHIMAHI ? "mahimahi"
			       : info.phy		   ? "Wi-Fi PHY-rate CSV"
							   : "native CSV");
		ts_text_fixed(&b, (unsigned long long)(tr[1] ? tr[1] : tr[0])->period, 9);
		ts_text_printf(&b, " s, bins of ");
		ts_text_fixed(&b, (unsigned long long)a.bin, 9);
		ts_text_printf(&b, " s\n");
		for (d = 1; d >= 0; d--)
			if (tr[d])
				text_dir(&b, names[d], &st[d], a.outage_min);
		delay_out(&b, &st[tr[1] ? 1 : 0]);
	}
	if (a.series && !a.md_name) {
		r = series(&b, json, &a, tr, names);
		if (r < 0) {
			ts_cli_error("%s: %s", a.file, bins_error(r));
			goto out;
		}
	}
	if (json && !nomem)
		ts_text_printf(&b, "%s\n", json_object_to_json_string_ext(json, TS_JSON_PRETTY));
	if (b.oom || nomem) {
		ts_cli_error("%s: out of memory", a.file);
		goto out;
	}
	ret = trace_write(NULL, &b);
out:
	json_object_put(json);
	ts_text_fini(&b);
	ts_trace_free(tr[0]);
	ts_trace_free(tr[1]);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/* summary.json, summary.csv, summary.md and experiment.json (docs/experiments.md, "Summary"). */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/summary.h"
#include "io/json.h"
#include "io/md.h"
#include "io/outfile.h"

/* Ten significant digits: exact enough for any metric, without binary noise in the file. */
static json_object *jnum(double x)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.10g", x);
	return json_object_new_double_s(x, buf);
}

/* @x under @key, null when it is not finite (no such metric). */
static void put_num(json_object *o, const char *key, double x, bool *nomem)
{
	if (isfinite(x))
		ts_json_put(o, key, jnum(x), nomem);
	else
		ts_json_put_null(o, key, nomem);
}

/* @x appended to @a, null when it is not finite. */
static void append_num(json_object *a, double x, bool *nomem)
{
	if (isfinite(x))
		ts_json_append(a, jnum(x), nomem);
	else
		ts_json_append_null(a, nomem);
}

/* @m under @key, null when no run measured it. */
static void put_mstat(json_object *to, const char *key, const struct ts_exp_mstat *m, bool *nomem)
{
	json_object *o, *ci;

	if (!m->n) {
		ts_json_put_null(to, key, nomem);
		return;
	}
	o = json_object_new_object();
	put_num(o, "mean", m->mean, nomem);
	if (m->n >= 2) {
		ci = json_object_new_array();
		append_num(ci, m->lo, nomem);
		append_num(ci, m->hi, nomem);
		ts_json_put(o, "ci95", ci, nomem);
	} else {
		ts_json_put_null(o, "ci95", nomem); /* one repetition has no interval */
	}
	put_num(o, "min", m->min, nomem);
	put_num(o, "max", m->max, nomem);
	ts_json_put(o, "n", json_object_new_int64((int64_t)m->n), nomem);
	ts_json_put(to, key, o, nomem);
}

/* @l under @key, null when no run measured it. */
static void put_lstat(json_object *to, const char *key, const struct ts_exp_lstat *l, bool *nomem)
{
	json_object *o;

	if (!l->n) {
		ts_json_put_null(to, key, nomem);
		return;
	}
	o = json_object_new_object();
	put_num(o, "p50", l->p50, nomem);
	put_num(o, "p95", l->p95, nomem);
	put_num(o, "p99", l->p99, nomem);
	put_num(o, "mean", l->mean, nomem);
	ts_json_put(o, "samples", json_object_new_int64((int64_t)l->n), nomem);
	ts_json_put(to, key, o, nomem);
}

/* The flags as a JSON array; NULL: out of memory. */
static json_object *jflags(char *const *flags, size_t n)
{
	json_object *a = json_object_new_array();
	bool nomem = false;
	size_t i;

	for (i = 0; i < n; i++)
		ts_json_append(a, json_object_new_string(flags[i]), &nomem);
	return ts_json_built(a, nomem);
}

/* The axes as a JSON object, by name; NULL: out of memory. */
static json_object *jaxes(const struct ts_exp_axis_val *axes, size_t n)
{
	json_object *o = json_object_new_object();
	bool nomem = false;
	size_t i;

	for (i = 0; i < n; i++)
		ts_json_put(o, axes[i].axis, json_object_new_string(axes[i].value), &nomem);
	return ts_json_built(o, nomem);
}

/* A configuration's metrics (null where none of its runs measured one); NULL: out of memory. */
static json_object *metrics_json(const struct ts_exp_sum_config *c)
{
	json_object *m = json_object_new_object(), *j = json_object_new_object();
	bool nomem = false;

	put_mstat(m, "throughput_up_mbps", &c->thr_up, &nomem);
	put_mstat(m, "throughput_down_mbps", &c->thr_down, &nomem);
	put_lstat(m, "ping_icmp_ms", &c->icmp, &nomem);
	put_lstat(m, "ping_udp_ms", &c->udp, &nomem);
	put_num(m, "retransmits", c->retransmits.n ? c->retransmits.mean : NAN, &nomem);
	put_num(j, "up", c->jain_up.n ? c->jain_up.mean : NAN, &nomem);
	put_num(j, "down", c->jain_down.n ? c->jain_down.mean : NAN, &nomem);
	ts_json_put(m, "jain_fairness", j, &nomem);
	return ts_json_built(m, nomem);
}

/* One configuration of summary.json; NULL: out of memory. */
static json_object *config_json(const struct ts_exp_sum_config *c)
{
	json_object *o = json_object_new_object();
	bool nomem = false;
	size_t i;

	ts_json_put(o, "id", json_object_new_string(c->id), &nomem);
	ts_json_put(o, "axes", jaxes(c->axes, c->naxes), &nomem);
	/* The axis values by name at the top too, as Flent's metadata has them. */
	for (i = 0; i < c->naxes; i++)
		if (strcmp(c->axes[i].axis, "id") && strcmp(c->axes[i].axis, "n"))
			ts_json_put(o, c->axes[i].axis, json_object_new_string(c->axes[i].value),
				    &nomem);
	ts_json_put(o, "n", json_object_new_int((int)c->n), &nomem);
	ts_json_put(o, "failed", json_object_new_int((int)c->failed), &nomem);
	ts_json_put(o, "fell_behind", json_object_new_int((int)c->fell_behind), &nomem);
	ts_json_put(o, "skipped", json_object_new_boolean(c->skipped), &nomem);
	ts_json_put(o, "metrics", metrics_json(c), &nomem);
	ts_json_put(o, "flags", jflags(c->flags, c->nflags), &nomem);
	return ts_json_built(o, nomem);
}

static int put_json(json_object *root, FILE *f)
{
	const char *txt = json_object_to_json_string_ext(
		root,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	int ret = fputs(txt, f) < 0 || fputc('\n', f) < 0 ? -EIO : 0;

	json_object_put(root);
	return ret;
}

/* The skipped congestion controls and why; NULL: out of memory. */
static json_object *skipped_json(const struct ts_exp_summary *s)
{
	json_object *a = json_object_new_array();
	bool nomem = false;
	size_t i;

	for (i = 0; s && i < s->nskipped; i++) {
		json_object *k = json_object_new_object();

		ts_json_put(k, "cca", json_object_new_string(s->skipped[i].cca), &nomem);
		ts_json_put(k, "why", json_object_new_string(s->skipped[i].why), &nomem);
		ts_json_append(a, k, &nomem);
	}
	return ts_json_built(a, nomem);
}

/* A configuration's flag and the order in which the union meets it. */
struct flag_ref {
	const char *flag;
	size_t order;
};

static int by_flag(const void *a, const void *b)
{
	const struct flag_ref *x = a, *y = b;
	int c = strcmp(x->flag, y->flag);

	return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

static int by_order(const void *a, const void *b)
{
	const struct flag_ref *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * The union of every configuration's flags, each once, in first-seen order, as a new JSON
 * array (NULL: out of memory). Sorted, not searched: a results directory of many
 * configurations with flags of their own would otherwise cost the square of their number.
 */
static json_object *flags_union(const struct ts_exp_summary *s)
{
	json_object *a = json_object_new_array();
	struct flag_ref *v;
	size_t i, j, n = 0, kept = 0;
	bool nomem = false;

	for (i = 0; i < s->nconfigs; i++)
		n += s->configs[i].nflags;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v || !a) {
		free(v);
		json_object_put(a);
		return NULL;
	}
	for (i = 0; i < s->nconfigs; i++)
		for (j = 0; j < s->configs[i].nflags; j++, kept++)
			v[kept] = (struct flag_ref){s->configs[i].flags[j], kept};
	qsort(v, n, sizeof(*v), by_flag);
	for (i = 0, kept = 0; i < n; i++)
		if (i == 0 || strcmp(v[i].flag, v[kept - 1].flag))
			v[kept++] = v[i];
	qsort(v, kept, sizeof(*v), by_order);
	for (i = 0; i < kept; i++)
		ts_json_append(a, json_object_new_string(v[i].flag), &nomem);
	free(v);
	return ts_json_built(a, nomem);
}

int ts_exp_summary_write_json(const struct ts_exp_summary *s, FILE *f)
{
	json_object *root = json_object_new_object(), *configs = json_object_new_array();
	json_object *flags = flags_union(s);
	bool nomem = false;
	size_t i;

	ts_json_put(root, "version", json_object_new_int(1), &nomem);
	ts_json_put(root, "name", json_object_new_string(s->name), &nomem);
	ts_json_put(root, "runs", json_object_new_int((int)s->runs), &nomem);
	ts_json_put(root, "failed", json_object_new_int((int)s->failed), &nomem);
	ts_json_put(root, "fell_behind", json_object_new_int((int)s->fell_behind), &nomem);
	ts_json_put(root, "skipped", skipped_json(s), &nomem);
	/* The union of every configuration's flags, then one per skipped congestion control. */
	for (i = 0; i < s->nskipped; i++) {
		char buf[256];

		snprintf(buf, sizeof(buf), "cca_skipped:%s", s->skipped[i].cca);
		ts_json_append(flags, json_object_new_string(buf), &nomem);
	}
	ts_json_put(root, "flags", flags, &nomem);
	for (i = 0; i < s->nconfigs; i++)
		ts_json_append(configs, config_json(&s->configs[i]), &nomem);
	ts_json_put(root, "configs", configs, &nomem);
	if (nomem) {
		json_object_put(root);
		return -ENOMEM;
	}
	return put_json(root, f);
}

/* ---- CSV ---------------------------------------------------------------------------------- */

/* Axis names in first-seen order over every configuration: the CSV's axis columns. */
static size_t axis_columns(const struct ts_exp_summary *s, const char **cols, size_t max)
{
	size_t n = 0, i, j, k;

	for (i = 0; i < s->nconfigs; i++)
		for (j = 0; j < s->configs[i].naxes; j++) {
			for (k = 0; k < n && strcmp(cols[k], s->configs[i].axes[j].axis); k++)
				;
			if (k == n && n < max)
				cols[n++] = s->configs[i].axes[j].axis;
		}
	return n;
}

/* RFC 4180: quote a field holding a comma, quote or newline. */
static void csv_str(FILE *f, const char *v)
{
	if (!strpbrk(v, ",\"\n")) {
		fputs(v, f);
		return;
	}
	fputc('"', f);
	for (; *v; v++) {
		if (*v == '"')
			fputc('"', f);
		fputc(*v, f);
	}
	fputc('"', f);
}

static void csv_num(FILE *f, int have, double x)
{
	if (have && isfinite(x))
		fprintf(f, ",%.10g", x);
	else
		fputc(',', f);
}

static void csv_mstat(FILE *f, const struct ts_exp_mstat *m)
{
	csv_num(f, m->n, m->mean);
	csv_num(f, m->n >= 2, m->lo);
	csv_num(f, m->n >= 2, m->hi);
	csv_num(f, m->n, m->min);
	csv_num(f, m->n, m->max);
}

static void csv_lstat(FILE *f, const struct ts_exp_lstat *l)
{
	csv_num(f, l->n, l->p50);
	csv_num(f, l->n, l->p95);
	csv_num(f, l->n, l->p99);
	csv_num(f, l->n, l->mean);
}

int ts_exp_summary_write_csv(const struct ts_exp_summary *s, FILE *f)
{
	const char *cols[TS_EXP_MAX_AXES * 4];
	size_t ncols = axis_columns(s, cols, sizeof(cols) / sizeof(cols[0])), i, j;
	static const char *const mcols[] = {"throughput_up_mbps", "throughput_down_mbps"};
	static const char *const lcols[] = {"ping_icmp_ms", "ping_udp_ms"};

	fputs("id", f);
	for (i = 0; i < ncols; i++)
		fprintf(f, ",%s", cols[i]);
	fputs(",n,failed,fell_behind", f);
	for (i = 0; i < 2; i++)
		fprintf(f, ",%s_mean,%s_ci95_low,%s_ci95_high,%s_min,%s_max", mcols[i], mcols[i],
			mcols[i], mcols[i], mcols[i]);
	for (i = 0; i < 2; i++)
		fprintf(f, ",%s_p50,%s_p95,%s_p99,%s_mean", lcols[i], lcols[i], lcols[i], lcols[i]);
	fputs(",retransmits,jain_fairness_up,jain_fairness_down,flags\n", f);
	for (i = 0; i < s->nconfigs; i++) {
		const struct ts_exp_sum_config *c = &s->configs[i];
		char flags[1024] = "";
		size_t n = 0;

		csv_str(f, c->id);
		for (j = 0; j < ncols; j++) {
			const char *v = ts_exp_sum_axis(c, cols[j]);

			fputc(',', f);
			if (v)
				csv_str(f, v);
		}
		fprintf(f, ",%u,%u,%u", c->n, c->failed, c->fell_behind);
		csv_mstat(f, &c->thr_up);
		csv_mstat(f, &c->thr_down);
		csv_lstat(f, &c->icmp);
		csv_lstat(f, &c->udp);
		csv_num(f, c->retransmits.n, c->retransmits.mean);
		csv_num(f, c->jain_up.n, c->jain_up.mean);
		csv_num(f, c->jain_down.n, c->jain_down.mean);
		for (j = 0; j < c->nflags && n < sizeof(flags); j++)
			n += (size_t)snprintf(flags + n, sizeof(flags) - n, "%s%s", j ? " " : "",
					      c->flags[j]);
		fputc(',', f);
		csv_str(f, flags);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

/* ---- Markdown ----------------------------------------------------------------------------- */

static void md_mstat(FILE *f, const struct ts_exp_mstat *m)
{
	if (!m->n)
		fputs(" - |", f);
	else if (m->n >= 2)
		fprintf(f, " %.2f [%.2f, %.2f] |", m->mean, m->lo, m->hi);
	else
		fprintf(f, " %.2f |", m->mean);
}

static void md_lstat(FILE *f, const struct ts_exp_lstat *l)
{
	if (!l->n)
		fputs(" - |", f);
	else
		fprintf(f, " %.1f / %.1f / %.1f |", l->p50, l->p95, l->p99);
}

int ts_exp_summary_write_md(const struct ts_exp_summary *s, FILE *f)
{
	size_t i, j;

	/* Names, ids, flags and reasons come from files anyone may have written: ts_md_escape. */
	fputs("# ", f);
	ts_md_escape(f, s->name);
	fprintf(f, "\n\nRuns: %u, failed: %u, emulator fell behind: %u.", s->runs, s->failed,
		s->fell_behind);
	for (i = 0; i < s->nskipped; i++) {
		fprintf(f, "%sSkipped ", i ? " " : "\n\n");
		ts_md_escape(f, s->skipped[i].cca);
		fputs(": ", f);
		ts_md_escape(f, s->skipped[i].why);
		fputc('.', f);
	}
	fputs("\n\nThroughput: mean over repetitions [Student's t 95% interval]. Latency: p50 / "
	      "p95 "
	      "/ p99 of every sample under load, pooled over repetitions. A **fell behind** run's "
	      "emulator could not keep the link's timing (docs/experiments.md, \"Fidelity\"): its "
	      "numbers describe the host, not the link.\n\n",
	      f);
	fputs("| configuration | n | up Mbit/s | down Mbit/s | ICMP ms | UDP ms | retransmits | "
	      "Jain up / down | flags |\n",
	      f);
	fputs("|---|---|---|---|---|---|---|---|---|\n", f);
	for (i = 0; i < s->nconfigs; i++) {
		const struct ts_exp_sum_config *c = &s->configs[i];

		fputs("| ", f);
		ts_md_escape(f, c->id);
		fprintf(f, " | %u |", c->n);
		md_mstat(f, &c->thr_up);
		md_mstat(f, &c->thr_down);
		md_lstat(f, &c->icmp);
		md_lstat(f, &c->udp);
		if (c->retransmits.n)
			fprintf(f, " %.1f |", c->retransmits.mean);
		else
			fputs(" - |", f);
		if (c->jain_up.n || c->jain_down.n) {
			if (c->jain_up.n)
				fprintf(f, " %.3f", c->jain_up.mean);
			else
				fputs(" -", f);
			if (c->jain_down.n)
				fprintf(f, " / %.3f |", c->jain_down.mean);
			else
				fputs(" / - |", f);
		} else {
			fputs(" - |", f);
		}
		if (c->fell_behind)
			fprintf(f, " **fell behind** (%u of %u runs, release p99 up to %.0f us)",
				c->fell_behind, c->n + c->failed, c->worst_release_p99_us);
		if (c->skipped)
			fputs(" **skipped**", f);
		if (c->failed)
			fprintf(f, " **%u failed**", c->failed);
		for (j = 0; j < c->nflags; j++)
			if (strncmp(c->flags[j], "fell_behind", 11) &&
			    strcmp(c->flags[j], "cca_skipped") &&
			    strcmp(c->flags[j], "run_failed")) {
				fputc(' ', f);
				ts_md_escape(f, c->flags[j]);
			}
		fputs(" |\n", f);
	}
	return ferror(f) ? -EIO : 0;
}

int ts_exp_summary_write_all(const struct ts_exp_summary *s, const char *dir, struct ts_err *err)
{
	static const char *const names[] = {"summary.json", "summary.csv", "summary.md"};
	int (*const fns[])(const struct ts_exp_summary *, FILE *) = {
		ts_exp_summary_write_json, ts_exp_summary_write_csv, ts_exp_summary_write_md};
	char path[4096];
	size_t i;

	for (i = 0; i < 3; i++) {
		FILE *f;
		int ret;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		f = ts_out_fopen(path, err);
		if (!f)
			return -errno;
		ret = fns[i](s, f);
		if (fclose(f) || ret < 0) {
			ts_err_set(err, "%s: write error", path);
			return -EIO;
		}
	}
	return 0;
}

int ts_exp_matrix_write_json(const struct ts_exp_matrix *plan, const struct ts_exp_summary *s,
			     FILE *f)
{
	const struct ts_exp_spec *spec = plan->spec;
	json_object *root = json_object_new_object(), *configs = json_object_new_array();
	json_object *runs = json_object_new_array();
	size_t i;

	json_object_object_add(root, "version", json_object_new_int(1));
	json_object_object_add(root, "name", json_object_new_string(spec->name));
	json_object_object_add(root, "spec", json_object_new_string(spec->path));
	json_object_object_add(root, "spec_sha256",
			       spec->sha256 ? json_object_new_string(spec->sha256) : NULL);
	json_object_object_add(root, "seed", json_object_new_uint64(spec->seed));
	json_object_object_add(root, "order",
			       json_object_new_string(spec->order == TS_EXP_ORDER_SHUFFLE
							      ? "shuffle"
							      : "interleave"));
	json_object_object_add(root, "repetitions", json_object_new_int((int)plan->repetitions));
	/* With --length/--delay the runs' times differ from the spec's: record what ran. */
	if (plan->nruns) {
		json_object_object_add(root, "length_s",
				       jnum((double)plan->runs[0].length / TS_NSEC_PER_SEC));
		json_object_object_add(root, "delay_s",
				       jnum((double)plan->runs[0].delay / TS_NSEC_PER_SEC));
	}
	json_object_object_add(root, "skipped", skipped_json(s));
	for (i = 0; i < plan->nconfigs; i++) {
		const struct ts_exp_run *r = &plan->configs[i].tmpl;
		json_object *c = json_object_new_object();

		json_object_object_add(c, "id", json_object_new_string(plan->configs[i].id));
		json_object_object_add(c, "axes", jaxes(r->axes, r->naxes));
		json_object_array_add(configs, c);
	}
	json_object_object_add(root, "configs", configs);
	for (i = 0; i < plan->nruns; i++) {
		const struct ts_exp_run *r = &plan->runs[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "index", json_object_new_int((int)r->index));
		json_object_object_add(o, "rep", json_object_new_int((int)r->rep));
		json_object_object_add(o, "seed", json_object_new_uint64(r->seed));
		json_object_object_add(o, "id", json_object_new_string(r->config_id));
		json_object_array_add(runs, o);
	}
	json_object_object_add(root, "runs", runs);
	return put_json(root, f);
}

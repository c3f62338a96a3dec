/* SPDX-License-Identifier: MIT */
/*
 * One run's result.json as a Flent data file (format and rules in
 * flent.h). Pure apart from ts_flent_write / ts_flent_export_run: the
 * document is built from the parsed result, so unit tests drive it with
 * made-up results.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "io/json.h"
#include "results/flent.h"
#include "results/rjson.h"

/* One series' samples, absolute Unix times. */
struct samples {
	double *t, *v;
	size_t n;
	const struct json_object *src; /* the flow or latency record */
	double mean;		       /* MEAN_VALUE, NAN when unknown */
	double *grid;		       /* values on the grid */
};

struct build {
	const struct json_object *result;
	struct ts_flent_test def;
	struct samples s[TS_FLENT_MAX_SERIES];
	double t0;	/* result t0: the start of the run */
	double data_t0; /* Flent's T0: the earliest sample */
	size_t nsteps;
	struct ts_err *err;
};

static void iso_time(double unix_s, char *buf, size_t len)
{
	time_t sec = (time_t)floor(unix_s);
	long usec = lround((unix_s - (double)sec) * 1e6);
	struct tm tm;

	if (usec >= 1000000) {
		sec++;
		usec -= 1000000;
	}
	gmtime_r(&sec, &tm);
	/* Flent's own format (util.format_date with utc=True): microseconds and a Z. */
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, usec);
}

/* @v under @key, null when it is not finite (Flent's missing value). */
static void put_num(struct json_object *o, const char *key, double v, bool *nomem)
{
	if (isnan(v) || isinf(v))
		ts_json_put_null(o, key, nomem);
	else
		ts_json_put(o, key, json_object_new_double(v), nomem);
}

/* @v appended to @a, null when it is not finite. */
static void append_num(struct json_object *a, double v, bool *nomem)
{
	if (isnan(v) || isinf(v))
		ts_json_append_null(a, nomem);
	else
		ts_json_append(a, json_object_new_double(v), nomem);
}

static int find_series(const struct build *b, const char *name, enum ts_flent_kind kind)
{
	size_t i;

	for (i = 0; i < b->def.n; i++)
		if (b->def.s[i].kind == kind && !strcmp(b->def.s[i].name, name))
			return (int)i;
	return -1;
}

/* Does a record of the result carry @name exactly (so that series is its, even if not taken yet)? */
static int find_series_claimed_by_name(const struct build *b, const char *name,
				       enum ts_flent_kind kind)
{
	struct json_object *arr =
		ts_rj_arr(b->result, kind == TS_FLENT_FLOW ? "flows" : "latency", NULL);
	size_t n = arr ? json_object_array_length(arr) : 0, i;

	for (i = 0; i < n; i++)
		if (!strcmp(ts_rj_str(json_object_array_get_idx(arr, i), "name", ""), name))
			return 1;
	return 0;
}

/* The names Flent expects for @kind, for an error message. */
static void list_names(const struct build *b, enum ts_flent_kind kind, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < b->def.n && off + 1 < len; i++) {
		int w;

		if (b->def.s[i].kind != kind)
			continue;
		w = snprintf(buf + off, len - off, "%s'%s'", off ? ", " : "", b->def.s[i].name);
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

/* Hosts as Flent names them: the result's servers[k].host when given, else serverK. */
static void host_names(const struct json_object *result, char hosts[4][64])
{
	struct json_object *servers;
	size_t n, k;

	servers = ts_rj_arr(result, "servers", &n);
	for (k = 0; k < 4; k++) {
		const char *h = NULL;

		if (servers && k < n) {
			struct json_object *s = json_object_array_get_idx(servers, k);

			h = ts_rj_str(s, "host", ts_rj_str(s, "addr", NULL));
		}
		if (h)
			snprintf(hosts[k], sizeof(hosts[k]), "%s", h);
		else
			snprintf(hosts[k], sizeof(hosts[k]), "server%zu", k + 1);
	}
}

static int read_samples(struct samples *s, const struct json_object *series, const char *tkey,
			const char *vkey, double t0)
{
	struct json_object *ta, *va;
	size_t nt, nv, i, j;
	int ret;

	ta = ts_rj_arr(series, tkey, &nt);
	va = ts_rj_arr(series, vkey, &nv);
	if (nt != nv)
		return -EINVAL;
	ret = ts_rj_nums(ta, nt, &s->t);
	if (!ret)
		ret = ts_rj_nums(va, nv, &s->v);
	if (ret)
		return ret;
	/* Keep numbered samples only, in time order (the executor writes them ascending). */
	for (i = 0, j = 0; i < nt; i++) {
		if (isnan(s->t[i]) || isnan(s->v[i]))
			continue;
		s->t[j] = s->t[i] + t0;
		s->v[j] = s->v[i];
		j++;
	}
	s->n = j;
	for (i = 1; i < s->n; i++)
		if (s->t[i] < s->t[i - 1])
			return -EINVAL;
	return 0;
}

/*
 * The series a record of @kind goes to: the one of its name; else (a name
 * that is not Flent's, as "TCP upload BE1" for rrul_be's "TCP upload BE" or
 * "TCP upload::2" for rtt_fair's "TCP upload BE2 HOST") the first free one
 * of the same kind, direction and server, and for probes the same
 * protocol, in the definition's order. -1 when there is none.
 */
static int series_for(const struct build *b, const struct json_object *rec, enum ts_flent_kind kind)
{
	const char *name = ts_rj_str(rec, "name", "");
	unsigned server = (unsigned)ts_rj_num(rec, "server", 0);
	const char *dir = ts_rj_str(rec, "dir", ""), *proto;
	int k = find_series(b, name, kind);
	size_t i;

	if (k >= 0)
		return b->s[k].src ? -2 : k;
	proto = !strcmp(ts_rj_str(rec, "kind", ""), "udp") ? "UDP" : "ICMP";
	for (i = 0; i < b->def.n; i++) {
		const struct ts_flent_series *s = &b->def.s[i];

		if (s->kind != kind || s->server != server || b->s[i].src)
			continue;
		if (kind == TS_FLENT_FLOW && s->dir != (!strcmp(dir, "up") ? 'u' : 'd'))
			continue;
		if (kind == TS_FLENT_PING && !strstr(s->name, proto))
			continue;
		/* A record named as another series of the test waits for that one. */
		if (find_series_claimed_by_name(b, s->name, kind))
			continue;
		return (int)i;
	}
	return -1;
}

static int take_records(struct build *b, const char *key, enum ts_flent_kind kind,
			int (*take)(struct build *, size_t k, struct json_object *rec))
{
	struct json_object *arr = ts_rj_arr(b->result, key, NULL);
	size_t n = arr ? json_object_array_length(arr) : 0, i;
	char names[1024];
	int pass, ret;

	/* Records named as Flent names them first, then the others into the free series. */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i++) {
			struct json_object *rec = json_object_array_get_idx(arr, i);
			const char *name = ts_rj_str(rec, "name", "");
			int exact = find_series(b, name, kind) >= 0, k;

			if (exact != (pass == 0))
				continue;
			k = series_for(b, rec, kind);
			if (k == -2) {
				ts_err_set(b->err, "%s[%zu]: '%s' appears twice", key, i, name);
				return -EINVAL;
			}
			if (k < 0) {
				list_names(b, kind, names, sizeof(names));
				ts_err_set(b->err,
					   "%s[%zu]: '%s' is not a %s of Flent's test %s, and none "
					   "of its "
					   "(%s) is left for it",
					   key, i, name, kind == TS_FLENT_FLOW ? "flow" : "probe",
					   ts_rj_str(b->result, "test", ""), names);
				return -EINVAL;
			}
			b->s[k].src = rec;
			ret = take(b, (size_t)k, rec);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int take_flow(struct build *b, size_t k, struct json_object *f)
{
	int ret;

	b->s[k].mean = ts_rj_num(f, "throughput_mbps", NAN);
	ret = read_samples(&b->s[k], ts_rj_obj(f, "series"), "t", "mbps", b->t0);
	if (ret)
		ts_err_set(b->err,
			   "flow '%s': series.t and series.mbps must be numbers of equal length, t "
			   "ascending",
			   ts_rj_str(f, "name", ""));
	return ret;
}

static int take_ping(struct build *b, size_t k, struct json_object *l)
{
	double sum = 0;
	size_t j;
	int ret;

	ret = read_samples(&b->s[k], ts_rj_obj(l, "samples"), "t", "rtt_ms", b->t0);
	if (ret) {
		ts_err_set(
			b->err,
			"probe '%s': samples.t and samples.rtt_ms must be numbers of equal length, "
			"t ascending",
			ts_rj_str(l, "name", ""));
		return ret;
	}
	/* Like ping's own summary line (Flent's MEAN_VALUE for a ping): every sample. */
	for (j = 0; j < b->s[k].n; j++)
		sum += b->s[k].v[j];
	b->s[k].mean = b->s[k].n ? sum / (double)b->s[k].n : NAN;
	return 0;
}

static int take_flows(struct build *b)
{
	return take_records(b, "flows", TS_FLENT_FLOW, take_flow);
}

static int take_pings(struct build *b)
{
	return take_records(b, "latency", TS_FLENT_PING, take_ping);
}

/* Flent's grid: from the earliest sample of any series to past the latest, in STEP_SIZE. */
static int make_grid(struct build *b)
{
	double tmin = INFINITY, tmax = -INFINITY;
	size_t i;

	for (i = 0; i < b->def.n; i++) {
		if (!b->s[i].n)
			continue;
		tmin = fmin(tmin, b->s[i].t[0]);
		tmax = fmax(tmax, b->s[i].t[b->s[i].n - 1]);
	}
	if (isinf(tmin)) {
		ts_err_set(b->err, "no samples in any flow or latency series");
		return -EINVAL;
	}
	b->data_t0 = tmin;
	b->nsteps = (size_t)ceil((tmax - tmin) / TS_FLENT_STEP - 1e-9);
	if (b->nsteps == 0)
		b->nsteps = 1;
	for (i = 0; i < b->def.n; i++) {
		b->s[i].grid = malloc(b->nsteps * sizeof(double));
		if (!b->s[i].grid)
			return -ENOMEM;
		if (b->def.s[i].kind == TS_FLENT_FLOW || b->def.s[i].kind == TS_FLENT_PING)
			ts_flent_grid(b->s[i].t, b->s[i].v, b->s[i].n, b->data_t0, TS_FLENT_STEP,
				      b->nsteps, b->s[i].grid);
	}
	return 0;
}

static int in_group(const struct ts_flent_series *s, enum ts_flent_group g)
{
	switch (g) {
	case TS_FLENT_G_UP:
		return s->kind == TS_FLENT_FLOW && s->dir == 'u';
	case TS_FLENT_G_DOWN:
		return s->kind == TS_FLENT_FLOW && s->dir == 'd';
	case TS_FLENT_G_TCP:
		return s->kind == TS_FLENT_FLOW;
	case TS_FLENT_G_PING:
		return s->kind == TS_FLENT_PING;
	default:
		return 0;
	}
}

/* Flent's ComputingRunner: per point over the members that have a value; None when none do. */
static double compute(enum ts_flent_kind kind, const double *vals, size_t n)
{
	double sum = 0;
	size_t i;

	if (n == 0)
		return NAN;
	if (kind == TS_FLENT_FAIR)
		return ts_flent_jain(vals, n);
	for (i = 0; i < n; i++)
		sum += vals[i];
	return kind == TS_FLENT_AVG ? sum / (double)n : sum;
}

static void make_computed(struct build *b)
{
	double vals[TS_FLENT_MAX_SERIES];
	size_t i, j, k, m;

	for (i = 0; i < b->def.n; i++) {
		const struct ts_flent_series *c = &b->def.s[i];

		if (c->group == TS_FLENT_G_NONE)
			continue;
		for (k = 0; k < b->nsteps; k++) {
			for (j = 0, m = 0; j < b->def.n; j++)
				if (in_group(&b->def.s[j], c->group) && !isnan(b->s[j].grid[k]))
					vals[m++] = b->s[j].grid[k];
			b->s[i].grid[k] = compute(c->kind, vals, m);
		}
		for (j = 0, m = 0; j < b->def.n; j++)
			if (in_group(&b->def.s[j], c->group) && !isnan(b->s[j].mean))
				vals[m++] = b->s[j].mean;
		b->s[i].mean = compute(c->kind, vals, m);
	}
}

static int cmp_t(const void *a, const void *b)
{
	double ta = ts_rj_num(*(struct json_object *const *)a, "t", 0);
	double tb = ts_rj_num(*(struct json_object *const *)b, "t", 0);

	return ta < tb ? -1 : ta > tb ? 1 : 0;
}

/* Flent's ss runner's points for the flow @name, merged into @raw (then sorted by t). */
static int add_sockstats(struct build *b, const char *name, struct json_object *raw)
{
	static const struct {
		const char *ours, *flent;
		double scale;
	} keys[] = {{"cwnd", "tcp_cwnd", 1},
		    {"rtt_ms", "tcp_rtt", 1},
		    {"pacing_rate_bps", "tcp_pacing_rate", 1e-6},
		    {"delivery_rate_bps", "tcp_delivery_rate", 1e-6}};
	struct json_object *ss = ts_rj_arr(b->result, "sockstats", NULL);
	size_t nss = ss ? json_object_array_length(ss) : 0, i, j, q;

	for (i = 0; i < nss; i++) {
		struct json_object *e = json_object_array_get_idx(ss, i);
		double *t = NULL, *col[4] = {NULL, NULL, NULL, NULL};
		struct json_object *a;
		size_t nt, nc[4] = {0, 0, 0, 0};
		int ret;

		if (strcmp(ts_rj_str(e, "flow", ""), name))
			continue;
		a = ts_rj_arr(e, "t", &nt);
		ret = ts_rj_nums(a, nt, &t);
		for (q = 0; q < 4 && !ret; q++) {
			a = ts_rj_arr(e, keys[q].ours, &nc[q]);
			ret = ts_rj_nums(a, nc[q], &col[q]);
		}
		for (j = 0; j < nt && !ret; j++) {
			struct json_object *p = json_object_new_object();
			bool nomem = false;

			ts_json_put(p, "t", json_object_new_double(t[j] + b->t0), &nomem);
			for (q = 0; q < 4; q++)
				if (j < nc[q] && !isnan(col[q][j]))
					ts_json_put(
						p, keys[q].flent,
						json_object_new_double(col[q][j] * keys[q].scale),
						&nomem);
			ts_json_append(raw, ts_json_built(p, nomem), &nomem);
			ret = nomem ? -ENOMEM : 0;
		}
		free(t);
		for (q = 0; q < 4; q++)
			free(col[q]);
		if (ret)
			return ret;
	}
	json_object_array_sort(raw, cmp_t);
	return 0;
}

static struct json_object *raw_points(struct build *b, size_t i)
{
	const struct ts_flent_series *def = &b->def.s[i];
	const struct samples *s = &b->s[i];
	struct json_object *raw = json_object_new_array(), *seq = NULL;
	double flow_start = b->t0 + ts_rj_num(b->result, "delay_s", 0);
	size_t j, nseq = 0;
	bool nomem = false;

	if (def->kind == TS_FLENT_PING)
		seq = ts_rj_arr(ts_rj_obj(s->src, "samples"), "seq", &nseq);
	for (j = 0; j < s->n; j++) {
		struct json_object *p = json_object_new_object();

		ts_json_put(p, "t", json_object_new_double(s->t[j]), &nomem);
		ts_json_put(p, "val", json_object_new_double(s->v[j]), &nomem);
		if (def->kind == TS_FLENT_FLOW) {
			/* netperf's interval length: since the previous sample (the first: since start). */
			double dur = j ? s->t[j] - s->t[j - 1] : s->t[0] - flow_start;

			if (dur <= 0 && s->n > 1)
				dur = s->t[1] - s->t[0];
			ts_json_put(p, "dur", json_object_new_double(dur), &nomem);
		} else if (seq && j < nseq) {
			struct json_object *q = json_object_array_get_idx(seq, j);

			if (q)
				ts_json_put(p, "seq",
					    json_object_new_int64(json_object_get_int64(q)),
					    &nomem);
		}
		ts_json_append(raw, p, &nomem);
	}
	if (!nomem && def->kind == TS_FLENT_FLOW && s->src &&
	    add_sockstats(b, ts_rj_str(s->src, "name", def->name), raw))
		nomem = true;
	return ts_json_built(raw, nomem);
}

static struct json_object *series_meta(const struct build *b, size_t i)
{
	const struct ts_flent_series *def = &b->def.s[i];
	const struct json_object *src = b->s[i].src;
	struct json_object *m = json_object_new_object();
	bool nomem = false;

	ts_json_put_str(m, "UNITS",
			def->kind == TS_FLENT_PING || def->group == TS_FLENT_G_PING ? "ms"
			: def->kind == TS_FLENT_FAIR				    ? "Idx"
										    : "Mbits/s",
			&nomem);
	put_num(m, "MEAN_VALUE", b->s[i].mean, &nomem);
	if (def->group != TS_FLENT_G_NONE)
		ts_json_put(m, "COMPUTED_LATE", json_object_new_boolean(0), &nomem);
	if (src && strcmp(ts_rj_str(src, "name", ""), def->name))
		ts_json_put_str(m, "TASSHAPE_NAME", ts_rj_str(src, "name", ""), &nomem);
	if (def->kind == TS_FLENT_FLOW && src) {
		put_num(m, "ELAPSED_TIME", ts_rj_num(src, "seconds", NAN), &nomem);
		ts_json_put_str(m, "CONG_CONTROL", ts_rj_str(src, "cca_used", ""), &nomem);
		ts_json_put_str(m, "MARKING", ts_rj_str(src, "dscp", "BE"), &nomem);
		put_num(m, "TASSHAPE_BYTES", ts_rj_num(src, "bytes", NAN), &nomem);
		put_num(m, "TASSHAPE_RETRANSMITS", ts_rj_num(src, "retransmits", NAN), &nomem);
	}
	return ts_json_built(m, nomem);
}

static void copy_key(struct json_object *to, const char *tokey, const struct json_object *from,
		     const char *key, bool *nomem)
{
	struct json_object *v = NULL;

	if (from && json_object_object_get_ex(from, key, &v) && v) {
		struct json_object *c = NULL;

		if (json_object_deep_copy(v, &c, NULL) == 0)
			ts_json_put(to, tokey, c, nomem);
		else
			*nomem = true;
	}
}

/* tasshape's own context, under metadata.TASSHAPE. */
static struct json_object *own_meta(const struct build *b, const struct ts_flent_ctx *ctx)
{
	static const char *const result_keys[] = {"id",	  "rep",   "index",    "seed",
						  "axes", "flags", "fidelity", "cca"};
	static const char *const manifest_keys[] = {"kernel", "git_revision", "traces", "link"};
	struct json_object *t = json_object_new_object(), *axes = ts_rj_obj(b->result, "axes");
	bool nomem = false;
	size_t i;

	ts_json_put_str(t, "tasshape_version",
			ctx && ctx->tool_version ? ctx->tool_version : "unknown", &nomem);
	for (i = 0; i < sizeof(result_keys) / sizeof(result_keys[0]); i++)
		copy_key(t, result_keys[i], b->result, result_keys[i], &nomem);
	if (axes)
		copy_key(t, "link_name", axes, "link", &nomem);
	for (i = 0; ctx && i < sizeof(manifest_keys) / sizeof(manifest_keys[0]); i++)
		copy_key(t, manifest_keys[i], ctx->manifest, manifest_keys[i], &nomem);
	ts_json_put(t, "t0", json_object_new_double(b->t0), &nomem);
	ts_json_put(t, "delay_s", json_object_new_double(ts_rj_num(b->result, "delay_s", 0)),
		    &nomem);
	return ts_json_built(t, nomem);
}

static struct json_object *test_parameters(const struct build *b, const char *test, unsigned up,
					   unsigned down)
{
	struct json_object *p = json_object_new_object();
	bool nomem = false;
	char buf[32];

	if (!strcmp(test, "tcp_nup")) {
		snprintf(buf, sizeof(buf), "%u", up);
		ts_json_put_str(p, "upload_streams", buf, &nomem);
	} else if (!strcmp(test, "tcp_ndown")) {
		snprintf(buf, sizeof(buf), "%u", down);
		ts_json_put_str(p, "download_streams", buf, &nomem);
	} else if (!strcmp(test, "rtt_fair")) {
		/* What rtt_fair.conf sets itself, as Flent records it. */
		ts_json_put_str(p, "markings", "CS0,CS0,CS1,CS1", &nomem);
		ts_json_put_str(p, "labels", "BE1,BE2,BK1,BK2", &nomem);
		ts_json_put_str(p, "ping_labels", "ICMP1,ICMP2,ICMP3,ICMP4", &nomem);
	}
	(void)b;
	return ts_json_built(p, nomem);
}

static struct json_object *metadata(struct build *b, const struct ts_flent_ctx *ctx,
				    const char *test, char hosts[4][64], size_t nhosts, unsigned up,
				    unsigned down)
{
	static const char *const nulls[] = {"NOTE",
					    "FLENT_VERSION",
					    "BATCH_NAME",
					    "BATCH_TIME",
					    "BATCH_TITLE",
					    "BATCH_UUID",
					    "HTTP_GETTER_URLLIST",
					    "HTTP_GETTER_DNS",
					    "HTTP_GETTER_WORKERS"};
	struct json_object *m = json_object_new_object(), *hl = json_object_new_array(), *sm;
	double length = ts_rj_num(b->result, "length_s", 0),
	       delay = ts_rj_num(b->result, "delay_s", 0);
	char buf[160];
	size_t i;
	unsigned missing = 0;
	bool nomem = false;

	ts_json_put_str(m, "NAME", test, &nomem);
	ts_json_put_str(m, "HOST", hosts[0], &nomem);
	for (i = 0; i < nhosts; i++)
		ts_json_append(hl, json_object_new_string(hosts[i]), &nomem);
	ts_json_put(m, "HOSTS", hl, &nomem);
	iso_time(b->t0, buf, sizeof(buf));
	ts_json_put_str(m, "TIME", buf, &nomem);
	iso_time(b->data_t0, buf, sizeof(buf));
	ts_json_put_str(m, "T0", buf, &nomem);
	ts_json_put_str(m, "LOCAL_HOST", ctx && ctx->local_host ? ctx->local_host : "", &nomem);
	snprintf(buf, sizeof(buf), "%s rep %d", ts_rj_str(b->result, "id", test),
		 (int)ts_rj_num(b->result, "rep", 0));
	ts_json_put_str(m, "TITLE", buf, &nomem);
	ts_json_put(m, "LENGTH", json_object_new_double(length), &nomem);
	ts_json_put(m, "TOTAL_LENGTH", json_object_new_double(length + 2 * delay), &nomem);
	ts_json_put(m, "STEP_SIZE", json_object_new_double(TS_FLENT_STEP), &nomem);
	ts_json_put(m, "TEST_PARAMETERS", test_parameters(b, test, up, down), &nomem);
	ts_json_put(m, "IP_VERSION", json_object_new_int(4), &nomem);
	snprintf(buf, sizeof(buf), "%s%s", test, TS_FLENT_FILE_SUFFIX);
	ts_json_put_str(m, "DATA_FILENAME", buf, &nomem);
	for (i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		ts_json_put_null(m, nulls[i], &nomem);
	sm = json_object_new_object();
	for (i = 0; i < b->def.n; i++) {
		ts_json_put(sm, b->def.s[i].name, series_meta(b, i), &nomem);
		if (b->def.s[i].group == TS_FLENT_G_NONE && !b->s[i].n)
			missing++;
	}
	ts_json_put(m, "SERIES_META", sm, &nomem);
	ts_json_put(m, "FAILED_RUNNERS", json_object_new_int((int)missing), &nomem);
	ts_json_put(m, "TASSHAPE", own_meta(b, ctx), &nomem);
	return ts_json_built(m, nomem);
}

static unsigned count_dir(const struct json_object *result, const char *dir)
{
	struct json_object *flows = ts_rj_arr(result, "flows", NULL);
	size_t n = flows ? json_object_array_length(flows) : 0, i;
	unsigned c = 0;

	for (i = 0; i < n; i++)
		if (!strcmp(ts_rj_str(json_object_array_get_idx(flows, i), "dir", ""), dir))
			c++;
	return c;
}

static struct json_object *assemble(struct build *b, const struct ts_flent_ctx *ctx,
				    const char *test, char hosts[4][64], size_t nhosts, unsigned up,
				    unsigned down)
{
	struct json_object *doc = json_object_new_object(), *x = json_object_new_array();
	struct json_object *res = json_object_new_object(), *raw = json_object_new_object();
	bool nomem = false;
	size_t i, k;

	for (k = 0; k < b->nsteps; k++)
		ts_json_append(x, json_object_new_double(TS_FLENT_STEP * (double)k), &nomem);
	for (i = 0; i < b->def.n && !nomem; i++) {
		struct json_object *col = json_object_new_array();

		for (k = 0; k < b->nsteps; k++)
			append_num(col, b->s[i].grid[k], &nomem);
		ts_json_put(res, b->def.s[i].name, col, &nomem);
		ts_json_put(raw, b->def.s[i].name,
			    b->def.s[i].group == TS_FLENT_G_NONE ? raw_points(b, i)
								 : json_object_new_array(),
			    &nomem);
	}
	ts_json_put(doc, "version", json_object_new_int(4), &nomem);
	ts_json_put(doc, "metadata", metadata(b, ctx, test, hosts, nhosts, up, down), &nomem);
	ts_json_put(doc, "x_values", x, &nomem);
	ts_json_put(doc, "results", res, &nomem);
	ts_json_put(doc, "raw_values", raw, &nomem);
	return ts_json_built(doc, nomem);
}

int ts_flent_build(const struct json_object *result, const struct ts_flent_ctx *ctx,
		   struct json_object **out, struct ts_err *err)
{
	struct build *b;
	const char *test = ts_rj_str(result, "test", NULL);
	char hosts[4][64];
	const char *hp[4];
	unsigned up, down;
	size_t i, nhosts;
	int ret;

	*out = NULL;
	if (!test) {
		ts_err_set(err, "no \"test\" (expected the Flent test name of the run)");
		return -EINVAL;
	}
	if (!ts_flent_is_test(test)) {
		ts_err_set(err, "test '%s' has no Flent counterpart", test);
		return -ENOENT;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->result = result;
	b->err = err;
	b->t0 = ts_rj_num(result, "t0", NAN);
	ret = -EINVAL;
	if (isnan(b->t0)) {
		ts_err_set(err, "no \"t0\" (expected the Unix time the run started)");
		goto out;
	}
	host_names(result, hosts);
	for (i = 0; i < 4; i++)
		hp[i] = hosts[i];
	nhosts = !strcmp(test, "rtt_fair") ? 4 : 1;
	up = count_dir(result, "up");
	down = count_dir(result, "down");
	ret = ts_flent_test_def(test, up, down, hp, nhosts, &b->def);
	if (ret) {
		ts_err_set(err, "test %s: %u upload and %u download flows do not fit it", test, up,
			   down);
		goto out;
	}
	ret = take_flows(b);
	if (!ret)
		ret = take_pings(b);
	if (!ret)
		ret = make_grid(b);
	if (ret)
		goto out;
	make_computed(b);
	*out = assemble(b, ctx, test, hosts, nhosts, up, down);
	ret = *out ? 0 : -ENOMEM;
out:
	for (i = 0; i < TS_FLENT_MAX_SERIES; i++) {
		free(b->s[i].t);
		free(b->s[i].v);
		free(b->s[i].grid);
	}
	free(b);
	return ret;
}

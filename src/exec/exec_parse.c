/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_parse.h"
#include "io/json.h"
#include "run/fidelity.h"
#include "record/sockstats_in.h"
#include "run/run_summary.h"

/* obj.a.b... by keys, NULL when any is missing. */
static json_object *path(json_object *o, const char *const *keys)
{
	for (; o && *keys; keys++) {
		if (!json_object_object_get_ex(o, *keys, &o))
			return NULL;
	}
	return o;
}

#define PATH(o, ...) path((o), (const char *const[]){__VA_ARGS__, NULL})

static void copy_str(char *dst, size_t len, json_object *o)
{
	snprintf(dst, len, "%s",
		 o && json_object_is_type(o, json_type_string) ? json_object_get_string(o) : "");
}

/* An empty series: "t" and the columns @v1 (may be NULL) and @v2. NULL: out of memory. */
static json_object *series_new(const char *v1, const char *v2)
{
	json_object *s = json_object_new_object();
	bool nomem = false;

	ts_json_put(s, "t", json_object_new_array(), &nomem);
	if (v1)
		ts_json_put(s, v1, json_object_new_array(), &nomem);
	ts_json_put(s, v2, json_object_new_array(), &nomem);
	return ts_json_built(s, nomem);
}

/* Append @v (owned) to column @key of @s; nothing (and @v freed) when @s is NULL. */
static void series_add(json_object *s, const char *key, json_object *v)
{
	json_object *arr = NULL;

	if (!s || !json_object_object_get_ex(s, key, &arr) || json_object_array_add(arr, v) < 0)
		json_object_put(v);
}

/* Rounded to microseconds (t) or to 1e-6 of the unit: the files stay readable. */
static json_object *num(double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.6f", v);
	return json_object_new_double_s(v, buf);
}

static json_object *parse_json(const char *text, struct ts_err *err)
{
	enum json_tokener_error jerr;
	json_object *o = json_tokener_parse_verbose(text, &jerr);

	if (!o)
		ts_err_set(err, "not JSON: %s", json_tokener_error_desc(jerr));
	return o;
}

int ts_exp_parse_iperf3(const char *text, double started, double t0, struct ts_exp_iperf *out,
			struct ts_err *err)
{
	json_object *root, *o, *iv;
	size_t i, n;
	int ret = -EINVAL;

	memset(out, 0, sizeof(*out));
	out->retransmits = -1;
	root = parse_json(text, err);
	if (!root)
		return -EINVAL;
	if ((o = PATH(root, "error"))) {
		ts_err_set(err, "iperf3: %s", json_object_get_string(o));
		goto out;
	}
	o = PATH(root, "end", "sum_received");
	if (!o || !PATH(o, "bytes") || !PATH(o, "seconds")) {
		ts_err_set(err, "iperf3 JSON has no end.sum_received");
		goto out;
	}
	out->bytes = (uint64_t)json_object_get_int64(PATH(o, "bytes"));
	out->seconds = json_object_get_double(PATH(o, "seconds"));
	out->throughput_mbps = out->seconds > 0 ? out->bytes * 8.0 / out->seconds / 1e6 : 0;
	if ((o = PATH(root, "end", "sum_sent", "retransmits")))
		out->retransmits = json_object_get_int64(o);
	copy_str(out->sender_cca, sizeof(out->sender_cca),
		 PATH(root, "end", "sender_tcp_congestion"));
	copy_str(out->receiver_cca, sizeof(out->receiver_cca),
		 PATH(root, "end", "receiver_tcp_congestion"));
	if ((o = PATH(root, "start", "connected")) && json_object_array_length(o) > 0)
		out->local_port = (unsigned)json_object_get_int(
			PATH(json_object_array_get_idx(o, 0), "local_port"));
	if ((o = PATH(root, "start", "test_start", "tos")))
		out->tos = (unsigned)json_object_get_int(o);
	if ((o = PATH(root, "start", "test_start", "reverse")))
		out->reverse = json_object_get_int(o) != 0;

	out->series = series_new(NULL, "mbps");
	if (!out->series) {
		ts_err_set(err, "iperf3: out of memory");
		ret = -ENOMEM;
		goto out;
	}
	iv = PATH(root, "intervals");
	n = iv ? json_object_array_length(iv) : 0;
	for (i = 0; i < n; i++) {
		json_object *sum = PATH(json_object_array_get_idx(iv, i), "sum");
		json_object *end = PATH(sum, "end"), *bps = PATH(sum, "bits_per_second");

		if (!end || !bps)
			continue;
		series_add(out->series, "t", num(started - t0 + json_object_get_double(end)));
		series_add(out->series, "mbps", num(json_object_get_double(bps) / 1e6));
	}
	ret = 0;
out:
	json_object_put(root);
	return ret;
}

json_object *ts_exp_parse_ping(const char *text, double t0, long *sent)
{
	json_object *s = series_new("seq", "rtt_ms");
	const char *line = text;

	*sent = -1;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		double when, rtt;
		long seq, tx;
		const char *p;

		/* "[1796118100.119723] 64 bytes from A: icmp_seq=1 ttl=63 time=40.5 ms" */
		if (line[0] == '[' && sscanf(line, "[%lf]", &when) == 1 &&
		    (p = strstr(line, "icmp_seq=")) && sscanf(p, "icmp_seq=%ld", &seq) == 1 &&
		    (p = strstr(line, "time=")) && (!nl || p < nl) &&
		    sscanf(p, "time=%lf", &rtt) == 1) {
			series_add(s, "t", num(when - t0));
			series_add(s, "seq", json_object_new_int64(seq));
			series_add(s, "rtt_ms", num(rtt));
		} else if (sscanf(line, "%ld packets transmitted", &tx) == 1) {
			*sent = tx;
		}
		line = nl ? nl + 1 : NULL;
	}
	return s;
}

json_object *ts_exp_parse_irtt(const char *text, double t0, long *lost, struct ts_err *err)
{
	json_object *root = parse_json(text, err), *rts, *s;
	size_t i, n;

	*lost = 0;
	if (!root)
		return NULL;
	rts = PATH(root, "round_trips");
	if (!rts || !json_object_is_type(rts, json_type_array)) {
		ts_err_set(err, "irtt JSON has no round_trips");
		json_object_put(root);
		return NULL;
	}
	s = series_new("seq", "rtt_ms");
	n = json_object_array_length(rts);
	for (i = 0; i < n; i++) {
		json_object *rt = json_object_array_get_idx(rts, i);
		json_object *l = PATH(rt, "lost"), *rtt = PATH(rt, "delay", "rtt");
		json_object *sent = PATH(rt, "timestamps", "client", "send", "wall");

		/* "lost" is "false", "true", "true_down" or "true_up" */
		if (!rtt || !sent || (l && strcmp(json_object_get_string(l), "false"))) {
			(*lost)++;
			continue;
		}
		series_add(s, "t", num(json_object_get_int64(sent) / 1e9 - t0));
		series_add(s, "seq",
			   json_object_new_int64(json_object_get_int64(PATH(rt, "seqno"))));
		series_add(s, "rtt_ms", num(json_object_get_int64(rtt) / 1e6));
	}
	json_object_put(root);
	return s;
}

static uint64_t u64(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? (uint64_t)json_object_get_int64(v) : 0;
}

int ts_exp_parse_summary(const char *text, struct ts_exp_fidelity f[2], struct ts_err *err)
{
	json_object *root = parse_json(text, err), *dirs, *v;
	size_t i, n;
	int64_t k;

	memset(f, 0, 2 * sizeof(*f));
	if (!root)
		return -EINVAL;
	dirs = PATH(root, "directions");
	if (!dirs || !json_object_is_type(dirs, json_type_array)) {
		ts_err_set(err, "summary JSON has no directions");
		json_object_put(root);
		return -EINVAL;
	}
	f[0].loop_work_permille = f[1].loop_work_permille = -1;
	f[0].host_steal_ms = f[1].host_steal_ms = -1;
	if ((v = PATH(root, "host_steal_ms")) && json_object_is_type(v, json_type_int) &&
	    (k = json_object_get_int64(v)) >= 0)
		f[0].host_steal_ms = f[1].host_steal_ms = k;
	if ((v = PATH(root, "loop_work_max_permille")) && json_object_is_type(v, json_type_int)) {
		k = json_object_get_int64(v);
		if (k >= 0 && k <= 1000)
			f[0].loop_work_permille = f[1].loop_work_permille = (int)k;
	}
	n = json_object_array_length(dirs);
	for (i = 0; i < n; i++) {
		json_object *d = json_object_array_get_idx(dirs, i), *o;
		const char *name = json_object_get_string(PATH(d, "name"));
		struct ts_exp_fidelity *x;

		if (!name || (strcmp(name, "uplink") && strcmp(name, "downlink")))
			continue;
		x = &f[!strcmp(name, "downlink")];
		x->present = true;
		x->unexplained = u64(d, "unexplained_drops");
		x->kernel_drops = u64(d, "kernel_dropped") + u64(d, "socket_overrun");
		x->no_descriptor = u64(d, "no_descriptor");
		o = PATH(d, "utilisation");
		x->utilisation = o ? json_object_get_double(o) : -1;
		if ((o = PATH(d, "release_error_ns"))) {
			x->have_release_err = true;
			x->release_err_p50_us = u64(o, "p50") / 1e3;
			x->release_err_p99_us = u64(o, "p99") / 1e3;
			x->release_err_max_us = u64(o, "max") / 1e3;
		}
	}
	json_object_put(root);
	return 0;
}

bool ts_exp_fell_behind(const struct ts_exp_fidelity *f, struct ts_err *why)
{
	/* The one rule (run/fidelity.h), which the wrapper's own summary prints too. */
	struct ts_fidelity x = {.have_release_err = f->have_release_err,
				.release_err_p99_ns =
					(uint64_t)llround(f->release_err_p99_us * 1e3),
				.unexplained = f->unexplained,
				.kernel_drops = f->kernel_drops};

	return f->present && ts_fell_behind(&x, why);
}

bool ts_exp_host_cpu(const struct ts_exp_fidelity f[2])
{
	bool behind = ts_exp_fell_behind(&f[0], NULL) || ts_exp_fell_behind(&f[1], NULL);

	/* The same test as the wrapper's own summary line; -1 (not measured) never passes. */
	return behind && ts_loop_saturated(f[0].loop_work_permille);
}

bool ts_exp_host_steal(const struct ts_exp_fidelity f[2])
{
	bool behind = ts_exp_fell_behind(&f[0], NULL) || ts_exp_fell_behind(&f[1], NULL);

	return behind && f[0].host_steal_ms >= TS_EXP_STEAL_MS;
}

/* The columns the executor needs, in the order their absence is reported. */
static const enum ts_sockstats_col ss_need[] = {TS_SS_TIME,   TS_SS_SPORT,    TS_SS_DPORT,
						TS_SS_CCA,    TS_SS_CWND,     TS_SS_SRTT,
						TS_SS_PACING, TS_SS_DELIVERY, TS_SS_BYTES_SENT};
static const char *const ss_need_name[] = {
	"time_s",    "sport",	"dport",	   "cca",
	"cwnd_pkts", "srtt_ms", "pacing_rate_bps", "delivery_rate_bps",
	"bytes_sent"};

/* A number for the series: null when the field was empty. */
static json_object *num_or_null(double v)
{
	return isnan(v) ? NULL : num(v);
}

static void note_cca(struct ts_exp_sock *s, const char *cca)
{
	char have[80], want[40];
	size_t len = strlen(s->cca);

	snprintf(have, sizeof(have), ",%s,", s->cca);
	snprintf(want, sizeof(want), ",%s,", cca);
	if (!cca[0] || strstr(have, want))
		return;
	snprintf(s->cca + len, sizeof(s->cca) - len, "%s%s", len ? "," : "", cca);
}

/* One row of the file for the sockets it belongs to. */
static void sock_row(const struct ts_sockstats_row *row, double t_off, struct ts_exp_sock *socks,
		     size_t n)
{
	unsigned port = (unsigned)row->v[TS_SS_SPORT], peer = (unsigned)row->v[TS_SS_DPORT];
	int station = isnan(row->v[TS_SS_STATION]) ? 0 : (int)row->v[TS_SS_STATION];
	size_t i;

	for (i = 0; i < n; i++) {
		struct ts_exp_sock *s = &socks[i];

		if (s->port != port || (s->peer && s->peer != peer) ||
		    (s->station >= 0 && s->station != station))
			continue;
		series_add(s->series, "t", num(row->v[TS_SS_TIME] + t_off));
		series_add(s->series, "cwnd", num_or_null(row->v[TS_SS_CWND]));
		series_add(s->series, "rtt_ms", num_or_null(row->v[TS_SS_SRTT]));
		series_add(s->series, "pacing_rate_bps", num_or_null(row->v[TS_SS_PACING]));
		series_add(s->series, "delivery_rate_bps", num_or_null(row->v[TS_SS_DELIVERY]));
		/*
		 * Evidence only once the socket has sent more than iperf3's cookie:
		 * its client connects, writes the 37-byte cookie and only then sets
		 * -C, so a sample taken in between shows the namespace default on a
		 * socket that has sent those bytes and no data.
		 */
		if (row->v[TS_SS_BYTES_SENT] > TS_EXP_IPERF3_COOKIE) {
			note_cca(s, row->cca);
			s->evidence++;
		}
		s->rows++;
	}
}

int ts_exp_parse_sockstats(const char *text, double t_off, struct ts_exp_sock *socks, size_t n,
			   struct ts_err *err)
{
	struct ts_sockstats_row row;
	struct ts_sockstats_in r;
	const char *p = text ? text : "";
	size_t i, k;
	int ret;

	for (i = 0; i < n; i++) {
		static const char *const cols[] = {"t", "cwnd", "rtt_ms", "pacing_rate_bps",
						   "delivery_rate_bps"};
		bool nomem = false;

		socks[i].series = json_object_new_object();
		socks[i].rows = socks[i].evidence = 0;
		socks[i].cca[0] = 0;
		for (k = 0; k < sizeof(cols) / sizeof(cols[0]); k++)
			ts_json_put(socks[i].series, cols[k], json_object_new_array(), &nomem);
		socks[i].series = ts_json_built(socks[i].series, nomem);
		if (nomem) {
			ts_err_set(err, "socket statistics: out of memory");
			return -ENOMEM;
		}
	}
	if (!*p || *p == '\n') {
		ts_err_set(err, "socket statistics: empty file");
		return -EINVAL;
	}
	/* The file's reader beside its writer (record/sockstats_in.h). */
	ts_sockstats_in_init(&r, "socket statistics");
	for (k = 0; *p; k++) {
		size_t len = strcspn(p, "\n");

		ret = ts_sockstats_in_line(&r, p, len, &row, err);
		p += len + (p[len] == '\n');
		if (ret == 1)
			sock_row(&row, t_off, socks, n);
		else if (ret < 0 && !k)
			return -EINVAL;
		/*
		 * A row the reader refuses is left out, as a row cut short when the
		 * wrapper was killed while writing it: the rows before it still count.
		 */
		if (k)
			continue;
		for (i = 0; i < sizeof(ss_need) / sizeof(ss_need[0]); i++) {
			if (r.col[ss_need[i]] < 0) {
				ts_err_set(err, "socket statistics: no column %s", ss_need_name[i]);
				return -EINVAL;
			}
		}
	}
	return 0;
}

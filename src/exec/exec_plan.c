/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "exec/exec_plan.h"
#include "plan/flowsta.h"

static const struct ts_exp_mark mark_be = {"BE", 0}, mark_bk = {"BK", 8}, mark_cs5 = {"CS5", 40},
				mark_ef = {"EF", 46};

static void add_flow(struct ts_exp_plan *p, enum ts_exp_dir dir, struct ts_exp_mark m,
		     unsigned server, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void add_flow(struct ts_exp_plan *p, enum ts_exp_dir dir, struct ts_exp_mark m,
		     unsigned server, const char *fmt, ...)
{
	struct ts_exp_flow_plan *f = &p->flow[p->nflows];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->name, sizeof(f->name), fmt, ap);
	va_end(ap);
	f->dir = dir;
	f->mark = m;
	f->server = server;
	f->port = TS_EXP_IPERF_PORT + (unsigned)p->nflows;
	snprintf(f->file, sizeof(f->file), "iperf3-%s-%zu.json", dir == TS_EXP_UP ? "up" : "down",
		 p->nflows + 1);
	p->nflows++;
}

static void add_probe(struct ts_exp_plan *p, enum ts_exp_probe_kind kind, struct ts_exp_mark m,
		      unsigned server, const char *name)
{
	struct ts_exp_probe_plan *pr = &p->probe[p->nprobes];

	snprintf(pr->name, sizeof(pr->name), "%s", name);
	pr->kind = kind;
	pr->mark = m;
	pr->server = server;
	if (kind == TS_EXP_ICMP)
		snprintf(pr->file, sizeof(pr->file), "ping-icmp-%zu.txt", p->nprobes + 1);
	else
		snprintf(pr->file, sizeof(pr->file), "irtt-%s-%zu.json", m.name, p->nprobes + 1);
	p->nprobes++;
}

/* tcp_upload/tcp_download (one flow, plain names) and tcp_nup/tcp_ndown ("::k" names). */
static void plan_tcp(struct ts_exp_plan *p, enum ts_exp_dir dir, unsigned n, bool numbered)
{
	const char *what = dir == TS_EXP_UP ? "upload" : "download";
	unsigned i;

	for (i = 1; i <= n; i++) {
		if (numbered)
			add_flow(p, dir, mark_be, 0, "TCP %s::%u", what, i);
		else
			add_flow(p, dir, mark_be, 0, "TCP %s", what);
	}
	add_probe(p, TS_EXP_ICMP, mark_be, 0, "Ping (ms) ICMP");
}

static void plan_rrul(struct ts_exp_plan *p, bool be_only)
{
	const struct ts_exp_mark marks[4] = {mark_be, mark_bk, mark_cs5, mark_ef};
	const struct ts_exp_mark probes[3] = {mark_ef, mark_bk, mark_be};
	int d, i;

	for (d = TS_EXP_UP; d <= TS_EXP_DOWN; d++) {
		for (i = 0; i < 4; i++) {
			const char *what = d == TS_EXP_UP ? "upload" : "download";

			if (be_only)
				add_flow(p, d, mark_be, 0, "TCP %s BE%d", what, i + 1);
			else
				add_flow(p, d, marks[i], 0, "TCP %s %s", what, marks[i].name);
		}
	}
	add_probe(p, TS_EXP_ICMP, mark_be, 0, "Ping (ms) ICMP");
	for (i = 0; i < 3; i++) {
		char name[TS_EXP_NAME_MAX];

		if (be_only)
			snprintf(name, sizeof(name), "Ping (ms) UDP BE%d", i + 1);
		else
			snprintf(name, sizeof(name), "Ping (ms) UDP %s", probes[i].name);
		add_probe(p, TS_EXP_UDP, be_only ? mark_be : probes[i], 0, name);
	}
}

static void plan_rtt_fair(struct ts_exp_plan *p)
{
	unsigned i;

	for (i = 0; i < p->nservers; i++) {
		char name[TS_EXP_NAME_MAX];

		add_flow(p, TS_EXP_UP, mark_be, i, "TCP upload::%u", i + 1);
		snprintf(name, sizeof(name), "Ping (ms)::%u", i + 1);
		add_probe(p, TS_EXP_ICMP, mark_be, i, name);
	}
}

static unsigned streams(unsigned n)
{
	return n ? n : 4; /* Flent's default for tcp_nup / tcp_ndown */
}

int ts_exp_plan_build(const struct ts_exp_run *run, struct ts_exp_plan *p, struct ts_err *err)
{
	const char *t = run->test ? run->test : "";
	size_t k;

	memset(p, 0, sizeof(*p));
	p->length = run->length;
	p->delay = run->delay;
	p->step = 200 * TS_NSEC_PER_MSEC;
	p->nservers = 1;
	if (!strcmp(t, "tcp_upload")) {
		plan_tcp(p, TS_EXP_UP, 1, false);
	} else if (!strcmp(t, "tcp_download")) {
		plan_tcp(p, TS_EXP_DOWN, 1, false);
	} else if (!strcmp(t, "tcp_nup") || !strcmp(t, "tcp_8up") || !strcmp(t, "tcp_ndown") ||
		   !strcmp(t, "tcp_8down")) {
		enum ts_exp_dir dir = !strcmp(t, "tcp_ndown") || !strcmp(t, "tcp_8down")
					      ? TS_EXP_DOWN
					      : TS_EXP_UP;
		unsigned n = !strcmp(t, "tcp_8up") || !strcmp(t, "tcp_8down")
				     ? 8
				     : streams(dir == TS_EXP_UP ? run->upload_streams
								: run->download_streams);

		if (n > TS_EXP_MAX_FLOWS) {
			ts_err_set(err, "%s: %u streams, at most %d", t, n, TS_EXP_MAX_FLOWS);
			return -EINVAL;
		}
		plan_tcp(p, dir, n, true);
	} else if (!strcmp(t, "rrul") || !strcmp(t, "rrul_be")) {
		plan_rrul(p, !strcmp(t, "rrul_be"));
	} else if (!strcmp(t, "rtt_fair")) {
		p->nservers = run->nservers ? run->nservers : TS_EXP_MAX_SERVERS;
		if (p->nservers > TS_EXP_MAX_SERVERS) {
			ts_err_set(err, "rtt_fair: %zu servers, at most %d", p->nservers,
				   TS_EXP_MAX_SERVERS);
			return -EINVAL;
		}
		plan_rtt_fair(p);
	} else {
		ts_err_set(
			err,
			"unknown test '%s' (expected tcp_upload, tcp_download, tcp_nup, tcp_8up, "
			"tcp_ndown, tcp_8down, rrul, rrul_be or rtt_fair)",
			t);
		return -EINVAL;
	}
	if (run->length <= 0) {
		ts_err_set(err, "%s: length must be positive", t);
		return -EINVAL;
	}
	p->stations = run->stations > 1 ? run->stations : 1;
	for (k = 0; k < p->nflows; k++)
		p->flow[k].station = ts_exp_flow_station(run, k);
	return 0;
}

static int push(struct ts_exp_argv *a, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int push(struct ts_exp_argv *a, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (*n + 1 >= TS_EXP_MAX_ARGV)
		return -E2BIG;
	va_start(ap, fmt);
	len = vsnprintf(a->buf + a->used, sizeof(a->buf) - a->used, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(a->buf) - a->used)
		return -E2BIG;
	a->argv[(*n)++] = a->buf + a->used;
	a->argv[*n] = NULL;
	a->used += (size_t)len + 1;
	return 0;
}

#define PUSH(...)                                                                                  \
	do {                                                                                       \
		if (push(a, &n, __VA_ARGS__) < 0)                                                  \
			return -E2BIG;                                                             \
	} while (0)

/* Seconds as the tools read them: whole milliseconds, no exponent. */
static double secs(ts_ns_t t)
{
	return (double)(t / TS_NSEC_PER_MSEC) / 1e3;
}

int ts_exp_flow_argv(const struct ts_exp_plan *p, const struct ts_exp_flow_plan *f,
		     const char *host, const char *cca, struct ts_exp_argv *a)
{
	size_t n = 0;

	memset(a, 0, sizeof(*a));
	PUSH("iperf3");
	PUSH("--client");
	PUSH("%s", host);
	PUSH("--port");
	PUSH("%u", f->port);
	PUSH("--time");
	PUSH("%g", secs(p->length));
	PUSH("--interval");
	PUSH("%g", secs(p->step));
	PUSH("--json");
	PUSH("--congestion");
	PUSH("%s", cca);
	PUSH("--connect-timeout");
	PUSH("3000");
	if (f->mark.dscp) {
		PUSH("--tos");
		PUSH("%u", f->mark.dscp << 2);
	}
	if (f->dir == TS_EXP_DOWN)
		PUSH("--reverse");
	return 0;
}

double ts_exp_probe_seconds(const struct ts_exp_plan *p)
{
	return secs(p->length + 2 * p->delay);
}

int ts_exp_probe_argv(const struct ts_exp_plan *p, const struct ts_exp_probe_plan *pr,
		      const char *host, const char *outpath, struct ts_exp_argv *a)
{
	double dur = ts_exp_probe_seconds(p), step = secs(p->step);
	size_t n = 0;

	memset(a, 0, sizeof(*a));
	if (pr->kind == TS_EXP_ICMP) {
		/* -D: each reply with its Unix receive time; -c bounds it by count, -w by time. */
		PUSH("ping");
		PUSH("-D");
		PUSH("-n");
		PUSH("-i");
		PUSH("%g", step);
		PUSH("-c");
		PUSH("%.0f", floor(dur / step + 0.5));
		PUSH("-w");
		PUSH("%.0f", ceil(dur) + 2);
		if (pr->mark.dscp) {
			PUSH("-Q");
			PUSH("%u", pr->mark.dscp << 2);
		}
		PUSH("%s", host);
	} else {
		PUSH("irtt");
		PUSH("client");
		PUSH("-i");
		PUSH("%gms", step * 1e3);
		PUSH("-d");
		PUSH("%gs", dur);
		PUSH("--dscp=%u", pr->mark.dscp << 2);
		PUSH("-Q");
		PUSH("-o");
		PUSH("%s", outpath);
		PUSH("%s:%u", host, TS_EXP_IRTT_PORT);
	}
	return 0;
}

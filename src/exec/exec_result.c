/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <linux/openat2.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "io/infile.h"
#include "io/json.h"
#include "exec/exec_parse.h"
#include "exec/exec_files.h"
#include "exec/exec_result.h"
#include "exec/exec_stations.h"
#include "link/bundled.h"
#include "link/linkcfg.h"
#include "net/probe.h"
#include "run/manifest.h"
#include "io/sha256.h"

static const char *dscp_name(const struct ts_exp_mark *m)
{
	return m->name;
}

static void set_error(char *error, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Keep the first error: it is the cause; later ones are often its consequences. */
static void set_error(char *error, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(error, len, fmt, ap);
	va_end(ap);
}

static void add_flag(json_object *flags, const char *flag, bool *nomem)
{
	size_t i;

	for (i = 0; i < json_object_array_length(flags); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(flags, i)), flag))
			return;
	ts_json_append(flags, json_object_new_string(flag), nomem);
}

/* @s under @key, null when it is NULL or empty (nothing known). */
static void put_str_or_null(json_object *o, const char *key, const char *s, bool *nomem)
{
	if (s && s[0])
		ts_json_put_str(o, key, s, nomem);
	else
		ts_json_put_null(o, key, nomem);
}

/* @v (owned) under @key, null when there is none by intent (a file that was not there). */
static void put_or_null(json_object *o, const char *key, json_object *v, bool *nomem)
{
	if (v)
		ts_json_put(o, key, v, nomem);
	else
		ts_json_put_null(o, key, nomem);
}

/* @v (borrowed: a reference is taken) under @key, null when it is NULL. */
static void put_ref(json_object *o, const char *key, json_object *v, bool *nomem)
{
	put_or_null(o, key, v ? json_object_get(v) : NULL, nomem);
}

static json_object *cca_json(const struct ts_exp_outcome *o)
{
	json_object *c = json_object_new_object(), *params = json_object_new_object();
	const struct ts_exp_cca *cc = o->cca;
	bool nomem = false;

	ts_json_put_str(c, "requested", o->run->cca ? o->run->cca : "", &nomem);
	put_str_or_null(c, "name", cc ? cc->name : NULL, &nomem);
	put_str_or_null(c, "version", cc ? cc->version : NULL, &nomem);
	if (cc && cc->tas) {
		put_str_or_null(params, "tas_pacing_shift_startup", cc->tas_startup, &nomem);
		put_str_or_null(params, "tas_pacing_shift_steady", cc->tas_steady, &nomem);
	}
	ts_json_put(c, "params", params, &nomem);
	put_str_or_null(c, "bpf_sha256", cc ? cc->bpf_sha256 : NULL, &nomem);
	return ts_json_built(c, nomem);
}

struct ctx {
	const struct ts_exp_outcome *o;
	json_object *r, *flags;
	char error[512];
	bool nomem; /* an add failed: result.json is not written (ts_json_put) */
	double t0;
	json_object *procs; /* the client report's */
	struct ts_exp_sock cli[TS_EXP_MAX_FLOWS], srv[TS_EXP_MAX_FLOWS];
};

static double proc_started(struct ctx *x, size_t i)
{
	json_object *p = x->procs ? json_object_array_get_idx(x->procs, i) : NULL, *v;

	return p && json_object_object_get_ex(p, "started", &v) ? json_object_get_double(v) : x->t0;
}

static const char *cca_name(const struct ctx *x)
{
	return x->o->cca ? x->o->cca->name : "";
}

static json_object *flow_json(struct ctx *x, size_t k, unsigned *port)
{
	const struct ts_exp_plan *p = x->o->plan;
	const struct ts_exp_flow_plan *f = &p->flow[k];
	json_object *j = json_object_new_object();
	char *text = ts_exp_slurp(x->o->rundir, f->file);
	struct ts_err perr;
	struct ts_exp_iperf ip;

	*port = 0;
	ts_json_put_str(j, "name", f->name, &x->nomem);
	ts_json_put_str(j, "dir", f->dir == TS_EXP_UP ? "up" : "down", &x->nomem);
	ts_json_put_str(j, "dscp", dscp_name(&f->mark), &x->nomem);
	ts_json_put(j, "server", json_object_new_int((int)f->server), &x->nomem);
	if (p->stations > 1)
		ts_json_put(j, "station", json_object_new_int((int)f->station), &x->nomem);
	if (!text) {
		set_error(x->error, sizeof(x->error), "%s: no iperf3 output (%s)", f->name,
			  f->file);
		return j;
	}
	/* The client job starts the probes first, then the flows, in plan order. */
	if (ts_exp_parse_iperf3(text, proc_started(x, p->nprobes + k), x->t0, &ip, &perr) < 0) {
		set_error(x->error, sizeof(x->error), "%s: %s", f->name, perr.msg);
		free(text);
		return j;
	}
	free(text);
	*port = ip.local_port;
	put_str_or_null(j, "cca_used", ip.sender_cca, &x->nomem);
	put_str_or_null(j, "cca_receiver", ip.receiver_cca, &x->nomem);
	ts_json_put(j, "local_port", json_object_new_int((int)ip.local_port), &x->nomem);
	ts_json_put(j, "bytes", json_object_new_int64((int64_t)ip.bytes), &x->nomem);
	ts_json_put(j, "seconds", json_object_new_double(ip.seconds), &x->nomem);
	ts_json_put(j, "throughput_mbps", json_object_new_double(ip.throughput_mbps), &x->nomem);
	if (ip.retransmits >= 0)
		ts_json_put(j, "retransmits", json_object_new_int64(ip.retransmits), &x->nomem);
	else
		ts_json_put_null(j, "retransmits", &x->nomem);
	put_or_null(j, "series", ip.series, &x->nomem);
	if (strcmp(ip.sender_cca, cca_name(x)) || strcmp(ip.receiver_cca, cca_name(x)))
		set_error(x->error, sizeof(x->error),
			  "%s ran with congestion control %s (sender) / %s (receiver), not %s",
			  f->name, ip.sender_cca[0] ? ip.sender_cca : "(not reported)",
			  ip.receiver_cca[0] ? ip.receiver_cca : "(not reported)", cca_name(x));
	if (ip.tos != f->mark.dscp << 2)
		set_error(x->error, sizeof(x->error), "%s: iperf3 ran with TOS %u, not %u", f->name,
			  ip.tos, f->mark.dscp << 2);
	return j;
}

/*
 * The sockets' view. The flow's sender decides how it is sent: for an
 * upload the client's socket (the wrapper's --sockstats), for a download
 * the server's (sampled by the executor in the far-side namespace: local
 * port the iperf3 server's, peer port the client's). Every sample taken
 * after that socket had sent data must show the run's control.
 */
static void sock_check(struct ctx *x, json_object *flows, json_object *sockstats)
{
	const struct ts_exp_plan *p = x->o->plan;
	size_t k;

	for (k = 0; k < p->nflows; k++) {
		json_object *fj = json_object_array_get_idx(flows, k), *s;
		bool up = p->flow[k].dir == TS_EXP_UP;
		struct ts_exp_sock *so = up ? &x->cli[k] : &x->srv[k];

		if (!so->port || !so->evidence) {
			ts_json_put_null(fj, "cca_socket", &x->nomem);
		} else {
			ts_json_put_str(fj, "cca_socket", so->cca, &x->nomem);
			if (strcmp(so->cca, cca_name(x)))
				set_error(x->error, sizeof(x->error),
					  "%s: its sending socket ran with congestion control %s, "
					  "not %s",
					  p->flow[k].name, so->cca, cca_name(x));
		}
		if (!up || !x->cli[k].series)
			continue;
		s = json_object_new_object();
		ts_json_put_str(s, "flow", p->flow[k].name, &x->nomem);
		if (p->stations > 1)
			ts_json_put(s, "station", json_object_new_int((int)p->flow[k].station),
				    &x->nomem);
		json_object_object_foreach(x->cli[k].series, key, val)
		{
			ts_json_put(s, key, json_object_get(val), &x->nomem);
		}
		ts_json_append(sockstats, s, &x->nomem);
	}
}

/* Read one socket-statistics file into @socks (series NULL when it is missing). */
static void read_socks(struct ctx *x, const char *name, struct ts_exp_sock *socks)
{
	char *text = ts_exp_slurp(x->o->rundir, name);
	struct ts_err serr;
	size_t k;

	if (!text)
		return;
	/*
	 * Socket samples are in the link's time, whose 0 is when the wrapper
	 * started the client agent; the agent takes t0 a few milliseconds later.
	 */
	if (ts_exp_parse_sockstats(text, 0, socks, x->o->plan->nflows, &serr) < 0) {
		for (k = 0; k < x->o->plan->nflows; k++) {
			json_object_put(socks[k].series);
			socks[k].series = NULL;
			socks[k].evidence = 0;
		}
	}
	free(text);
}

static void flows_json(struct ctx *x)
{
	const struct ts_exp_plan *p = x->o->plan;
	json_object *flows = json_object_new_array(), *ss = json_object_new_array();
	size_t k;

	for (k = 0; k < p->nflows; k++) {
		unsigned lp;

		ts_json_append(flows, flow_json(x, k, &lp), &x->nomem);
		/*
		 * The wrapper samples every station's sockets and tags each row
		 * with its station: each namespace has ports of its own, which may
		 * be the same numbers. The far side's file is one namespace's.
		 */
		x->cli[k].port = lp;
		x->cli[k].station = (int)p->flow[k].station;
		x->srv[k].port = lp ? p->flow[k].port : 0;
		x->srv[k].peer = lp;
		x->srv[k].station = -1;
	}
	read_socks(x, TS_EXP_F_SOCKSTATS, x->cli);
	read_socks(x, TS_EXP_F_SOCKSTATS_SRV, x->srv);
	sock_check(x, flows, ss);
	for (k = 0; k < p->nflows; k++) {
		json_object_put(x->cli[k].series);
		json_object_put(x->srv[k].series);
	}
	ts_json_put(x->r, "flows", flows, &x->nomem);
	ts_json_put(x->r, "sockstats", ss, &x->nomem);
}

static void latency_json(struct ctx *x)
{
	const struct ts_exp_plan *p = x->o->plan;
	json_object *lat = json_object_new_array();
	size_t k;

	for (k = 0; k < p->nprobes; k++) {
		const struct ts_exp_probe_plan *pr = &p->probe[k];
		json_object *j = json_object_new_object(), *loaded = json_object_new_object();
		json_object *samples = NULL, *t;
		char *text = ts_exp_slurp(x->o->rundir, pr->file);
		struct ts_err perr;
		long n = 0;

		ts_json_put_str(j, "name", pr->name, &x->nomem);
		ts_json_put_str(j, "kind", pr->kind == TS_EXP_ICMP ? "icmp" : "udp", &x->nomem);
		ts_json_put_str(j, "dscp", dscp_name(&pr->mark), &x->nomem);
		ts_json_put(j, "server", json_object_new_int((int)pr->server), &x->nomem);
		if (text && pr->kind == TS_EXP_ICMP) {
			samples = ts_exp_parse_ping(text, x->t0, &n);
			if (n >= 0)
				ts_json_put(j, "sent", json_object_new_int64(n), &x->nomem);
			else
				ts_json_put_null(j, "sent", &x->nomem);
		} else if (text) {
			samples = ts_exp_parse_irtt(text, x->t0, &n, &perr);
			ts_json_put(j, "lost", json_object_new_int64(n), &x->nomem);
		}
		free(text);
		if (!samples || !json_object_object_get_ex(samples, "t", &t) ||
		    json_object_array_length(t) == 0)
			add_flag(x->flags, "probe_failed", &x->nomem);
		put_or_null(j, "samples", samples, &x->nomem);
		ts_json_put(loaded, "from_s", json_object_new_double(p->delay / 1e9), &x->nomem);
		ts_json_put(loaded, "to_s", json_object_new_double((p->delay + p->length) / 1e9),
			    &x->nomem);
		ts_json_put(j, "loaded", loaded, &x->nomem);
		ts_json_append(lat, j, &x->nomem);
	}
	ts_json_put(x->r, "latency", lat, &x->nomem);
}

/* @v under @key when @have, else null (not measured). */
static void put_double_if(json_object *o, const char *key, bool have, double v, bool *nomem)
{
	if (have)
		ts_json_put(o, key, json_object_new_double(v), nomem);
	else
		ts_json_put_null(o, key, nomem);
}

/* A direction's fidelity; NULL: out of memory. */
static json_object *fid_json(const struct ts_exp_fidelity *f)
{
	json_object *j = json_object_new_object();
	bool nomem = false, have = f->have_release_err;

	put_double_if(j, "release_err_p50_us", have, f->release_err_p50_us, &nomem);
	put_double_if(j, "release_err_p99_us", have, f->release_err_p99_us, &nomem);
	put_double_if(j, "release_err_max_us", have, f->release_err_max_us, &nomem);
	ts_json_put(j, "unexplained_drops", json_object_new_int64((int64_t)f->unexplained), &nomem);
	ts_json_put(j, "kernel_drops", json_object_new_int64((int64_t)f->kernel_drops), &nomem);
	ts_json_put(j, "no_descriptor", json_object_new_int64((int64_t)f->no_descriptor), &nomem);
	put_double_if(j, "utilisation", f->utilisation >= 0, f->utilisation, &nomem);
	return ts_json_built(j, nomem);
}

/*
 * rtt_fair's far-side hosts sit behind delay-only links of their own
 * wrappers: one that fell behind delayed its flow by more than asked, so
 * it flags the run too ("fell_behind:server-N"), by the same rule as the
 * main link. Their fidelity goes under "servers" [N-1].
 */
static void servers_fidelity(struct ctx *x, json_object *fj)
{
	const struct ts_exp_plan *p = x->o->plan;
	json_object *arr;
	size_t i;

	if (!p || p->nservers < 2)
		return;
	arr = json_object_new_array();
	for (i = 0; i < p->nservers; i++) {
		struct ts_exp_fidelity f[2];
		char name[64], flag[48], *text;
		struct ts_err perr;
		json_object *sj = json_object_new_object();
		int d;

		snprintf(name, sizeof(name), "server-%zu-summary.json", i + 1);
		text = ts_exp_slurp(x->o->rundir, name);
		if (text && ts_exp_parse_summary(text, f, &perr) == 0) {
			for (d = 0; d < 2; d++) {
				if (!f[d].present)
					continue;
				ts_json_put(sj, d ? "down" : "up", fid_json(&f[d]), &x->nomem);
				if (ts_exp_fell_behind(&f[d], NULL)) {
					snprintf(flag, sizeof(flag), "fell_behind:server-%zu",
						 i + 1);
					add_flag(x->flags, flag, &x->nomem);
				}
			}
		}
		free(text);
		ts_json_append(arr, sj, &x->nomem);
	}
	ts_json_put(fj, "servers", arr, &x->nomem);
}

static void fidelity_json(struct ctx *x)
{
	static const char *const key[2] = {"up", "down"};
	struct ts_exp_fidelity f[2];
	json_object *fj = json_object_new_object();
	char *text = ts_exp_slurp(x->o->rundir, TS_EXP_F_SUMMARY);
	struct ts_err perr, why;
	int i;

	if (!text || ts_exp_parse_summary(text, f, &perr) < 0) {
		set_error(x->error, sizeof(x->error),
			  "the link's summary (%s) is missing or unreadable", TS_EXP_F_SUMMARY);
		free(text);
		ts_json_put(x->r, "fidelity", fj, &x->nomem);
		return;
	}
	free(text);
	for (i = 0; i < 2; i++) {
		char flag[32];

		if (!f[i].present)
			continue;
		ts_json_put(fj, key[i], fid_json(&f[i]), &x->nomem);
		if (ts_exp_fell_behind(&f[i], &why)) {
			snprintf(flag, sizeof(flag), "fell_behind:%s", key[i]);
			add_flag(x->flags, flag, &x->nomem);
			ts_json_put_str(json_object_object_get(fj, key[i]), "fell_behind", why.msg,
					&x->nomem);
		}
	}
	/* The loop's, not a direction's: out of CPU, the host set the pace (run/fidelity.h). */
	if (ts_exp_host_cpu(f))
		add_flag(x->flags, "host_cpu", &x->nomem);
	/* The hypervisor's: it stopped the loop from outside (run/cpustat.h). */
	if (ts_exp_host_steal(f))
		add_flag(x->flags, "host_steal", &x->nomem);
	if (f[0].host_steal_ms >= 0)
		ts_json_put(fj, "host_steal_ms", json_object_new_int64(f[0].host_steal_ms),
			    &x->nomem);
	else
		ts_json_put_null(fj, "host_steal_ms", &x->nomem);
	if (f[0].loop_work_permille >= 0)
		ts_json_put(fj, "loop_work_max_permille",
			    json_object_new_int(f[0].loop_work_permille), &x->nomem);
	else
		ts_json_put_null(fj, "loop_work_max_permille", &x->nomem);
	servers_fidelity(x, fj);
	ts_json_put(x->r, "fidelity", fj, &x->nomem);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static json_object *files_json(const char *dir)
{
	json_object *a = json_object_new_array();
	char *names[256];
	size_t n = 0, i;
	struct dirent *e;
	DIR *d = opendir(dir);
	bool nomem = false;

	while (d && (e = readdir(d)) && n < 256) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, TS_EXP_F_RESULT) ||
		    strstr(e->d_name, ".tmp"))
			continue;
		names[n++] = strdup(e->d_name);
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (i = 0; i < n; i++) {
		if (names[i])
			ts_json_append(a, json_object_new_string(names[i]), &nomem);
		else
			nomem = true; /* strdup failed: the list would miss a file */
		free(names[i]);
	}
	return ts_json_built(a, nomem);
}

/* The trace files the link reads (its checked configuration, not its argv), with their SHA-256. */
static json_object *traces_json(const struct ts_exp_run *run)
{
	json_object *a = json_object_new_array();
	const char *files[3];
	bool nomem = false;
	size_t i;

	if (!run->link)
		return a;
	files[0] = run->link->trace;
	files[1] = run->link->dir_trace[0];
	files[2] = run->link->dir_trace[1];
	for (i = 0; i < 3; i++) {
		const char *file = files[i];
		json_object *t;
		char hex[2 * TS_SHA256_LEN + 1], buf[4096];

		if (!file || !strncmp(file, "const:", 6))
			continue;
		t = json_object_new_object();
		/* A bundled trace's name, resolved as the wrapper resolves it. */
		file = ts_trace_resolve(file, buf, sizeof(buf));
		ts_json_put_str(t, "path", file, &nomem);
		ts_json_put_str(t, "sha256", ts_sha256_file(file, hex) == 0 ? hex : NULL, &nomem);
		ts_json_append(a, t, &nomem);
	}
	return ts_json_built(a, nomem);
}

static void host_sysctl(json_object *o, const char *name, bool *nomem)
{
	char path[128], text[4096];

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/%s", name);
	ts_json_put_str(o, name, ts_probe_read(path, text, sizeof(text)) >= 0 ? text : NULL, nomem);
}

static int write_manifest(const struct ts_exp_outcome *o, json_object *client_sysctl,
			  json_object *warnings, struct ts_err *err)
{
	const struct ts_exp_run *run = o->run;
	json_object *m = json_object_new_object(), *ts = json_object_new_object();
	json_object *k = json_object_new_object(), *link = json_object_new_object();
	json_object *argv = json_object_new_array(), *sys = json_object_new_object();
	json_object *spec = json_object_new_object(), *runsys = json_object_new_object();
	char path[4096];
	bool nomem = false;
	struct utsname u;
	char **v;
	size_t i;
	int ret;

	ts_json_put_str(ts, "version", ts_build_version(), &nomem);
	ts_json_put_str(ts, "git_rev", ts_build_git_rev(), &nomem);
	ts_json_put(m, "tasshape", ts, &nomem);
	if (uname(&u) == 0) {
		ts_json_put_str(k, "release", u.release, &nomem);
		ts_json_put_str(k, "version", u.version, &nomem);
		ts_json_put_str(k, "machine", u.machine, &nomem);
	}
	put_str_or_null(k, "requested", run->kernel, &nomem);
	/* Host-wide lists (the initial namespace's): what can run, and what may be a default. */
	host_sysctl(k, "tcp_available_congestion_control", &nomem);
	host_sysctl(k, "tcp_allowed_congestion_control", &nomem);
	ts_json_put(m, "kernel", k, &nomem);
	ts_json_put_str(m, "id", run->config_id ? run->config_id : "", &nomem);
	ts_json_put(m, "rep", json_object_new_int((int)run->rep), &nomem);
	ts_json_put(m, "seed", json_object_new_uint64(run->seed), &nomem);
	put_str_or_null(spec, "path", run->spec_path, &nomem);
	put_str_or_null(spec, "sha256", run->spec_sha256, &nomem);
	ts_json_put(m, "spec", spec, &nomem);
	for (v = run->link_argv; v && *v; v++)
		ts_json_append(argv, json_object_new_string(*v), &nomem);
	put_str_or_null(link, "name", run->link_name, &nomem);
	ts_json_put(link, "argv", argv, &nomem);
	ts_json_put(link, "traces", traces_json(run), &nomem);
	ts_json_put(m, "link", link, &nomem);
	ts_json_put(m, "cca", cca_json(o), &nomem);
	for (i = 0; i < run->nsysctl; i++)
		ts_json_put_str(runsys, run->sysctl[i].key, run->sysctl[i].value, &nomem);
	ts_json_put(m, "run_sysctl", runsys, &nomem);
	put_ref(sys, "client", client_sysctl, &nomem);
	put_ref(sys, "server", o->sysctl_srv, &nomem);
	ts_json_put(m, "sysctl", sys, &nomem);
	put_ref(m, "servers", o->servers, &nomem);
	/* What the client's namespace could not be given (the default congestion control). */
	put_ref(m, "warnings", warnings, &nomem);
	snprintf(path, sizeof(path), "%s/%s", o->rundir, TS_EXP_F_MANIFEST);
	ret = -ENOMEM;
	if (nomem)
		ts_err_set(err, "%s: out of memory", path);
	else
		ret = ts_json_write_file(
			path, m, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, err);
	json_object_put(m);
	return ret < 0 ? ret : 0;
}

static json_object *axes_json(const struct ts_exp_run *run)
{
	json_object *a = json_object_new_object();
	bool nomem = false;
	size_t i;

	for (i = 0; i < run->naxes; i++)
		ts_json_put_str(a, run->axes[i].axis, run->axes[i].value, &nomem);
	return ts_json_built(a, nomem);
}

/*
 * The client agent's report, parsed; with real Wi-Fi stations, each
 * station's processes as its own agent reported them (exec_stations.h).
 * NULL when there is none.
 */
static json_object *client_report(struct ctx *x)
{
	char *text = ts_exp_slurp(x->o->rundir, TS_EXP_F_CLIENT);
	struct ts_err why;
	json_object *report = text ? json_tokener_parse(text) : NULL;

	free(text);
	if (report && x->o->plan && x->o->plan->stations > 1 &&
	    ts_exp_station_merge(x->o->rundir, report, &why) < 0)
		set_error(x->error, sizeof(x->error), "%s", why.msg);
	return report;
}

/* "stations": with real Wi-Fi stations, each flow's and the medium's figures per station. */
static void stations_json(struct ctx *x)
{
	char *text;

	if (!x->o->plan || x->o->plan->stations <= 1)
		return;
	text = ts_exp_slurp(x->o->rundir, TS_EXP_F_SUMMARY);
	ts_json_put(x->r, "stations", ts_exp_stations_json(text, x->o->plan), &x->nomem);
	free(text);
}

int ts_exp_result_write(const struct ts_exp_outcome *o, struct ts_err *err)
{
	const struct ts_exp_run *run = o->run;
	struct ctx x = {.o = o};
	json_object *report = NULL, *v, *client_sysctl = NULL, *warnings = NULL;
	char path[4096];
	size_t i;
	int ret;

	snprintf(x.error, sizeof(x.error), "%s", o->error.msg);
	x.r = json_object_new_object();
	x.flags = json_object_new_array();
	for (i = 0; o->flags && i < json_object_array_length(o->flags); i++)
		add_flag(x.flags, json_object_get_string(json_object_array_get_idx(o->flags, i)),
			 &x.nomem);
	report = client_report(&x);
	if (report && json_object_object_get_ex(report, "t0", &v))
		x.t0 = json_object_get_double(v);
	if (report)
		json_object_object_get_ex(report, "procs", &x.procs);
	if (report) {
		json_object_object_get_ex(report, "sysctl", &client_sysctl);
		json_object_object_get_ex(report, "warnings", &warnings);
	}
	if (!report)
		set_error(x.error, sizeof(x.error),
			  "the client side left no report (see %s in the run directory)",
			  TS_EXP_F_LOG);

	ts_json_put(x.r, "version", json_object_new_int(1), &x.nomem);
	ts_json_put_str(x.r, "id", run->config_id ? run->config_id : "", &x.nomem);
	ts_json_put(x.r, "rep", json_object_new_int((int)run->rep), &x.nomem);
	ts_json_put(x.r, "index", json_object_new_int((int)run->index), &x.nomem);
	ts_json_put(x.r, "seed", json_object_new_uint64(run->seed), &x.nomem);
	ts_json_put(x.r, "axes", axes_json(run), &x.nomem);
	ts_json_put_str(x.r, "test", run->test ? run->test : "", &x.nomem);
	ts_json_put(x.r, "length_s", json_object_new_double(run->length / 1e9), &x.nomem);
	ts_json_put(x.r, "delay_s", json_object_new_double(run->delay / 1e9), &x.nomem);
	ts_json_put(x.r, "t0", json_object_new_double(x.t0), &x.nomem);
	ts_json_put(x.r, "cca", cca_json(o), &x.nomem);
	if (report && o->plan) {
		flows_json(&x);
		latency_json(&x);
	}
	stations_json(&x);
	fidelity_json(&x);
	put_ref(x.r, "servers", o->servers, &x.nomem);
	ts_json_put(x.r, "flags", x.flags, &x.nomem);
	ts_json_put(x.r, "ok", json_object_new_boolean(!x.error[0]), &x.nomem);
	put_str_or_null(x.r, "error", x.error, &x.nomem);

	ret = write_manifest(o, client_sysctl, warnings, err);
	ts_json_put(x.r, "files", files_json(o->rundir), &x.nomem);
	snprintf(path, sizeof(path), "%s/%s", o->rundir, TS_EXP_F_RESULT);
	if (ret == 0 && x.nomem) {
		/* A record missing a member would read as another run's: none is written. */
		ts_err_set(err, "%s: out of memory", path);
		ret = -ENOMEM;
	} else if (ret == 0) {
		ret = ts_json_write_file(
			path, x.r, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, err);
	}
	json_object_put(x.r);
	json_object_put(report);
	return ret;
}

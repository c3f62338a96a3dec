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
#include "exec/exec_result.h"
#include "link/bundled.h"
#include "link/linkcfg.h"
#include "net/probe.h"
#include "run/manifest.h"
#include "io/sha256.h"

char *ts_exp_slurp(const char *dir, const char *name)
{
	struct ts_err e;
	char *text = NULL;
	size_t len;
	int dfd = ts_in_dir_open(dir, &e), ret = dfd;

	/* The programs of the run wrote these names: a link there is not followed. */
	if (dfd >= 0) {
		ret = ts_in_read_at(dfd, dir, name, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
				    TS_EXP_FILE_MAX, &text, &len, &e);
		close(dfd);
	}
	if (ret < 0)
		errno = -ret;
	return ret < 0 ? NULL : text;
}

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

static void add_flag(json_object *flags, const char *flag)
{
	size_t i;

	for (i = 0; i < json_object_array_length(flags); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(flags, i)), flag))
			return;
	json_object_array_add(flags, json_object_new_string(flag));
}

static json_object *str_or_null(const char *s)
{
	return s && s[0] ? json_object_new_string(s) : NULL;
}

static json_object *cca_json(const struct ts_exp_outcome *o)
{
	json_object *c = json_object_new_object(), *params = json_object_new_object();
	const struct ts_exp_cca *cc = o->cca;

	json_object_object_add(c, "requested",
			       json_object_new_string(o->run->cca ? o->run->cca : ""));
	json_object_object_add(c, "name", cc ? str_or_null(cc->name) : NULL);
	json_object_object_add(c, "version", cc ? str_or_null(cc->version) : NULL);
	if (cc && cc->tas) {
		json_object_object_add(params, "tas_pacing_shift_startup",
				       str_or_null(cc->tas_startup));
		json_object_object_add(params, "tas_pacing_shift_steady",
				       str_or_null(cc->tas_steady));
	}
	json_object_object_add(c, "params", params);
	json_object_object_add(c, "bpf_sha256", cc ? str_or_null(cc->bpf_sha256) : NULL);
	return c;
}

struct ctx {
	const struct ts_exp_outcome *o;
	json_object *r, *flags;
	char error[512];
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
	char *text = ts_exp_slurp(x->o->rundir, f->file), perr[256];
	struct ts_exp_iperf ip;

	*port = 0;
	json_object_object_add(j, "name", json_object_new_string(f->name));
	json_object_object_add(j, "dir",
			       json_object_new_string(f->dir == TS_EXP_UP ? "up" : "down"));
	json_object_object_add(j, "dscp", json_object_new_string(dscp_name(&f->mark)));
	json_object_object_add(j, "server", json_object_new_int((int)f->server));
	if (!text) {
		set_error(x->error, sizeof(x->error), "%s: no iperf3 output (%s)", f->name,
			  f->file);
		return j;
	}
	/* The client job starts the probes first, then the flows, in plan order. */
	if (ts_exp_parse_iperf3(text, proc_started(x, p->nprobes + k), x->t0, &ip, perr,
				sizeof(perr)) < 0) {
		set_error(x->error, sizeof(x->error), "%s: %s", f->name, perr);
		free(text);
		return j;
	}
	free(text);
	*port = ip.local_port;
	json_object_object_add(j, "cca_used", str_or_null(ip.sender_cca));
	json_object_object_add(j, "cca_receiver", str_or_null(ip.receiver_cca));
	json_object_object_add(j, "local_port", json_object_new_int((int)ip.local_port));
	json_object_object_add(j, "bytes", json_object_new_int64((int64_t)ip.bytes));
	json_object_object_add(j, "seconds", json_object_new_double(ip.seconds));
	json_object_object_add(j, "throughput_mbps", json_object_new_double(ip.throughput_mbps));
	json_object_object_add(j, "retransmits",
			       ip.retransmits >= 0 ? json_object_new_int64(ip.retransmits) : NULL);
	json_object_object_add(j, "series", ip.series);
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
			json_object_object_add(fj, "cca_socket", NULL);
		} else {
			json_object_object_add(fj, "cca_socket", json_object_new_string(so->cca));
			if (strcmp(so->cca, cca_name(x)))
				set_error(x->error, sizeof(x->error),
					  "%s: its sending socket ran with congestion control %s, "
					  "not %s",
					  p->flow[k].name, so->cca, cca_name(x));
		}
		if (!up || !x->cli[k].series)
			continue;
		s = json_object_new_object();
		json_object_object_add(s, "flow", json_object_new_string(p->flow[k].name));
		json_object_object_foreach(x->cli[k].series, key, val)
		{
			json_object_object_add(s, key, json_object_get(val));
		}
		json_object_array_add(sockstats, s);
	}
}

/* Read one socket-statistics file into @socks (series NULL when it is missing). */
static void read_socks(struct ctx *x, const char *name, struct ts_exp_sock *socks)
{
	char *text = ts_exp_slurp(x->o->rundir, name), serr[256];
	size_t k;

	if (!text)
		return;
	/*
	 * Socket samples are in the link's time, whose 0 is when the wrapper
	 * started the client agent; the agent takes t0 a few milliseconds later.
	 */
	if (ts_exp_parse_sockstats(text, 0, socks, x->o->plan->nflows, serr, sizeof(serr)) < 0) {
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

		json_object_array_add(flows, flow_json(x, k, &lp));
		x->cli[k].port = lp;
		x->srv[k].port = lp ? p->flow[k].port : 0;
		x->srv[k].peer = lp;
	}
	read_socks(x, TS_EXP_F_SOCKSTATS, x->cli);
	read_socks(x, TS_EXP_F_SOCKSTATS_SRV, x->srv);
	sock_check(x, flows, ss);
	for (k = 0; k < p->nflows; k++) {
		json_object_put(x->cli[k].series);
		json_object_put(x->srv[k].series);
	}
	json_object_object_add(x->r, "flows", flows);
	json_object_object_add(x->r, "sockstats", ss);
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
		char *text = ts_exp_slurp(x->o->rundir, pr->file), perr[256];
		long n = 0;

		json_object_object_add(j, "name", json_object_new_string(pr->name));
		json_object_object_add(
			j, "kind",
			json_object_new_string(pr->kind == TS_EXP_ICMP ? "icmp" : "udp"));
		json_object_object_add(j, "dscp", json_object_new_string(dscp_name(&pr->mark)));
		json_object_object_add(j, "server", json_object_new_int((int)pr->server));
		if (text && pr->kind == TS_EXP_ICMP) {
			samples = ts_exp_parse_ping(text, x->t0, &n);
			json_object_object_add(j, "sent", n >= 0 ? json_object_new_int64(n) : NULL);
		} else if (text) {
			samples = ts_exp_parse_irtt(text, x->t0, &n, perr, sizeof(perr));
			json_object_object_add(j, "lost", json_object_new_int64(n));
		}
		free(text);
		if (!samples || !json_object_object_get_ex(samples, "t", &t) ||
		    json_object_array_length(t) == 0)
			add_flag(x->flags, "probe_failed");
		json_object_object_add(j, "samples", samples);
		json_object_object_add(loaded, "from_s", json_object_new_double(p->delay / 1e9));
		json_object_object_add(loaded, "to_s",
				       json_object_new_double((p->delay + p->length) / 1e9));
		json_object_object_add(j, "loaded", loaded);
		json_object_array_add(lat, j);
	}
	json_object_object_add(x->r, "latency", lat);
}

static json_object *fid_json(const struct ts_exp_fidelity *f)
{
	json_object *j = json_object_new_object();

	json_object_object_add(j, "release_err_p50_us",
			       f->have_release_err ? json_object_new_double(f->release_err_p50_us)
						   : NULL);
	json_object_object_add(j, "release_err_p99_us",
			       f->have_release_err ? json_object_new_double(f->release_err_p99_us)
						   : NULL);
	json_object_object_add(j, "release_err_max_us",
			       f->have_release_err ? json_object_new_double(f->release_err_max_us)
						   : NULL);
	json_object_object_add(j, "unexplained_drops",
			       json_object_new_int64((int64_t)f->unexplained));
	json_object_object_add(j, "kernel_drops", json_object_new_int64((int64_t)f->kernel_drops));
	json_object_object_add(j, "no_descriptor",
			       json_object_new_int64((int64_t)f->no_descriptor));
	json_object_object_add(j, "utilisation",
			       f->utilisation >= 0 ? json_object_new_double(f->utilisation) : NULL);
	return j;
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
		char name[64], why[128], perr[256], flag[48], *text;
		json_object *sj = json_object_new_object();
		int d;

		snprintf(name, sizeof(name), "server-%zu-summary.json", i + 1);
		text = ts_exp_slurp(x->o->rundir, name);
		if (text && ts_exp_parse_summary(text, f, perr, sizeof(perr)) == 0) {
			for (d = 0; d < 2; d++) {
				if (!f[d].present)
					continue;
				json_object_object_add(sj, d ? "down" : "up", fid_json(&f[d]));
				if (ts_exp_fell_behind(&f[d], why, sizeof(why))) {
					snprintf(flag, sizeof(flag), "fell_behind:server-%zu",
						 i + 1);
					add_flag(x->flags, flag);
				}
			}
		}
		free(text);
		json_object_array_add(arr, sj);
	}
	json_object_object_add(fj, "servers", arr);
}

static void fidelity_json(struct ctx *x)
{
	static const char *const key[2] = {"up", "down"};
	struct ts_exp_fidelity f[2];
	json_object *fj = json_object_new_object();
	char *text = ts_exp_slurp(x->o->rundir, TS_EXP_F_SUMMARY), perr[256], why[128];
	int i;

	if (!text || ts_exp_parse_summary(text, f, perr, sizeof(perr)) < 0) {
		set_error(x->error, sizeof(x->error),
			  "the link's summary (%s) is missing or unreadable", TS_EXP_F_SUMMARY);
		free(text);
		json_object_object_add(x->r, "fidelity", fj);
		return;
	}
	free(text);
	for (i = 0; i < 2; i++) {
		char flag[32];

		if (!f[i].present)
			continue;
		json_object_object_add(fj, key[i], fid_json(&f[i]));
		if (ts_exp_fell_behind(&f[i], why, sizeof(why))) {
			snprintf(flag, sizeof(flag), "fell_behind:%s", key[i]);
			add_flag(x->flags, flag);
			json_object_object_add(json_object_object_get(fj, key[i]), "fell_behind",
					       json_object_new_string(why));
		}
	}
	/* The loop's, not a direction's: out of CPU, the host set the pace (run/fidelity.h). */
	if (ts_exp_host_cpu(f))
		add_flag(x->flags, "host_cpu");
	json_object_object_add(
		fj, "loop_work_max_permille",
		f[0].loop_work_permille >= 0 ? json_object_new_int(f[0].loop_work_permille) : NULL);
	servers_fidelity(x, fj);
	json_object_object_add(x->r, "fidelity", fj);
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
			json_object_array_add(a, json_object_new_string(names[i]));
		free(names[i]);
	}
	return a;
}

/* The trace files the link reads (its checked configuration, not its argv), with their SHA-256. */
static json_object *traces_json(const struct ts_exp_run *run)
{
	json_object *a = json_object_new_array();
	const char *files[3];
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
		json_object_object_add(t, "path", json_object_new_string(file));
		json_object_object_add(t, "sha256",
				       ts_sha256_file(file, hex) == 0 ? json_object_new_string(hex)
								      : NULL);
		json_object_array_add(a, t);
	}
	return a;
}

static void host_sysctl(json_object *o, const char *name)
{
	char path[128], text[4096];

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/%s", name);
	json_object_object_add(
		o, name,
		ts_probe_read(path, text, sizeof(text)) >= 0 ? json_object_new_string(text) : NULL);
}

static int write_manifest(const struct ts_exp_outcome *o, json_object *client_sysctl,
			  json_object *warnings, char *err, size_t errlen)
{
	const struct ts_exp_run *run = o->run;
	json_object *m = json_object_new_object(), *ts = json_object_new_object();
	json_object *k = json_object_new_object(), *link = json_object_new_object();
	json_object *argv = json_object_new_array(), *sys = json_object_new_object();
	json_object *spec = json_object_new_object(), *runsys = json_object_new_object();
	char path[4096];
	struct ts_err e;
	struct utsname u;
	char **v;
	size_t i;
	int ret;

	json_object_object_add(ts, "version", json_object_new_string(ts_build_version()));
	json_object_object_add(ts, "git_rev", json_object_new_string(ts_build_git_rev()));
	json_object_object_add(m, "tasshape", ts);
	if (uname(&u) == 0) {
		json_object_object_add(k, "release", json_object_new_string(u.release));
		json_object_object_add(k, "version", json_object_new_string(u.version));
		json_object_object_add(k, "machine", json_object_new_string(u.machine));
	}
	json_object_object_add(k, "requested", str_or_null(run->kernel));
	/* Host-wide lists (the initial namespace's): what can run, and what may be a default. */
	host_sysctl(k, "tcp_available_congestion_control");
	host_sysctl(k, "tcp_allowed_congestion_control");
	json_object_object_add(m, "kernel", k);
	json_object_object_add(m, "id",
			       json_object_new_string(run->config_id ? run->config_id : ""));
	json_object_object_add(m, "rep", json_object_new_int((int)run->rep));
	json_object_object_add(m, "seed", json_object_new_uint64(run->seed));
	json_object_object_add(spec, "path", str_or_null(run->spec_path));
	json_object_object_add(spec, "sha256", str_or_null(run->spec_sha256));
	json_object_object_add(m, "spec", spec);
	for (v = run->link_argv; v && *v; v++)
		json_object_array_add(argv, json_object_new_string(*v));
	json_object_object_add(link, "name", str_or_null(run->link_name));
	json_object_object_add(link, "argv", argv);
	json_object_object_add(link, "traces", traces_json(run));
	json_object_object_add(m, "link", link);
	json_object_object_add(m, "cca", cca_json(o));
	for (i = 0; i < run->nsysctl; i++)
		json_object_object_add(runsys, run->sysctl[i].key,
				       json_object_new_string(run->sysctl[i].value));
	json_object_object_add(m, "run_sysctl", runsys);
	json_object_object_add(sys, "client",
			       client_sysctl ? json_object_get(client_sysctl) : NULL);
	json_object_object_add(sys, "server",
			       o->sysctl_srv ? json_object_get(o->sysctl_srv) : NULL);
	json_object_object_add(m, "sysctl", sys);
	json_object_object_add(m, "servers", o->servers ? json_object_get(o->servers) : NULL);
	/* What the client's namespace could not be given (the default congestion control). */
	json_object_object_add(m, "warnings", warnings ? json_object_get(warnings) : NULL);
	snprintf(path, sizeof(path), "%s/%s", o->rundir, TS_EXP_F_MANIFEST);
	ret = ts_json_write_file(path, m, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE,
				 &e);
	json_object_put(m);
	if (ret < 0) {
		snprintf(err, errlen, "%s", e.msg);
		return ret;
	}
	return 0;
}

static json_object *axes_json(const struct ts_exp_run *run)
{
	json_object *a = json_object_new_object();
	size_t i;

	for (i = 0; i < run->naxes; i++)
		json_object_object_add(a, run->axes[i].axis,
				       json_object_new_string(run->axes[i].value));
	return a;
}

int ts_exp_result_write(const struct ts_exp_outcome *o, char *err, size_t errlen)
{
	const struct ts_exp_run *run = o->run;
	struct ctx x = {.o = o};
	json_object *report = NULL, *v, *client_sysctl = NULL, *warnings = NULL;
	char path[4096], *text;
	struct ts_err e;
	size_t i;
	int ret;

	snprintf(x.error, sizeof(x.error), "%s", o->error);
	x.r = json_object_new_object();
	x.flags = json_object_new_array();
	for (i = 0; o->flags && i < json_object_array_length(o->flags); i++)
		add_flag(x.flags, json_object_get_string(json_object_array_get_idx(o->flags, i)));
	text = ts_exp_slurp(o->rundir, TS_EXP_F_CLIENT);
	if (text)
		report = json_tokener_parse(text);
	free(text);
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

	json_object_object_add(x.r, "version", json_object_new_int(1));
	json_object_object_add(x.r, "id",
			       json_object_new_string(run->config_id ? run->config_id : ""));
	json_object_object_add(x.r, "rep", json_object_new_int((int)run->rep));
	json_object_object_add(x.r, "index", json_object_new_int((int)run->index));
	json_object_object_add(x.r, "seed", json_object_new_uint64(run->seed));
	json_object_object_add(x.r, "axes", axes_json(run));
	json_object_object_add(x.r, "test", json_object_new_string(run->test ? run->test : ""));
	json_object_object_add(x.r, "length_s", json_object_new_double(run->length / 1e9));
	json_object_object_add(x.r, "delay_s", json_object_new_double(run->delay / 1e9));
	json_object_object_add(x.r, "t0", json_object_new_double(x.t0));
	json_object_object_add(x.r, "cca", cca_json(o));
	if (report && o->plan) {
		flows_json(&x);
		latency_json(&x);
	}
	fidelity_json(&x);
	json_object_object_add(x.r, "servers", o->servers ? json_object_get(o->servers) : NULL);
	json_object_object_add(x.r, "flags", x.flags);
	json_object_object_add(x.r, "ok", json_object_new_boolean(!x.error[0]));
	json_object_object_add(x.r, "error", str_or_null(x.error));

	ret = write_manifest(o, client_sysctl, warnings, err, errlen);
	json_object_object_add(x.r, "files", files_json(o->rundir));
	snprintf(path, sizeof(path), "%s/%s", o->rundir, TS_EXP_F_RESULT);
	if (ret == 0) {
		ret = ts_json_write_file(
			path, x.r, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, &e);
		if (ret < 0)
			snprintf(err, errlen, "%s", e.msg);
	}
	json_object_put(x.r);
	json_object_put(report);
	return ret;
}

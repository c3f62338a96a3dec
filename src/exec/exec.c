/* SPDX-License-Identifier: MIT */
/*
 * Carrying out one planned run (ts_exp_exec_run, contract in exec.h).
 *
 * Topology: the executor creates one far-side namespace, the hub
 * (/run/netns/tas-<pid>-<n>, so `tasshape cleanup` recognises it). From
 * inside it, it starts the wrapper itself (this binary, with the run's
 * link options, --seed, --summary-json, --stats and --sockstats), so the
 * hub is the wrapper's outer namespace and the client runs behind the
 * emulated link exactly as under `tasshape -- CMD`; its CMD is the
 * client agent (exec_agent.c), which starts the probes and flows on
 * Flent's timing. The servers run on the far side:
 *
 *   - one far-side host (every test but rtt_fair): a server agent in the
 *     hub itself starts one iperf3 server per flow (-1: one test, then it
 *     exits) and one irtt server; the client reaches it at
 *     $TASSHAPE_BASE, the hub's end of the link;
 *   - rtt_fair: four hosts at different base RTTs. Each is a nested
 *     wrapper started in the hub with only `--delay D` (D the server's
 *     extra one-way delay; no capacity limit), whose CMD is a server
 *     agent; the client reaches it at the address its agent reports.
 *     Before the run, each one's RTT from the hub is measured with ping
 *     and must be 2 x D within 1 ms.
 *
 * Every server, agent and wrapper is started per run and ended by pid
 * when the run ends, and the hub is removed, so one run can never leave a
 * server busy for the next. Congestion control: the run's one is the
 * default (net.ipv4.tcp_congestion_control, per namespace) in the client
 * namespace and in every server namespace, and iperf3's -C sets it on
 * both ends of every flow; result.json checks what was used.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec/exec.h"
#include "exec/exec_cca.h"
#include "exec/exec_files.h"
#include "exec/exec_parse.h"
#include "exec/exec_plan.h"
#include "exec/exec_result.h"
#include "exec/exec_stations.h"
#include "exec/exec_vm.h"
#include "link/linkcfg.h"
#include "plan/run.h"
#include "net/netns.h"
#include "net/netns_hash.h"
#include "net/sockdiag.h"
#include "net/userns.h"
#include "record/sockstats_out.h"
#include "net/rtnl.h"
#include "run/guard.h"
#include "tasshape/units.h"
#include "io/json.h"
#include "io/outfile.h"
#include "io/proc.h"

/* This binary: the wrapper and the agents are it, run again (see exec.h for tests). */
static const char *exe_path = "/proc/self/exe";
#define EXE ((char *)exe_path)

void ts_exp_exec_binary(const char *path)
{
	exe_path = path ? path : "/proc/self/exe";
}

struct exec {
	const struct ts_exp_run *run;
	const char *dir;
	struct ts_exp_plan plan;
	struct ts_exp_cca cca;
	bool have_cca;
	struct ts_netns hub;
	struct ts_proc server[TS_EXP_MAX_SERVERS]; /* server agents or their wrappers */
	char addr[TS_EXP_MAX_SERVERS][64];
	struct ts_proc client; /* the client's wrapper */
	struct ts_exp_outcome out;
	json_object *servers, *flags, *sysctl_srv;
};

static double now_unix(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void path_in(const struct exec *e, char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", e->dir, name);
}

/* In the child, before exec: the wrapper keeps an inherited TASSHAPE_BASE (nesting). */
static int clear_base(void *arg)
{
	(void)arg;
	unsetenv("TASSHAPE_BASE");
	unsetenv("TASSHAPE_BASE6");
	unsetenv("MAHIMAHI_BASE");
	unsetenv("TASSHAPE_STATION"); /* the run's own stations set it afresh */
	return 0;
}

/*
 * Start @argv (found on PATH) in namespace @netns_fd as @p with stdout
 * into the file @out (truncated) and stderr appended to @errf (NULL:
 * /dev/null), stdin from /dev/null. Both are in the run's own directory,
 * made by ts_out_mkdir, and never opened through a link. A @wrapper
 * (tasshape shaping a link) keeps this process's scheduling, which a
 * campaign started with SCHED_FIFO passes on to its shapers; agents and
 * tools run with normal scheduling (io/proc.h's normal_sched). 0 or a
 * negative errno with @err.
 */
static int spawn(struct ts_proc *p, int netns_fd, char *const argv[], bool wrapper, const char *out,
		 const char *errf, struct ts_err *err)
{
	ts_proc_init(p, argv);
	p->netns_fd = netns_fd;
	p->normal_sched = !wrapper;
	/*
	 * Should the executor die (kill -9), its wrappers and agents get SIGTERM
	 * and end their tools and links as on any SIGTERM; only the hub's name
	 * is then left, for `tasshape cleanup`.
	 */
	p->pdeathsig = SIGTERM;
	p->child_fn = clear_base;
	if (out) {
		p->out.how = TS_PROC_FILE;
		p->out.path = out;
		p->out.flags = O_WRONLY | O_CREAT | O_TRUNC;
	}
	if (errf) {
		p->err.how = TS_PROC_FILE;
		p->err.path = errf;
		p->err.flags = O_WRONLY | O_CREAT | O_APPEND;
	}
	return ts_proc_start(p, err);
}

/* End @p: SIGTERM, then SIGKILL after @grace seconds. */
static void stop(struct ts_proc *p, double grace)
{
	ts_proc_stop(p, (int)(grace * 1000));
}

static int write_job(const struct exec *e, const char *name, json_object *job, struct ts_err *err)
{
	char path[4096];
	int ret;

	path_in(e, path, sizeof(path), name);
	if (!job) { /* its builder could not make it whole */
		ts_err_set(err, "%.400s: out of memory", path);
		return -ENOMEM;
	}
	ret = ts_json_write_file(path, job,
				 JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, err);
	json_object_put(job);
	return ret < 0 ? ret : 0;
}

/* The sysctls a job sets, as [key, value] pairs; NULL: out of memory. */
static json_object *sysctls(const struct exec *e)
{
	json_object *a = json_object_new_array(), *kv = json_object_new_array();
	bool nomem = false;
	size_t i;

	ts_json_append(kv, json_object_new_string("net.ipv4.tcp_congestion_control"), &nomem);
	ts_json_append(kv, json_object_new_string(e->cca.name), &nomem);
	ts_json_append(a, kv, &nomem);
	for (i = 0; i < e->run->nsysctl; i++) {
		kv = json_object_new_array();
		ts_json_append(kv, json_object_new_string(e->run->sysctl[i].key), &nomem);
		ts_json_append(kv, json_object_new_string(e->run->sysctl[i].value), &nomem);
		ts_json_append(a, kv, &nomem);
	}
	return ts_json_built(a, nomem);
}

/* One program of a job; NULL: out of memory. */
static json_object *proc(double at, char *const *argv, const char *out, const char *errf)
{
	json_object *p = json_object_new_object(), *a = json_object_new_array();
	bool nomem = false;

	for (; *argv; argv++)
		ts_json_append(a, json_object_new_string(*argv), &nomem);
	ts_json_put(p, "at", json_object_new_double(at), &nomem);
	ts_json_put(p, "argv", a, &nomem);
	if (out)
		ts_json_put_str(p, "out", out, &nomem);
	if (errf)
		ts_json_put_str(p, "err", errf, &nomem);
	return ts_json_built(p, nomem);
}

static double total_s(const struct exec *e)
{
	return (e->plan.length + 2 * e->plan.delay) / 1e9;
}

/* The job of far-side host @srv: its iperf3 servers and, when it is probed over UDP, irtt. */
static json_object *server_job(const struct exec *e, unsigned srv, const char *report)
{
	json_object *job = json_object_new_object(), *procs = json_object_new_array();
	json_object *tcp = json_object_new_array(), *udp = json_object_new_array();
	char out[4096], errf[4096], port[16];
	bool irtt = false, nomem = false;
	size_t k;

	for (k = 0; k < e->plan.nflows; k++) {
		const struct ts_exp_flow_plan *f = &e->plan.flow[k];
		char *argv[] = {"iperf3", "--server", "--one-off", "--json", "--port", port, NULL};

		if (f->server != srv)
			continue;
		snprintf(port, sizeof(port), "%u", f->port);
		snprintf(out, sizeof(out), "%s/iperf3-server-%zu.json", e->dir, k + 1);
		snprintf(errf, sizeof(errf), "%s/iperf3-server-%zu.err", e->dir, k + 1);
		ts_json_append(procs, proc(0, argv, out, errf), &nomem);
		ts_json_append(tcp, json_object_new_int((int)f->port), &nomem);
	}
	for (k = 0; k < e->plan.nprobes; k++)
		irtt |= e->plan.probe[k].kind == TS_EXP_UDP && e->plan.probe[k].server == srv;
	if (irtt) {
		char *argv[] = {"irtt", "server", "-b", port, NULL};

		snprintf(port, sizeof(port), ":%u", TS_EXP_IRTT_PORT);
		snprintf(errf, sizeof(errf), "%s/irtt-server-%u.log", e->dir, srv + 1);
		ts_json_append(procs, proc(0, argv, errf, errf), &nomem);
		ts_json_append(udp, json_object_new_int(TS_EXP_IRTT_PORT), &nomem);
	}
	ts_json_put_str(job, "role", "server", &nomem);
	ts_json_put(job, "sysctl", sysctls(e), &nomem);
	ts_json_put(job, "procs", procs, &nomem);
	ts_json_put(job, "listen_tcp", tcp, &nomem);
	ts_json_put(job, "listen_udp", udp, &nomem);
	ts_json_put(job, "deadline", json_object_new_double(total_s(e) + 120), &nomem);
	ts_json_put_str(job, "report", report, &nomem);
	return ts_json_built(job, nomem);
}

static int client_job(const struct exec *e, json_object **out_job, struct ts_err *err)
{
	json_object *job = json_object_new_object(), *procs = json_object_new_array(), *fp;
	char out[4096], errf[4096], report[4096];
	struct ts_exp_argv a;
	bool nomem = false;
	size_t k;

	/* Probes first (at 0), then flows (at delay): result.json relies on this order. */
	for (k = 0; k < e->plan.nprobes; k++) {
		const struct ts_exp_probe_plan *pr = &e->plan.probe[k];
		const char *host = e->plan.nservers > 1 ? e->addr[pr->server] : "{BASE}";

		snprintf(out, sizeof(out), "%s/%s", e->dir, pr->file);
		snprintf(errf, sizeof(errf), "%s/%s.err", e->dir, pr->file);
		if (ts_exp_probe_argv(&e->plan, pr, host, out, &a) < 0)
			goto too_long;
		ts_json_append(procs, proc(0, a.argv, pr->kind == TS_EXP_ICMP ? out : NULL, errf),
			       &nomem);
	}
	for (k = 0; k < e->plan.nflows; k++) {
		const struct ts_exp_flow_plan *f = &e->plan.flow[k];
		const char *host = e->plan.nservers > 1 ? e->addr[f->server] : "{BASE}";

		snprintf(out, sizeof(out), "%s/%s", e->dir, f->file);
		snprintf(errf, sizeof(errf), "%s/%s.err", e->dir, f->file);
		if (ts_exp_flow_argv(&e->plan, f, host, e->cca.name, &a) < 0)
			goto too_long;
		fp = proc(e->plan.delay / 1e9, a.argv, out, errf);
		if (fp && e->plan.stations > 1)
			ts_json_put(fp, "station", json_object_new_int((int)f->station), &nomem);
		ts_json_append(procs, fp, &nomem);
	}
	/* Real Wi-Fi stations: the wrapper runs this job once per station (exec_stations.h). */
	if (e->plan.stations > 1)
		ts_json_put(job, "reports", ts_exp_station_reports(e->dir, e->plan.stations),
			    &nomem);
	path_in(e, report, sizeof(report), TS_EXP_F_CLIENT);
	ts_json_put_str(job, "role", "client", &nomem);
	ts_json_put(job, "sysctl", sysctls(e), &nomem);
	ts_json_put(job, "procs", procs, &nomem);
	ts_json_put(job, "deadline", json_object_new_double(total_s(e) + 15), &nomem);
	ts_json_put_str(job, "report", report, &nomem);
	*out_job = ts_json_built(job, nomem); /* NULL: write_job says so */
	return 0;
too_long:
	json_object_put(job);
	json_object_put(procs);
	ts_err_set(err, "a command line of the run does not fit");
	return -E2BIG;
}

/* Wait for an agent's report @name while @p runs; the report's JSON or NULL. */
static json_object *wait_report(const struct exec *e, const char *name, struct ts_proc *p,
				double timeout)
{
	double until = now_unix() + timeout;
	char path[4096];

	path_in(e, path, sizeof(path), name);
	while (now_unix() < until) {
		if (access(path, F_OK) == 0)
			return json_object_from_file(path);
		if (ts_proc_try_wait(p) >= 0)
			return NULL;
		usleep(20000);
	}
	return NULL;
}

/*
 * Each run samples the sockets of both ends every 50 ms (the wrapper's
 * --sockstats and wait_client below): the hub, like the wrapper's own
 * namespaces, gets its own small TCP hash so that a dump does not walk
 * the host's (net/netns_hash.h).
 */
static int hub_create(struct exec *e, struct ts_err *err)
{
	struct ts_err terr;
	struct ts_rtnl r;
	unsigned n;
	int ret = -EEXIST, lo;

	/* <n> from 900 up: the wrapper of this process never numbers its own that high. */
	for (n = 900; n < 1000 && ret == -EEXIST; n++) {
		char name[TS_NETNS_NAME_MAX];

		snprintf(name, sizeof(name), "tas-%d-%u", (int)getpid(), n);
		/* Rootless (docs/rootless.md): not pinned, it goes with the run's namespace. */
		ret = ts_netns_create_hashed(&e->hub, name, !ts_userns_rootless(), &terr);
	}
	if (ret < 0) {
		ts_err_set(err, "far-side namespace: %.400s", terr.msg);
		return ret;
	}
	ret = ts_rtnl_open(&r, e->hub.fd, &terr);
	if (ret == 0) {
		lo = ts_rtnl_link_index(&r, "lo", &terr);
		ret = lo < 0 ? lo : ts_rtnl_link_up(&r, lo, &terr);
		ts_rtnl_close(&r);
	}
	if (ret < 0)
		ts_err_set(err, "far-side namespace %s: %.400s", e->hub.name, terr.msg);
	return ret;
}

/* Far-side host @i into e->servers (for result.json). 0, or -ENOMEM with @err. */
static int note_servers(struct exec *e, unsigned i, json_object *rep, double base_rtt_ms,
			struct ts_err *err)
{
	json_object *s = json_object_new_object(), *v;
	bool nomem = false;

	ts_json_put_str(s, "addr", e->addr[i], &nomem);
	ts_json_put(s, "delay_ms", json_object_new_double(e->run->server_delay[i] / 1e6), &nomem);
	if (base_rtt_ms >= 0)
		ts_json_put(s, "base_rtt_ms", json_object_new_double(base_rtt_ms), &nomem);
	else
		ts_json_put_null(s, "base_rtt_ms", &nomem);
	ts_json_append(e->servers, ts_json_built(s, nomem), &nomem);
	if (!e->sysctl_srv && json_object_object_get_ex(rep, "sysctl", &v))
		e->sysctl_srv = json_object_get(v);
	if (nomem)
		ts_err_set(err, "server %u: out of memory", i + 1);
	return nomem ? -ENOMEM : 0;
}

/* The RTT from the hub to server @i by ping (minimum of 10), in ms; < 0 on failure. */
static double measure_rtt(struct exec *e, unsigned i)
{
	char out[4096], name[64], *text, *p;
	char *argv[] = {"ping", "-n", "-q", "-c", "10", "-i", "0.02", "-w", "5", e->addr[i], NULL};
	double mn = -1, avg, mx;
	struct ts_proc ping;

	snprintf(name, sizeof(name), "base-rtt-%u.txt", i + 1);
	path_in(e, out, sizeof(out), name);
	if (spawn(&ping, e->hub.fd, argv, false, out, NULL, NULL) < 0 ||
	    ts_proc_wait(&ping, 10000, NULL) != 0)
		return -1;
	text = ts_exp_slurp(e->dir, name);
	/* "rtt min/avg/max/mdev = 40.266/69.666/129.299/28.420 ms" */
	if (text && (p = strstr(text, "= ")) && sscanf(p, "= %lf/%lf/%lf", &mn, &avg, &mx) != 3)
		mn = -1;
	free(text);
	return mn;
}

/* Server @i started (directly, or behind a nested wrapper of its delay) and its report read. */
static int start_server(struct exec *e, unsigned i, json_object **rep, struct ts_err *err)
{
	char jobname[64], repname[64], job[4096], report[4096], log[4096], sum[4096];
	char delay[32];
	char *direct[] = {EXE, "exp-agent", job, NULL};
	/*
	 * The far-side wrappers carry no capacity and run beside the client's:
	 * not pinned, so the client's loop keeps its CPU (run/cpupin.h).
	 */
	char *nested[] = {EXE,
			  "--delay",
			  delay,
			  "--shaper-cpu",
			  "off",
			  "--as-root",
			  "--no-progress",
			  "--summary-json",
			  sum,
			  "--",
			  EXE,
			  "exp-agent",
			  job,
			  NULL};
	struct ts_err terr;
	int ret;

	snprintf(jobname, sizeof(jobname), "job-server-%u.json", i + 1);
	snprintf(repname, sizeof(repname), "server-%u-report.json", i + 1);
	path_in(e, job, sizeof(job), jobname);
	path_in(e, report, sizeof(report), repname);
	snprintf(log, sizeof(log), "%s/server-%u.log", e->dir, i + 1);
	snprintf(sum, sizeof(sum), "%s/server-%u-summary.json", e->dir, i + 1);
	snprintf(delay, sizeof(delay), "%lldus",
		 (long long)(e->run->server_delay[i] / TS_NSEC_PER_USEC));
	ret = write_job(e, jobname, server_job(e, i, report), err);
	if (ret < 0)
		return ret;
	/* Started one after the other: each nested wrapper picks its addresses knowing
	 * the ones before it. */
	ret = spawn(&e->server[i], e->hub.fd, e->plan.nservers > 1 ? nested : direct,
		    e->plan.nservers > 1, NULL, log, &terr);
	if (ret < 0) {
		ts_err_set(err, "cannot start server %u: %.400s", i + 1, terr.msg);
		return ret;
	}
	*rep = wait_report(e, repname, &e->server[i], 15);
	if (!*rep) {
		ts_err_set(err, "server %u did not come up (see %.300s)", i + 1, log);
		return -EIO;
	}
	return 0;
}

/* Server @i's base RTT, by ping, within 1 ms of the one asked; into @rtt. */
static int check_rtt(struct exec *e, unsigned i, double *rtt, struct ts_err *err)
{
	double want = 2 * e->run->server_delay[i] / 1e6;
	int tries;

	/* Up to three rounds of pings: a busy host can delay one round. */
	for (tries = 0; tries < 3; tries++) {
		*rtt = measure_rtt(e, i);
		if (*rtt >= want - 1 && *rtt <= want + 1)
			break;
	}
	if (*rtt < 0 || *rtt < want - 1 || *rtt > want + 1) {
		ts_err_set(err,
			   "server %u: base RTT %.3f ms measured by ping, %.3f ms "
			   "asked "
			   "(tolerance 1 ms)",
			   i + 1, *rtt, want);
		return -EIO;
	}
	return 0;
}

static int start_servers(struct exec *e, struct ts_err *err)
{
	unsigned i;

	for (i = 0; i < e->plan.nservers; i++) {
		json_object *rep = NULL, *v;
		double rtt = -1;
		int ret;

		ret = start_server(e, i, &rep, err);
		if (ret < 0)
			return ret;
		if (json_object_object_get_ex(rep, "addr", &v))
			snprintf(e->addr[i], sizeof(e->addr[i]), "%s", json_object_get_string(v));
		if (e->plan.nservers > 1) {
			ret = check_rtt(e, i, &rtt, err);
			if (ret < 0) {
				json_object_put(rep);
				return ret;
			}
		}
		ret = note_servers(e, i, rep, rtt, err);
		json_object_put(rep);
		if (ret < 0)
			return ret;
	}
	return 0;
}

struct sampler {
	FILE *f;
	double t;
};

static void sample_row(void *ctx, const struct ts_sockstat *st)
{
	struct sampler *sm = ctx;

	ts_sockstats_row(sm->f, sm->t, st, NULL);
}

static bool any_download(const struct exec *e)
{
	size_t k;

	for (k = 0; k < e->plan.nflows; k++)
		if (e->plan.flow[k].dir == TS_EXP_DOWN)
			return true;
	return false;
}

/*
 * Wait for the client's wrapper (up to @timeout s). Meanwhile, when the run
 * has downloads, sample the far side's sockets every 50 ms, as the wrapper
 * samples the client's: their senders are there. Times are seconds since
 * the wrapper was started, within milliseconds of the link's time 0.
 */
static int wait_client(struct exec *e, double timeout)
{
	double start = now_unix(), next = start;
	struct ts_sockdiag *sd = NULL;
	struct sampler sm = {0};
	char path[4096];
	struct ts_err terr;
	int ret = -ETIMEDOUT;

	if (any_download(e) && e->plan.nservers == 1 &&
	    ts_sockdiag_open(&sd, e->hub.fd, &terr) == 0) {
		path_in(e, path, sizeof(path), TS_EXP_F_SOCKSTATS_SRV);
		sm.f = ts_out_fopen(path, &terr);
		if (sm.f)
			ts_sockstats_header(sm.f);
	}
	while (now_unix() < start + timeout) {
		int r = ts_proc_try_wait(&e->client);

		if (r != -EAGAIN) {
			ret = r; /* its exit status, or waitpid's error */
			break;
		}
		if (sm.f && now_unix() >= next) {
			sm.t = now_unix() - start;
			ts_sockdiag_dump(sd, sample_row, &sm);
			next += 0.05;
		}
		usleep(5000);
	}
	if (sm.f)
		fclose(sm.f);
	ts_sockdiag_close(sd);
	return ret;
}

static int run_client(struct exec *e, struct ts_err *err)
{
	char job[4096], sum[4096], stats[4096], sock[4096], log[4096], seed[32], dur[32];
	char *argv[TS_EXP_MAX_ARGV * 4];
	struct ts_err terr;
	json_object *j;
	size_t n = 0;
	char **v;
	int ret;

	ret = client_job(e, &j, err);
	if (ret < 0)
		return ret;
	ret = write_job(e, "job-client.json", j, err);
	if (ret < 0)
		return ret;
	path_in(e, job, sizeof(job), "job-client.json");
	path_in(e, sum, sizeof(sum), TS_EXP_F_SUMMARY);
	path_in(e, stats, sizeof(stats), TS_EXP_F_STATS);
	path_in(e, sock, sizeof(sock), TS_EXP_F_SOCKSTATS);
	path_in(e, log, sizeof(log), TS_EXP_F_LOG);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)e->run->seed);
	/* A bound on the run, should a tool hang: the agent's own deadline comes first. */
	snprintf(dur, sizeof(dur), "%.0fs", total_s(e) + 30);
	argv[n++] = EXE;
	for (v = e->run->link_argv; v && *v && n < sizeof(argv) / sizeof(argv[0]) - 24; v++)
		argv[n++] = *v;
	{
		char *tail[] = {
			"--seed",      seed, "--summary-json", sum,	    "--stats",	  stats,
			"--sockstats", sock, "--no-progress",  "--as-root", "--duration", dur,
			"--",	       EXE,  "exp-agent",      job,	    NULL};
		size_t i;

		for (i = 0; tail[i]; i++)
			argv[n++] = tail[i];
	}
	argv[n] = NULL;
	ret = spawn(&e->client, e->hub.fd, argv, true, NULL, log, &terr);
	if (ret < 0) {
		ts_err_set(err, "cannot start the link: %.400s", terr.msg);
		return ret;
	}
	ret = wait_client(e, total_s(e) + 60);
	if (ret == -ETIMEDOUT) {
		stop(&e->client, 5);
		ts_err_set(err, "the link's wrapper did not end in time");
		return -ETIMEDOUT;
	}
	/*
	 * 1 is the agent's "something failed": result.json says what (a flow's error);
	 * ping's own 1 (a probe lost under load) is not a failure. Anything else is.
	 */
	if (ret == 124)
		ts_err_set(err, "the run hit its time bound (%s); see %s", dur, TS_EXP_F_LOG);
	else if (ret != 0 && ret != 1)
		ts_err_set(err, "the link's wrapper exited with status %d (see %s)", ret,
			   TS_EXP_F_LOG);
	return 0;
}

static void teardown(struct exec *e)
{
	struct ts_err terr;
	unsigned i;

	stop(&e->client, 5);
	for (i = 0; i < TS_EXP_MAX_SERVERS; i++)
		stop(&e->server[i], 5);
	if (e->hub.fd >= 0) {
		/* Anything the agents' tools left in the hub goes with it. */
		ts_netns_kill_all(e->hub.fd, SIGKILL);
		ts_netns_destroy(&e->hub, &terr);
	}
}

int ts_exp_exec_run(const struct ts_exp_run *run, const char *rundir, struct ts_err *err)
{
	struct exec e = {.run = run, .dir = rundir};
	struct ts_guard guard;
	struct ts_err why = {""};
	int ret;

	ts_netns_init(&e.hub);
	ts_guard_init(&guard);
	if (run->vm && !run->in_guest)
		return ts_exp_exec_vm(run, rundir, err);
	if (run->kernel && run->kernel[0] && strcmp(run->kernel, "host") && !run->in_guest) {
		ts_err_set(err, "kernel %s: no [kernel %s] section", run->kernel, run->kernel);
		return -EINVAL;
	}
	ret = ts_exp_plan_build(run, &e.plan, err);
	if (ret < 0)
		return ret;
	e.servers = json_object_new_array();
	e.flags = json_object_new_array();
	e.out = (struct ts_exp_outcome){.run = run,
					.plan = &e.plan,
					.rundir = rundir,
					.flags = e.flags,
					.servers = e.servers};
	if (ts_exp_cca_acquire(&e.cca, run->cca, run->tas_shift_startup, run->tas_shift_steady,
			       &why) < 0) {
		bool nomem = false; /* the error below fails the run, flagged or not */

		ts_json_append(e.flags, json_object_new_string("cca_unavailable"), &nomem);
		ts_err_set(&e.out.error, "%s", why.msg);
		goto result;
	}
	e.have_cca = true;
	e.out.cca = &e.cca;
	/*
	 * Should this process die without its teardown (SIGKILL, the OOM
	 * killer), the guard removes the hub and what the wrappers in it made,
	 * as the wrapper's own guard does for its namespaces (run/guard.h).
	 * Rootless, the kernel does: nothing is pinned outside the processes.
	 */
	if (!ts_userns_rootless() && ts_guard_start(&guard, NULL, &e.out.error) < 0)
		goto result;
	if (hub_create(&e, &e.out.error) < 0 || start_servers(&e, &e.out.error) < 0)
		goto result;
	run_client(&e, &e.out.error);
result:
	teardown(&e);
	ts_guard_stop(&guard);
	e.out.sysctl_srv = e.sysctl_srv;
	ret = ts_exp_result_write(&e.out, err);
	if (e.have_cca)
		ts_exp_cca_release(&e.cca);
	json_object_put(e.servers);
	json_object_put(e.flags);
	json_object_put(e.sysctl_srv);
	return ret;
}

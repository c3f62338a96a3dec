/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <json-c/json.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec/exec_agent.h"
#include "net/netns.h"
#include "net/probe.h"
#include "io/json.h"
#include "io/outfile.h"
#include "io/proc.h"

#define MAX_PROCS 32

struct proc {
	double at;
	unsigned station; /* the real Wi-Fi station it runs behind (job's "station", 0) */
	json_object *argv, *out, *err;
	pid_t pid;
	double started, ended;
	int status; /* exit code, 128 + signal, -1 not started */
};

struct agent {
	bool server;
	struct proc p[MAX_PROCS];
	size_t n;
	double t0, deadline;
	const char *base;
	unsigned station; /* which one this agent is: $TASSHAPE_STATION, 0 without */
	bool nomem;	  /* an add to the report failed: it is not written (ts_json_put) */
};

static double now_unix(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Set this namespace's sysctls. The default congestion control is special:
 * outside the initial namespace the kernel lets it be set only to one in
 * the global net.ipv4.tcp_allowed_congestion_control (tcp_cong.c, -EPERM
 * otherwise), a host-wide list this tool does not change. Then the
 * sockets alone carry the run's control (iperf3 -C on both ends), which
 * result.json verifies per flow; the refusal is reported in @warn, not
 * fatal. Any other sysctl the run asks for must be set.
 */
static int set_sysctls(json_object *list, json_object *warn, bool *nomem)
{
	size_t i, n = list ? json_object_array_length(list) : 0;

	for (i = 0; i < n; i++) {
		json_object *kv = json_object_array_get_idx(list, i);
		const char *k = json_object_get_string(json_object_array_get_idx(kv, 0));
		const char *v = json_object_get_string(json_object_array_get_idx(kv, 1));
		char key[256], msg[TS_ERR_MAX + 64], *c;
		struct ts_err err;
		int ret;

		if (!k || !v)
			continue;
		snprintf(key, sizeof(key), "%s", k);
		for (c = key; *c; c++)
			if (*c == '.')
				*c = '/';
		ret = ts_sysctl_write(key, v, &err);
		if (ret == 0)
			continue;
		snprintf(msg, sizeof(msg), "%s = %s: %s", k, v, err.msg);
		if (ret == -EPERM && !strcmp(k, "net.ipv4.tcp_congestion_control")) {
			ts_json_append(warn, json_object_new_string(msg), nomem);
			continue;
		}
		fprintf(stderr, "exp-agent: sysctl %s\n", msg);
		return -1;
	}
	return 0;
}

/* Sysctls recorded for the manifest besides those the run sets (Flent's SYSCTLS, per namespace). */
static const char *const recorded[] = {
	"net.ipv4.tcp_congestion_control",
	"net.ipv4.tcp_limit_output_bytes",
	"net.ipv4.tcp_wmem",
	"net.ipv4.tcp_rmem",
	"net.ipv4.tcp_ecn",
	"net.ipv4.tcp_pacing_ss_ratio",
	"net.ipv4.tcp_pacing_ca_ratio",
	"net.ipv4.tcp_autocorking",
	"net.core.default_qdisc",
	/* This namespace's TCP hash: its own (exec.c, hub_netns) or, when negative, the host's. */
	"net.ipv4.tcp_ehash_entries",
};

/* Sysctl @k ("net.ipv4.tcp_wmem") as read now, into @out; null when it cannot be read. */
static void read_one(json_object *out, const char *k, bool *nomem)
{
	char path[300], val[256] = "", *c;
	int n;

	snprintf(path, sizeof(path), "/proc/sys/%s", k);
	for (c = path + 10; *c; c++)
		if (*c == '.')
			*c = '/';
	n = ts_probe_read(path, val, sizeof(val));
	for (c = val; *c; c++)
		if (*c == '\t')
			*c = ' ';
	ts_json_put_str(out, k, n >= 0 ? val : NULL, nomem);
}

/* What this namespace's sysctls read after setting: the run's and the recorded ones. */
static json_object *read_sysctls(json_object *list)
{
	json_object *out = json_object_new_object();
	size_t i, n = list ? json_object_array_length(list) : 0;
	bool nomem = false;

	for (i = 0; i < sizeof(recorded) / sizeof(recorded[0]); i++)
		read_one(out, recorded[i], &nomem);
	for (i = 0; i < n; i++) {
		const char *k = json_object_get_string(
			json_object_array_get_idx(json_object_array_get_idx(list, i), 0));

		if (k)
			read_one(out, k, &nomem);
	}
	return ts_json_built(out, nomem);
}

/* @path (NULL: /dev/null) as @s, created the one safe way; -1 on failure. */
static int redirect(json_object *path, struct ts_proc_stream *s)
{
	struct ts_err err;

	if (!path)
		return 0;
	s->how = TS_PROC_FD;
	s->fd = ts_out_fd(json_object_get_string(path), &err);
	return s->fd < 0 ? -1 : 0;
}

/* @p's stdout and stderr; one file for both (a server's log) gets one descriptor. */
static int redirect_std(const struct proc *p, struct ts_proc *tp)
{
	if (redirect(p->out, &tp->out) < 0)
		return -1;
	if (p->out && p->err &&
	    !strcmp(json_object_get_string(p->out), json_object_get_string(p->err))) {
		tp->err.how = TS_PROC_TO_OUT;
		return 0;
	}
	return redirect(p->err, &tp->err);
}

static void start(struct agent *a, struct proc *p)
{
	size_t i, n = json_object_array_length(p->argv);
	static char words[64][256];
	struct ts_err err;
	struct ts_proc tp;
	char *argv[64];

	if (n == 0 || n >= 64) {
		p->status = 127;
		return;
	}
	for (i = 0; i < n; i++) {
		const char *w = json_object_get_string(json_object_array_get_idx(p->argv, i));
		const char *at = strstr(w, "{BASE}");

		argv[i] = (char *)w;
		if (at) {
			/* "{BASE}" or "{BASE}:2112": the far side's address in place of the token. */
			snprintf(words[i], sizeof(words[i]), "%.*s%s%s", (int)(at - w), w, a->base,
				 at + 6);
			argv[i] = words[i];
		}
	}
	argv[n] = NULL;
	p->started = now_unix();
	p->pid = 0;
	/* Started with an empty signal mask: the one this agent blocked for its waits is not theirs. */
	ts_proc_init(&tp, argv);
	if (redirect_std(p, &tp) < 0) {
		p->status = 126; /* as a shell says of a command it could not set up */
	} else if (ts_proc_start(&tp, &err) < 0) {
		/* Where the program's own errors would have gone: its log. */
		int fd = tp.err.how == TS_PROC_FD	? tp.err.fd
			 : tp.err.how == TS_PROC_TO_OUT ? tp.out.fd
							: STDERR_FILENO;

		dprintf(fd >= 0 ? fd : STDERR_FILENO, "exp-agent: %s\n", err.msg);
		p->status = 127;
	} else {
		p->pid = tp.pid; /* reaped by reap() below, with the others */
	}
	if (tp.out.how == TS_PROC_FD && tp.out.fd >= 0)
		close(tp.out.fd);
	if (tp.err.how == TS_PROC_FD && tp.err.fd >= 0)
		close(tp.err.fd);
}

static void reap(struct agent *a)
{
	int st;
	pid_t pid;
	size_t i;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (i = 0; i < a->n; i++) {
			if (a->p[i].pid != pid)
				continue;
			a->p[i].pid = 0;
			a->p[i].ended = now_unix();
			a->p[i].status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
	}
}

static size_t running(const struct agent *a)
{
	size_t i, r = 0;

	for (i = 0; i < a->n; i++)
		r += a->p[i].pid > 0;
	return r;
}

/* SIGTERM every child still running, SIGKILL after a second. */
static void end_all(struct agent *a)
{
	double until = now_unix() + 1.0;
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->p[i].pid > 0)
			kill(a->p[i].pid, SIGTERM);
	while (running(a) && now_unix() < until) {
		usleep(10000);
		reap(a);
	}
	for (i = 0; i < a->n; i++)
		if (a->p[i].pid > 0)
			kill(a->p[i].pid, SIGKILL);
	while (running(a)) {
		usleep(1000);
		reap(a);
	}
}

/* Is @port bound (TCP: listening) in this namespace? /proc/self/net is the caller's. */
static bool bound(const char *file, unsigned port, bool tcp)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(file, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned lport, st;
		char laddr[64];

		if (sscanf(line, " %*d: %63[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x", laddr, &lport,
			   &st) == 3)
			found = lport == port && (!tcp || st == 0x0A);
	}
	fclose(f);
	return found;
}

static bool all_bound(json_object *tcp, json_object *udp)
{
	size_t i;

	for (i = 0; tcp && i < json_object_array_length(tcp); i++) {
		unsigned p = (unsigned)json_object_get_int(json_object_array_get_idx(tcp, i));

		if (!bound("/proc/self/net/tcp", p, true) && !bound("/proc/self/net/tcp6", p, true))
			return false;
	}
	for (i = 0; udp && i < json_object_array_length(udp); i++) {
		unsigned p = (unsigned)json_object_get_int(json_object_array_get_idx(udp, i));

		if (!bound("/proc/self/net/udp", p, false) &&
		    !bound("/proc/self/net/udp6", p, false))
			return false;
	}
	return true;
}

static void first_ipv4(char *buf, size_t len)
{
	struct ifaddrs *ifs, *i;

	snprintf(buf, len, "%s", "");
	if (getifaddrs(&ifs) < 0)
		return;
	for (i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
		    (i->ifa_flags & IFF_LOOPBACK))
			continue;
		inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf, len);
		break;
	}
	freeifaddrs(ifs);
}

static int write_report(const struct agent *a, const char *path, json_object *rep)
{
	const char *text;
	struct ts_err err;

	/* A report missing a member would be read as whole: none is written. */
	if (a->nomem)
		return -1;
	text = json_object_to_json_string_ext(rep, JSON_C_TO_STRING_PRETTY);
	/* Written whole, then renamed: a reader polling for it never sees half a file. */
	if (!text)
		return -1;
	return ts_out_write_whole(path, text, strlen(text), &err) < 0 ? -1 : 0;
}

/* Wait for a signal until @until (Unix time); returns the signal, 0 on timeout. */
static int wait_sig(const sigset_t *set, double until)
{
	double left = until - now_unix();
	struct timespec ts;
	int sig;

	if (left < 0)
		left = 0;
	if (left > 0.5)
		left = 0.5; /* wake now and then: a child may have exited before we blocked */
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
	sig = sigtimedwait(set, NULL, &ts);
	return sig < 0 ? 0 : sig;
}

/*
 * With real Wi-Fi stations the wrapper runs this agent once per station,
 * telling each which by TASSHAPE_STATION: station k runs the processes
 * marked "station": k and writes its report to the job's "reports"[k].
 * -1 when the variable is not a station of the job.
 */
static int station_of(struct agent *a, json_object *job, const char **report)
{
	const char *v = getenv("TASSHAPE_STATION");
	json_object *reports;
	char *end;
	unsigned long k;

	/* A job without stations: the variable is an outer run's (tasshape -- tasshape exp). */
	if (!v || !json_object_object_get_ex(job, "reports", &reports))
		return 0;
	errno = 0;
	k = strtoul(v, &end, 10);
	if (errno || end == v || *end || k >= json_object_array_length(reports)) {
		fprintf(stderr, "exp-agent: TASSHAPE_STATION=%s: not a station of the job\n", v);
		return -1;
	}
	a->station = (unsigned)k;
	*report = json_object_get_string(json_object_array_get_idx(reports, k));
	return 0;
}

static int run_client(struct agent *a, const sigset_t *set, json_object *rep)
{
	json_object *procs = json_object_new_array();
	size_t next = 0, i;
	int code = 0;
	bool stop = false;

	while (!stop) {
		double now = now_unix(), until = a->t0 + a->deadline;
		int sig;

		for (; next < a->n && a->t0 + a->p[next].at <= now; next++)
			if (a->p[next].station == a->station)
				start(a, &a->p[next]);
		reap(a);
		if (next == a->n && !running(a))
			break;
		if (now >= until)
			break;
		if (next < a->n && a->t0 + a->p[next].at < until)
			until = a->t0 + a->p[next].at;
		sig = wait_sig(set, until);
		stop = sig == SIGTERM || sig == SIGINT || sig == SIGHUP;
	}
	if (running(a) || next < a->n)
		code = 1; /* the deadline or a signal ended the run early */
	end_all(a);
	for (i = 0; i < a->n; i++) {
		json_object *p = json_object_new_object();

		if (a->p[i].station != a->station) {
			/* Another station's agent runs it and reports it (exec_stations.c merges). */
			ts_json_put(p, "station", json_object_new_int((int)a->p[i].station),
				    &a->nomem);
			ts_json_append(procs, p, &a->nomem);
			continue;
		}
		ts_json_put(p, "started", json_object_new_double(a->p[i].started), &a->nomem);
		ts_json_put(p, "ended", json_object_new_double(a->p[i].ended), &a->nomem);
		ts_json_put(p, "status", json_object_new_int(a->p[i].status), &a->nomem);
		ts_json_append(procs, p, &a->nomem);
		if (a->p[i].status != 0)
			code = 1;
	}
	ts_json_put(rep, "procs", procs, &a->nomem);
	return code;
}

static int run_server(struct agent *a, const sigset_t *set, json_object *job, json_object *rep,
		      const char *report)
{
	json_object *tcp = NULL, *udp = NULL;
	double until = a->t0 + a->deadline, ready_by = a->t0 + 10;
	char addr[INET_ADDRSTRLEN];
	size_t i;
	int sig = 0;

	json_object_object_get_ex(job, "listen_tcp", &tcp);
	json_object_object_get_ex(job, "listen_udp", &udp);
	for (i = 0; i < a->n; i++)
		start(a, &a->p[i]);
	while (!all_bound(tcp, udp)) {
		reap(a);
		if (now_unix() > ready_by || running(a) < a->n) {
			fprintf(stderr, "exp-agent: servers did not come up\n");
			end_all(a);
			return 1;
		}
		usleep(20000);
	}
	first_ipv4(addr, sizeof(addr));
	ts_json_put_str(rep, "addr", addr, &a->nomem);
	ts_json_put(rep, "ready", json_object_new_boolean(1), &a->nomem);
	if (write_report(a, report, rep) < 0)
		fprintf(stderr, "exp-agent: %s: cannot write\n", report);
	while (sig != SIGTERM && sig != SIGINT && sig != SIGHUP && now_unix() < until) {
		sig = wait_sig(set, until);
		reap(a); /* a one-off iperf3 server exits after its test: that is fine */
	}
	end_all(a);
	return 0;
}

int ts_exp_agent_main(const char *job_path)
{
	json_object *job, *procs = NULL, *o, *warn, *rep = json_object_new_object();
	const char *report = NULL;
	struct agent a = {0};
	sigset_t set, old;
	size_t i;
	int code = 1;

	job = json_object_from_file(job_path);
	if (!job) {
		fprintf(stderr, "exp-agent: %s: %s\n", job_path, json_util_get_last_err());
		json_object_put(rep);
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);

	a.server = json_object_object_get_ex(job, "role", &o) &&
		   !strcmp(json_object_get_string(o), "server");
	a.deadline =
		json_object_object_get_ex(job, "deadline", &o) ? json_object_get_double(o) : 60;
	if (json_object_object_get_ex(job, "report", &o))
		report = json_object_get_string(o);
	if (station_of(&a, job, &report) < 0)
		goto out;
	a.base = getenv("TASSHAPE_BASE") ? getenv("TASSHAPE_BASE") : "";
	json_object_object_get_ex(job, "procs", &procs);
	for (i = 0; procs && i < json_object_array_length(procs) && i < MAX_PROCS; i++) {
		json_object *p = json_object_array_get_idx(procs, i);
		struct proc *pr = &a.p[a.n++];

		pr->status = -1;
		pr->at = json_object_object_get_ex(p, "at", &o) ? json_object_get_double(o) : 0;
		pr->station = json_object_object_get_ex(p, "station", &o)
				      ? (unsigned)json_object_get_int(o)
				      : 0;
		json_object_object_get_ex(p, "argv", &pr->argv);
		json_object_object_get_ex(p, "out", &pr->out);
		json_object_object_get_ex(p, "err", &pr->err);
		if (!pr->argv) {
			fprintf(stderr, "exp-agent: %s: process %zu has no argv\n", job_path, i);
			goto out;
		}
	}
	warn = json_object_new_array();
	if (!report ||
	    (json_object_object_get_ex(job, "sysctl", &o) && set_sysctls(o, warn, &a.nomem) < 0)) {
		json_object_put(warn);
		goto out;
	}
	ts_json_put(rep, "warnings", warn, &a.nomem);
	json_object_object_get_ex(job, "sysctl", &o);
	ts_json_put(rep, "sysctl", read_sysctls(o), &a.nomem);
	a.t0 = now_unix();
	ts_json_put(rep, "t0", json_object_new_double(a.t0), &a.nomem);
	ts_json_put_str(rep, "base", a.base, &a.nomem);
	if (a.server) {
		code = run_server(&a, &set, job, rep, report);
	} else {
		code = run_client(&a, &set, rep);
		if (write_report(&a, report, rep) < 0) {
			fprintf(stderr, "exp-agent: %s: cannot write\n", report);
			code = 1;
		}
	}
out:
	json_object_put(rep);
	json_object_put(job);
	return code;
}

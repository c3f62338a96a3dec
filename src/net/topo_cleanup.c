/* SPDX-License-Identifier: MIT */
/*
 * `tasshape cleanup`: find what runs left behind by name (see topo.h) and
 * remove what belongs to owners that are no longer running. Order: rules
 * (they name links), outer links (with the routes through them), then
 * namespaces (which take their links and rules with them).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/fwd.h"
#include "net/rtnl.h"
#include "net/topo.h"

#define RULE_MAX_WORDS 64

/* Reads a decimal number without sign or leading zero; advances *p. */
static int read_num(const char **p, unsigned long max, unsigned long *v)
{
	const char *s = *p;
	unsigned long x = 0;

	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		x = x * 10 + (unsigned long)(*s - '0');
		if (x > max)
			return -EINVAL;
	}
	*p = s;
	*v = x;
	return 0;
}

/* Parses "<pid>-<n>" at *p; pid must be > 0. */
static int read_pid_index(const char **p, pid_t *pid)
{
	unsigned long v, n;

	if (read_num(p, 0x7fffffffUL, &v) < 0 || v == 0 || **p != '-')
		return -EINVAL;
	(*p)++;
	if (read_num(p, 1000000UL, &n) < 0)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

int ts_topo_link_pid(const char *name, pid_t *pid)
{
	const char *p = name;
	pid_t v;

	if (strncmp(p, "tas", 3) != 0)
		return -EINVAL;
	p += 3;
	if (read_pid_index(&p, &v) < 0 || !p[0] || !strchr("oudi", p[0]) || p[1])
		return -EINVAL;
	*pid = v;
	return 0;
}

/* "-s<k>": an extra Wi-Fi station's namespace (topo_sta.c). */
static bool is_station(const char *p)
{
	if (strncmp(p, "-s", 2) != 0 || p[2] < '1' || p[2] > '9')
		return false;
	for (p += 3; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

int ts_topo_netns_pid(const char *name, pid_t *pid)
{
	const char *p = name;
	pid_t v;

	if (strncmp(p, "tas-", 4) != 0)
		return -EINVAL;
	p += 4;
	if (read_pid_index(&p, &v) < 0 || (*p && strcmp(p, "-link") != 0 && !is_station(p)))
		return -EINVAL;
	*pid = v;
	return 0;
}

#define LOCAL_MAX 64

struct sweep {
	const struct ts_cleanup_opts *o;
	struct ts_cleanup_stats *st;
	struct ts_err *err;
	int ret; /* first error */
	/* o->local: owners with an outer link here, whose namespaces may go */
	pid_t local[LOCAL_MAX];
	unsigned int nlocal;
};

static void note(const struct sweep *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(const struct sweep *s, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!s->o->note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->o->note(s->o->note_arg, line);
}

static void failed(struct sweep *s, int ret, const struct ts_err *e)
{
	if (s->ret == 0) {
		s->ret = ret;
		ts_err_set(s->err, "%s", e->msg);
	}
	note(s, "failed: %s", e->msg);
}

static bool pid_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

/* Decides whether @what of owner @pid goes; counts and notes the kept ones. */
static bool doomed(struct sweep *s, pid_t pid, const char *what)
{
	size_t i;

	for (i = 0; i < s->o->npids && s->o->pids[i] != pid; i++)
		;
	if (s->o->only_pid > 0 && pid != s->o->only_pid && i == s->o->npids)
		return false;
	if (!s->o->force && pid_alive(pid)) {
		s->st->kept++;
		note(s, "kept %s (pid %ld is running)", what, (long)pid);
		return false;
	}
	return true;
}

/* Handles one "-A CHAIN ..." line of iptables-save output for @table. */
static void sweep_rule(struct sweep *s, int family, const char *table, char *line)
{
	const char *args[RULE_MAX_WORDS + 4];
	char *words[RULE_MAX_WORDS + 1], shown[384];
	struct ts_err e1;
	pid_t pid = 0;
	int n, i, r;

	snprintf(shown, sizeof(shown), "%s", line);
	n = ts_ipt_split(line, words, RULE_MAX_WORDS);
	if (n < 2)
		return;
	for (i = 0; i + 1 < n; i++)
		if (!strcmp(words[i], "--comment") && ts_ipt_tag_pid(words[i + 1], &pid) == 0)
			break;
	if (i + 1 >= n)
		return;
	if (!doomed(s, pid, shown))
		return;
	args[0] = "-t";
	args[1] = table;
	args[2] = "-D"; /* replaces "-A" */
	for (i = 1; i < n; i++)
		args[i + 2] = words[i];
	args[n + 2] = NULL;
	r = ts_ipt_exec(-1, family, args, &e1);
	if (r < 0) {
		failed(s, r, &e1);
		return;
	}
	s->st->rules++;
	note(s, "removed %s rule: -t %s %s", family == AF_INET6 ? "ip6tables" : "iptables", table,
	     shown);
}

static void sweep_rules(struct sweep *s, int family)
{
	struct ts_buf out = {0};
	struct ts_err e1;
	char table[32] = "", *line, *save = NULL;
	int r;

	if (ts_ipt_check(family, NULL) < 0)
		return; /* no tool, no rules made by us */
	r = ts_ipt_save(-1, family, false, &out, &e1);
	if (r < 0) {
		failed(s, r, &e1);
		goto out;
	}
	for (line = out.data ? strtok_r(out.data, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '*')
			snprintf(table, sizeof(table), "%s", line + 1);
		else if (!strncmp(line, "-A ", 3) && table[0] && strstr(line, TS_IPT_TAG_PREFIX))
			sweep_rule(s, family, table, line);
	}
out:
	ts_buf_free(&out);
}

struct names {
	char (*v)[TS_TOPO_IFNAMSIZ];
	pid_t *pid;
	size_t n, cap;
};

static int collect_link(void *arg, int ifindex, const char *name, int peer)
{
	struct names *l = arg;
	pid_t pid;

	(void)peer;

	(void)ifindex;
	if (ts_topo_link_pid(name, &pid) < 0 || strlen(name) >= TS_TOPO_IFNAMSIZ)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		void *v = realloc(l->v, cap * sizeof(*l->v)), *p;

		if (!v)
			return -ENOMEM;
		l->v = v;
		p = realloc(l->pid, cap * sizeof(*l->pid));
		if (!p)
			return -ENOMEM;
		l->pid = p;
		l->cap = cap;
	}
	snprintf(l->v[l->n], TS_TOPO_IFNAMSIZ, "%s", name);
	l->pid[l->n++] = pid;
	return 0;
}

static void sweep_links(struct sweep *s)
{
	struct ts_rtnl r = {0};
	struct names l = {0};
	struct ts_err e1;
	char what[48];
	size_t i;
	int ret;

	ret = ts_rtnl_open(&r, -1, &e1);
	if (ret < 0) {
		failed(s, ret, &e1);
		return;
	}
	ret = ts_rtnl_link_list(&r, collect_link, &l, &e1);
	if (ret == -ENOMEM)
		ts_err_set(&e1, "out of memory listing links");
	if (ret < 0) {
		failed(s, ret, &e1);
		goto out;
	}
	for (i = 0; i < l.n; i++) {
		snprintf(what, sizeof(what), "link %s", l.v[i]);
		if (!doomed(s, l.pid[i], what))
			continue;
		ret = ts_rtnl_link_del(&r, l.v[i], &e1);
		if (ret == -ENODEV)
			continue; /* went with its peer */
		if (ret < 0) {
			failed(s, ret, &e1);
			continue;
		}
		s->st->links++;
		note(s, "removed %s", what);
	}
out:
	free(l.v);
	free(l.pid);
	ts_rtnl_close(&r);
}

/* o->local: was the run of @pid started from this namespace (its outer link is here)? */
static bool is_local(const struct sweep *s, pid_t pid)
{
	unsigned int i;

	if (!s->o->local)
		return true;
	for (i = 0; i < s->nlocal; i++)
		if (s->local[i] == pid)
			return true;
	return false;
}

/* o->local: note the owners whose outer link (tas<pid>-<n>o) is in this namespace. */
static void find_local(struct sweep *s)
{
	struct ts_rtnl r = {0};
	struct names l = {0};
	struct ts_err e1;
	size_t i, len;

	if (!s->o->local || ts_rtnl_open(&r, -1, &e1) < 0)
		return;
	if (ts_rtnl_link_list(&r, collect_link, &l, &e1) == 0) {
		for (i = 0; i < l.n && s->nlocal < LOCAL_MAX; i++) {
			len = strlen(l.v[i]);
			if (len && l.v[i][len - 1] == 'o')
				s->local[s->nlocal++] = l.pid[i];
		}
	}
	free(l.v);
	free(l.pid);
	ts_rtnl_close(&r);
}

static void sweep_netns(struct sweep *s)
{
	char path[sizeof(TS_NETNS_DIR) + 256], what[300];
	struct dirent *de;
	struct ts_err e1;
	DIR *d;
	pid_t pid;
	int ret;

	d = opendir(TS_NETNS_DIR);
	if (!d) {
		if (errno != ENOENT) {
			ret = -errno;
			ts_err_set(&e1, "cannot list %s: %s", TS_NETNS_DIR, strerror(errno));
			failed(s, ret, &e1);
		}
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (ts_topo_netns_pid(de->d_name, &pid) < 0)
			continue;
		snprintf(what, sizeof(what), "namespace %s", de->d_name);
		if (!is_local(s, pid) || !doomed(s, pid, what))
			continue;
		snprintf(path, sizeof(path), "%s/%s", TS_NETNS_DIR, de->d_name);
		ret = ts_netns_unpin(path);
		if (ret == -ENOENT)
			continue; /* removed concurrently */
		if (ret < 0) {
			ts_err_set(&e1, "cannot remove %s: %s", path, strerror(-ret));
			failed(s, ret, &e1);
			continue;
		}
		s->st->netns++;
		note(s, "removed %s", what);
	}
	closedir(d);
}

/*
 * SIGKILL what runs in namespace @path, until nothing does: a process
 * forking as it is killed leaves a child behind, so look again (bounded:
 * 50 rounds of 10 ms). Returns how many were killed.
 */
static unsigned int kill_inside(const char *path)
{
	const struct timespec pause = {0, 10 * 1000 * 1000};
	unsigned int killed = 0;
	int fd, n, round;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	for (round = 0; round < 50; round++) {
		n = ts_netns_kill_all(fd, SIGKILL);
		if (n <= 0)
			break;
		killed += (unsigned int)n;
		nanosleep(&pause, NULL);
	}
	close(fd);
	return killed;
}

/* Before anything is removed: no process of a dead run may live on in its namespaces. */
static void sweep_procs(struct sweep *s)
{
	char path[sizeof(TS_NETNS_DIR) + 256], what[300];
	struct ts_cleanup_opts quiet = *s->o;
	struct sweep probe = *s;
	struct ts_cleanup_stats dummy = {0};
	struct dirent *de;
	unsigned int n;
	DIR *d;
	pid_t pid;

	/* Whether a namespace goes is decided (and its "kept" noted) by sweep_netns. */
	quiet.note = NULL;
	probe.o = &quiet;
	probe.st = &dummy;
	d = opendir(TS_NETNS_DIR);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		if (ts_topo_netns_pid(de->d_name, &pid) < 0)
			continue;
		snprintf(what, sizeof(what), "namespace %s", de->d_name);
		if (!is_local(s, pid) || !doomed(&probe, pid, what))
			continue;
		snprintf(path, sizeof(path), "%s/%s", TS_NETNS_DIR, de->d_name);
		n = kill_inside(path);
		if (n) {
			s->st->procs += n;
			note(s, "killed %u processes in %s", n, what);
		}
	}
	closedir(d);
}

int ts_topo_cleanup(const struct ts_cleanup_opts *o, struct ts_cleanup_stats *st,
		    struct ts_err *err)
{
	struct ts_cleanup_stats local;
	struct sweep s = {.o = o, .st = st ? st : &local, .err = err};

	memset(s.st, 0, sizeof(*s.st));
	find_local(&s);
	sweep_procs(&s);
	sweep_rules(&s, AF_INET);
	sweep_rules(&s, AF_INET6);
	sweep_links(&s);
	sweep_netns(&s);
	/* The last run from this namespace gone: its ip_forward as found (net/fwd.h). */
	if (ts_fwd_restore() == 1)
		note(&s, "restored net.ipv4.ip_forward to the value found before the runs");
	return s.ret;
}

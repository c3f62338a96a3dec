/* SPDX-License-Identifier: MIT */
/*
 * iptables rules through the iptables/ip6tables tools. Each remembered
 * rule keeps its words in one allocation so removal re-issues exactly
 * the spec that was added, with -D instead of -A.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/ipt.h"
#include "io/which.h"

#define EXEC_MAX_ARGS (TS_IPT_MAX_ARGS + 16)

struct ts_ipt_rule {
	int family;
	int netns_fd; /* our dup, or -1 for "the namespace clear runs in" */
	char *mem;    /* table, chain and spec words, NUL-separated */
	const char *table, *chain;
	const char *spec[TS_IPT_MAX_ARGS + 1];
};

static const char *tool_name(int family, bool save)
{
	if (family == AF_INET6)
		return save ? "ip6tables-save" : "ip6tables";
	return save ? "iptables-save" : "iptables";
}

const char *const ts_ipt_progs[] = {"iptables", "ip6tables", "iptables-save", "ip6tables-save",
				    NULL};

void ts_ipt_init(struct ts_ipt *s, pid_t owner)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->tag, sizeof(s->tag), "%s%ld", TS_IPT_TAG_PREFIX, (long)owner);
}

static int find_tool(int family, bool save, char *path, size_t len, struct ts_err *err)
{
	struct ts_which w;
	struct ts_err why;
	int ret;

	if (family != AF_INET && family != AF_INET6) {
		ts_err_set(err, "iptables: bad address family %d", family);
		return -EINVAL;
	}
	ret = ts_which(tool_name(family, save), &w);
	if (ret < 0) {
		ts_which_error(tool_name(family, save), &w, &why);
		ts_err_set(err, "%s: apt-get install iptables", why.msg);
		return ret;
	}
	if (strlen(w.path) >= len) {
		ts_err_set(err, "%s: path too long", w.path);
		return -ENAMETOOLONG;
	}
	memcpy(path, w.path, strlen(w.path) + 1);
	return 0;
}

int ts_ipt_check(int family, struct ts_err *err)
{
	char path[PATH_MAX];

	return find_tool(family, false, path, sizeof(path), err);
}

/* "iptables -w -t mangle ..." for error messages, truncated to @len. */
static void join_words(char *dst, size_t len, char *const *argv)
{
	size_t used = 0;
	int n;

	dst[0] = '\0';
	for (; *argv && used < len; argv++) {
		n = snprintf(dst + used, len - used, "%s%s", used ? " " : "", *argv);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

int ts_ipt_exec(int netns_fd, int family, const char *const *args, struct ts_err *err)
{
	char path[PATH_MAX], errtxt[256], cmd[256];
	char *argv[EXEC_MAX_ARGS + 1];
	size_t n = 0;
	int ret;

	ret = find_tool(family, false, path, sizeof(path), err);
	if (ret < 0)
		return ret;
	/* The tools want char *const[]; they do not write to their argv. */
	argv[n++] = (char *)tool_name(family, false);
	argv[n++] = (char *)"-w"; /* wait for the xtables lock (legacy backend) */
	for (; *args; args++) {
		if (n >= EXEC_MAX_ARGS) {
			ts_err_set(err, "%s: too many arguments", argv[0]);
			return -E2BIG;
		}
		argv[n++] = (char *)*args;
	}
	argv[n] = NULL;
	ret = ts_prog_run(netns_fd, path, argv, NULL, errtxt, sizeof(errtxt));
	if (ret == 0)
		return 0;
	join_words(cmd, sizeof(cmd), argv);
	if (ret < 0) {
		ts_err_set(err, "cannot run `%s`: %s", cmd, strerror(-ret));
		return ret;
	}
	ts_err_set(err, "`%s` failed (exit %d): %s%s", cmd, ret, errtxt[0] ? errtxt : "no message",
		   strstr(errtxt, "NFQUEUE") ? "; the kernel needs NFQUEUE (xt_NFQUEUE)" : "");
	return -EIO;
}

/* Builds "-t T -A|-D C -m comment --comment TAG SPEC..." into @out. */
static void rule_args(const struct ts_ipt *s, const struct ts_ipt_rule *r, const char *op,
		      const char **out)
{
	size_t n = 0, i;

	out[n++] = "-t";
	out[n++] = r->table;
	out[n++] = op;
	out[n++] = r->chain;
	out[n++] = "-m";
	out[n++] = "comment";
	out[n++] = "--comment";
	out[n++] = s->tag;
	for (i = 0; r->spec[i]; i++)
		out[n++] = r->spec[i];
	out[n] = NULL;
}

static void rule_free(struct ts_ipt_rule *r)
{
	if (r->netns_fd >= 0)
		close(r->netns_fd);
	free(r->mem);
	memset(r, 0, sizeof(*r));
	r->netns_fd = -1;
}

/* Copies table, chain and spec into one allocation owned by @r. */
static int rule_fill(struct ts_ipt_rule *r, const char *table, const char *chain,
		     const char *const *spec, struct ts_err *err)
{
	size_t total = strlen(table) + strlen(chain) + 2, i, len;
	char *p;

	for (i = 0; spec[i]; i++) {
		if (i >= TS_IPT_MAX_ARGS) {
			ts_err_set(err, "iptables rule has more than %d words", TS_IPT_MAX_ARGS);
			return -E2BIG;
		}
		total += strlen(spec[i]) + 1;
	}
	r->mem = malloc(total);
	if (!r->mem) {
		ts_err_set(err, "out of memory for an iptables rule");
		return -ENOMEM;
	}
	p = r->mem;
	len = strlen(table) + 1;
	memcpy(p, table, len);
	r->table = p;
	p += len;
	len = strlen(chain) + 1;
	memcpy(p, chain, len);
	r->chain = p;
	p += len;
	for (i = 0; spec[i]; i++) {
		len = strlen(spec[i]) + 1;
		memcpy(p, spec[i], len);
		r->spec[i] = p;
		p += len;
	}
	r->spec[i] = NULL;
	return 0;
}

int ts_ipt_add(struct ts_ipt *s, int netns_fd, int family, const char *table, const char *chain,
	       const char *const *spec, struct ts_err *err)
{
	const char *args[TS_IPT_MAX_ARGS + 16];
	struct ts_ipt_rule r = {.netns_fd = -1, .family = family}, *grown;
	size_t cap;
	int ret;

	ret = rule_fill(&r, table, chain, spec, err);
	if (ret < 0)
		goto out;
	if (netns_fd >= 0) {
		r.netns_fd = fcntl(netns_fd, F_DUPFD_CLOEXEC, 0);
		if (r.netns_fd < 0) {
			ret = -errno;
			ts_err_set(err, "cannot duplicate a namespace fd: %s", strerror(errno));
			goto out;
		}
	}
	if (s->n == s->cap) {
		cap = s->cap ? s->cap * 2 : 8;
		grown = realloc(s->rules, cap * sizeof(*grown));
		if (!grown) {
			ret = -ENOMEM;
			ts_err_set(err, "out of memory for an iptables rule");
			goto out;
		}
		s->rules = grown;
		s->cap = cap;
	}
	rule_args(s, &r, "-A", args);
	ret = ts_ipt_exec(r.netns_fd, family, args, err);
	if (ret < 0)
		goto out;
	s->rules[s->n++] = r;
	return 0;
out:
	rule_free(&r);
	return ret;
}

int ts_ipt_add_nfqueue(struct ts_ipt *s, int netns_fd, int family, const char *table,
		       const char *chain, enum ts_ipt_dir dir, const char *ifname,
		       unsigned int qnum, unsigned int flags, struct ts_err *err)
{
	char qbuf[16];
	const char *spec[] = {dir == TS_IPT_IN ? "-i" : "-o",
			      ifname,
			      "-j",
			      "NFQUEUE",
			      "--queue-num",
			      qbuf,
			      (flags & TS_IPT_BYPASS) ? "--queue-bypass" : NULL,
			      NULL};

	if (qnum > 65535) {
		ts_err_set(err, "NFQUEUE number %u out of range 0-65535", qnum);
		return -EINVAL;
	}
	snprintf(qbuf, sizeof(qbuf), "%u", qnum);
	return ts_ipt_add(s, netns_fd, family, table, chain, spec, err);
}

int ts_ipt_clear(struct ts_ipt *s, struct ts_err *err)
{
	const char *args[TS_IPT_MAX_ARGS + 16];
	struct ts_err e1;
	int ret = 0, r;

	while (s->n > 0) {
		struct ts_ipt_rule *rule = &s->rules[--s->n];

		rule_args(s, rule, "-D", args);
		r = ts_ipt_exec(rule->netns_fd, rule->family, args, &e1);
		if (r < 0 && ret == 0) {
			ret = r;
			ts_err_set(err, "%s", e1.msg);
		}
		rule_free(rule);
	}
	free(s->rules);
	s->rules = NULL;
	s->cap = 0;
	return ret;
}

int ts_ipt_save(int netns_fd, int family, bool counters, struct ts_buf *out, struct ts_err *err)
{
	char path[PATH_MAX], errtxt[256];
	char *argv[3];
	int ret;

	ret = find_tool(family, true, path, sizeof(path), err);
	if (ret < 0)
		return ret;
	argv[0] = (char *)tool_name(family, true);
	argv[1] = counters ? (char *)"-c" : NULL;
	argv[2] = NULL;
	ret = ts_prog_run(netns_fd, path, argv, out, errtxt, sizeof(errtxt));
	if (ret < 0) {
		ts_err_set(err, "cannot run %s: %s", argv[0], strerror(-ret));
		return ret;
	}
	if (ret > 0) {
		ts_err_set(err, "%s failed (exit %d): %s", argv[0], ret, errtxt);
		return -EIO;
	}
	return 0;
}

int ts_ipt_split(char *line, char **argv, size_t max)
{
	char *r = line, *w = line;
	size_t n = 0;

	for (;;) {
		while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
			r++;
		if (!*r)
			break;
		if (n >= max)
			return -E2BIG;
		argv[n++] = w;
		while (*r && *r != ' ' && *r != '\t' && *r != '\n' && *r != '\r') {
			if (*r != '"') {
				*w++ = *r++;
				continue;
			}
			for (r++; *r != '"'; r++) {
				if (!*r)
					return -EINVAL;
				if (*r == '\\' && r[1])
					r++;
				*w++ = *r;
			}
			r++; /* closing quote */
		}
		/* w never passes r: the NUL lands on the blank just consumed, or earlier. */
		if (*r)
			r++;
		*w++ = '\0';
	}
	argv[n] = NULL;
	return (int)n;
}

int ts_ipt_tag_pid(const char *comment, pid_t *pid)
{
	const char *p;
	long v = 0;

	if (strncmp(comment, TS_IPT_TAG_PREFIX, strlen(TS_IPT_TAG_PREFIX)) != 0)
		return -EINVAL;
	p = comment + strlen(TS_IPT_TAG_PREFIX);
	if (*p < '1' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > INT_MAX)
			return -EINVAL;
	}
	if (*p)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

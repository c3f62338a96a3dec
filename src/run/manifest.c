/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "net/netns.h"
#include "run/manifest.h"
#include "run/session.h"
#include "run/sha256.h"
#include "tasshape/qdisc.h"
#include "ts_buildinfo.h"

const char *ts_build_version(void)
{
	return TS_BUILD_VERSION;
}

const char *ts_build_git_rev(void)
{
	return TS_GIT_REV;
}

char *ts_cmdline_join(char *buf, size_t len, int argc, char *const *argv)
{
	size_t n = 0;
	int i;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < argc && argv[i]; i++) {
		const char *a = argv[i], *c;
		bool plain = *a != '\0';

		for (c = a; *c && plain; c++)
			plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456"
				       "789"
				       "-_=./:,%+@",
				       *c) != NULL;
		if (i && n + 1 < len)
			buf[n++] = ' ';
		if (!plain && n + 1 < len)
			buf[n++] = '\'';
		for (c = a; *c && n + 5 < len; c++) {
			if (!plain && *c == '\'') {
				memcpy(buf + n, "'\\''", 4); /* close, escaped quote, reopen */
				n += 4;
			} else {
				buf[n++] = *c;
			}
		}
		if (!plain && n + 1 < len)
			buf[n++] = '\'';
		buf[n] = '\0';
	}
	return buf;
}

/* A JSON string, or null for NULL. */
static void jstr(FILE *f, const char *s)
{
	const unsigned char *c;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c == '\n')
			fputs("\\n", f);
		else if (*c == '\t')
			fputs("\\t", f);
		else if (*c < 0x20)
			fprintf(f, "\\u%04x", *c);
		else
			fputc(*c, f);
	}
	fputc('"', f);
}

/* Sysctls of the emulated host's namespace (net.* ones are per namespace, the others global). */
static const char *const sysctl_keys[] = {
	"net/ipv4/tcp_congestion_control",
	"net/ipv4/tcp_available_congestion_control",
	"net/ipv4/tcp_allowed_congestion_control",
	"net/ipv4/tcp_limit_output_bytes",
	"net/ipv4/tcp_wmem",
	"net/ipv4/tcp_rmem",
	"net/ipv4/tcp_notsent_lowat",
	"net/ipv4/tcp_ecn",
	"net/ipv4/tcp_sack",
	"net/ipv4/tcp_timestamps",
	"net/ipv4/tcp_no_metrics_save",
	"net/ipv4/tcp_pacing_ss_ratio",
	"net/ipv4/tcp_pacing_ca_ratio",
	"net/core/default_qdisc",
	"net/core/rmem_max",
	"net/core/wmem_max",
};

#define NKEYS (sizeof(sysctl_keys) / sizeof(sysctl_keys[0]))

struct sysctls {
	char val[NKEYS][128];
	bool have[NKEYS];
};

static bool read_proc(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return false;
	n = fread(out, 1, len - 1, f);
	fclose(f);
	out[n] = '\0';
	while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	/* Tabs separate the numbers of tcp_wmem; a space reads better. */
	for (char *c = out; *c; c++)
		if (*c == '\t')
			*c = ' ';
	return true;
}

static int read_sysctls(void *arg)
{
	struct sysctls *s = arg;
	char path[128];
	size_t i;

	for (i = 0; i < NKEYS; i++) {
		snprintf(path, sizeof(path), "/proc/sys/%s", sysctl_keys[i]);
		s->have[i] = read_proc(path, s->val[i], sizeof(s->val[i]));
	}
	return 0;
}

static void write_sysctls(FILE *f, const char *key, int netns_fd)
{
	struct sysctls s;
	struct ts_err err;
	size_t i;

	memset(&s, 0, sizeof(s));
	if (netns_fd >= 0)
		ts_netns_run(netns_fd, read_sysctls, &s, &err);
	else
		read_sysctls(&s);
	fprintf(f, "  \"%s\": {", key);
	for (i = 0; i < NKEYS; i++) {
		char name[128], *c;

		snprintf(name, sizeof(name), "%s", sysctl_keys[i]);
		for (c = name; *c; c++)
			if (*c == '/')
				*c = '.';
		fprintf(f, "%s\n    \"%s\": ", i ? "," : "", name);
		jstr(f, s.have[i] ? s.val[i] : NULL);
	}
	fputs("\n  },\n", f);
}

/* Offloads through the legacy ethtool ioctls: one value each, no feature-name tables. */
static const struct {
	const char *name;
	uint32_t cmd;
} offloads[] = {
	{"tso", ETHTOOL_GTSO}, {"gso", ETHTOOL_GGSO},	     {"gro", ETHTOOL_GGRO},
	{"sg", ETHTOOL_GSG},   {"tx_csum", ETHTOOL_GTXCSUM}, {"rx_csum", ETHTOOL_GRXCSUM},
};

#define NOFF (sizeof(offloads) / sizeof(offloads[0]))

struct off_arg {
	const char *ifname;
	int val[NOFF]; /* 0/1, -1 unknown */
};

static int read_offloads(void *arg)
{
	struct off_arg *a = arg;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	size_t i;

	for (i = 0; i < NOFF; i++)
		a->val[i] = -1;
	if (fd < 0)
		return -errno;
	for (i = 0; i < NOFF; i++) {
		struct ethtool_value ev = {.cmd = offloads[i].cmd};
		struct ifreq ifr;

		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", a->ifname);
		ifr.ifr_data = (void *)&ev;
		if (ioctl(fd, SIOCETHTOOL, &ifr) == 0)
			a->val[i] = ev.data ? 1 : 0;
	}
	close(fd);
	return 0;
}

static void write_offloads(FILE *f, const struct ts_manifest *m)
{
	bool first = true;
	size_t i, k;

	fputs("  \"offloads\": {", f);
	for (k = 0; k < sizeof(m->ifs) / sizeof(m->ifs[0]); k++) {
		struct off_arg a = {.ifname = m->ifs[k].ifname};
		struct ts_err err;

		if (!a.ifname || !a.ifname[0])
			continue;
		if (ts_netns_run(m->ifs[k].netns_fd, read_offloads, &a, &err) < 0)
			for (i = 0; i < NOFF; i++)
				a.val[i] = -1;
		fprintf(f, "%s\n    ", first ? "" : ",");
		jstr(f, a.ifname);
		fputs(": {\"role\": ", f);
		jstr(f, m->ifs[k].role);
		for (i = 0; i < NOFF; i++)
			fprintf(f, ", \"%s\": %s", offloads[i].name,
				a.val[i] < 0 ? "null"
				: a.val[i]   ? "true"
					     : "false");
		fputc('}', f);
		first = false;
	}
	fputs("\n  },\n", f);
}

static void write_trace(FILE *f, const char *option, const char *spec, bool *first)
{
	char hex[2 * TS_SHA256_LEN + 1], *real = NULL;
	int ret;

	if (!spec)
		return;
	fprintf(f, "%s\n    {\"option\": \"%s\", \"spec\": ", *first ? "" : ",", option);
	jstr(f, spec);
	*first = false;
	if (!strncmp(spec, "const:", 6)) {
		fputs(", \"sha256\": null}", f);
		return;
	}
	real = realpath(spec, NULL);
	fputs(", \"path\": ", f);
	jstr(f, real ? real : spec);
	free(real);
	ret = ts_sha256_file(spec, hex);
	fputs(", \"sha256\": ", f);
	jstr(f, ret < 0 ? NULL : hex);
	fputc('}', f);
}

static void write_time(FILE *f, const char *key, int64_t wall_ns)
{
	char buf[64];
	time_t s = (time_t)(wall_ns / 1000000000);
	struct tm tm;

	if (!wall_ns) {
		fprintf(f, "  \"%s\": null,\n", key);
		return;
	}
	gmtime_r(&s, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(f, "  \"%s\": \"%s.%09lldZ\",\n", key, buf, (long long)(wall_ns % 1000000000));
}

static void write_link(FILE *f, const struct ts_linkcfg *l)
{
	static const char *const dn[2] = {"uplink", "downlink"};
	int i;

	fprintf(f, "  \"link\": {\"delay_ns\": %lld, \"seed\": %llu, \"once\": %s",
		(long long)l->delay, (unsigned long long)l->seed, l->once ? "true" : "false");
	for (i = 0; i < 2; i++) {
		fprintf(f, ", \"%s\": {\"trace\": ", dn[i]);
		jstr(f, l->cap[i] ? l->cap[i]->name : NULL);
		fputs(", \"queue\": ", f);
		jstr(f, l->queue[i] ? l->queue[i] : TS_QDISC_DEFAULT);
		fputs(", \"loss\": ", f);
		jstr(f, l->loss[i]);
		fprintf(f, ", \"place\": \"%s\"}", ts_place_name(l->place[i]));
	}
	fputs("},\n", f);
}

int ts_manifest_write(const struct ts_manifest *m, struct ts_err *err)
{
	const struct ts_run_common *c = m->common;
	char line[8192];
	struct utsname u;
	bool first = true;
	FILE *f;
	unsigned int i;
	int ret;

	f = fopen(m->path, "we");
	if (!f) {
		ret = -errno;
		ts_err_set(err, "%s: cannot create: %s", m->path, strerror(errno));
		return ret;
	}
	fputs("{\n  \"tasshape_version\": ", f);
	jstr(f, ts_build_version());
	fputs(",\n  \"git_revision\": ", f);
	jstr(f, ts_build_git_rev());
	fputs(",\n  \"mode\": ", f);
	jstr(f, m->mode);
	fputs(",\n  \"command_line\": ", f);
	jstr(f, ts_cmdline_join(line, sizeof(line), c->argc, c->argv));
	fputs(",\n  \"argv\": [", f);
	for (i = 0; i < (unsigned int)c->argc && c->argv[i]; i++) {
		fputs(i ? ", " : "", f);
		jstr(f, c->argv[i]);
	}
	fputs("],\n", f);
	write_time(f, "start", m->start_wall_ns);
	write_time(f, "end", m->end_wall_ns);
	fputs("  \"stop\": ", f);
	jstr(f, m->stop);
	fputs(",\n  \"exit_code\": ", f);
	if (m->exit_code >= 0)
		fprintf(f, "%d", m->exit_code);
	else
		fputs("null", f);
	fprintf(f, ",\n  \"seed\": %llu,\n  \"traces\": [", (unsigned long long)m->link->seed);
	write_trace(f, "--trace", m->link->trace, &first);
	write_trace(f, "--uplink-trace", m->link->dir_trace[0], &first);
	write_trace(f, "--downlink-trace", m->link->dir_trace[1], &first);
	fputs("\n  ],\n", f);
	write_link(f, m->link);
	fprintf(f,
		"  \"run\": {\"gso\": %s, \"duration_ns\": %lld, \"kernel_queue\": %u, "
		"\"descriptors\": %u, \"stats_interval_ns\": %lld, \"sockstats_interval_ns\": "
		"%lld, \"pcap_snaplen\": %u},\n",
		c->gso ? "true" : "false", (long long)c->duration, c->queue_len, c->pool,
		(long long)c->obs.interval, (long long)c->obs.sock_interval, c->obs.snaplen);
	if (uname(&u) == 0)
		fprintf(f,
			"  \"kernel\": {\"sysname\": \"%s\", \"release\": \"%s\", \"version\": "
			"\"%s\", \"machine\": \"%s\"},\n",
			u.sysname, u.release, u.version, u.machine);
	else
		fputs("  \"kernel\": null,\n", f);
	fputs("  \"congestion_control\": {\"seen\": [", f);
	for (i = 0; m->obs && i < m->obs->nccas; i++) {
		fputs(i ? ", " : "", f);
		jstr(f, m->obs->ccas[i]);
	}
	fputs("]},\n", f);
	write_sysctls(f, "sysctls", m->cmd_netns_fd);
	write_sysctls(f, "host_sysctls", -1);
	write_offloads(f, m);
	fputs("  \"files\": [", f);
	for (i = 0; m->obs && i < m->obs->npath; i++) {
		const char *p = m->obs->path[i], *slash = strrchr(p, '/');

		fputs(i ? ", " : "", f);
		jstr(f, slash ? slash + 1 : p);
	}
	fputs("]\n}\n", f);
	if (ferror(f) | (fclose(f) != 0)) {
		ts_err_set(err, "%s: write failed", m->path);
		return -EIO;
	}
	return 0;
}

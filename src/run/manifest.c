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
#include "io/json.h"
#include "run/manifest.h"
#include "run/rt.h"
#include "run/session.h"
#include "io/sha256.h"
#include "tasshape/qdisc.h"
#include "ts_buildinfo.h"
#include "io/outfile.h"

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
	/* Its own TCP hash's buckets, or (negative) the host's shared one's (net/netns_hash.h). */
	"net/ipv4/tcp_ehash_entries",
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

static struct json_object *json_sysctls(int netns_fd, bool *nomem)
{
	struct json_object *o = json_object_new_object();
	struct sysctls s;
	struct ts_err err;
	size_t i;

	memset(&s, 0, sizeof(s));
	if (netns_fd >= 0)
		ts_netns_run(netns_fd, read_sysctls, &s, &err);
	else
		read_sysctls(&s);
	for (i = 0; o && i < NKEYS; i++) {
		char name[128], *c;

		snprintf(name, sizeof(name), "%s", sysctl_keys[i]);
		for (c = name; *c; c++)
			if (*c == '/')
				*c = '.';
		ts_json_put_str(o, name, s.have[i] ? s.val[i] : NULL, nomem);
	}
	if (!o)
		*nomem = true;
	return o;
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

static struct json_object *json_offloads(const struct ts_manifest *m, bool *nomem)
{
	struct json_object *o = json_object_new_object(), *one;
	size_t i, k;

	for (k = 0; o && k < sizeof(m->ifs) / sizeof(m->ifs[0]); k++) {
		struct off_arg a = {.ifname = m->ifs[k].ifname};
		struct ts_err err;

		if (!a.ifname || !a.ifname[0])
			continue;
		if (ts_netns_run(m->ifs[k].netns_fd, read_offloads, &a, &err) < 0)
			for (i = 0; i < NOFF; i++)
				a.val[i] = -1;
		one = json_object_new_object();
		ts_json_put_str(one, "role", m->ifs[k].role, nomem);
		for (i = 0; one && i < NOFF; i++) {
			if (a.val[i] < 0)
				ts_json_put_str(one, offloads[i].name, NULL, nomem);
			else
				ts_json_put(one, offloads[i].name,
					    json_object_new_boolean(a.val[i]), nomem);
		}
		ts_json_put(o, a.ifname, one, nomem);
	}
	if (!o)
		*nomem = true;
	return o;
}

static void json_trace(struct json_object *arr, const char *option, const char *spec, bool *nomem)
{
	char hex[2 * TS_SHA256_LEN + 1], *real;
	struct json_object *o;

	if (!spec)
		return;
	o = json_object_new_object();
	ts_json_put_str(o, "option", option, nomem);
	ts_json_put_str(o, "spec", spec, nomem);
	if (strncmp(spec, "const:", 6) != 0) {
		real = realpath(spec, NULL);
		ts_json_put_str(o, "path", real ? real : spec, nomem);
		free(real);
		ts_json_put_str(o, "sha256", ts_sha256_file(spec, hex) < 0 ? NULL : hex, nomem);
	} else {
		ts_json_put_str(o, "sha256", NULL, nomem);
	}
	ts_json_append(arr, o, nomem);
}

static void json_time(struct json_object *o, const char *key, int64_t wall_ns, bool *nomem)
{
	char buf[64], out[96];
	time_t s = (time_t)(wall_ns / 1000000000);
	struct tm tm;

	if (!wall_ns) {
		ts_json_put_str(o, key, NULL, nomem);
		return;
	}
	gmtime_r(&s, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, sizeof(out), "%s.%09lldZ", buf, (long long)(wall_ns % 1000000000));
	ts_json_put_str(o, key, out, nomem);
}

static struct json_object *json_link(const struct ts_linkcfg *l, bool *nomem)
{
	static const char *const dn[2] = {"uplink", "downlink"};
	struct json_object *o = json_object_new_object(), *d;
	int i;

	ts_json_put(o, "delay_ns", json_object_new_int64(l->delay), nomem);
	ts_json_put(o, "seed", ts_json_count(l->seed), nomem);
	ts_json_put(o, "once", json_object_new_boolean(l->once), nomem);
	for (i = 0; i < 2; i++) {
		d = json_object_new_object();
		ts_json_put_str(d, "trace", l->cap[i] ? l->cap[i]->name : NULL, nomem);
		ts_json_put_str(d, "queue", l->queue[i] ? l->queue[i] : TS_QDISC_DEFAULT, nomem);
		ts_json_put_str(d, "loss", l->loss[i], nomem);
		ts_json_put_str(d, "place", ts_place_name(l->place[i]), nomem);
		ts_json_put(o, dn[i], d, nomem);
	}
	return o;
}

static struct json_object *json_run(const struct ts_run_common *c, const struct ts_linkcfg *l,
				    bool *nomem)
{
	struct json_object *o = json_object_new_object();

	/* A link key, kept here where readers of the manifest have always found it. */
	ts_json_put(o, "gso", json_object_new_boolean(l->gso), nomem);
	ts_json_put(o, "duration_ns", json_object_new_int64(c->duration), nomem);
	ts_json_put(o, "kernel_queue", json_object_new_int64(c->queue_len), nomem);
	ts_json_put(o, "descriptors", json_object_new_int64(c->pool), nomem);
	ts_json_put(o, "stats_interval_ns", json_object_new_int64(c->obs.interval), nomem);
	ts_json_put(o, "sockstats_interval_ns", json_object_new_int64(c->obs.sock_interval), nomem);
	ts_json_put(o, "pcap_snaplen", json_object_new_int64(c->obs.snaplen), nomem);
	return o;
}

static struct json_object *json_kernel(bool *nomem)
{
	struct json_object *o;
	struct utsname u;

	if (uname(&u) != 0)
		return NULL;
	o = json_object_new_object();
	ts_json_put_str(o, "sysname", u.sysname, nomem);
	ts_json_put_str(o, "release", u.release, nomem);
	ts_json_put_str(o, "version", u.version, nomem);
	ts_json_put_str(o, "machine", u.machine, nomem);
	return o;
}

static struct json_object *json_manifest(const struct ts_manifest *m, bool *nomem)
{
	const struct ts_run_common *c = m->common;
	struct json_object *o = json_object_new_object(), *a, *cc;
	char line[8192];
	unsigned int i;

	ts_json_put_str(o, "tasshape_version", ts_build_version(), nomem);
	ts_json_put_str(o, "git_revision", ts_build_git_rev(), nomem);
	ts_json_put_str(o, "mode", m->mode, nomem);
	ts_json_put_str(o, "command_line", ts_cmdline_join(line, sizeof(line), c->argc, c->argv),
			nomem);
	a = json_object_new_array();
	for (i = 0; i < (unsigned int)c->argc && c->argv[i]; i++)
		ts_json_append(a, json_object_new_string(c->argv[i]), nomem);
	ts_json_put(o, "argv", a, nomem);
	json_time(o, "start", m->start_wall_ns, nomem);
	json_time(o, "end", m->end_wall_ns, nomem);
	ts_json_put_str(o, "stop", m->stop, nomem);
	if (m->exit_code >= 0)
		ts_json_put(o, "exit_code", json_object_new_int(m->exit_code), nomem);
	else
		ts_json_put_str(o, "exit_code", NULL, nomem);
	ts_json_put(o, "seed", ts_json_count(m->link->seed), nomem);
	a = json_object_new_array();
	json_trace(a, "--trace", m->link->trace, nomem);
	json_trace(a, "--uplink-trace", m->link->dir_trace[0], nomem);
	json_trace(a, "--downlink-trace", m->link->dir_trace[1], nomem);
	ts_json_put(o, "traces", a, nomem);
	ts_json_put(o, "link", json_link(m->link, nomem), nomem);
	ts_json_put(o, "run", json_run(c, m->link, nomem), nomem);
	if (m->rt)
		ts_json_put(o, "scheduling", ts_rt_json(m->rt, nomem), nomem);
	a = json_kernel(nomem);
	if (a)
		ts_json_put(o, "kernel", a, nomem);
	else
		ts_json_put_str(o, "kernel", NULL, nomem);
	cc = json_object_new_object();
	a = json_object_new_array();
	for (i = 0; m->obs && i < m->obs->nccas; i++)
		ts_json_append(a, json_object_new_string(m->obs->ccas[i]), nomem);
	ts_json_put(cc, "seen", a, nomem);
	ts_json_put(o, "congestion_control", cc, nomem);
	ts_json_put(o, "sysctls", json_sysctls(m->cmd_netns_fd, nomem), nomem);
	ts_json_put(o, "host_sysctls", json_sysctls(-1, nomem), nomem);
	ts_json_put(o, "offloads", json_offloads(m, nomem), nomem);
	a = json_object_new_array();
	for (i = 0; m->obs && i < m->obs->npath; i++) {
		const char *p = m->obs->path[i], *slash = strrchr(p, '/');

		ts_json_append(a, json_object_new_string(slash ? slash + 1 : p), nomem);
	}
	ts_json_put(o, "files", a, nomem);
	if (!o)
		*nomem = true;
	return o;
}

int ts_manifest_write(const struct ts_manifest *m, struct ts_err *err)
{
	bool nomem = false;
	struct json_object *o = json_manifest(m, &nomem);
	FILE *f = NULL;
	int ret = -ENOMEM;

	if (nomem) {
		ts_err_set(err, "%s: out of memory", m->path);
		goto out;
	}
	f = ts_out_fopen(m->path, err);
	if (!f) {
		ret = -errno;
		goto out;
	}
	ret = ts_json_write(f, o, TS_JSON_PRETTY);
	if (fclose(f) != 0 && !ret)
		ret = -EIO;
	if (ret)
		ts_err_set(err, "%s: write failed", m->path);
out:
	json_object_put(o);
	return ret;
}

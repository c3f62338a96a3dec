/* SPDX-License-Identifier: MIT */
/*
 * The station's TSQ budget (run/tsq_station_priv.h): the levers the kernel
 * offers. The station namespace's pacing ratios (tcp_pacing_ss_ratio,
 * tcp_pacing_ca_ratio) set an unpaced socket's TSQ limit and TSO
 * autosizing; tcp_limit_output_bytes caps that limit. They are scaled for
 * the run and restored after it. The tas module's own shifts are read
 * where it is loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "net/netns.h"
#include "net/probe.h"
#include "run/tsq_station_priv.h"
#include "tasshape/wifi6.h"

/* ---- sysctls of the station namespace ---- */

struct sysctl_arg {
	const char *key;
	char val[32];
	bool write;
};

static int sysctl_io(void *p)
{
	struct sysctl_arg *a = p;
	char path[128];
	ssize_t n;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/%s", a->key);
	fd = open(path, (a->write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (a->write) {
		n = write(fd, a->val, strlen(a->val));
		if (n < 0)
			ret = -errno;
	} else {
		n = read(fd, a->val, sizeof(a->val) - 1);
		if (n < 0)
			ret = -errno;
		else
			a->val[n] = 0;
	}
	close(fd);
	return ret;
}

static int sysctl_get(int fd, const char *key, uint64_t *out, struct ts_err *err)
{
	struct sysctl_arg a = {.key = key};
	char *end;
	int ret = ts_netns_run(fd, sysctl_io, &a, err);

	if (ret < 0) {
		ts_err_set(err, "station: cannot read net.ipv4.%s: %s", key, strerror(-ret));
		return ret;
	}
	errno = 0;
	*out = strtoull(a.val, &end, 10);
	if (errno || end == a.val) {
		ts_err_set(err, "station: net.ipv4.%s: '%s' is not a number", key, a.val);
		return -EINVAL;
	}
	return 0;
}

static int sysctl_set(int fd, const char *key, uint64_t v, struct ts_err *err)
{
	struct sysctl_arg a = {.key = key, .write = true};
	int ret;

	snprintf(a.val, sizeof(a.val), "%" PRIu64, v);
	ret = ts_netns_run(fd, sysctl_io, &a, err);
	if (ret < 0)
		ts_err_set(err, "station: cannot set net.ipv4.%s to %" PRIu64 ": %s", key, v,
			   strerror(-ret));
	return ret;
}

/* The shift unpaced sockets get through the ratios: the only one, or tas's steady one. */
static unsigned int lever_shift(const struct ts_tsq_conf *c)
{
	return c->mode == TS_TSQ_TAS ? c->steady : c->shift;
}

int ts_tsqst_lever_station(const struct ts_linkcfg *cfg, int netns_fd, struct ts_err *err)
{
	const struct ts_tsq_conf *c;
	unsigned int shift;
	int ret;

	if (!cfg->wifi6)
		return 0;
	c = &ts_wifi6_conf_of(cfg->wifi6)->tsq;
	if (c->mode == TS_TSQ_KERNEL)
		return 0;
	/* A new namespace starts from the kernel's defaults, 200% and 120%. */
	shift = lever_shift(c);
	ret = sysctl_set(netns_fd, "tcp_pacing_ss_ratio", ts_tsq_ratio(200, shift), err);
	if (ret == 0)
		ret = sysctl_set(netns_fd, "tcp_pacing_ca_ratio", ts_tsq_ratio(120, shift), err);
	return ret;
}

/*
 * With --gso, what makes the budget one of GSO units (tasshape/tsq.h,
 * ts_tsq_gso_scale): the running kernel's skb head, a full unit of 1448-byte
 * segments (the ratios are one value for every socket of the namespace).
 */
static void gso_scale(struct ts_tsqst *t)
{
	unsigned int major = 0, minor = 0;
	struct utsname u;

	t->env.gso_num = t->env.gso_den = 0;
	if (!t->sh->cfg->gso || uname(&u) < 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return;
	ts_tsq_gso_scale(1448, ts_tsq_head(major, minor), 0, &t->env.gso_num, &t->env.gso_den);
}

int ts_tsqst_lever_up(struct ts_tsqst *t, struct ts_err *err)
{
	uint64_t ss, ca, lob;
	int ret;

	ret = sysctl_get(t->station_fd, "tcp_pacing_ss_ratio", &ss, err);
	if (!ret)
		ret = sysctl_get(t->station_fd, "tcp_pacing_ca_ratio", &ca, err);
	if (!ret)
		ret = sysctl_get(t->station_fd, "tcp_limit_output_bytes", &lob, err);
	if (ret < 0)
		return ret;
	t->env.ss_ratio = t->env.ss_applied = (uint32_t)ss;
	t->env.ca_ratio = t->env.ca_applied = (uint32_t)ca;
	t->env.limit_output_bytes = lob;
	if (t->conf.mode == TS_TSQ_KERNEL)
		return 0;
	gso_scale(t);
	t->env.ss_applied = ts_tsq_ratio_scaled((uint32_t)ss, lever_shift(&t->conf), t->env.gso_num,
						t->env.gso_den);
	t->env.ca_applied = ts_tsq_ratio_scaled((uint32_t)ca, lever_shift(&t->conf), t->env.gso_num,
						t->env.gso_den);
	t->lever = true;
	ret = sysctl_set(t->station_fd, "tcp_pacing_ss_ratio", t->env.ss_applied, err);
	if (!ret)
		ret = sysctl_set(t->station_fd, "tcp_pacing_ca_ratio", t->env.ca_applied, err);
	/* The cap of an unpaced socket's limit, in GSO units too. */
	if (!ret && t->env.gso_den) {
		t->env.lob_applied = lob * t->env.gso_num / t->env.gso_den;
		ret = sysctl_set(t->station_fd, "tcp_limit_output_bytes", t->env.lob_applied, err);
	}
	return ret;
}

int ts_tsqst_lever_copy(const struct ts_tsqst *t, int netns_fd, struct ts_err *err)
{
	int ret;

	if (!t->lever)
		return 0;
	ret = sysctl_set(netns_fd, "tcp_pacing_ss_ratio", t->env.ss_applied, err);
	if (!ret)
		ret = sysctl_set(netns_fd, "tcp_pacing_ca_ratio", t->env.ca_applied, err);
	if (!ret && t->env.lob_applied)
		ret = sysctl_set(netns_fd, "tcp_limit_output_bytes", t->env.lob_applied, err);
	return ret;
}

void ts_tsqst_lever_down(struct ts_tsqst *t)
{
	struct ts_err err;

	if (!t->lever)
		return;
	sysctl_set(t->station_fd, "tcp_pacing_ss_ratio", t->env.ss_ratio, &err);
	sysctl_set(t->station_fd, "tcp_pacing_ca_ratio", t->env.ca_ratio, &err);
	if (t->env.lob_applied)
		sysctl_set(t->station_fd, "tcp_limit_output_bytes", t->env.limit_output_bytes,
			   &err);
	t->lever = false;
}

/* The real tas module's shifts, when it is loaded (it writes sk_pacing_shift itself). */
void ts_tsqst_read_tas_params(struct ts_tsqst *t)
{
	static const char dir[] = "/sys/module/tcp_bbr_tas/parameters/";
	char path[128], buf[16];
	unsigned int *dst[2] = {&t->tas_startup, &t->tas_steady};
	const char *name[2] = {"tas_pacing_shift_startup", "tas_pacing_shift_steady"};
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s%s", dir, name[i]);
		if (ts_probe_read(path, buf, sizeof(buf)) <= 0)
			return;
		*dst[i] = (unsigned int)strtoul(buf, NULL, 10);
		if (*dst[i] < TS_TSQ_SHIFT_MIN || *dst[i] > TS_TSQ_SHIFT_MAX)
			return;
	}
	t->tas_params = true;
}

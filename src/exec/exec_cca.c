/* SPDX-License-Identifier: MIT */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "exec/exec.h"
#include "exec/exec_cca.h"
#include "io/sha256.h"
#include "io/sysfile.h"
#include "net/probe.h"

/* uapi values of Linux 6.4 that the build's headers may predate. */
#ifndef BPF_F_LINK
#define BPF_F_LINK (1U << 13) /* struct_ops map registered by a BPF link */
#endif
#define TS_BPF_STRUCT_OPS_ATTACH 44 /* enum bpf_attach_type: BPF_STRUCT_OPS */

#define TAS_PARAMS "/sys/module/tcp_bbr_tas/parameters"

/* The first line of the kernel file @path (net/probe.h's reader), without trailing blanks. */
static int read_line(const char *path, char *buf, size_t len)
{
	int n = ts_probe_read(path, buf, len);

	if (n < 0)
		return n;
	while (n && buf[n - 1] == ' ')
		buf[--n] = '\0';
	return 0;
}

bool ts_exp_cca_available(const char *name)
{
	char list[1024], *tok, *save = NULL;

	if (read_line("/proc/sys/net/ipv4/tcp_available_congestion_control", list, sizeof(list)) <
	    0)
		return false;
	for (tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (!strcmp(tok, name))
			return true;
	return false;
}

/* BBR's version: the module's, else from the size of its socket info. */
static void bbr_version(char *ver, size_t len)
{
	union tcp_cc_info info;
	socklen_t ilen = sizeof(info);
	int fd;

	if (read_line("/sys/module/tcp_bbr/version", ver, len) == 0 && ver[0])
		return;
	snprintf(ver, len, "unknown");
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, "bbr", 3) == 0 &&
	    getsockopt(fd, IPPROTO_TCP, TCP_CC_INFO, &info, &ilen) == 0) {
		if (ilen == sizeof(struct tcp_bbr_info))
			snprintf(ver, len, "1");
		else
			snprintf(ver, len, "unknown (BBR socket info of %u bytes)", (unsigned)ilen);
	}
	close(fd);
}

static int write_param(const char *dir, const char *name, int v, char *back, size_t backlen,
		       struct ts_err *why)
{
	char path[4096], val[16];
	struct ts_err e;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(val, sizeof(val), "%d\n", v);
	if (ts_sysfile_write(dir, name, val, &e) < 0) {
		ts_err_set(why, "tas: %.400s", e.msg);
		return -EIO;
	}
	if (read_line(path, back, backlen) < 0) {
		ts_err_set(why, "tas: cannot read back %.300s", path);
		return -EIO;
	}
	val[strcspn(val, "\n")] = '\0';
	if (strcmp(val, back)) {
		ts_err_set(why, "tas: wrote %s to %.300s, read back %s", val, path, back);
		return -EIO;
	}
	return 0;
}

int ts_exp_tas_shifts(const char *dir, int startup, int steady, char su[16], char st[16],
		      struct ts_err *why)
{
	char path[4096];
	int ret;

	if (access(dir, F_OK) < 0) {
		ts_err_set(why, "tas: module tcp_bbr_tas not loaded (no %.300s)", dir);
		return -ENOENT;
	}
	if (startup >= 0 &&
	    (ret = write_param(dir, "tas_pacing_shift_startup", startup, su, 16, why)) < 0)
		return ret;
	if (steady >= 0 &&
	    (ret = write_param(dir, "tas_pacing_shift_steady", steady, st, 16, why)) < 0)
		return ret;
	/* Record what the module runs with, written or not. */
	snprintf(path, sizeof(path), "%s/tas_pacing_shift_startup", dir);
	read_line(path, su, 16);
	snprintf(path, sizeof(path), "%s/tas_pacing_shift_steady", dir);
	read_line(path, st, 16);
	return 0;
}

static int acquire_tas(struct ts_exp_cca *c, int startup, int steady, struct ts_err *why)
{
	if (access(TAS_PARAMS, F_OK) < 0) {
		ts_err_set(why, "tas: module tcp_bbr_tas not loaded (no %s)", TAS_PARAMS);
		return -ENOENT;
	}
	if (!ts_exp_cca_available("tas")) {
		ts_err_set(why, "tas: not in tcp_available_congestion_control");
		return -ENOENT;
	}
	c->tas = true;
	snprintf(c->name, sizeof(c->name), "tas");
	return ts_exp_tas_shifts(TAS_PARAMS, startup, steady, c->tas_startup, c->tas_steady, why);
}

/*
 * The name the object registered: the one entry of the kernel's list that
 * was not there before. (libbpf 1.1 keeps a struct_ops map's initial value
 * to itself, so the list is the reliable witness; a concurrent
 * registration by someone else would show as a second new name, which is
 * refused rather than guessed.)
 */
static int new_name(const char *before, char *name, size_t len)
{
	char after[1024], *tok, *save = NULL;
	int found = 0;

	if (read_line("/proc/sys/net/ipv4/tcp_available_congestion_control", after, sizeof(after)) <
	    0)
		return -EIO;
	for (tok = strtok_r(after, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char pad[1100];

		snprintf(pad, sizeof(pad), " %s ", before);
		if (strstr(pad, tok) && strstr(pad, tok)[-1] == ' ' &&
		    strstr(pad, tok)[strlen(tok)] == ' ')
			continue;
		snprintf(name, len, "%s", tok);
		found++;
	}
	return found == 1 ? 0 : -EINVAL;
}

static int acquire_bpf(struct ts_exp_cca *c, const char *path, struct ts_err *why)
{
	struct bpf_map *map, *ops = NULL;
	char before[1024];
	int ret;

	snprintf(c->bpf_path, sizeof(c->bpf_path), "%s", path);
	ret = ts_sha256_file(path, c->bpf_sha256);
	if (ret < 0) {
		ts_err_set(why, "bpf:%s: cannot read: %s", path, strerror(-ret));
		return ret;
	}
	c->obj = bpf_object__open_file(path, NULL);
	if (!c->obj) {
		ret = -errno;
		ts_err_set(why, "bpf:%s: not a BPF object: %s", path, strerror(errno));
		return ret;
	}
	bpf_object__for_each_map(map, c->obj)
	{
		if (bpf_map__type(map) != BPF_MAP_TYPE_STRUCT_OPS)
			continue;
		if (ops) {
			ts_err_set(why, "bpf:%s: more than one struct_ops map", path);
			return -EINVAL;
		}
		ops = map;
	}
	if (!ops) {
		ts_err_set(why, "bpf:%s: no struct_ops map (SEC(\".struct_ops\"))", path);
		return -EINVAL;
	}
	if (read_line("/proc/sys/net/ipv4/tcp_available_congestion_control", before,
		      sizeof(before)) < 0) {
		ts_err_set(why, "bpf:%s: cannot read tcp_available_congestion_control", path);
		return -EIO;
	}
	/* A link-registered map: the kernel unregisters it when the link's last fd closes. */
	bpf_map__set_map_flags(ops, bpf_map__map_flags(ops) | BPF_F_LINK);
	ret = bpf_object__load(c->obj);
	if (ret < 0) {
		ts_err_set(why, "bpf:%s: the kernel refused it: %s", path, strerror(-ret));
		return ret;
	}
	/* Fills the map's value (a link map is only made ready by this, not registered). */
	c->ops = bpf_map__attach_struct_ops(ops);
	if (!c->ops) {
		ret = -errno;
		ts_err_set(why, "bpf:%s: cannot set the struct_ops value: %s", path,
			   strerror(errno));
		return ret;
	}
	c->link_fd = bpf_link_create(bpf_map__fd(ops), 0, TS_BPF_STRUCT_OPS_ATTACH, NULL);
	if (c->link_fd < 0) {
		ret = c->link_fd;
		c->link_fd = -1;
		/* EEXIST: a congestion control of the same name is registered already. */
		ts_err_set(why, "bpf:%s: cannot register it through a BPF link: %s", path,
			   strerror(-ret));
		return ret;
	}
	if (new_name(before, c->name, sizeof(c->name)) < 0) {
		ts_err_set(why,
			   "bpf:%s: registered, but not exactly one new name appeared in "
			   "tcp_available_congestion_control",
			   path);
		return -EINVAL;
	}
	return 0;
}

int ts_exp_cca_acquire(struct ts_exp_cca *c, const char *cca, int shift_startup, int shift_steady,
		       struct ts_err *why)
{
	int ret = 0;

	memset(c, 0, sizeof(*c));
	c->link_fd = -1;
	snprintf(c->requested, sizeof(c->requested), "%s", cca ? cca : "");
	if (!cca || !cca[0]) {
		ts_err_set(why, "no congestion control given");
		return -EINVAL;
	}
	if (!strncmp(cca, "bpf:", 4)) {
		ret = acquire_bpf(c, cca + 4, why);
	} else if (!strcmp(cca, "tas")) {
		ret = acquire_tas(c, shift_startup, shift_steady, why);
	} else {
		const char *name = strcmp(cca, "bbr3") ? cca : "bbr";

		snprintf(c->name, sizeof(c->name), "%s", name);
		if (!ts_exp_cca_available(name)) {
			ts_err_set(why, "%s: not in this kernel's tcp_available_congestion_control",
				   cca);
			ret = -ENOENT;
		} else if (!strcmp(name, "bbr")) {
			bbr_version(c->version, sizeof(c->version));
			if (!strcmp(cca, "bbr3") && strcmp(c->version, "3")) {
				ts_err_set(why, "bbr3: this kernel's bbr is version %s",
					   c->version);
				ret = -ENOENT;
			}
		}
	}
	if (ret < 0)
		ts_exp_cca_release(c);
	return ret;
}

void ts_exp_cca_release(struct ts_exp_cca *c)
{
	if (c->link_fd >= 0)
		close(c->link_fd);
	c->link_fd = -1;
	if (c->ops) {
		/* The value is unregistered with the link; the handle holds nothing more. */
		bpf_link__disconnect(c->ops);
		bpf_link__destroy(c->ops);
		c->ops = NULL;
	}
	if (c->obj)
		bpf_object__close(c->obj);
	c->obj = NULL;
}

int ts_exp_cca_probe(const char *cca, struct ts_err *why)
{
	struct ts_exp_cca c;
	int ret = ts_exp_cca_acquire(&c, cca, -1, -1, why);

	ts_exp_cca_release(&c);
	return ret;
}

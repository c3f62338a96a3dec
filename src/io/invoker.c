/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/invoker.h"

/* The umask tasshape was started with: process-wide, as the umask itself is. */
static mode_t ts_user_umask = 022;

/* One id: digits only, below (id_t)-1. Returns 0 or -EINVAL with @err set. */
static int parse_id(const char *name, const char *s, uint32_t *out, struct ts_err *err)
{
	uint64_t v = 0;
	const char *p;

	if (!*s) {
		ts_err_set(err, "%s is empty: expected a decimal id", name);
		return -EINVAL;
	}
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9') {
			ts_err_set(err, "%s='%.32s': expected a decimal id (digits only)", name, s);
			return -EINVAL;
		}
		v = v * 10 + (uint64_t)(*p - '0');
		if (v >= UINT32_MAX) {
			ts_err_set(err, "%s='%.32s': expected an id below 4294967295", name, s);
			return -EINVAL;
		}
	}
	*out = (uint32_t)v;
	return 0;
}

int ts_invoker_parse(const char *uid, const char *gid, struct ts_invoker *inv, struct ts_err *err)
{
	uint32_t u, g;
	int ret;

	inv->sudo = false;
	if (!uid && !gid)
		return 0;
	if (!uid || !gid) {
		ts_err_set(err, "%s is set but %s is not (sudo sets both)",
			   uid ? "SUDO_UID" : "SUDO_GID", uid ? "SUDO_GID" : "SUDO_UID");
		return -EINVAL;
	}
	ret = parse_id("SUDO_UID", uid, &u, err);
	if (!ret)
		ret = parse_id("SUDO_GID", gid, &g, err);
	if (ret)
		return ret;
	inv->uid = (uid_t)u;
	inv->gid = (gid_t)g;
	inv->sudo = true;
	return 0;
}

int ts_invoker_get(struct ts_invoker *inv, struct ts_err *err)
{
	int ret = ts_invoker_parse(getenv("SUDO_UID"), getenv("SUDO_GID"), inv, err);

	if (!ret && !inv->sudo) {
		inv->uid = getuid();
		inv->gid = getgid();
	}
	return ret;
}

/* @c's passwd part: name, home and groups (as initgroups would set them). 0 or -errno. */
static int creds_named(const struct passwd *pw, struct ts_invoker_creds *c, struct ts_err *err)
{
	int n = TS_INVOKER_MAX_GROUPS - 1; /* room for the extra group */

	if (strlen(pw->pw_name) >= sizeof(c->user) || strlen(pw->pw_dir) >= sizeof(c->home)) {
		ts_err_set(err, "the invoking user's name or home directory is too long");
		return -ENAMETOOLONG;
	}
	if (getgrouplist(pw->pw_name, c->gid, c->groups, &n) < 0) {
		ts_err_set(err, "user %s is in more than %d groups", pw->pw_name,
			   TS_INVOKER_MAX_GROUPS - 1);
		return -E2BIG;
	}
	c->ngroups = (size_t)n;
	snprintf(c->user, sizeof(c->user), "%s", pw->pw_name);
	snprintf(c->home, sizeof(c->home), "%s", pw->pw_dir);
	c->named = true;
	return 0;
}

int ts_invoker_creds(const struct ts_invoker *inv, gid_t extra, struct ts_invoker_creds *c,
		     struct ts_err *err)
{
	struct passwd *pw;
	size_t i;
	int ret;

	memset(c, 0, sizeof(*c));
	c->uid = inv->uid;
	c->gid = inv->gid;
	c->drop = inv->sudo && inv->uid != 0;
	if (!c->drop)
		return 0;
	pw = getpwuid(inv->uid);
	if (pw) {
		ret = creds_named(pw, c, err);
		if (ret < 0)
			return ret;
	}
	/* No passwd entry: no supplementary group, only the one of SUDO_GID. */
	/* Root's group would give far more than the device: never added. */
	if (extra == (gid_t)-1 || extra == 0)
		return 0;
	for (i = 0; i < c->ngroups; i++)
		if (c->groups[i] == extra)
			return 0;
	c->groups[c->ngroups++] = extra;
	return 0;
}

int ts_invoker_become(const struct ts_invoker_creds *c)
{
	if (!c->drop)
		return 0;
	if (setgroups(c->ngroups, c->groups) < 0 || setgid(c->gid) < 0 || setuid(c->uid) < 0)
		return -errno;
	/* Root cannot come back: a setuid that still worked would mean the drop did not. */
	if (getuid() != c->uid || geteuid() != c->uid || getgid() != c->gid ||
	    getegid() != c->gid || setuid(0) == 0)
		return -EPERM;
	return 0;
}

/* Rootless: the owner every unmapped file shows (ts_invoker_set_rootless); -1: none. */
static uid_t ts_unmapped_owner = (uid_t)-1;

bool ts_invoker_trusts(const struct ts_invoker *inv, uid_t owner)
{
	return owner == 0 || owner == inv->uid ||
	       (ts_unmapped_owner != (uid_t)-1 && owner == ts_unmapped_owner);
}

void ts_invoker_set_rootless(void)
{
	char buf[16] = "";
	char *end;
	unsigned long v;
	ssize_t n;
	int fd;

	ts_unmapped_owner = 65534;
	fd = open("/proc/sys/kernel/overflowuid", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (!errno && end != buf && (*end == '\n' || !*end) && v < 4294967295ul)
		ts_unmapped_owner = (uid_t)v;
}

void ts_invoker_umask_harden(void)
{
	ts_user_umask = umask(022);
	umask(ts_user_umask | 022);
}

mode_t ts_invoker_umask(void)
{
	return ts_user_umask;
}

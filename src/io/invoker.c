/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
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

bool ts_invoker_trusts(const struct ts_invoker *inv, uid_t owner)
{
	return owner == 0 || owner == inv->uid;
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

/* SPDX-License-Identifier: MIT */
/*
 * Namespaces with their own TCP established hash (net/netns_hash.h): the
 * wrapper's station namespace and `exp`'s far side, so that socket
 * sampling walks a table of their own, not the host's.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "net/netns_hash.h"

#define CHILD_EHASH_KEY "net/ipv4/tcp_child_ehash_entries"

/* The namespace, pinned under /run/netns or not. */
static int create(struct ts_netns *ns, const char *name, bool pinned, struct ts_err *err)
{
	return pinned ? ts_netns_create(ns, name, err) : ts_netns_create_anon(ns, name, err);
}

int ts_netns_create_hashed(struct ts_netns *ns, const char *name, bool pinned, struct ts_err *err)
{
	char value[16];
	struct ts_err e;
	int self, ret = 1;

	self = ts_netns_current(err);
	if (self < 0)
		return self;
	/* The anonymous namespace lives as long as this thread stays in it: no name, no leftovers. */
	if (unshare(CLONE_NEWNET) == 0) {
		snprintf(value, sizeof(value), "%d", TS_NETNS_EHASH_ENTRIES);
		/* -ENOENT before Linux 5.19: then the namespace is made from the caller's below. */
		if (ts_sysctl_write(CHILD_EHASH_KEY, value, &e) == 0)
			ret = create(ns, name, pinned, err);
		if (setns(self, CLONE_NEWNET) < 0) {
			ts_err_set(err, "cannot return to the original network namespace: %s",
				   strerror(errno));
			if (ret == 0)
				ts_netns_destroy(ns, NULL);
			ret = -ENOTRECOVERABLE;
		}
	}
	close(self);
	if (ret == 1)
		ret = create(ns, name, pinned, err);
	return ret;
}

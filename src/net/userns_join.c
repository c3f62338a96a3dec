/* SPDX-License-Identifier: MIT */
/*
 * Joining a user's own user namespace to shape network namespaces made
 * in it (`tasshape attach` without root; net/userns.h, docs/rootless.md).
 * Shaping a namespace (iptables rules, an NFQUEUE socket) needs
 * CAP_NET_ADMIN in the user namespace that owns it; a user has every
 * capability in a user namespace whose owner is their uid, once joined
 * (user_namespaces(7)). What is joined is decided by the namespace named,
 * not by the caller: its owning user namespace (ioctl_ns(2)
 * NS_GET_USERNS), accepted only when its owner (NS_GET_OWNER_UID) is the
 * caller's real uid, so a user can never reach what another user or root
 * made.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/netns.h"
#include "net/userns.h"

/* Whether the namespaces behind @a and @b are one (same nsfs inode). */
static bool same_ns(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_ino == sb.st_ino &&
	       sa.st_dev == sb.st_dev;
}

/*
 * The user namespace owning @netns_fd, if the caller may join it: a new
 * fd, or a negative errno with @err naming @name and the owner.
 */
static int owning_userns(int netns_fd, const char *name, struct ts_err *err)
{
	uid_t owner = 0, me = getuid();
	int us, self, ret;

	us = ioctl(netns_fd, NS_GET_USERNS);
	if (us < 0) {
		ret = -errno;
		ts_err_set(err, "namespace %s: cannot tell the user namespace that owns it: %s%s",
			   name, strerror(errno),
			   errno == EPERM ? " (one above yours: not yours to shape)" : "");
		return ret;
	}
	if (ioctl(us, NS_GET_OWNER_UID, &owner) < 0) {
		ret = -errno;
		ts_err_set(err, "namespace %s: NS_GET_OWNER_UID: %s", name, strerror(errno));
		goto fail;
	}
	self = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	if (owner != me || self < 0 || same_ns(us, self)) {
		ts_err_set(err,
			   "namespace %s belongs to a user namespace of uid %u%s, not one you "
			   "made (uid %u): shaping it needs CAP_NET_ADMIN there: sudo tasshape "
			   "attach ... (docs/rootless.md)",
			   name, (unsigned)owner,
			   owner == 0 ? " (root's: `ip netns add` makes them there)" : "",
			   (unsigned)me);
		if (self >= 0)
			close(self);
		ret = -EPERM;
		goto fail;
	}
	close(self);
	return us;
fail:
	close(us);
	return ret;
}

int ts_userns_join(int netns_fd, const char *name, int peer_fd, const char *peer,
		   struct ts_err *err)
{
	int us, pus = -1, ret;

	us = owning_userns(netns_fd, name, err);
	if (us < 0)
		return us;
	/* Both ends' rules are made from the one user namespace joined. */
	pus = ioctl(peer_fd, NS_GET_USERNS);
	if (pus < 0 || !same_ns(us, pus)) {
		ts_err_set(err,
			   "the other end's namespace (%s) is not in the user namespace of %s: "
			   "without root, both ends of the veth must be in one user namespace "
			   "of yours (name the other end's with --peer-netns NAME or pid:PID)",
			   peer, name);
		ret = -EPERM;
		goto out;
	}
	if (setns(us, CLONE_NEWUSER) < 0) {
		ret = -errno;
		ts_err_set(err, "cannot enter the user namespace of %s: %s", name, strerror(errno));
		goto out;
	}
	/* Root there is the user here: what the run writes outside stays the user's. */
	if (geteuid() != 0) {
		ts_err_set(err,
			   "in the user namespace of %s your uid is not mapped to 0 (unshare -r, "
			   "or a uid_map line \"0 %u 1\", maps it): attach needs root there",
			   name, (unsigned)getuid());
		ret = -EPERM;
		goto out;
	}
	/* The run then sits in the other end's namespace, as root's runs sit in theirs. */
	if (setns(peer_fd, CLONE_NEWNET) < 0) {
		ret = -errno;
		ts_err_set(err, "cannot enter namespace %s: %s", peer, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (pus >= 0)
		close(pus);
	close(us);
	return ret;
}

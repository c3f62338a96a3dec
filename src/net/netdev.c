/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "net/netdev.h"

/* A sysfs of the calling thread's namespace, mounted nowhere: its fd, or a negative errno. */
static int sysfs_here(const char *ifname, struct ts_err *err)
{
	int fs, mnt = -1, e = 0;

	fs = fsopen("sysfs", FSOPEN_CLOEXEC);
	if (fs >= 0 && fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		mnt = fsmount(fs, FSMOUNT_CLOEXEC,
			      MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (mnt < 0) {
		e = errno;
		ts_err_set(err, "cannot mount a sysfs for %s: %s", ifname, strerror(e));
	}
	if (fs >= 0)
		close(fs);
	return mnt >= 0 ? mnt : -e;
}

int ts_netdev_sysfs_write(const char *ifname, const char *attr, const char *value,
			  struct ts_err *err)
{
	char path[128];
	size_t len = strlen(value);
	int mnt, fd = -1, ret = 0, w;
	ssize_t n;

	w = snprintf(path, sizeof(path), "class/net/%s/%s", ifname, attr);
	if (w < 0 || (size_t)w >= sizeof(path) || strchr(ifname, '/') || !ifname[0]) {
		ts_err_set(err, "bad link name for %s: %s", attr, ifname);
		return -EINVAL;
	}
	/* A new sysfs shows the links of the namespace that mounts it (the thread's). */
	mnt = sysfs_here(ifname, err);
	if (mnt < 0)
		return mnt;
	fd = openat(mnt, path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		ret = -errno;
		ts_err_set(err, "cannot open %s of %s: %s", attr, ifname, strerror(errno));
		goto out;
	}
	n = write(fd, value, len);
	if (n < 0 || (size_t)n != len) {
		ret = n < 0 ? -errno : -EIO;
		ts_err_set(err, "cannot write '%s' to %s of %s: %s", value, attr, ifname,
			   strerror(-ret));
	}
out:
	if (fd >= 0)
		close(fd);
	close(mnt);
	return ret;
}

int ts_netdev_rps_cpus(const char *ifname, const char *mask, struct ts_err *err)
{
	int ret = ts_netdev_sysfs_write(ifname, "queues/rx-0/rps_cpus", mask, err);

	if (ret == -ENOENT)
		ts_err_set(err, "cannot open rps_cpus of %s: %s (a kernel without CONFIG_RPS?)",
			   ifname, strerror(ENOENT));
	return ret;
}

int ts_netdev_offload(const char *ifname, enum ts_netdev_offload o, bool on, struct ts_err *err)
{
	struct ethtool_value ev = {.cmd = o == TS_NETDEV_TSO ? ETHTOOL_STSO : ETHTOOL_SGRO,
				   .data = on};
	struct ifreq ifr;
	int fd, ret = 0;

	memset(&ifr, 0, sizeof(ifr));
	if (strlen(ifname) >= sizeof(ifr.ifr_name)) {
		ts_err_set(err, "link name too long: %s", ifname);
		return -EINVAL;
	}
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	ifr.ifr_data = (char *)&ev;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || ioctl(fd, SIOCETHTOOL, &ifr) < 0) {
		ret = -errno;
		ts_err_set(err, "cannot turn %s %s on %s: %s", o == TS_NETDEV_TSO ? "TSO" : "GRO",
			   on ? "on" : "off", ifname, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

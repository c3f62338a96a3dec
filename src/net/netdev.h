/* SPDX-License-Identifier: MIT */
/*
 * Per-link settings of the calling thread's network namespace that the
 * run tunes on its own veths: Receive Packet Steering, threaded NAPI and
 * the offloads it needs (docs/datapath.md, "One CPU for the loop, the
 * deliveries on the others" and "Deliveries in a kernel thread").
 */
#ifndef TS_NET_NETDEV_H
#define TS_NET_NETDEV_H

#include <stdbool.h>

#include "tasshape/err.h"

/*
 * ts_netdev_sysfs_write - write @value to class/net/@ifname/@attr of a
 * sysfs mounted here for the occasion (fsopen, never attached anywhere),
 * so that it is this namespace's link whatever /sys shows the process.
 * Returns 0 or a negative errno with @err set.
 */
int ts_netdev_sysfs_write(const char *ifname, const char *attr, const char *value,
			  struct ts_err *err);

/*
 * ts_netdev_rps_cpus - write @mask (the kernel's bitmap text, "1") to the
 * rps_cpus of receive queue 0 of link @ifname: Receive Packet Steering then
 * hands what the link receives to those CPUs' backlogs
 * (Documentation/networking/scaling.rst). Returns as ts_netdev_sysfs_write.
 */
int ts_netdev_rps_cpus(const char *ifname, const char *mask, struct ts_err *err);

/* The offloads ts_netdev_offload switches. */
enum ts_netdev_offload {
	TS_NETDEV_TSO, /* TCP segmentation offload (transmit) */
	TS_NETDEV_GRO, /* generic receive offload; on a veth it also turns NAPI on */
};

/*
 * ts_netdev_offload - switch offload @o of link @ifname on or off, as
 * `ethtool -K` does (the SIOCETHTOOL set-value commands). Returns 0 or a
 * negative errno with @err set.
 */
int ts_netdev_offload(const char *ifname, enum ts_netdev_offload o, bool on, struct ts_err *err);

#endif

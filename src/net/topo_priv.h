/* SPDX-License-Identifier: MIT */
/*
 * What topo.c shares with topo_sta.c (the extra Wi-Fi stations): the
 * address plan's helpers and the per-namespace set-up steps.
 */
#ifndef TS_NET_TOPO_PRIV_H
#define TS_NET_TOPO_PRIV_H

#include "net/rtnl.h"
#include "net/topo.h"

/* What ts_topo_ns_sysctls sets in one namespace (see topo.c). */
struct sysctl_arg {
	const char *ifname[2]; /* links of one namespace; NULL when unused */
	bool router;	       /* the link namespace: forwarding on, rp_filter off */
	bool ping_group;       /* the inner namespace of a private topology: ICMP echo sockets */
	struct ts_err *err;
	bool v6; /* out: IPv6 is enabled on the links */
};

/* Run in the namespace (ts_netns_run): accept_dad, and for a router forwarding and rp_filter. */
int ts_topo_ns_sysctls(void *arg);

/* A free /29 and its /61 as seen from @outer, searched from a start derived from @seed. */
int ts_topo_pick_block(const struct ts_topo *t, struct ts_rtnl *outer, uint32_t seed,
		       struct in_addr *net4, struct in6_addr *net6, struct ts_err *err);

void ts_topo_v6_from_v4(struct in6_addr *v6, struct in_addr net);
void ts_topo_set_host(struct in_addr *dst, struct in_addr net, uint32_t host);
void ts_topo_set_host6(struct in6_addr *dst, const struct in6_addr *net, unsigned char host);

/* One link's two ends: addresses of both families (t->v4_plen, t->v6_plen) on each. */
int ts_topo_address_link(struct ts_rtnl *ra, int ia, const struct in_addr *a4,
			 const struct in6_addr *a6, struct ts_rtnl *rb, int ib,
			 const struct in_addr *b4, const struct in6_addr *b6,
			 const struct ts_topo *t, struct ts_err *err);
int ts_topo_lo_up(struct ts_rtnl *r, struct ts_err *err);
int ts_topo_route_pair(const struct ts_topo *t, struct ts_rtnl *r, int ifindex,
		       const struct in_addr *dst4, const struct in6_addr *dst6, unsigned int plen4,
		       unsigned int plen6, const struct in_addr *gw4, const struct in6_addr *gw6,
		       struct ts_err *err);

/* Deletes link @name in namespace @fd; a link already gone is fine. */
int ts_topo_del_link(int fd, const char *name, struct ts_err *err);

/* Removes the extra stations' links and namespaces (topo_sta.c); idempotent. */
int ts_topo_stations_destroy(struct ts_topo *t, struct ts_err *err);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The few rtnetlink requests the topology needs (links, addresses,
 * default routes), sent with libmnl instead of running `ip`. A netlink
 * socket acts on the namespace it was opened in, so one ts_rtnl per
 * namespace.
 */
#ifndef TS_NET_RTNL_H
#define TS_NET_RTNL_H

#include <stdint.h>

#include "tasshape/err.h"

struct mnl_socket;

struct ts_rtnl {
	struct mnl_socket *nl; /* NULL when closed */
	uint32_t portid;
	uint32_t seq;
};

/*
 * ts_rtnl_open - open and bind a NETLINK_ROUTE socket in namespace
 * @netns_fd (-1: the calling thread's). Returns 0 or a negative errno with
 * @err set; on error @r is closed.
 */
int ts_rtnl_open(struct ts_rtnl *r, int netns_fd, struct ts_err *err);

/* ts_rtnl_close - close @r's socket; safe to call twice or on a failed open. */
void ts_rtnl_close(struct ts_rtnl *r);

/*
 * ts_rtnl_veth_add - create the veth pair @name (in @r's namespace) and
 * @peer, created directly in namespace @peer_netns_fd (-1: same as @name).
 * Creating the peer inside the target namespace means there is never a
 * moment where it sits, unnamed by ownership, in the outer namespace.
 * Returns 0, -EEXIST when a link of that name exists, or another negative
 * errno, with @err set.
 */
int ts_rtnl_veth_add(struct ts_rtnl *r, const char *name, const char *peer, int peer_netns_fd,
		     struct ts_err *err);

/*
 * ts_rtnl_link_del - delete link @name (deleting one end of a veth pair
 * deletes both). Returns 0, -ENODEV when it does not exist, or another
 * negative errno, with @err set.
 */
int ts_rtnl_link_del(struct ts_rtnl *r, const char *name, struct ts_err *err);

/*
 * ts_rtnl_link_index - look up link @name. Returns its ifindex (> 0), or
 * -ENODEV when absent, or another negative errno, with @err set.
 */
int ts_rtnl_link_index(struct ts_rtnl *r, const char *name, struct ts_err *err);

/* ts_rtnl_link_up - set IFF_UP on @ifindex. Returns 0 or negative errno, @err set. */
int ts_rtnl_link_up(struct ts_rtnl *r, int ifindex, struct ts_err *err);

/*
 * ts_rtnl_link_tx_dropped - the tx_dropped counter of @ifindex
 * (IFLA_STATS64; for a veth, packets its peer could not take) into *@drops.
 * Returns 0 or a negative errno with @err set.
 */
int ts_rtnl_link_tx_dropped(struct ts_rtnl *r, int ifindex, uint64_t *drops, struct ts_err *err);

/*
 * ts_rtnl_addr_add - add address @addr (struct in_addr or struct in6_addr
 * by @family: AF_INET or AF_INET6) with prefix length @plen on @ifindex.
 * IPv6 addresses are added with IFA_F_NODAD so they are usable at once.
 * Returns 0, -EEXIST when already present, or another negative errno,
 * with @err set.
 */
int ts_rtnl_addr_add(struct ts_rtnl *r, int ifindex, int family, const void *addr,
		     unsigned int plen, struct ts_err *err);

/*
 * ts_rtnl_route_default - add a default route of @family in the main
 * table via gateway @gw (in_addr/in6_addr) out of @ifindex.
 * Returns 0, -EEXIST when a default route exists, or another negative
 * errno, with @err set.
 */
int ts_rtnl_route_default(struct ts_rtnl *r, int family, const void *gw, int ifindex,
			  struct ts_err *err);

/*
 * ts_rtnl_route_add - add a main-table route of @family to @dst/@plen
 * (@dst may be NULL when @plen is 0: a default route) via gateway @gw out
 * of @ifindex. The kernel removes it with the link. Returns 0, -EEXIST
 * when that route exists, or another negative errno, with @err set.
 */
int ts_rtnl_route_add(struct ts_rtnl *r, int family, const void *dst, unsigned int plen,
		      const void *gw, int ifindex, struct ts_err *err);

/*
 * Called once per link by ts_rtnl_link_list; a negative return stops the
 * walk. @peer is IFLA_LINK (for a veth, its peer's ifindex in the peer's
 * namespace), 0 when the link has none.
 */
typedef int (*ts_rtnl_link_fn)(void *arg, int ifindex, const char *name, int peer);

/*
 * ts_rtnl_link_list - call @fn for every link in @r's namespace. @fn must
 * not send requests on @r (the dump is still being read): collect, then act.
 * Returns 0, @fn's negative return, or a negative errno with @err set.
 */
int ts_rtnl_link_list(struct ts_rtnl *r, ts_rtnl_link_fn fn, void *arg, struct ts_err *err);

/* Called once per prefix by ts_rtnl_prefix_list; a negative return stops the walk. */
typedef int (*ts_rtnl_prefix_fn)(void *arg, const void *addr, unsigned int plen);

/*
 * ts_rtnl_prefix_list - call @fn for every prefix of @family in use in
 * @r's namespace: each address with its prefix length, and each
 * main-table route except default routes. This is what a new subnet must
 * not overlap. Same rule as ts_rtnl_link_list for @fn.
 * Returns 0, @fn's negative return, or a negative errno with @err set.
 */
int ts_rtnl_prefix_list(struct ts_rtnl *r, int family, ts_rtnl_prefix_fn fn, void *arg,
			struct ts_err *err);

#endif

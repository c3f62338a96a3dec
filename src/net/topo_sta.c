/* SPDX-License-Identifier: MIT */
/*
 * The topology's extra Wi-Fi stations (--mac wifi6:...,real=N): each a
 * namespace of its own with a veth to the link namespace, which plays the
 * access point for all of them (net/topo.h says where the addresses come
 * from).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "net/netns_hash.h"
#include "net/topo_priv.h"

/* Namespace, veth pair (made in the link namespace, the peer moved into the station's). */
static int sta_make(struct ts_topo *t, struct ts_rtnl *link, unsigned int k, struct ts_err *err)
{
	struct ts_topo_sta *s = &t->sta[k - 1];
	char name[TS_NETNS_NAME_MAX];
	int ret;

	snprintf(name, sizeof(name), "tas-%ld-%u-s%u", (long)t->owner, t->index, k);
	ret = ts_netns_create_hashed(&s->ns, name, !t->private_outer, err);
	if (ret < 0)
		return ret;
	t->nsta = k;
	/* Names only need to be unique in the link and station namespaces, both ours. */
	snprintf(s->veth_l, sizeof(s->veth_l), "tas-s%ud", k);
	snprintf(s->veth_s, sizeof(s->veth_s), "tas-s%ui", k);
	return ts_rtnl_veth_add(link, s->veth_l, s->veth_s, s->ns.fd, err);
}

/* The station's /30, the second of a free /29; hosts .1 (link) and .2 (station). */
static int sta_addresses(struct ts_topo *t, struct ts_rtnl *outer, unsigned int k,
			 struct ts_err *err)
{
	struct ts_topo_sta *s = &t->sta[k - 1];
	char a4[INET_ADDRSTRLEN], a6[INET6_ADDRSTRLEN];
	struct in6_addr net6;
	struct in_addr a;
	int ret;

	ret = ts_topo_pick_block(t, outer, t->index + 1000u * k, &s->v4_net, &net6, err);
	if (ret < 0)
		return ret;
	ts_topo_set_host(&a, s->v4_net, 4);
	ts_topo_set_host(&s->v4_l, a, 1);
	ts_topo_set_host(&s->v4_s, a, 2);
	ts_topo_v6_from_v4(&s->v6_net, a);
	ts_topo_set_host6(&s->v6_l, &s->v6_net, 1);
	ts_topo_set_host6(&s->v6_s, &s->v6_net, 2);
	inet_ntop(AF_INET, &s->v4_net, a4, sizeof(a4));
	inet_ntop(AF_INET6, &net6, a6, sizeof(a6));
	snprintf(s->v4_block, sizeof(s->v4_block), "%s/29", a4);
	snprintf(s->v6_block, sizeof(s->v6_block), "%s/61", a6);
	return 0;
}

/* Sysctls of both ends (as topo.c sets them on the inner pair). */
static int sta_sysctls(struct ts_topo *t, struct ts_topo_sta *s, struct ts_err *err)
{
	struct sysctl_arg in = {.ifname = {s->veth_s}, .ping_group = t->private_outer, .err = err};
	struct sysctl_arg link = {.ifname = {s->veth_l, s->veth_l}, .router = true, .err = err};
	int ret;

	ret = ts_netns_run(s->ns.fd, ts_topo_ns_sysctls, &in, err);
	if (ret == 0)
		ret = ts_netns_run(t->link.fd, ts_topo_ns_sysctls, &link, err);
	return ret;
}

/* Addresses, links up, the station's default route and the outer route to it. */
static int sta_wire(struct ts_topo *t, struct ts_topo_sta *s, struct ts_rtnl *outer,
		    struct ts_rtnl *link, struct ts_rtnl *st, struct ts_err *err)
{
	struct in_addr a;
	int ret;

	ret = ts_rtnl_link_index(link, s->veth_l, err);
	if (ret < 0)
		return ret;
	s->ifindex_l = ret;
	ret = ts_rtnl_link_index(st, s->veth_s, err);
	if (ret < 0)
		return ret;
	s->ifindex_s = ret;
	ret = ts_topo_address_link(link, s->ifindex_l, &s->v4_l, &s->v6_l, st, s->ifindex_s,
				   &s->v4_s, &s->v6_s, t, err);
	if (ret == 0)
		ret = ts_topo_lo_up(st, err);
	if (ret == 0)
		ret = ts_rtnl_link_up(link, s->ifindex_l, err);
	if (ret == 0)
		ret = ts_rtnl_link_up(st, s->ifindex_s, err);
	if (ret == 0)
		ret = ts_topo_route_pair(t, st, s->ifindex_s, NULL, NULL, 0, 0, &s->v4_l, &s->v6_l,
					 err);
	if (ret < 0)
		return ret;
	ts_topo_set_host(&a, s->v4_net, 4);
	return ts_topo_route_pair(t, outer, t->ifindex_out, &a, &s->v6_net, t->v4_plen, t->v6_plen,
				  &t->v4_lu, &t->v6_lu, err);
}

/* The station's block is masqueraded as the run's is (TS_TOPO_NAT_*). */
static int sta_nat(struct ts_topo *t, struct ts_topo_sta *s, struct ts_err *err)
{
	const char *spec4[] = {"-s", s->v4_block, "!", "-o", t->veth_out, "-j", "MASQUERADE", NULL};
	const char *spec6[] = {"-s", s->v6_block, "!", "-o", t->veth_out, "-j", "MASQUERADE", NULL};
	int ret = 0;

	if (t->flags & TS_TOPO_NAT_V4)
		ret = ts_ipt_add(&t->rules, t->outer_fd, AF_INET, "nat", "POSTROUTING", spec4, err);
	if (ret == 0 && (t->flags & TS_TOPO_NAT_V6) && t->v6)
		ret = ts_ipt_add(&t->rules, t->outer_fd, AF_INET6, "nat", "POSTROUTING", spec6,
				 err);
	return ret;
}

static int sta_add(struct ts_topo *t, struct ts_rtnl *outer, struct ts_rtnl *link, unsigned int k,
		   struct ts_err *err)
{
	struct ts_topo_sta *s = &t->sta[k - 1];
	struct ts_rtnl st = {0};
	int ret;

	ret = sta_make(t, link, k, err);
	if (ret == 0)
		ret = sta_sysctls(t, s, err);
	if (ret == 0)
		ret = sta_addresses(t, outer, k, err);
	if (ret == 0)
		ret = ts_rtnl_open(&st, s->ns.fd, err);
	if (ret == 0)
		ret = sta_wire(t, s, outer, link, &st, err);
	if (ret == 0)
		ret = sta_nat(t, s, err);
	ts_rtnl_close(&st);
	return ret;
}

int ts_topo_add_stations(struct ts_topo *t, unsigned int n, struct ts_err *err)
{
	struct ts_rtnl outer = {0}, link = {0};
	unsigned int k;
	int ret;

	if (n > TS_TOPO_STA_MAX) {
		ts_err_set(err, "%u stations beside the first: at most %d", n, TS_TOPO_STA_MAX);
		return -EINVAL;
	}
	ret = ts_rtnl_open(&outer, t->outer_fd, err);
	if (ret == 0)
		ret = ts_rtnl_open(&link, t->link.fd, err);
	for (k = 1; k <= n && ret == 0; k++)
		ret = sta_add(t, &outer, &link, k, err);
	ts_rtnl_close(&link);
	ts_rtnl_close(&outer);
	return ret;
}

int ts_topo_stations_destroy(struct ts_topo *t, struct ts_err *err)
{
	struct ts_err e1;
	unsigned int k;
	int ret = 0, r;

	for (k = t->nsta; k > 0; k--) {
		struct ts_topo_sta *s = &t->sta[k - 1];

		r = 0;
		if (t->link.fd >= 0 && s->veth_l[0])
			r = ts_topo_del_link(t->link.fd, s->veth_l, &e1);
		if (r == 0)
			r = ts_netns_destroy(&s->ns, &e1);
		if (r < 0 && ret == 0) {
			ret = r;
			ts_err_set(err, "%s", e1.msg);
		}
	}
	t->nsta = 0;
	return ret;
}

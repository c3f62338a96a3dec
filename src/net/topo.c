/* SPDX-License-Identifier: MIT */
/*
 * Building and tearing down the emulated host's topology (see topo.h for
 * the layout and the naming/addressing scheme).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/rtnl.h"
#include "net/fwd.h"
#include "net/netns_hash.h"
#include "net/netdev.h"
#include "net/topo.h"
#include "net/topo_priv.h"

#define TOPO_MAX_INDEX 1000 /* keeps "tas<7-digit pid>-<n>o" within 15 characters */
#define SUBNET_PROBES  4096 /* candidate /29s tried per range */

/* IPv4 ranges for emulated links (docs/datapath.md), in order of preference. */
static const struct {
	uint32_t base; /* host order */
	unsigned int plen;
} v4_ranges[] = {
	{0x64400000u, 10}, /* 100.64.0.0/10, shared address space (RFC 6598) */
	{0xc6120000u, 15}, /* 198.18.0.0/15, benchmarking (RFC 2544) */
};

#define V4_BLOCK 29 /* subnet B then subnet A */
#define V4_PLEN	 30
#define V6_BLOCK 61 /* 32 bits of fd74:6173 + the 29 of the IPv4 block */
#define V6_PLEN	 64

/* Prefixes already used in the outer namespace. */
struct used {
	struct pfx {
		unsigned char addr[16];
		unsigned int plen;
	} * p;
	size_t n, cap;
	size_t alen;
};

static int used_add(void *arg, const void *addr, unsigned int plen)
{
	struct used *u = arg;
	struct pfx *grown;

	if (plen == 0)
		return 0; /* a /0 would forbid everything; default routes are skipped too */
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 32;

		grown = realloc(u->p, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		u->p = grown;
		u->cap = cap;
	}
	memcpy(u->p[u->n].addr, addr, u->alen);
	u->p[u->n].plen = plen;
	u->n++;
	return 0;
}

/* True when prefixes a/pa and b/pb overlap: their first min(pa, pb) bits agree. */
static bool overlaps(const unsigned char *a, unsigned int pa, const unsigned char *b,
		     unsigned int pb)
{
	unsigned int m = pa < pb ? pa : pb, i;
	unsigned char mask;

	for (i = 0; i < m / 8; i++)
		if (a[i] != b[i])
			return false;
	if (m % 8 == 0)
		return true;
	mask = (unsigned char)(0xff << (8 - m % 8));
	return (a[i] & mask) == (b[i] & mask);
}

static bool used_overlaps(const struct used *u, const void *addr, unsigned int plen)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		if (overlaps(u->p[i].addr, u->p[i].plen, addr, plen))
			return true;
	return false;
}

/* The IPv6 /64 (or block) that goes with IPv4 network @net: fd74:6173:AABB:CCDD::. */
void ts_topo_v6_from_v4(struct in6_addr *v6, struct in_addr net)
{
	memset(v6, 0, sizeof(*v6));
	v6->s6_addr[0] = 0xfd;
	v6->s6_addr[1] = 0x74; /* 't' */
	v6->s6_addr[2] = 0x61; /* 'a' */
	v6->s6_addr[3] = 0x73; /* 's' */
	memcpy(&v6->s6_addr[4], &net.s_addr, 4);
}

void ts_topo_set_host(struct in_addr *dst, struct in_addr net, uint32_t host)
{
	dst->s_addr = htonl(ntohl(net.s_addr) + host);
}

void ts_topo_set_host6(struct in6_addr *dst, const struct in6_addr *net, unsigned char host)
{
	*dst = *net;
	dst->s6_addr[15] = host;
}

/*
 * Picks a free /29 (and its /61): walk each range from a start derived
 * from pid and @seed, so parallel instances start far apart, and take the
 * first candidate that overlaps nothing in use in namespace @outer.
 */
int ts_topo_pick_block(const struct ts_topo *t, struct ts_rtnl *outer, uint32_t seed,
		       struct in_addr *net4, struct in6_addr *net6, struct ts_err *err)
{
	struct used u4 = {.alen = 4}, u6 = {.alen = 16};
	uint32_t slots, start, k, net;
	struct in_addr cand;
	struct in6_addr cand6;
	size_t r;
	int ret;

	ret = ts_rtnl_prefix_list(outer, AF_INET, used_add, &u4, err);
	if (ret == 0 && t->v6)
		ret = ts_rtnl_prefix_list(outer, AF_INET6, used_add, &u6, err);
	if (ret < 0)
		goto out;
	ret = -EADDRINUSE;
	for (r = 0; r < sizeof(v4_ranges) / sizeof(v4_ranges[0]); r++) {
		slots = 1u << (V4_BLOCK - v4_ranges[r].plen);
		/* Knuth's multiplicative hash spreads consecutive pids. */
		start = ((uint32_t)t->owner * 2654435761u + seed * 40503u) % slots;
		for (k = 0; k < SUBNET_PROBES && k < slots; k++) {
			net = v4_ranges[r].base + ((start + k) % slots) * 8u;
			cand.s_addr = htonl(net);
			ts_topo_v6_from_v4(&cand6, cand);
			if (used_overlaps(&u4, &cand, V4_BLOCK) ||
			    (t->v6 && used_overlaps(&u6, &cand6, V6_BLOCK)))
				continue;
			*net4 = cand;
			*net6 = cand6;
			ret = 0;
			goto out;
		}
	}
	ts_err_set(err, "no free /29 in 100.64.0.0/10 or 198.18.0.0/15 in this namespace "
			"(remove old instances with `tasshape cleanup`)");
out:
	free(u4.p);
	free(u6.p);
	return ret;
}

/* The run's /29: subnet B (outer and link) then subnet A (link and inner). */
static int pick_subnet(struct ts_topo *t, struct ts_rtnl *outer, struct ts_err *err)
{
	struct in_addr a_net;
	struct in6_addr a6;
	int ret;

	ret = ts_topo_pick_block(t, outer, t->index, &t->v4_net, &t->v6_net, err);
	if (ret < 0)
		return ret;
	/* Subnet B = the block's first /30 (outer side), A = its second (inner side). */
	t->v4_plen = V4_PLEN;
	ts_topo_set_host(&t->v4_out, t->v4_net, 1);
	ts_topo_set_host(&t->v4_lu, t->v4_net, 2);
	ts_topo_set_host(&a_net, t->v4_net, 4);
	ts_topo_set_host(&t->v4_ld, a_net, 1);
	ts_topo_set_host(&t->v4_in, a_net, 2);
	t->v6_plen = V6_PLEN;
	ts_topo_set_host6(&t->v6_out, &t->v6_net, 1);
	ts_topo_set_host6(&t->v6_lu, &t->v6_net, 2);
	ts_topo_v6_from_v4(&a6, a_net);
	ts_topo_set_host6(&t->v6_ld, &a6, 1);
	ts_topo_set_host6(&t->v6_in, &a6, 2);
	inet_ntop(AF_INET, &t->v4_net, t->v4_subnet, sizeof(t->v4_subnet));
	snprintf(t->v4_subnet + strlen(t->v4_subnet), sizeof(t->v4_subnet) - strlen(t->v4_subnet),
		 "/%u", V4_BLOCK);
	inet_ntop(AF_INET6, &t->v6_net, t->v6_subnet, sizeof(t->v6_subnet));
	snprintf(t->v6_subnet + strlen(t->v6_subnet), sizeof(t->v6_subnet) - strlen(t->v6_subnet),
		 "/%u", V6_BLOCK);
	return 0;
}

static void topo_init(struct ts_topo *t)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->owner = getpid();
	t->outer_fd = -1;
	t->ifindex_out = -1;
	t->ifindex_lu = -1;
	t->ifindex_ld = -1;
	t->ifindex_in = -1;
	ts_netns_init(&t->inner);
	ts_netns_init(&t->link);
	for (i = 0; i < TS_TOPO_STA_MAX; i++)
		ts_netns_init(&t->sta[i].ns);
	ts_ipt_init(&t->rules, t->owner);
}

/* "tas<pid>-<n>" + o/u/d/i; a Linux pid has at most 7 digits (PID_MAX_LIMIT). */
static int link_names(struct ts_topo *t, struct ts_err *err)
{
	char(*const dst[])[TS_TOPO_IFNAMSIZ] = {&t->veth_out, &t->veth_lu, &t->veth_ld,
						&t->veth_in};
	static const char end[] = "oudi";
	char name[32];
	size_t i;

	for (i = 0; i < sizeof(dst) / sizeof(dst[0]); i++) {
		snprintf(name, sizeof(name), "tas%ld-%u%c", (long)t->owner, t->index, end[i]);
		if (strlen(name) >= TS_TOPO_IFNAMSIZ) {
			ts_err_set(err, "link name %s longer than 15 characters", name);
			return -ENAMETOOLONG;
		}
		memcpy(*dst[i], name, strlen(name) + 1);
	}
	return 0;
}

/*
 * Reserves the lowest free index: inner namespace name first, then the
 * link namespace name and the outer link name (either may be left by a
 * dead process that had our pid: then the next index). The link-to-inner
 * pair is made inside the fresh link namespace, where no name is taken.
 * Both namespaces get their own small TCP hash, so that sampling CMD's
 * sockets does not walk the host's table (net/netns_hash.h).
 */
static int make_ns_and_veth(struct ts_topo *t, struct ts_rtnl *outer, struct ts_err *err)
{
	char name[TS_NETNS_NAME_MAX];
	struct ts_rtnl link = {0};
	unsigned int n;
	int ret = -EEXIST;

	for (n = 0; n < TOPO_MAX_INDEX; n++) {
		snprintf(name, sizeof(name), "tas-%ld-%u", (long)t->owner, n);
		ret = ts_netns_create_hashed(&t->inner, name, !t->private_outer, err);
		if (ret == -EEXIST)
			continue;
		if (ret < 0)
			return ret;
		snprintf(name, sizeof(name), "tas-%ld-%u-link", (long)t->owner, n);
		ret = ts_netns_create_hashed(&t->link, name, !t->private_outer, err);
		if (ret == 0) {
			t->index = n;
			ret = link_names(t, err);
			if (ret < 0)
				return ret;
			ret = ts_rtnl_veth_add(outer, t->veth_out, t->veth_lu, t->link.fd, err);
			if (ret == 0)
				break;
			ts_netns_destroy(&t->link, NULL);
		}
		ts_netns_destroy(&t->inner, NULL);
		if (ret != -EEXIST)
			return ret;
	}
	if (n == TOPO_MAX_INDEX) {
		ts_err_set(
			err,
			"no free tas-%ld-<n> namespace/link name below %d (run `tasshape cleanup`)",
			(long)t->owner, TOPO_MAX_INDEX);
		return ret;
	}
	t->veth_made = true;
	ret = ts_rtnl_open(&link, t->link.fd, err);
	if (ret == 0)
		ret = ts_rtnl_veth_add(&link, t->veth_ld, t->veth_in, t->inner.fd, err);
	ts_rtnl_close(&link);
	return ret;
}

/*
 * accept_dad=0: each link has two ends, both ours, so DAD only adds
 * delay. In the link namespace also forwarding (it is ours and only
 * forwards) and rp_filter off: a new namespace copies the host's
 * defaults, and the effective value is the maximum of "all" and the
 * link's own, so both must be 0 for nothing to be dropped there.
 */
int ts_topo_ns_sysctls(void *arg)
{
	struct sysctl_arg *a = arg;
	char key[96];
	size_t i;
	int ret = 0;

	a->v6 = true;
	for (i = 0; i < 2 && a->ifname[i] && ret == 0; i++) {
		snprintf(key, sizeof(key), "net/ipv6/conf/%s/accept_dad", a->ifname[i]);
		ret = ts_sysctl_write(key, "0", a->err);
		if (ret == -ENOENT) {
			a->v6 = false; /* IPv6 disabled in this kernel: run IPv4 only */
			ret = 0;
		}
	}
	/*
	 * A rootless run's CMD is a user in a user namespace, where ping's file
	 * capability (cap_net_raw) means nothing: ICMP echo sockets for the
	 * group 0 of the run's namespace (the user's own group) let it ping.
	 */
	if (ret == 0 && a->ping_group)
		ret = ts_sysctl_write("net/ipv4/ping_group_range", "0 0", a->err);
	if (ret < 0 || !a->router)
		return ret;
	ret = ts_sysctl_write("net/ipv4/ip_forward", "1", a->err);
	if (ret == 0)
		ret = ts_sysctl_write("net/ipv4/conf/all/rp_filter", "0", a->err);
	if (ret == 0)
		ret = ts_sysctl_write("net/ipv4/conf/default/rp_filter", "0", a->err);
	for (i = 0; i < 2 && ret == 0; i++) {
		snprintf(key, sizeof(key), "net/ipv4/conf/%s/rp_filter", a->ifname[i]);
		ret = ts_sysctl_write(key, "0", a->err);
	}
	if (ret == 0 && a->v6)
		ret = ts_sysctl_write("net/ipv6/conf/all/forwarding", "1", a->err);
	return ret;
}

static int setup_sysctls(struct ts_topo *t, unsigned int flags, struct ts_err *err)
{
	struct sysctl_arg out = {.ifname = {t->veth_out}, .err = err};
	struct sysctl_arg link = {.ifname = {t->veth_lu, t->veth_ld}, .router = true, .err = err};
	struct sysctl_arg in = {.ifname = {t->veth_in}, .ping_group = t->private_outer, .err = err};
	int ret;

	ret = ts_topo_ns_sysctls(&out);
	if (ret == 0)
		ret = ts_netns_run(t->inner.fd, ts_topo_ns_sysctls, &in, err);
	if (ret < 0)
		return ret;
	ret = ts_netns_run(t->link.fd, ts_topo_ns_sysctls, &link, err);
	if (ret < 0)
		return ret;
	t->v6 = out.v6 && in.v6 && link.v6;
	if ((flags & TS_TOPO_FWD_V4) && t->private_outer) {
		/* The run's own namespace: nothing to put back, it goes with the run. */
		ret = ts_sysctl_write("net/ipv4/ip_forward", "1", err);
		if (ret < 0)
			return ret;
	} else if (flags & TS_TOPO_FWD_V4) {
		/* Restored after the last run from this namespace (net/fwd.h). */
		ret = ts_fwd_raise(err);
		if (ret < 0)
			return ret;
	}
	if ((flags & TS_TOPO_FWD_V6) && t->v6)
		ret = ts_sysctl_write("net/ipv6/conf/all/forwarding", "1", err);
	return ret;
}

/* One link's two ends: addresses of both families on each. */
int ts_topo_address_link(struct ts_rtnl *ra, int ia, const struct in_addr *a4,
			 const struct in6_addr *a6, struct ts_rtnl *rb, int ib,
			 const struct in_addr *b4, const struct in6_addr *b6,
			 const struct ts_topo *t, struct ts_err *err)
{
	int ret;

	ret = ts_rtnl_addr_add(ra, ia, AF_INET, a4, t->v4_plen, err);
	if (ret == 0)
		ret = ts_rtnl_addr_add(rb, ib, AF_INET, b4, t->v4_plen, err);
	if (ret == 0 && t->v6)
		ret = ts_rtnl_addr_add(ra, ia, AF_INET6, a6, t->v6_plen, err);
	if (ret == 0 && t->v6)
		ret = ts_rtnl_addr_add(rb, ib, AF_INET6, b6, t->v6_plen, err);
	return ret;
}

int ts_topo_lo_up(struct ts_rtnl *r, struct ts_err *err)
{
	int lo = ts_rtnl_link_index(r, "lo", err);

	return lo < 0 ? lo : ts_rtnl_link_up(r, lo, err);
}

/*
 * Routes to @dst4/@plen4 via @gw4 and (when @t has IPv6) to @dst6/@plen6
 * via @gw6, out of @ifindex; a NULL destination with length 0 is default.
 */
int ts_topo_route_pair(const struct ts_topo *t, struct ts_rtnl *r, int ifindex,
		       const struct in_addr *dst4, const struct in6_addr *dst6, unsigned int plen4,
		       unsigned int plen6, const struct in_addr *gw4, const struct in6_addr *gw6,
		       struct ts_err *err)
{
	int ret = ts_rtnl_route_add(r, AF_INET, dst4, plen4, gw4, ifindex, err);

	if (ret == 0 && t->v6)
		ret = ts_rtnl_route_add(r, AF_INET6, dst6, plen6, gw6, ifindex, err);
	return ret;
}

static int setup_addresses(struct ts_topo *t, struct ts_rtnl *outer, struct ts_rtnl *link,
			   struct ts_rtnl *inner, struct ts_err *err)
{
	struct in_addr a4;
	struct in6_addr a6;
	int ret;

	ret = ts_topo_address_link(outer, t->ifindex_out, &t->v4_out, &t->v6_out, link,
				   t->ifindex_lu, &t->v4_lu, &t->v6_lu, t, err);
	if (ret == 0)
		ret = ts_topo_address_link(link, t->ifindex_ld, &t->v4_ld, &t->v6_ld, inner,
					   t->ifindex_in, &t->v4_in, &t->v6_in, t, err);
	if (ret < 0)
		return ret;
	/* Up before routes: a gateway must be reachable through an up link. */
	ret = ts_topo_lo_up(inner, err);
	if (ret == 0)
		ret = ts_topo_lo_up(link, err);
	/* A private outer namespace is as new as the others: servers there may use lo too. */
	if (ret == 0 && t->private_outer)
		ret = ts_topo_lo_up(outer, err);
	if (ret == 0)
		ret = ts_rtnl_link_up(outer, t->ifindex_out, err);
	if (ret == 0)
		ret = ts_rtnl_link_up(link, t->ifindex_lu, err);
	if (ret == 0)
		ret = ts_rtnl_link_up(link, t->ifindex_ld, err);
	if (ret == 0)
		ret = ts_rtnl_link_up(inner, t->ifindex_in, err);
	if (ret < 0)
		return ret;
	ret = ts_topo_route_pair(t, inner, t->ifindex_in, NULL, NULL, 0, 0, &t->v4_ld, &t->v6_ld,
				 err);
	if (ret == 0)
		ret = ts_topo_route_pair(t, link, t->ifindex_lu, NULL, NULL, 0, 0, &t->v4_out,
					 &t->v6_out, err);
	if (ret < 0)
		return ret;
	/* Subnet A: the /30 after B; its /64 as pick_subnet derived it. */
	a4.s_addr = htonl(ntohl(t->v4_net.s_addr) + 4);
	ts_topo_v6_from_v4(&a6, a4);
	return ts_topo_route_pair(t, outer, t->ifindex_out, &a4, &a6, t->v4_plen, t->v6_plen,
				  &t->v4_lu, &t->v6_lu, err);
}

/* One rule per family: the block covers subnet A (inner) and B (the link namespace's end). */
static int setup_nat(struct ts_topo *t, unsigned int flags, struct ts_err *err)
{
	const char *spec4[] = {"-s",	    t->v4_subnet, "!",		"-o",
			       t->veth_out, "-j",	  "MASQUERADE", NULL};
	const char *spec6[] = {"-s",	    t->v6_subnet, "!",		"-o",
			       t->veth_out, "-j",	  "MASQUERADE", NULL};
	int ret = 0;

	if (flags & TS_TOPO_NAT_V4)
		ret = ts_ipt_add(&t->rules, t->outer_fd, AF_INET, "nat", "POSTROUTING", spec4, err);
	if (ret == 0 && (flags & TS_TOPO_NAT_V6) && t->v6)
		ret = ts_ipt_add(&t->rules, t->outer_fd, AF_INET6, "nat", "POSTROUTING", spec6,
				 err);
	return ret;
}

/* Looks up @name in @r into *@index. */
static int find_link(struct ts_rtnl *r, const char *name, int *index, struct ts_err *err)
{
	int ret = ts_rtnl_link_index(r, name, err);

	if (ret < 0)
		return ret;
	*index = ret;
	return 0;
}

int ts_topo_create(struct ts_topo *t, unsigned int flags, struct ts_err *err)
{
	struct ts_rtnl outer = {0}, link = {0}, inner = {0};
	int ret;

	topo_init(t);
	t->flags = flags;
	t->private_outer = flags & TS_TOPO_PRIVATE;
	if (flags & (TS_TOPO_NAT_V4 | TS_TOPO_NAT_V6)) {
		ret = ts_ipt_check((flags & TS_TOPO_NAT_V4) ? AF_INET : AF_INET6, err);
		if (ret < 0)
			goto out;
	}
	ret = ts_netns_current(err);
	if (ret < 0)
		goto out;
	t->outer_fd = ret;
	ret = ts_rtnl_open(&outer, -1, err);
	if (ret < 0)
		goto out;
	ret = make_ns_and_veth(t, &outer, err);
	if (ret < 0)
		goto out;
	ret = ts_rtnl_open(&link, t->link.fd, err);
	if (ret == 0)
		ret = ts_rtnl_open(&inner, t->inner.fd, err);
	if (ret == 0)
		ret = find_link(&outer, t->veth_out, &t->ifindex_out, err);
	if (ret == 0)
		ret = find_link(&link, t->veth_lu, &t->ifindex_lu, err);
	if (ret == 0)
		ret = find_link(&link, t->veth_ld, &t->ifindex_ld, err);
	if (ret == 0)
		ret = find_link(&inner, t->veth_in, &t->ifindex_in, err);
	if (ret < 0)
		goto out;
	ret = setup_sysctls(t, flags, err);
	if (ret < 0)
		goto out;
	ret = pick_subnet(t, &outer, err);
	if (ret < 0)
		goto out;
	ret = setup_addresses(t, &outer, &link, &inner, err);
	if (ret < 0)
		goto out;
	ret = setup_nat(t, flags, err);
out:
	ts_rtnl_close(&inner);
	ts_rtnl_close(&link);
	ts_rtnl_close(&outer);
	if (ret < 0)
		ts_topo_destroy(t, NULL);
	return ret < 0 ? ret : 0;
}

int ts_topo_queue(struct ts_topo *t, enum ts_topo_hook hook, unsigned int qnum, unsigned int qflags,
		  struct ts_err *err)
{
	const struct {
		int fd;
		const char *chain;
		enum ts_ipt_dir dir;
		const char *ifname;
	} hooks[] = {
		[TS_HOOK_UP_SENDER] = {t->inner.fd, "POSTROUTING", TS_IPT_OUT, t->veth_in},
		[TS_HOOK_UP_NETWORK] = {t->link.fd, "PREROUTING", TS_IPT_IN, t->veth_ld},
		[TS_HOOK_DOWN_NETWORK] = {t->link.fd, "PREROUTING", TS_IPT_IN, t->veth_lu},
	};
	int ret;

	if ((unsigned int)hook >= sizeof(hooks) / sizeof(hooks[0]) || hooks[hook].fd < 0) {
		ts_err_set(err, "ts_topo_queue: bad hook %d or no topology", (int)hook);
		return -EINVAL;
	}
	ret = ts_ipt_add_nfqueue(&t->rules, hooks[hook].fd, AF_INET, "mangle", hooks[hook].chain,
				 hooks[hook].dir, hooks[hook].ifname, qnum, qflags, err);
	if (ret == 0 && t->v6)
		ret = ts_ipt_add_nfqueue(&t->rules, hooks[hook].fd, AF_INET6, "mangle",
					 hooks[hook].chain, hooks[hook].dir, hooks[hook].ifname,
					 qnum, qflags, err);
	return ret;
}

int ts_topo_run_inner(const struct ts_topo *t, int (*fn)(void *arg), void *arg, struct ts_err *err)
{
	return ts_netns_run(t->inner.fd, fn, arg, err);
}

struct rps_arg {
	const char *ifname, *mask;
	struct ts_err *err;
};

static int rps_one(void *arg)
{
	const struct rps_arg *a = arg;

	return ts_netdev_rps_cpus(a->ifname, a->mask, a->err);
}

int ts_topo_steer_rx(const struct ts_topo *t, const char *mask, struct ts_err *err)
{
	struct ts_err e;
	struct rps_arg out = {.ifname = t->veth_out, .mask = mask, .err = err};
	struct rps_arg in = {.ifname = t->veth_in, .mask = mask, .err = err};
	struct rps_arg undo = {.ifname = t->veth_out, .mask = "0", .err = &e};
	int ret, ret2;

	ret = ts_netns_run(t->outer_fd, rps_one, &out, err);
	if (ret < 0)
		return ret;
	ret = ts_netns_run(t->inner.fd, rps_one, &in, err);
	if (ret < 0 && ret != -ENOTRECOVERABLE) {
		/* Both ends or neither: the caller then leaves the deliveries in the loop. */
		ret2 = ts_netns_run(t->outer_fd, rps_one, &undo, &e);
		if (ret2 == -ENOTRECOVERABLE) {
			*err = e;
			ret = ret2;
		}
	}
	return ret;
}

/*
 * The two veth pairs a released packet crosses to its receiver: the downlink's from veth_ld
 * (link namespace) to veth_in (inner), the uplink's from veth_lu (link) to veth_out (outer).
 */
struct rx_pair {
	int tx_fd, rx_fd; /* the namespaces of the sending and the receiving end */
	const char *tx, *rx;
	int tx_index;
};

static struct rx_pair rx_pair_of(const struct ts_topo *t, bool up)
{
	if (up)
		return (struct rx_pair){t->link.fd, t->outer_fd, t->veth_lu, t->veth_out,
					t->ifindex_lu};
	return (struct rx_pair){t->link.fd, t->inner.fd, t->veth_ld, t->veth_in, t->ifindex_ld};
}

struct rx_arg {
	const struct rx_pair *p;
	struct ts_err *err;
};

/* In the sending end's namespace: without TSO there, its packets take the peer's NAPI path. */
static int tso_off(void *arg)
{
	const struct rx_arg *a = arg;

	return ts_netdev_offload(a->p->tx, TS_NETDEV_TSO, false, a->err);
}

/* In the receiving end's namespace: GRO on (a veth's NAPI), then NAPI run by its own thread. */
static int napi_thread(void *arg)
{
	const struct rx_arg *a = arg;
	int ret;

	ret = ts_netdev_offload(a->p->rx, TS_NETDEV_GRO, true, a->err);
	if (ret == 0)
		ret = ts_netdev_sysfs_write(a->p->rx, "threaded", "1", a->err);
	return ret;
}

int ts_topo_defer_rx(const struct ts_topo *t, bool up, struct ts_err *err)
{
	struct rx_pair p = rx_pair_of(t, up);
	struct rx_arg a = {&p, err};
	int ret;

	ret = ts_netns_run(p.tx_fd, tso_off, &a, err);
	if (ret == 0)
		ret = ts_netns_run(p.rx_fd, napi_thread, &a, err);
	return ret;
}

struct drops_arg {
	int index;
	uint64_t drops;
	struct ts_err *err;
};

static int read_drops(void *arg)
{
	struct drops_arg *a = arg;
	struct ts_rtnl r;
	int ret;

	ret = ts_rtnl_open(&r, -1, a->err);
	if (ret == 0) {
		ret = ts_rtnl_link_tx_dropped(&r, a->index, &a->drops, a->err);
		ts_rtnl_close(&r);
	}
	return ret;
}

int ts_topo_rx_dropped(const struct ts_topo *t, bool up, uint64_t *drops, struct ts_err *err)
{
	struct rx_pair p = rx_pair_of(t, up);
	struct drops_arg a = {.index = p.tx_index, .err = err};
	int ret;

	ret = ts_netns_run(p.tx_fd, read_drops, &a, err);
	*drops = ret == 0 ? a.drops : 0;
	return ret;
}

/* Deletes link @name in namespace @fd; a link already gone is fine. */
int ts_topo_del_link(int fd, const char *name, struct ts_err *err)
{
	struct ts_rtnl r;
	int ret;

	ret = ts_rtnl_open(&r, fd, err);
	if (ret == 0) {
		ret = ts_rtnl_link_del(&r, name, err);
		ts_rtnl_close(&r);
	}
	return ret == -ENODEV ? 0 : ret;
}

static void keep_first(int *ret, int r, struct ts_err *err, const struct ts_err *e1)
{
	if (r < 0 && *ret == 0) {
		*ret = r;
		ts_err_set(err, "%s", e1->msg);
	}
}

int ts_topo_destroy(struct ts_topo *t, struct ts_err *err)
{
	struct ts_err e1;
	int ret = 0;

	/* Rules first: the set holds fds that keep the namespaces alive. */
	keep_first(&ret, ts_ipt_clear(&t->rules, &e1), err, &e1);
	if (t->veth_made) {
		/* Takes veth_lu and the outer route to subnet A with it. */
		keep_first(&ret, ts_topo_del_link(t->outer_fd, t->veth_out, &e1), err, &e1);
		t->veth_made = false;
	}
	/*
	 * The inner pair explicitly: something may still hold the link
	 * namespace open, and the inner end should go now all the same.
	 */
	if (t->link.fd >= 0 && t->veth_ld[0])
		keep_first(&ret, ts_topo_del_link(t->link.fd, t->veth_ld, &e1), err, &e1);
	keep_first(&ret, ts_topo_stations_destroy(t, &e1), err, &e1);
	keep_first(&ret, ts_netns_destroy(&t->link, &e1), err, &e1);
	keep_first(&ret, ts_netns_destroy(&t->inner, &e1), err, &e1);
	if (t->outer_fd >= 0)
		close(t->outer_fd);
	t->outer_fd = -1;
	return ret;
}

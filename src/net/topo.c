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
#include "net/topo.h"

#define TOPO_MAX_INDEX 1000 /* keeps "tas<7-digit pid>-<n>o" within 15 characters */
#define SUBNET_PROBES  4096 /* candidate /30s tried per range */

/* IPv4 ranges for emulated links (ARCHITECTURE.md, "Addresses"), in order of preference. */
static const struct {
	uint32_t base; /* host order */
	unsigned int plen;
} v4_ranges[] = {
	{0x64400000u, 10}, /* 100.64.0.0/10, shared address space (RFC 6598) */
	{0xc6120000u, 15}, /* 198.18.0.0/15, benchmarking (RFC 2544) */
};

#define V4_PLEN 30
#define V6_PLEN 64

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

/* The IPv6 /64 that goes with IPv4 network @net: fd74:6173:AABB:CCDD::/64. */
static void v6_from_v4(struct in6_addr *v6, struct in_addr net)
{
	memset(v6, 0, sizeof(*v6));
	v6->s6_addr[0] = 0xfd;
	v6->s6_addr[1] = 0x74; /* 't' */
	v6->s6_addr[2] = 0x61; /* 'a' */
	v6->s6_addr[3] = 0x73; /* 's' */
	memcpy(&v6->s6_addr[4], &net.s_addr, 4);
}

static void set_host(struct in_addr *dst, struct in_addr net, uint32_t host)
{
	dst->s_addr = htonl(ntohl(net.s_addr) + host);
}

static void set_host6(struct in6_addr *dst, const struct in6_addr *net, unsigned char host)
{
	*dst = *net;
	dst->s6_addr[15] = host;
}

/*
 * Picks the /30 (and its /64): walk each range from a start derived from
 * pid and index, so parallel instances start far apart, and take the
 * first candidate that overlaps nothing in use.
 */
static int pick_subnet(struct ts_topo *t, struct ts_rtnl *outer, struct ts_err *err)
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
		slots = 1u << (V4_PLEN - v4_ranges[r].plen);
		/* Knuth's multiplicative hash spreads consecutive pids. */
		start = ((uint32_t)t->owner * 2654435761u + t->index * 40503u) % slots;
		for (k = 0; k < SUBNET_PROBES && k < slots; k++) {
			net = v4_ranges[r].base + ((start + k) % slots) * 4u;
			cand.s_addr = htonl(net);
			v6_from_v4(&cand6, cand);
			if (used_overlaps(&u4, &cand, V4_PLEN) ||
			    (t->v6 && used_overlaps(&u6, &cand6, V6_PLEN)))
				continue;
			t->v4_net = cand;
			t->v6_net = cand6;
			ret = 0;
			goto found;
		}
	}
	ts_err_set(err, "no free /30 in 100.64.0.0/10 or 198.18.0.0/15 in this namespace "
			"(remove old instances with `tasshape cleanup`)");
	goto out;
found:
	t->v4_plen = V4_PLEN;
	set_host(&t->v4_out, t->v4_net, 1);
	set_host(&t->v4_in, t->v4_net, 2);
	t->v6_plen = V6_PLEN;
	set_host6(&t->v6_out, &t->v6_net, 1);
	set_host6(&t->v6_in, &t->v6_net, 2);
	inet_ntop(AF_INET, &t->v4_net, t->v4_subnet, sizeof(t->v4_subnet));
	snprintf(t->v4_subnet + strlen(t->v4_subnet), sizeof(t->v4_subnet) - strlen(t->v4_subnet),
		 "/%u", t->v4_plen);
	inet_ntop(AF_INET6, &t->v6_net, t->v6_subnet, sizeof(t->v6_subnet));
	snprintf(t->v6_subnet + strlen(t->v6_subnet), sizeof(t->v6_subnet) - strlen(t->v6_subnet),
		 "/%u", t->v6_plen);
out:
	free(u4.p);
	free(u6.p);
	return ret;
}

static void topo_init(struct ts_topo *t)
{
	memset(t, 0, sizeof(*t));
	t->owner = getpid();
	t->outer_fd = -1;
	t->ifindex_out = -1;
	t->ifindex_in = -1;
	ts_netns_init(&t->inner);
	ts_ipt_init(&t->rules, t->owner);
}

/* "tas<pid>-<n>o" and "...i"; a Linux pid has at most 7 digits (PID_MAX_LIMIT). */
static int link_names(struct ts_topo *t, struct ts_err *err)
{
	char o[32], i[32];

	snprintf(o, sizeof(o), "tas%ld-%uo", (long)t->owner, t->index);
	snprintf(i, sizeof(i), "tas%ld-%ui", (long)t->owner, t->index);
	if (strlen(o) >= sizeof(t->veth_out)) {
		ts_err_set(err, "link name %s longer than 15 characters", o);
		return -ENAMETOOLONG;
	}
	memcpy(t->veth_out, o, strlen(o) + 1);
	memcpy(t->veth_in, i, strlen(i) + 1);
	return 0;
}

/* Reserves the lowest free index: namespace name first, then the veth names. */
static int make_ns_and_veth(struct ts_topo *t, struct ts_rtnl *outer, struct ts_err *err)
{
	char name[TS_NETNS_NAME_MAX];
	unsigned int n;
	int ret = -EEXIST;

	for (n = 0; n < TOPO_MAX_INDEX; n++) {
		snprintf(name, sizeof(name), "tas-%ld-%u", (long)t->owner, n);
		ret = ts_netns_create(&t->inner, name, err);
		if (ret == -EEXIST)
			continue;
		if (ret < 0)
			return ret;
		t->index = n;
		ret = link_names(t, err);
		if (ret < 0)
			return ret;
		ret = ts_rtnl_veth_add(outer, t->veth_out, t->veth_in, t->inner.fd, err);
		if (ret == 0) {
			t->veth_made = true;
			return 0;
		}
		ts_netns_destroy(&t->inner, NULL);
		/* A link of that name: left by a dead process that had our pid. */
		if (ret != -EEXIST)
			return ret;
	}
	ts_err_set(err, "no free tas-%ld-<n> namespace/link name below %d (run `tasshape cleanup`)",
		   (long)t->owner, TOPO_MAX_INDEX);
	return ret;
}

struct sysctl_arg {
	const char *ifname;
	struct ts_err *err;
	bool v6; /* out: IPv6 is enabled on the link */
};

/* accept_dad=0: the link has two ends, both ours, so DAD only adds delay. */
static int no_dad(void *arg)
{
	struct sysctl_arg *a = arg;
	char key[96];
	int ret;

	snprintf(key, sizeof(key), "net/ipv6/conf/%s/accept_dad", a->ifname);
	ret = ts_sysctl_write(key, "0", a->err);
	a->v6 = ret == 0;
	if (ret == -ENOENT)
		ret = 0; /* IPv6 disabled in this kernel: run IPv4 only */
	return ret;
}

static int setup_sysctls(struct ts_topo *t, unsigned int flags, struct ts_err *err)
{
	struct sysctl_arg out = {.ifname = t->veth_out, .err = err};
	struct sysctl_arg in = {.ifname = t->veth_in, .err = err};
	int ret;

	ret = no_dad(&out);
	if (ret == 0)
		ret = ts_netns_run(t->inner.fd, no_dad, &in, err);
	if (ret < 0)
		return ret;
	t->v6 = out.v6 && in.v6;
	if (flags & TS_TOPO_FWD_V4) {
		ret = ts_sysctl_write("net/ipv4/ip_forward", "1", err);
		if (ret < 0)
			return ret;
	}
	if ((flags & TS_TOPO_FWD_V6) && t->v6)
		ret = ts_sysctl_write("net/ipv6/conf/all/forwarding", "1", err);
	return ret;
}

static int setup_addresses(struct ts_topo *t, struct ts_rtnl *outer, struct ts_rtnl *inner,
			   struct ts_err *err)
{
	int ret, lo;

	ret = ts_rtnl_addr_add(outer, t->ifindex_out, AF_INET, &t->v4_out, t->v4_plen, err);
	if (ret == 0)
		ret = ts_rtnl_addr_add(inner, t->ifindex_in, AF_INET, &t->v4_in, t->v4_plen, err);
	if (ret == 0 && t->v6)
		ret = ts_rtnl_addr_add(outer, t->ifindex_out, AF_INET6, &t->v6_out, t->v6_plen,
				       err);
	if (ret == 0 && t->v6)
		ret = ts_rtnl_addr_add(inner, t->ifindex_in, AF_INET6, &t->v6_in, t->v6_plen, err);
	if (ret < 0)
		return ret;
	/* Up before routes: a gateway must be reachable through an up link. */
	lo = ts_rtnl_link_index(inner, "lo", err);
	if (lo < 0)
		return lo;
	ret = ts_rtnl_link_up(inner, lo, err);
	if (ret == 0)
		ret = ts_rtnl_link_up(outer, t->ifindex_out, err);
	if (ret == 0)
		ret = ts_rtnl_link_up(inner, t->ifindex_in, err);
	if (ret == 0)
		ret = ts_rtnl_route_default(inner, AF_INET, &t->v4_out, t->ifindex_in, err);
	if (ret == 0 && t->v6)
		ret = ts_rtnl_route_default(inner, AF_INET6, &t->v6_out, t->ifindex_in, err);
	return ret;
}

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

int ts_topo_create(struct ts_topo *t, unsigned int flags, struct ts_err *err)
{
	struct ts_rtnl outer = {0}, inner = {0};
	int ret;

	topo_init(t);
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
	ret = ts_rtnl_open(&inner, t->inner.fd, err);
	if (ret < 0)
		goto out;
	ret = ts_rtnl_link_index(&outer, t->veth_out, err);
	if (ret < 0)
		goto out;
	t->ifindex_out = ret;
	ret = ts_rtnl_link_index(&inner, t->veth_in, err);
	if (ret < 0)
		goto out;
	t->ifindex_in = ret;
	ret = setup_sysctls(t, flags, err);
	if (ret < 0)
		goto out;
	ret = pick_subnet(t, &outer, err);
	if (ret < 0)
		goto out;
	ret = setup_addresses(t, &outer, &inner, err);
	if (ret < 0)
		goto out;
	ret = setup_nat(t, flags, err);
out:
	ts_rtnl_close(&inner);
	ts_rtnl_close(&outer);
	if (ret < 0)
		ts_topo_destroy(t, NULL);
	return ret < 0 ? ret : 0;
}

int ts_topo_queue(struct ts_topo *t, enum ts_topo_hook hook, unsigned int qnum, unsigned int qflags,
		  struct ts_err *err)
{
	static const struct {
		bool inner;
		const char *chain;
		enum ts_ipt_dir dir;
	} hooks[] = {
		[TS_HOOK_UP_SENDER] = {true, "OUTPUT", TS_IPT_OUT},
		[TS_HOOK_UP_NETWORK] = {false, "PREROUTING", TS_IPT_IN},
		[TS_HOOK_DOWN_NETWORK] = {true, "PREROUTING", TS_IPT_IN},
	};
	int ret, fd;
	const char *ifname;

	if ((unsigned int)hook >= sizeof(hooks) / sizeof(hooks[0]) || t->inner.fd < 0) {
		ts_err_set(err, "ts_topo_queue: bad hook %d or no topology", (int)hook);
		return -EINVAL;
	}
	fd = hooks[hook].inner ? t->inner.fd : t->outer_fd;
	ifname = hooks[hook].inner ? t->veth_in : t->veth_out;
	ret = ts_ipt_add_nfqueue(&t->rules, fd, AF_INET, "mangle", hooks[hook].chain,
				 hooks[hook].dir, ifname, qnum, qflags, err);
	if (ret == 0 && t->v6)
		ret = ts_ipt_add_nfqueue(&t->rules, fd, AF_INET6, "mangle", hooks[hook].chain,
					 hooks[hook].dir, ifname, qnum, qflags, err);
	return ret;
}

int ts_topo_run_inner(const struct ts_topo *t, int (*fn)(void *arg), void *arg, struct ts_err *err)
{
	return ts_netns_run(t->inner.fd, fn, arg, err);
}

int ts_topo_destroy(struct ts_topo *t, struct ts_err *err)
{
	struct ts_rtnl outer;
	struct ts_err e1;
	int ret = 0, r;

	/* Rules first: the set holds fds that keep the inner namespace alive. */
	r = ts_ipt_clear(&t->rules, &e1);
	if (r < 0 && ret == 0) {
		ret = r;
		ts_err_set(err, "%s", e1.msg);
	}
	if (t->veth_made) {
		r = ts_rtnl_open(&outer, t->outer_fd, &e1);
		if (r == 0) {
			r = ts_rtnl_link_del(&outer, t->veth_out, &e1);
			ts_rtnl_close(&outer);
		}
		if (r == -ENODEV)
			r = 0;
		if (r < 0 && ret == 0) {
			ret = r;
			ts_err_set(err, "%s", e1.msg);
		}
		t->veth_made = false;
	}
	r = ts_netns_destroy(&t->inner, &e1);
	if (r < 0 && ret == 0) {
		ret = r;
		ts_err_set(err, "%s", e1.msg);
	}
	if (t->outer_fd >= 0)
		close(t->outer_fd);
	t->outer_fd = -1;
	return ret;
}

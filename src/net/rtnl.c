/* SPDX-License-Identifier: MIT */
/*
 * rtnetlink requests over libmnl: one request, then read until the ACK
 * (or NLMSG_DONE for dumps). Errors carry the kernel's extended-ACK text
 * when it sends one, which says far more than the errno alone.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "net/netns.h"
#include "net/rtnl.h"

/* Large enough for any single message of a dump, as libmnl recommends. */
#define RTNL_RXBUF 32768
#define RTNL_TXBUF 1024

struct talk {
	mnl_cb_t cb; /* data callback, or NULL */
	void *arg;
	int cb_ret;    /* negative errno set by a data callback */
	int nl_err;    /* negative errno from the kernel's NLMSG_ERROR */
	char ext[160]; /* extended ACK message, if any */
};

static int ext_attr_cb(const struct nlattr *a, void *data)
{
	struct talk *t = data;

	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		snprintf(t->ext, sizeof(t->ext), "%s", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static int err_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct talk *t = data;
	unsigned int off = sizeof(*e);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		t->nl_err = -EBADMSG;
		return MNL_CB_ERROR;
	}
	if (e->error == 0)
		return MNL_CB_STOP;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		/* Without NLM_F_CAPPED the request is echoed before the TLVs. */
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
		if (mnl_nlmsg_size(off) <= nlh->nlmsg_len)
			mnl_attr_parse(nlh, off, ext_attr_cb, t);
	}
	t->nl_err = e->error < 0 ? e->error : -EPROTO;
	return MNL_CB_ERROR;
}

/* End of a dump; since Linux 4.x it may carry the dump's error code. */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;
	int code;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(code)) {
		memcpy(&code, mnl_nlmsg_get_payload(nlh), sizeof(code));
		if (code < 0) {
			t->nl_err = code;
			return MNL_CB_ERROR;
		}
	}
	return MNL_CB_STOP;
}

static int noop_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	return MNL_CB_OK;
}

static int overrun_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;

	(void)nlh;
	t->nl_err = -ENOSPC;
	return MNL_CB_ERROR;
}

static int talk_run(struct ts_rtnl *r, struct nlmsghdr *nlh, struct talk *t)
{
	/* libmnl skips (does not default) control types whose entry is NULL: fill all. */
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[0] = noop_cb,		[NLMSG_NOOP] = noop_cb,	      [NLMSG_ERROR] = err_cb,
		[NLMSG_DONE] = done_cb, [NLMSG_OVERRUN] = overrun_cb,
	};
	size_t i;
	char buf[RTNL_RXBUF];
	unsigned int seq;
	ssize_t n;
	int ret;

	for (i = 0; i < NLMSG_MIN_TYPE; i++)
		if (!ctl[i])
			ctl[i] = noop_cb;
	seq = ++r->seq;
	nlh->nlmsg_seq = seq;
	if (mnl_socket_sendto(r->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(r->nl, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		errno = 0;
		ret = mnl_cb_run2(buf, (size_t)n, seq, r->portid, t->cb, t, ctl, NLMSG_MIN_TYPE);
		if (ret == MNL_CB_STOP)
			return 0;
		if (ret < 0) {
			if (t->cb_ret < 0)
				return t->cb_ret;
			if (t->nl_err < 0)
				return t->nl_err;
			return errno ? -errno : -EPROTO;
		}
	}
}

/* Formats "what: strerror (kernel: ext)" into @err. */
static void talk_err(struct ts_err *err, const struct talk *t, int ret, const char *what,
		     const char *hint)
{
	ts_err_set(err, "%s failed: %s%s%s%s%s", what, strerror(-ret),
		   t->ext[0] ? " (kernel: " : "", t->ext, t->ext[0] ? ")" : "", hint ? hint : "");
}

struct open_ctx {
	struct ts_rtnl *r;
	struct ts_err *err;
};

static int open_here(void *arg)
{
	struct open_ctx *c = arg;
	struct ts_rtnl *r = c->r;
	int one = 1;

	r->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!r->nl || mnl_socket_bind(r->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int e = errno;

		ts_err_set(c->err, "cannot open an rtnetlink socket: %s", strerror(e));
		return -e;
	}
	/* Best effort: shorter ACKs and kernel error strings. */
	mnl_socket_setsockopt(r->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(r->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	r->portid = mnl_socket_get_portid(r->nl);
	return 0;
}

int ts_rtnl_open(struct ts_rtnl *r, int netns_fd, struct ts_err *err)
{
	struct open_ctx c = {.r = r, .err = err};
	int ret;

	memset(r, 0, sizeof(*r));
	if (netns_fd >= 0)
		ret = ts_netns_run(netns_fd, open_here, &c, err);
	else
		ret = open_here(&c);
	if (ret < 0)
		ts_rtnl_close(r);
	return ret;
}

void ts_rtnl_close(struct ts_rtnl *r)
{
	if (r->nl)
		mnl_socket_close(r->nl);
	r->nl = NULL;
}

static struct nlmsghdr *put_req(char *buf, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	return nlh;
}

static int check_ifname(const char *name, struct ts_err *err)
{
	if (!name[0] || strlen(name) >= IFNAMSIZ) {
		ts_err_set(err, "invalid interface name '%s': 1-%d characters", name, IFNAMSIZ - 1);
		return -EINVAL;
	}
	return 0;
}

int ts_rtnl_veth_add(struct ts_rtnl *r, const char *name, const char *peer, int peer_netns_fd,
		     struct ts_err *err)
{
	char buf[RTNL_TXBUF], what[96];
	struct talk t = {0};
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	struct nlattr *linkinfo, *data, *pnest;
	int ret;

	ret = check_ifname(name, err);
	if (ret == 0)
		ret = check_ifname(peer, err);
	if (ret < 0)
		return ret;
	nlh = put_req(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK);
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	linkinfo = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	/* The peer's attributes follow its own struct ifinfomsg. */
	pnest = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, peer);
	if (peer_netns_fd >= 0)
		mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)peer_netns_fd);
	mnl_attr_nest_end(nlh, pnest);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, linkinfo);
	ret = talk_run(r, nlh, &t);
	if (ret < 0) {
		snprintf(what, sizeof(what), "creating veth pair %s/%s", name, peer);
		talk_err(err, &t, ret, what,
			 ret == -EOPNOTSUPP ? "; the kernel lacks veth (CONFIG_VETH)" : NULL);
	}
	return ret;
}

int ts_rtnl_link_del(struct ts_rtnl *r, const char *name, struct ts_err *err)
{
	char buf[RTNL_TXBUF], what[64];
	struct talk t = {0};
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	int ret;

	ret = check_ifname(name, err);
	if (ret < 0)
		return ret;
	nlh = put_req(buf, RTM_DELLINK, NLM_F_ACK);
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	ret = talk_run(r, nlh, &t);
	if (ret < 0) {
		snprintf(what, sizeof(what), "deleting link %s", name);
		talk_err(err, &t, ret, what, NULL);
	}
	return ret;
}

static int index_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	struct talk *t = data;

	if (nlh->nlmsg_type == RTM_NEWLINK && nlh->nlmsg_len >= mnl_nlmsg_size(sizeof(*ifm)))
		*(int *)t->arg = ifm->ifi_index;
	return MNL_CB_OK;
}

int ts_rtnl_link_index(struct ts_rtnl *r, const char *name, struct ts_err *err)
{
	char buf[RTNL_TXBUF], what[64];
	struct talk t = {0};
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	int ret, index = 0;

	ret = check_ifname(name, err);
	if (ret < 0)
		return ret;
	/* NLM_F_ACK so an ACK follows the reply and ends the read loop. */
	nlh = put_req(buf, RTM_GETLINK, NLM_F_ACK);
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	t.cb = index_cb;
	t.arg = &index;
	ret = talk_run(r, nlh, &t);
	if (ret == 0 && index <= 0)
		ret = -ENODEV;
	if (ret < 0) {
		snprintf(what, sizeof(what), "looking up link %s", name);
		talk_err(err, &t, ret, what, NULL);
		return ret;
	}
	return index;
}

int ts_rtnl_link_up(struct ts_rtnl *r, int ifindex, struct ts_err *err)
{
	char buf[RTNL_TXBUF], what[64];
	struct talk t = {0};
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	int ret;

	nlh = put_req(buf, RTM_NEWLINK, NLM_F_ACK);
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = ifindex;
	ifm->ifi_flags = IFF_UP;
	ifm->ifi_change = IFF_UP;
	ret = talk_run(r, nlh, &t);
	if (ret < 0) {
		snprintf(what, sizeof(what), "setting link %d up", ifindex);
		talk_err(err, &t, ret, what, NULL);
	}
	return ret;
}

static int stats_attr_cb(const struct nlattr *a, void *data)
{
	uint64_t *drops = data;

	if (mnl_attr_get_type(a) == IFLA_STATS64 &&
	    mnl_attr_get_payload_len(a) >= sizeof(struct rtnl_link_stats64))
		memcpy(drops,
		       (const char *)mnl_attr_get_payload(a) +
			       offsetof(struct rtnl_link_stats64, tx_dropped),
		       sizeof(*drops));
	return MNL_CB_OK;
}

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;

	if (nlh->nlmsg_type == RTM_NEWLINK &&
	    nlh->nlmsg_len >= mnl_nlmsg_size(sizeof(struct ifinfomsg)))
		mnl_attr_parse(nlh, sizeof(struct ifinfomsg), stats_attr_cb, t->arg);
	return MNL_CB_OK;
}

int ts_rtnl_link_tx_dropped(struct ts_rtnl *r, int ifindex, uint64_t *drops, struct ts_err *err)
{
	char buf[RTNL_TXBUF], what[64];
	struct talk t = {.cb = stats_cb, .arg = drops};
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	int ret;

	*drops = 0;
	nlh = put_req(buf, RTM_GETLINK, NLM_F_ACK);
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = ifindex;
	ret = talk_run(r, nlh, &t);
	if (ret < 0) {
		snprintf(what, sizeof(what), "reading the counters of link %d", ifindex);
		talk_err(err, &t, ret, what, NULL);
	}
	return ret;
}

static size_t addr_len(int family)
{
	return family == AF_INET    ? sizeof(struct in_addr)
	       : family == AF_INET6 ? sizeof(struct in6_addr)
				    : 0;
}

int ts_rtnl_addr_add(struct ts_rtnl *r, int ifindex, int family, const void *addr,
		     unsigned int plen, struct ts_err *err)
{
	char buf[RTNL_TXBUF], what[96], txt[INET6_ADDRSTRLEN];
	size_t alen = addr_len(family);
	struct talk t = {0};
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	int ret;

	if (!alen || plen > alen * 8) {
		ts_err_set(err, "bad address family %d or prefix length %u", family, plen);
		return -EINVAL;
	}
	nlh = put_req(buf, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK);
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = (uint8_t)family;
	ifa->ifa_prefixlen = (uint8_t)plen;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (uint32_t)ifindex;
	mnl_attr_put(nlh, IFA_LOCAL, alen, addr);
	mnl_attr_put(nlh, IFA_ADDRESS, alen, addr);
	if (family == AF_INET6) {
		/* Skip duplicate address detection: the link has two ends, both ours. */
		ifa->ifa_flags = IFA_F_NODAD;
		mnl_attr_put_u32(nlh, IFA_FLAGS, IFA_F_NODAD);
	}
	ret = talk_run(r, nlh, &t);
	if (ret < 0) {
		inet_ntop(family, addr, txt, sizeof(txt));
		snprintf(what, sizeof(what), "adding address %s/%u to link %d", txt, plen, ifindex);
		talk_err(err, &t, ret, what, NULL);
	}
	return ret;
}

int ts_rtnl_route_add(struct ts_rtnl *r, int family, const void *dst, unsigned int plen,
		      const void *gw, int ifindex, struct ts_err *err)
{
	char buf[RTNL_TXBUF], what[160], txt[INET6_ADDRSTRLEN], dst_txt[INET6_ADDRSTRLEN];
	char dtxt[INET6_ADDRSTRLEN + 8];
	size_t alen = addr_len(family);
	struct talk t = {0};
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	int ret;

	if (!alen || plen > alen * 8 || (plen > 0 && !dst)) {
		ts_err_set(err, "bad address family %d or prefix length %u", family, plen);
		return -EINVAL;
	}
	nlh = put_req(buf, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = (uint8_t)family;
	rtm->rtm_dst_len = (uint8_t)plen;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;
	if (plen > 0)
		mnl_attr_put(nlh, RTA_DST, alen, dst);
	mnl_attr_put(nlh, RTA_GATEWAY, alen, gw);
	mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)ifindex);
	ret = talk_run(r, nlh, &t);
	if (ret < 0) {
		if (plen > 0) {
			inet_ntop(family, dst, dst_txt, sizeof(dst_txt));
			snprintf(dtxt, sizeof(dtxt), "%s/%u", dst_txt, plen & 0xffu);
		} else {
			snprintf(dtxt, sizeof(dtxt), "default");
		}
		inet_ntop(family, gw, txt, sizeof(txt));
		snprintf(what, sizeof(what), "adding route %s via %s dev %d", dtxt, txt, ifindex);
		talk_err(err, &t, ret, what, NULL);
	}
	return ret;
}

int ts_rtnl_route_default(struct ts_rtnl *r, int family, const void *gw, int ifindex,
			  struct ts_err *err)
{
	return ts_rtnl_route_add(r, family, NULL, 0, gw, ifindex, err);
}

struct walk {
	ts_rtnl_link_fn link_fn;
	ts_rtnl_prefix_fn prefix_fn;
	void *arg;
	int family;
};

struct link_attrs {
	const struct nlattr *name;
	int peer; /* IFLA_LINK: a veth's peer ifindex (in the peer's namespace), or 0 */
};

static int link_attr_cb(const struct nlattr *a, void *data)
{
	struct link_attrs *la = data;

	if (mnl_attr_get_type(a) == IFLA_IFNAME && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		la->name = a;
	if (mnl_attr_get_type(a) == IFLA_LINK && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		la->peer = (int)mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	struct link_attrs la = {0};
	struct talk *t = data;
	struct walk *w = t->arg;
	int ret;

	if (nlh->nlmsg_type != RTM_NEWLINK || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifm)))
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*ifm), link_attr_cb, &la);
	if (!la.name)
		return MNL_CB_OK;
	ret = w->link_fn(w->arg, ifm->ifi_index, mnl_attr_get_str(la.name), la.peer);
	if (ret < 0) {
		t->cb_ret = ret;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

int ts_rtnl_link_list(struct ts_rtnl *r, ts_rtnl_link_fn fn, void *arg, struct ts_err *err)
{
	char buf[RTNL_TXBUF];
	struct walk w = {.link_fn = fn, .arg = arg};
	struct talk t = {.cb = link_cb, .arg = &w};
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	int ret;

	nlh = put_req(buf, RTM_GETLINK, NLM_F_DUMP);
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ret = talk_run(r, nlh, &t);
	if (ret < 0 && t.cb_ret == 0)
		talk_err(err, &t, ret, "listing links", NULL);
	return ret;
}

struct pfx_attrs {
	const struct nlattr *a[RTA_MAX + 1 > IFA_MAX + 1 ? RTA_MAX + 1 : IFA_MAX + 1];
};

static int pfx_attr_cb(const struct nlattr *a, void *data)
{
	struct pfx_attrs *p = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type < sizeof(p->a) / sizeof(p->a[0]))
		p->a[type] = a;
	return MNL_CB_OK;
}

static int pfx_emit(struct talk *t, const struct nlattr *a, unsigned int plen)
{
	struct walk *w = t->arg;
	int ret;

	if (!a || mnl_attr_get_payload_len(a) != addr_len(w->family))
		return MNL_CB_OK;
	ret = w->prefix_fn(w->arg, mnl_attr_get_payload(a), plen);
	if (ret < 0) {
		t->cb_ret = ret;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct pfx_attrs p = {{0}};
	struct talk *t = data;
	struct walk *w = t->arg;
	int ret;

	if (nlh->nlmsg_type != RTM_NEWADDR || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifa)) ||
	    ifa->ifa_family != w->family)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*ifa), pfx_attr_cb, &p);
	/* On point-to-point links IFA_ADDRESS is the peer: report both. */
	ret = pfx_emit(t, p.a[IFA_ADDRESS], ifa->ifa_prefixlen);
	if (ret == MNL_CB_OK)
		ret = pfx_emit(t, p.a[IFA_LOCAL], ifa->ifa_prefixlen);
	return ret;
}

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct pfx_attrs p = {{0}};
	struct talk *t = data;
	struct walk *w = t->arg;
	uint32_t table;

	if (nlh->nlmsg_type != RTM_NEWROUTE || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*rtm)) ||
	    rtm->rtm_family != w->family || rtm->rtm_dst_len == 0)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*rtm), pfx_attr_cb, &p);
	table = rtm->rtm_table;
	if (p.a[RTA_TABLE] && mnl_attr_validate(p.a[RTA_TABLE], MNL_TYPE_U32) == 0)
		table = mnl_attr_get_u32(p.a[RTA_TABLE]);
	if (table != RT_TABLE_MAIN)
		return MNL_CB_OK;
	return pfx_emit(t, p.a[RTA_DST], rtm->rtm_dst_len);
}

int ts_rtnl_prefix_list(struct ts_rtnl *r, int family, ts_rtnl_prefix_fn fn, void *arg,
			struct ts_err *err)
{
	char buf[RTNL_TXBUF];
	struct walk w = {.prefix_fn = fn, .arg = arg, .family = family};
	struct talk t = {.cb = addr_cb, .arg = &w};
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	struct rtmsg *rtm;
	int ret;

	if (!addr_len(family)) {
		ts_err_set(err, "bad address family %d", family);
		return -EINVAL;
	}
	nlh = put_req(buf, RTM_GETADDR, NLM_F_DUMP);
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = (uint8_t)family;
	ret = talk_run(r, nlh, &t);
	if (ret < 0)
		goto out;
	memset(&t, 0, sizeof(t));
	t.cb = route_cb;
	t.arg = &w;
	nlh = put_req(buf, RTM_GETROUTE, NLM_F_DUMP);
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = (uint8_t)family;
	ret = talk_run(r, nlh, &t);
out:
	if (ret < 0 && t.cb_ret == 0)
		talk_err(err, &t, ret, "listing addresses and routes", NULL);
	return ret;
}

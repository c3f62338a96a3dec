/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include "net/netns.h"
#include "net/sockdiag.h"

/* TCP states (include/net/tcp_states.h); the uapi has no header for them. */
enum {
	ST_ESTABLISHED = 1,
	ST_SYN_SENT,
	ST_SYN_RECV,
	ST_FIN_WAIT1,
	ST_FIN_WAIT2,
	ST_TIME_WAIT,
	ST_CLOSE,
	ST_CLOSE_WAIT,
	ST_LAST_ACK,
	ST_LISTEN,
	ST_CLOSING,
};

#define STATES                                                                                     \
	((1u << ST_ESTABLISHED) | (1u << ST_SYN_SENT) | (1u << ST_SYN_RECV) |                      \
	 (1u << ST_FIN_WAIT1) | (1u << ST_FIN_WAIT2) | (1u << ST_CLOSE_WAIT) |                     \
	 (1u << ST_LAST_ACK) | (1u << ST_CLOSING))

struct ts_sockdiag {
	struct mnl_socket *nl;
	unsigned int portid, seq;
	char buf[65536];
};

struct open_arg {
	struct ts_sockdiag *sd;
	struct ts_err *err;
};

static int open_here(void *p)
{
	struct open_arg *a = p;
	struct timeval tv = {.tv_sec = 0, .tv_usec = 200000};
	int ret;

	a->sd->nl = mnl_socket_open2(NETLINK_SOCK_DIAG, SOCK_CLOEXEC);
	if (!a->sd->nl) {
		ret = -errno;
		ts_err_set(a->err, "sock_diag socket: %s", strerror(errno));
		return ret;
	}
	if (mnl_socket_bind(a->sd->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		ts_err_set(a->err, "sock_diag bind: %s", strerror(errno));
		return ret;
	}
	setsockopt(mnl_socket_get_fd(a->sd->nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	a->sd->portid = mnl_socket_get_portid(a->sd->nl);
	return 0;
}

int ts_sockdiag_open(struct ts_sockdiag **out, int netns_fd, struct ts_err *err)
{
	struct open_arg a = {.err = err};
	int ret = -ENOMEM;

	*out = NULL;
	a.sd = calloc(1, sizeof(*a.sd));
	if (!a.sd) {
		ts_err_set(err, "out of memory");
		goto out;
	}
	a.sd->seq = (unsigned int)time(NULL);
	ret = netns_fd >= 0 ? ts_netns_run(netns_fd, open_here, &a, err) : open_here(&a);
	if (ret < 0)
		goto out;
	*out = a.sd;
	a.sd = NULL;
out:
	ts_sockdiag_close(a.sd);
	return ret;
}

struct dump_ctx {
	ts_sockdiag_fn cb;
	void *ctx;
	int count;
};

static int on_msg(const struct nlmsghdr *nlh, void *data)
{
	struct dump_ctx *d = data;
	struct ts_sockstat st;

	if (ts_sockdiag_parse(mnl_nlmsg_get_payload(nlh), mnl_nlmsg_get_payload_len(nlh), &st) < 0)
		return MNL_CB_OK; /* one odd message does not spoil the sample */
	d->cb(d->ctx, &st);
	d->count++;
	return MNL_CB_OK;
}

/* One request and its answer: a dump of @family, or the one socket @id names. */
static int request(struct ts_sockdiag *sd, int family, const struct inet_diag_sockid *id,
		   struct dump_ctx *d)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(sd->buf);
	struct inet_diag_req_v2 *req;
	unsigned int seq = ++sd->seq;
	ssize_t n;
	int ret;

	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nlh->nlmsg_flags = NLM_F_REQUEST | (id ? 0 : NLM_F_DUMP);
	nlh->nlmsg_seq = seq;
	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->sdiag_family = (uint8_t)family;
	req->sdiag_protocol = IPPROTO_TCP;
	req->idiag_states = STATES;
	/* BBR answers to the VEGASINFO bit: INET_DIAG_BBRINFO (16) does not fit in 8 bits. */
	req->idiag_ext = (1u << (INET_DIAG_INFO - 1)) | (1u << (INET_DIAG_CONG - 1)) |
			 (1u << (INET_DIAG_VEGASINFO - 1));
	if (id)
		req->id = *id;
	if (mnl_socket_sendto(sd->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(sd->nl, sd->buf, sizeof(sd->buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run(sd->buf, (size_t)n, seq, sd->portid, on_msg, d);
		if (ret == MNL_CB_STOP || (id && ret > 0 && d->count))
			return 0;
		if (ret < 0)
			/*
			 * An IPv6-less kernel answers ENOENT for AF_INET6: no sockets, not an
			 * error; so does a lookup of a socket that is gone.
			 */
			return errno == ENOENT ? 0 : -errno;
	}
}

static int dump_family(struct ts_sockdiag *sd, int family, struct dump_ctx *d)
{
	return request(sd, family, NULL, d);
}

int ts_sockdiag_get(struct ts_sockdiag *sd, int family, const void *laddr, uint16_t lport,
		    const void *raddr, uint16_t rport, ts_sockdiag_fn cb, void *ctx)
{
	struct dump_ctx d = {.cb = cb, .ctx = ctx};
	struct inet_diag_sockid id;
	size_t alen = family == AF_INET6 ? 16 : 4;
	int ret;

	memset(&id, 0, sizeof(id));
	memcpy(id.idiag_src, laddr, alen);
	memcpy(id.idiag_dst, raddr, alen);
	id.idiag_sport = htons(lport);
	id.idiag_dport = htons(rport);
	id.idiag_cookie[0] = id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	ret = request(sd, family, &id, &d);
	return ret < 0 ? ret : d.count;
}

int ts_sockdiag_dump(struct ts_sockdiag *sd, ts_sockdiag_fn cb, void *ctx)
{
	struct dump_ctx d = {.cb = cb, .ctx = ctx};
	int ret;

	ret = dump_family(sd, AF_INET, &d);
	if (ret < 0)
		return ret;
	ret = dump_family(sd, AF_INET6, &d);
	if (ret < 0)
		return ret;
	return d.count;
}

void ts_sockdiag_close(struct ts_sockdiag *sd)
{
	if (!sd)
		return;
	if (sd->nl)
		mnl_socket_close(sd->nl);
	free(sd);
}

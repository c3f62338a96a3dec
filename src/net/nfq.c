/* SPDX-License-Identifier: MIT */
/*
 * NFQUEUE I/O over libmnl and libnetfilter_queue's libmnl helpers.
 *
 * Receive: recvmmsg() fills RX_SLOTS fixed slots per call, one netlink
 * datagram (one queued packet) each, so a burst costs one syscall per
 * RX_SLOTS packets. Transmit: verdicts are written into one buffer as
 * netlink messages (mnl_nlmsg_batch) and sent with one sendto(); the
 * kernel walks every message of the datagram.
 *
 * Held-id window. The kernel keeps queued packets in a list in id order
 * and NFQNL_MSG_VERDICT_BATCH with id X releases every queued packet with
 * id <= X. A batch is exact only if no packet we still hold has an id
 * <= X. Ids that were never delivered (lost to ENOBUFS) are not in the
 * kernel queue, and ids not yet read from the socket are all higher than
 * any id read, so "held" = read and not yet given a verdict. A bitmap of
 * wbits bits covers the ids [lo, lo + wbits); lo is the lowest held id
 * (or next, the id after the newest read, when nothing is held). The
 * batch is used when lo > highest appended id. If an id arrives beyond
 * the window (an old packet held while more than wbits ids passed), the
 * window is frozen: ids from dirty_start on are only counted, and batches
 * are not used until those are all released; a batch could not be exact
 * then anyway, since the old held packet sits below every new id.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#include "net/nfq.h"

/*
 * One received message: nlmsghdr + nfgenmsg + packet header, mark,
 * devices, hw address, timestamp, skb info, cap len (about 200 bytes of
 * attributes) + TS_NFQ_COPY_RANGE bytes of payload. 2 KiB leaves room for
 * attributes newer kernels add; a cut message is counted as truncated.
 */
#define RX_SLOT	 2048
#define RX_SLOTS 64

/* Verdicts per sendto(): 64 KiB / 32 B = 2048, well below sk_sndbuf. */
#define TX_LIMIT (64 * 1024)
#define TX_BUF	 (TX_LIMIT + 4096)

#define RCVBUF_MIN (32u << 20)
/* Socket memory per queued message (skb truesize), for sizing rcvbuf. */
#define RCVBUF_PER_PKT 2048u

#define WIN_MIN_BITS 4096u
#define WIN_MAX_BITS (1u << 26)

#define PROC_NFQ "/proc/thread-self/net/netfilter/nfnetlink_queue"

/* Length of one NFQNL_MSG_VERDICT(_BATCH) message as nfq_nlmsg_put() and
 * nfq_nlmsg_verdict_put() build it. */
#define VERDICT_LEN                                                                                \
	(MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct nfgenmsg)) + MNL_ATTR_HDRLEN +                 \
	 MNL_ALIGN(sizeof(struct nfqnl_msg_verdict_hdr)))

struct ts_nfq {
	struct mnl_socket *nl;
	int fd;
	uint32_t portid;
	uint16_t queue_num;
	uint32_t mtu;
	uint32_t budget; /* packets per ts_nfq_receive() call */
	int proc_fd;	 /* this namespace's nfnetlink_queue file, or -1 */
	int proc_errno;	 /* why proc_fd is -1 */

	/* Receive slots; slots [0, early) hold datagrams read during open. */
	uint8_t *rxbuf;
	unsigned early;
	struct iovec iov[RX_SLOTS];
	struct mmsghdr msgs[RX_SLOTS];

	/* Appended verdicts. */
	char *txbuf;
	struct mnl_nlmsg_batch *batch;
	uint32_t npend;	       /* verdicts appended */
	uint32_t pend_msgs;    /* messages in txbuf */
	uint32_t pend_batches; /* of which batch verdicts */
	uint32_t pend_max;     /* highest appended id */
	int pend_verdict;
	bool pend_mixed; /* appended verdicts differ */

	/* Held-id window (see the top of this file). */
	uint64_t *held;
	uint32_t wbits; /* power of two */
	uint32_t lo;
	uint32_t next;
	uint32_t nheld;
	bool track;
	uint32_t dirty_start;
	uint32_t n_untracked;

	struct ts_nfq_stats stats;
	char kbuf[4096];
};

/* Wrap-safe id order, as the kernel's nfq_id_after(). */
static bool id_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

static bool bit_test(const struct ts_nfq *q, uint32_t id)
{
	uint32_t i = id & (q->wbits - 1);

	return (q->held[i / 64] >> (i % 64)) & 1;
}

static void bit_set(struct ts_nfq *q, uint32_t id)
{
	uint32_t i = id & (q->wbits - 1);

	q->held[i / 64] |= (uint64_t)1 << (i % 64);
}

static void bit_clear(struct ts_nfq *q, uint32_t id)
{
	uint32_t i = id & (q->wbits - 1);

	q->held[i / 64] &= ~((uint64_t)1 << (i % 64));
}

static bool in_window(const struct ts_nfq *q, uint32_t id)
{
	return id - q->lo < q->wbits;
}

/* Move lo to the lowest held id, or to next when nothing below it is. */
static void advance_lo(struct ts_nfq *q)
{
	if (q->nheld == 0) {
		q->lo = q->next;
		return;
	}
	while (q->lo != q->next && !bit_test(q, q->lo))
		q->lo++;
}

static void note_rx(struct ts_nfq *q, uint32_t id)
{
	if (q->nheld == 0) {
		/* Nothing held: every bit is clear; restart the window here. */
		q->track = true;
		q->n_untracked = 0;
		q->lo = id;
		q->next = id;
	}
	if (q->track && !in_window(q, id)) {
		q->track = false;
		q->dirty_start = id;
		q->stats.untracked++;
	}
	if (q->track)
		bit_set(q, id);
	else
		q->n_untracked++;
	if (id_after(id + 1, q->next))
		q->next = id + 1;
	q->nheld++;
}

/*
 * Classify @id for a verdict: 1 = held and tracked in the bitmap,
 * 2 = held (or at least in the untracked range) while the window is
 * frozen, 0 = not held.
 */
static int held_kind(const struct ts_nfq *q, uint32_t id)
{
	if (in_window(q, id) && bit_test(q, id))
		return 1;
	if (!q->track && id - q->dirty_start < q->next - q->dirty_start && q->n_untracked)
		return 2;
	return 0;
}

static void note_verdict(struct ts_nfq *q, uint32_t id, int kind)
{
	q->nheld--;
	if (kind == 1)
		bit_clear(q, id);
	else
		q->n_untracked--;
	if (!q->track) {
		if (q->n_untracked)
			return;
		/* Every untracked id is released: the bitmap is exact again. */
		q->track = true;
		advance_lo(q);
		return;
	}
	if (id == q->lo)
		advance_lo(q);
}

static void put_verdict(struct ts_nfq *q, int type, uint32_t id, int verdict)
{
	struct nlmsghdr *nlh;

	nlh = nfq_nlmsg_put(mnl_nlmsg_batch_current(q->batch), type, q->queue_num);
	nfq_nlmsg_verdict_put(nlh, (int)id, verdict);
	/* TX_BUF has room beyond TX_LIMIT, so this never overflows. */
	mnl_nlmsg_batch_next(q->batch);
	q->pend_msgs++;
	if (type == NFQNL_MSG_VERDICT_BATCH)
		q->pend_batches++;
}

int ts_nfq_flush(struct ts_nfq *q)
{
	ssize_t n;
	int sent;

	if (q->npend == 0)
		return 0;
	/*
	 * One batch message releases exactly the appended packets when they
	 * share a verdict and nothing still held lies at or below the
	 * highest of them (lo is the lowest held id).
	 */
	if (!q->pend_mixed && q->pend_msgs > 1 && q->track && id_after(q->lo, q->pend_max)) {
		mnl_nlmsg_batch_reset(q->batch);
		q->pend_msgs = 0;
		q->pend_batches = 0;
		put_verdict(q, NFQNL_MSG_VERDICT_BATCH, q->pend_max, q->pend_verdict);
	}
	n = mnl_socket_sendto(q->nl, mnl_nlmsg_batch_head(q->batch),
			      mnl_nlmsg_batch_size(q->batch));
	if (n < 0)
		return -errno;
	q->stats.tx_calls++;
	q->stats.verdict_msgs += q->pend_msgs;
	q->stats.batch_msgs += q->pend_batches;
	sent = (int)q->npend;
	mnl_nlmsg_batch_reset(q->batch);
	q->npend = 0;
	q->pend_msgs = 0;
	q->pend_batches = 0;
	q->pend_mixed = false;
	return sent;
}

int ts_nfq_verdict(struct ts_nfq *q, uint32_t id, int accept)
{
	int verdict = accept ? NF_ACCEPT : NF_DROP;
	int kind = held_kind(q, id);
	int ret;

	if (!kind)
		return -ENOENT;
	if (mnl_nlmsg_batch_size(q->batch) + VERDICT_LEN > TX_LIMIT) {
		/* The batch rule still holds: @id is held and not appended. */
		ret = ts_nfq_flush(q);
		if (ret < 0)
			return ret;
	}
	put_verdict(q, NFQNL_MSG_VERDICT, id, verdict);
	if (q->npend == 0) {
		q->pend_max = id;
		q->pend_verdict = verdict;
	} else {
		if (verdict != q->pend_verdict)
			q->pend_mixed = true;
		if (id_after(id, q->pend_max))
			q->pend_max = id;
	}
	q->npend++;
	note_verdict(q, id, kind);
	if (accept)
		q->stats.accepts++;
	else
		q->stats.drops++;
	return 0;
}

/* As ts_nfq_gso_segs, also giving the per-segment header bytes (0 when unknown). */
static uint16_t gso_split(const uint8_t *hdr, uint32_t hdrlen, uint32_t len, uint32_t mtu,
			  uint32_t *hdrs_out)
{
	uint32_t l3, l4 = 0, proto, hdrs, mss, segs;
	int ext;

	*hdrs_out = 0;
	if (len <= mtu || !hdr || hdrlen < 1)
		return 1;
	switch (hdr[0] >> 4) {
	case 4:
		l3 = (hdr[0] & 0x0fu) * 4;
		if (l3 < 20 || hdrlen < 20)
			return 1;
		proto = hdr[9];
		break;
	case 6:
		if (hdrlen < 40)
			return 1;
		l3 = 40;
		proto = hdr[6];
		/* Hop-by-hop, routing, destination options: (len + 1) * 8 bytes. */
		for (ext = 0; ext < 8; ext++) {
			if (proto != IPPROTO_HOPOPTS && proto != IPPROTO_ROUTING &&
			    proto != IPPROTO_DSTOPTS)
				break;
			if (hdrlen < l3 + 2)
				return 1;
			proto = hdr[l3];
			l3 += (hdr[l3 + 1] + 1u) * 8;
		}
		break;
	default:
		return 1;
	}
	if (proto == IPPROTO_TCP) {
		if (hdrlen < l3 + 13)
			return 1;
		l4 = (hdr[l3 + 12] >> 4) * 4u;
		if (l4 < 20)
			return 1;
	} else if (proto == IPPROTO_UDP) {
		l4 = 8;
	}
	hdrs = l3 + l4;
	if (hdrs >= mtu || hdrs >= len)
		return 1;
	mss = mtu - hdrs;
	segs = (len - hdrs + mss - 1) / mss;
	*hdrs_out = hdrs;
	return segs > 65535 ? 65535 : (uint16_t)segs;
}

uint16_t ts_nfq_gso_segs(const uint8_t *hdr, uint32_t hdrlen, uint32_t len, uint32_t mtu)
{
	uint32_t hdrs;

	return gso_split(hdr, hdrlen, len, mtu, &hdrs);
}

/*
 * The attributes a packet message carries, by type, in one walk. libnetfilter_queue's
 * nfq_nlmsg_parse validates every attribute through a callback; that walk cost about 700
 * guest instructions a packet in a virtual-time guest (docs/benchmarks.md), so only the
 * attributes read here are checked, each for the length it is read with.
 */
static int walk_attrs(const struct nlmsghdr *nlh, const struct nlattr **attr)
{
	static const uint16_t need[NFQA_MAX + 1] = {
		[NFQA_PACKET_HDR] = sizeof(struct nfqnl_msg_packet_hdr),
		[NFQA_CAP_LEN] = sizeof(uint32_t),
		[NFQA_MARK] = sizeof(uint32_t),
		[NFQA_IFINDEX_INDEV] = sizeof(uint32_t),
		[NFQA_IFINDEX_OUTDEV] = sizeof(uint32_t),
		[NFQA_SKB_INFO] = sizeof(uint32_t),
	};
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
	{
		uint16_t type = mnl_attr_get_type(a);

		if (type > NFQA_MAX)
			continue; /* a newer kernel's attribute */
		if (mnl_attr_get_payload_len(a) < need[type])
			return -EBADMSG;
		attr[type] = a;
	}
	return attr[NFQA_PACKET_HDR] ? 0 : -EBADMSG;
}

static int parse_pkt(const struct ts_nfq *q, const struct nlmsghdr *nlh, struct ts_nfq_pkt *p)
{
	const struct nlattr *attr[NFQA_MAX + 1] = {0};
	const struct nfqnl_msg_packet_hdr *ph;
	uint32_t skbinfo = 0;

	if (walk_attrs(nlh, attr) < 0)
		return -EBADMSG;
	ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
	memset(p, 0, sizeof(*p));
	p->id = ntohl(ph->packet_id);
	p->l3proto = ntohs(ph->hw_protocol);
	p->hook = ph->hook;
	if (attr[NFQA_PAYLOAD]) {
		p->hdr = mnl_attr_get_payload(attr[NFQA_PAYLOAD]);
		p->hdrlen = mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]);
	}
	/* With a copy range below the packet length the payload is cut and
	 * NFQA_CAP_LEN carries the original length. */
	p->len = attr[NFQA_CAP_LEN] ? ntohl(mnl_attr_get_u32(attr[NFQA_CAP_LEN])) : p->hdrlen;
	if (attr[NFQA_MARK])
		p->mark = ntohl(mnl_attr_get_u32(attr[NFQA_MARK]));
	if (attr[NFQA_IFINDEX_INDEV])
		p->indev = ntohl(mnl_attr_get_u32(attr[NFQA_IFINDEX_INDEV]));
	if (attr[NFQA_IFINDEX_OUTDEV])
		p->outdev = ntohl(mnl_attr_get_u32(attr[NFQA_IFINDEX_OUTDEV]));
	if (attr[NFQA_SKB_INFO])
		skbinfo = ntohl(mnl_attr_get_u32(attr[NFQA_SKB_INFO]));
	if (p->l3proto == 0 && p->hdrlen) {
		if (p->hdr[0] >> 4 == 4)
			p->l3proto = ETH_P_IP;
		else if (p->hdr[0] >> 4 == 6)
			p->l3proto = ETH_P_IPV6;
	}
	p->gso = (skbinfo & NFQA_SKB_GSO) != 0;
	p->gso_segs = 1;
	p->wire_len = p->len;
	if (p->gso) {
		uint32_t hdrs;

		p->gso_segs = gso_split(p->hdr, p->hdrlen, p->len, q->mtu, &hdrs);
		/* Each segment carries its own headers on the wire. */
		p->wire_len = p->len + (uint32_t)(p->gso_segs - 1) * hdrs;
	}
	return 0;
}

static bool is_packet_msg(const struct nlmsghdr *nlh)
{
	return NFNL_SUBSYS_ID(nlh->nlmsg_type) == NFNL_SUBSYS_QUEUE &&
	       NFNL_MSG_TYPE(nlh->nlmsg_type) == NFQNL_MSG_PACKET;
}

static void note_nl_error(struct ts_nfq *q, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		q->stats.bad_msgs++;
		return;
	}
	if (e->error == 0)
		return; /* an acknowledgement */
	q->stats.nl_errors++;
	q->stats.last_nl_error = e->error;
}

/* Hand every packet message of one datagram to @cb; returns packets. */
static int process_datagram(struct ts_nfq *q, const uint8_t *buf, unsigned len, int msg_flags,
			    ts_nfq_pkt_fn cb, void *ctx)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	int left = (int)len;
	struct ts_nfq_pkt pkt;
	int seen = 0;

	if (msg_flags & MSG_TRUNC) {
		q->stats.truncated++;
		return 0;
	}
	while (mnl_nlmsg_ok(nlh, left)) {
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			note_nl_error(q, nlh);
		} else if (is_packet_msg(nlh)) {
			if (parse_pkt(q, nlh, &pkt) < 0) {
				q->stats.bad_msgs++;
			} else {
				note_rx(q, pkt.id);
				q->stats.rx_pkts++;
				q->stats.rx_bytes += pkt.len;
				q->stats.rx_segs += pkt.gso_segs;
				seen++;
				cb(ctx, &pkt);
			}
		}
		nlh = mnl_nlmsg_next(nlh, &left);
	}
	return seen;
}

int ts_nfq_receive(struct ts_nfq *q, ts_nfq_pkt_fn cb, void *ctx)
{
	int seen = 0, n, i;

	for (i = 0; i < (int)q->early; i++)
		seen += process_datagram(q, q->rxbuf + (size_t)i * RX_SLOT, q->msgs[i].msg_len,
					 q->msgs[i].msg_hdr.msg_flags, cb, ctx);
	q->early = 0;
	while ((uint32_t)seen < q->budget) {
		n = recvmmsg(q->fd, q->msgs, RX_SLOTS, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == ENOBUFS) {
				q->stats.enobufs++;
				continue;
			}
			return -errno;
		}
		q->stats.rx_calls++;
		for (i = 0; i < n; i++)
			seen += process_datagram(q, q->rxbuf + (size_t)i * RX_SLOT,
						 q->msgs[i].msg_len, q->msgs[i].msg_hdr.msg_flags,
						 cb, ctx);
		/* A short batch means the socket was empty: skip the EAGAIN call.
		 * An error met after the first datagram is reported by the
		 * next call (and makes the socket readable for poll). */
		if (n < RX_SLOTS)
			break;
	}
	return seen;
}

/*
 * Read datagrams into the receive slots until the acknowledgement with
 * @seq arrives. Packets queued between the bind and the ack are kept in
 * the slots for the first ts_nfq_receive(). Returns the ack's error.
 */
static int wait_ack(struct ts_nfq *q, uint32_t seq, struct ts_err *err)
{
	const struct nlmsghdr *nlh;
	const struct nlmsgerr *e;
	bool keep, acked;
	int left, ret = 0;
	uint8_t *slot;
	ssize_t n;

	for (;;) {
		if (q->early == RX_SLOTS) {
			ts_err_set(err, "nfqueue %u: more than %d packets before the bind ack",
				   q->queue_num, RX_SLOTS);
			return -ENOBUFS;
		}
		slot = q->rxbuf + (size_t)q->early * RX_SLOT;
		n = recv(q->fd, slot, RX_SLOT, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				q->stats.enobufs++;
				continue;
			}
			ret = -errno;
			ts_err_set(err, "nfqueue %u: reading the bind ack: %s", q->queue_num,
				   strerror(errno));
			return ret;
		}
		keep = false;
		acked = false;
		nlh = (const struct nlmsghdr *)slot;
		left = (int)n;
		for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
			if (is_packet_msg(nlh)) {
				keep = true;
			} else if (nlh->nlmsg_type == NLMSG_ERROR && nlh->nlmsg_seq == seq) {
				if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
					return -EBADMSG;
				e = mnl_nlmsg_get_payload(nlh);
				ret = e->error;
				acked = true;
			}
		}
		if (keep) {
			/* process_datagram() skips the ack if it shares the datagram */
			q->msgs[q->early].msg_len = (unsigned)n;
			q->msgs[q->early].msg_hdr.msg_flags = 0;
			q->early++;
		}
		if (acked)
			return ret;
	}
}

static int configure(struct ts_nfq *q, uint32_t queue_maxlen, unsigned flags, struct ts_err *err)
{
	uint32_t cfg_flags = (flags & TS_NFQ_GSO) ? NFQA_CFG_F_GSO : 0;
	uint32_t seq = 1;
	struct nlmsghdr *nlh;
	int ret;

	/*
	 * Bind and configure in one message: the kernel applies the command,
	 * then the parameters, so few packets can arrive with the default
	 * copy mode. The protocol family of a bind is ignored by current
	 * kernels: one queue serves IPv4 and IPv6.
	 */
	nlh = nfq_nlmsg_put(q->txbuf, NFQNL_MSG_CONFIG, q->queue_num);
	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET, NFQNL_CFG_CMD_BIND);
	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, TS_NFQ_COPY_RANGE);
	nfq_nlmsg_cfg_put_qmaxlen(nlh, queue_maxlen);
	/* Fail-open off: a full queue drops, counted as queue_dropped. */
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(cfg_flags));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(NFQA_CFG_F_GSO | NFQA_CFG_F_FAIL_OPEN));
	if (mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		ts_err_set(err, "nfqueue %u: sending the bind: %s", q->queue_num, strerror(errno));
		return ret;
	}
	ret = wait_ack(q, seq, err);
	if (ret < 0 && !err->msg[0])
		ts_err_set(err, "nfqueue %u: bind refused: %s%s", q->queue_num, strerror(-ret),
			   ret == -EPERM || ret == -EBUSY ? " (queue bound by another socket?)"
							  : "");
	return ret;
}

static void set_rcvbuf(struct ts_nfq *q, uint32_t queue_maxlen)
{
	uint64_t want = (uint64_t)queue_maxlen * RCVBUF_PER_PKT;
	int sz;

	if (want < RCVBUF_MIN)
		want = RCVBUF_MIN;
	if (want > (1u << 30))
		want = 1u << 30;
	sz = (int)want;
	/* SO_RCVBUFFORCE passes rmem_max with CAP_NET_ADMIN; else best effort. */
	if (setsockopt(q->fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		(void)setsockopt(q->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
}

int ts_nfq_open(struct ts_nfq **out, uint16_t queue_num, uint32_t queue_maxlen, unsigned flags,
		struct ts_err *err)
{
	struct ts_err local = {{0}};
	struct ts_nfq *q = NULL;
	int ret, off = 0, i;

	*out = NULL;
	if (!err)
		err = &local;
	err->msg[0] = '\0';
	if (queue_maxlen == 0 || (flags & ~TS_NFQ_GSO)) {
		ts_err_set(err, "nfqueue %u: queue length must be > 0 and flags known", queue_num);
		return -EINVAL;
	}
	ret = -ENOMEM;
	q = calloc(1, sizeof(*q));
	if (!q)
		goto fail;
	q->fd = -1;
	q->proc_fd = -1;
	q->queue_num = queue_num;
	q->mtu = TS_NFQ_DEFAULT_MTU;
	q->budget = queue_maxlen + RX_SLOTS;
	if (q->budget < queue_maxlen)
		q->budget = UINT32_MAX;
	q->track = true;
	for (q->wbits = WIN_MIN_BITS; q->wbits < WIN_MAX_BITS; q->wbits <<= 1)
		if (q->wbits >= 4ull * queue_maxlen)
			break;
	q->held = calloc(q->wbits / 64, sizeof(*q->held));
	q->rxbuf = malloc((size_t)RX_SLOTS * RX_SLOT);
	q->txbuf = malloc(TX_BUF);
	if (!q->held || !q->rxbuf || !q->txbuf)
		goto fail;
	q->batch = mnl_nlmsg_batch_start(q->txbuf, TX_BUF);
	if (!q->batch)
		goto fail;
	for (i = 0; i < RX_SLOTS; i++) {
		q->iov[i].iov_base = q->rxbuf + (size_t)i * RX_SLOT;
		q->iov[i].iov_len = RX_SLOT;
		q->msgs[i].msg_hdr.msg_iov = &q->iov[i];
		q->msgs[i].msg_hdr.msg_iovlen = 1;
	}

	q->nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	if (!q->nl) {
		ret = -errno;
		ts_err_set(err, "nfqueue %u: netlink socket: %s", queue_num, strerror(errno));
		goto fail;
	}
	if (mnl_socket_bind(q->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		ts_err_set(err, "nfqueue %u: netlink bind: %s", queue_num, strerror(errno));
		goto fail;
	}
	q->fd = mnl_socket_get_fd(q->nl);
	q->portid = mnl_socket_get_portid(q->nl);
	set_rcvbuf(q, queue_maxlen);
	/* Overruns must be reported: a lost message is a packet the kernel
	 * dropped (user_dropped), which the run reports. */
	(void)setsockopt(q->fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &off, sizeof(off));

	ret = configure(q, queue_maxlen, flags, err);
	if (ret < 0)
		goto fail;

	/* Opened now so that it shows this namespace even from elsewhere. */
	q->proc_fd = open(PROC_NFQ, O_RDONLY | O_CLOEXEC);
	if (q->proc_fd < 0)
		q->proc_errno = errno;
	*out = q;
	return 0;
fail:
	if (ret == -ENOMEM && !err->msg[0])
		ts_err_set(err, "nfqueue %u: out of memory", queue_num);
	ts_nfq_close(q);
	return ret;
}

void ts_nfq_close(struct ts_nfq *q)
{
	if (!q)
		return;
	if (q->nl)
		mnl_socket_close(q->nl);
	if (q->proc_fd >= 0)
		close(q->proc_fd);
	if (q->batch)
		mnl_nlmsg_batch_stop(q->batch);
	free(q->txbuf);
	free(q->rxbuf);
	free(q->held);
	free(q);
}

int ts_nfq_set_rcvbuf(struct ts_nfq *q, uint32_t bytes)
{
	int sz = (int)(bytes > (1u << 30) ? (1u << 30) : bytes);

	if (setsockopt(q->fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		return -errno;
	return 0;
}

int ts_nfq_set_mtu(struct ts_nfq *q, uint32_t mtu)
{
	if (mtu < 68 || mtu > 65535)
		return -EINVAL;
	q->mtu = mtu;
	return 0;
}

int ts_nfq_fd(const struct ts_nfq *q)
{
	return q->fd;
}

uint32_t ts_nfq_pending(const struct ts_nfq *q)
{
	return q->npend;
}

uint32_t ts_nfq_held(const struct ts_nfq *q)
{
	return q->nheld;
}

const struct ts_nfq_stats *ts_nfq_stats(const struct ts_nfq *q)
{
	return &q->stats;
}

/* Parse one unsigned decimal field; returns the position after it or NULL. */
static const char *parse_u32(const char *p, const char *end, uint32_t *v)
{
	uint64_t acc = 0;
	const char *start;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	start = p;
	while (p < end && *p >= '0' && *p <= '9') {
		acc = acc * 10 + (uint64_t)(*p - '0');
		if (acc > UINT32_MAX)
			return NULL;
		p++;
	}
	if (p == start || (p < end && *p != ' ' && *p != '\t'))
		return NULL;
	*v = (uint32_t)acc;
	return p;
}

int ts_nfq_kstats_parse(const char *text, size_t len, uint16_t queue_num, struct ts_nfq_kstats *ks)
{
	const char *p = text, *end = text + len;

	/* Kernel format: queue_num portid queue_total copy_mode copy_range
	 * queue_dropped user_dropped id_sequence 1 */
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		uint32_t v[8];
		const char *f;
		int i;

		if (!eol)
			eol = end;
		f = parse_u32(p, eol, &v[0]);
		if (f && v[0] == queue_num) {
			for (i = 1; i < 8 && f; i++)
				f = parse_u32(f, eol, &v[i]);
			if (!f)
				return -EINVAL;
			ks->queue_num = v[0];
			ks->portid = v[1];
			ks->queue_total = v[2];
			ks->copy_mode = v[3];
			ks->copy_range = v[4];
			ks->queue_dropped = v[5];
			ks->user_dropped = v[6];
			ks->id_sequence = v[7];
			return 0;
		}
		p = eol + 1;
	}
	return -ENOENT;
}

int ts_nfq_kstats(struct ts_nfq *q, struct ts_nfq_kstats *ks)
{
	size_t fill = 0, upto;
	const char *nl;
	ssize_t n;
	int ret;

	if (q->proc_fd < 0)
		return -q->proc_errno;
	if (lseek(q->proc_fd, 0, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		n = read(q->proc_fd, q->kbuf + fill, sizeof(q->kbuf) - fill);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		fill += (size_t)n;
		nl = memrchr(q->kbuf, '\n', fill);
		if (!nl) {
			if (fill == sizeof(q->kbuf))
				return -EINVAL;
			continue;
		}
		/* Parse whole lines, keep the partial one. */
		upto = (size_t)(nl - q->kbuf) + 1;
		ret = ts_nfq_kstats_parse(q->kbuf, upto, q->queue_num, ks);
		if (ret != -ENOENT)
			return ret;
		memmove(q->kbuf, q->kbuf + upto, fill - upto);
		fill -= upto;
	}
	return fill ? ts_nfq_kstats_parse(q->kbuf, fill, q->queue_num, ks) : -ENOENT;
}

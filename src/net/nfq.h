/* SPDX-License-Identifier: MIT */
/*
 * NFQUEUE I/O: one netfilter netlink socket bound to one queue number.
 *
 * The shaper holds a packet by not answering it; a verdict is the
 * release. Packets are read in bulk (recvmmsg, no blocking) and verdicts
 * are appended to one buffer that ts_nfq_flush() sends with one sendto().
 * Only the first TS_NFQ_COPY_RANGE bytes of each packet (IP and transport
 * headers) are copied to user space; the original length comes from
 * NFQA_CAP_LEN.
 *
 * Verdict batching: when every appended verdict has the same value and no
 * packet still held has an id at or below the highest appended id, the
 * flush sends one NFQNL_MSG_VERDICT_BATCH message instead of one message
 * per packet. The kernel applies a batch verdict to every queued packet
 * with id <= the given id, so the held ids are tracked in a bitmap window
 * to know when that is exact (see nfq.c).
 *
 * Not thread-safe: one thread owns a struct ts_nfq.
 */
#ifndef TASSHAPE_NET_NFQ_H
#define TASSHAPE_NET_NFQ_H

#include <stddef.h>
#include <stdint.h>

#include "tasshape/err.h"

/* Flags for ts_nfq_open(). */
/* Keep GSO super-packets whole (NFQA_CFG_F_GSO); each counts gso_segs. */
#define TS_NFQ_GSO (1u << 0)

/* Bytes of each packet copied to user space: IPv4 (<= 60) + TCP (<= 60). */
#define TS_NFQ_COPY_RANGE 128

/* MTU assumed for the GSO segment estimate until ts_nfq_set_mtu(). */
#define TS_NFQ_DEFAULT_MTU 1500

struct ts_nfq;

/* One queued packet as seen by the callback of ts_nfq_receive(). */
struct ts_nfq_pkt {
	uint32_t id;	   /* kernel packet id, the key of the verdict */
	uint32_t len;	   /* L3 length of the queued unit (whole super-packet with GSO) */
	uint16_t gso_segs; /* wire packets this unit stands for: 1 unless a GSO unit */
	uint32_t
		wire_len; /* L3 bytes of those wire packets: len plus the headers of each extra segment */
	uint16_t l3proto;   /* ETH_P_IP or ETH_P_IPV6 (host order); 0 if unknown */
	uint32_t hook;	    /* NF_INET_* hook the packet was queued at */
	uint32_t indev;	    /* ifindex, 0 if none */
	uint32_t outdev;    /* ifindex, 0 if none */
	uint32_t mark;	    /* skb mark, 0 if none */
	int gso;	    /* nonzero: the kernel flagged the unit as GSO (NFQA_SKB_GSO) */
	uint32_t hdrlen;    /* bytes at hdr: min(len, TS_NFQ_COPY_RANGE) */
	const uint8_t *hdr; /* first bytes of the L3 packet; valid only during the callback */
};

/* Counters kept by the socket owner; never reset. */
struct ts_nfq_stats {
	uint64_t rx_pkts;      /* packet messages delivered to the callback */
	uint64_t rx_bytes;     /* sum of ts_nfq_pkt.len */
	uint64_t rx_segs;      /* sum of ts_nfq_pkt.gso_segs */
	uint64_t rx_calls;     /* recvmmsg() calls that returned data */
	uint64_t accepts;      /* NF_ACCEPT verdicts appended */
	uint64_t drops;	       /* NF_DROP verdicts appended */
	uint64_t verdict_msgs; /* verdict messages sent (individual + batch) */
	uint64_t batch_msgs;   /* of which NFQNL_MSG_VERDICT_BATCH */
	uint64_t tx_calls;     /* sendto() calls that succeeded */
	uint64_t enobufs;   /* receive overruns: the kernel dropped packets it could not deliver */
	uint64_t nl_errors; /* NLMSG_ERROR replies, e.g. a verdict for an unknown id */
	int last_nl_error;  /* negative errno of the latest NLMSG_ERROR, 0 if none */
	uint64_t truncated; /* messages cut by a too small receive slot (packet stays held) */
	uint64_t bad_msgs;  /* messages that could not be parsed */
	uint64_t untracked; /* times the held-id window overflowed (batching paused) */
};

/* One line of /proc/net/netfilter/nfnetlink_queue (kernel-side counters). */
struct ts_nfq_kstats {
	uint32_t queue_num;
	uint32_t portid;      /* netlink port of the bound socket */
	uint32_t queue_total; /* packets queued now, waiting for a verdict */
	uint32_t copy_mode;
	uint32_t copy_range;
	uint32_t queue_dropped; /* dropped because queue_maxlen was reached */
	uint32_t user_dropped;	/* dropped because the socket buffer was full (ENOBUFS) */
	uint32_t id_sequence;	/* last packet id handed out */
};

/*
 * ts_nfq_open - create a socket in the network namespace current at call
 * time and bind it to @queue_num (one bind serves IPv4 and IPv6).
 * Configures: NFQNL_COPY_PACKET with TS_NFQ_COPY_RANGE bytes, queue length
 * @queue_maxlen (> 0), fail-open off (a full queue drops, and the kernel
 * counts it), NFQA_CFG_F_GSO only with TS_NFQ_GSO in @flags, a receive
 * buffer of at least 32 MiB (SO_RCVBUFFORCE, SO_RCVBUF when not permitted),
 * ENOBUFS reporting on. Also opens this namespace's
 * /proc/net/netfilter/nfnetlink_queue for ts_nfq_kstats().
 * Returns 0 and stores a handle in *@out (free with ts_nfq_close()), or a
 * negative errno with a message in @err: -EBUSY/-EPERM when the queue is
 * already bound, -EPERM without CAP_NET_ADMIN, -EINVAL for bad arguments.
 * Packets that arrive while the bind is acknowledged are kept and handed
 * to the first ts_nfq_receive().
 */
int ts_nfq_open(struct ts_nfq **out, uint16_t queue_num, uint32_t queue_maxlen, unsigned flags,
		struct ts_err *err);

/*
 * ts_nfq_set_mtu - set the MTU used to estimate gso_segs of GSO units
 * (see ts_nfq_gso_segs()). Returns 0, or -EINVAL outside 68..65535.
 */
int ts_nfq_set_mtu(struct ts_nfq *q, uint32_t mtu);

/*
 * ts_nfq_set_rcvbuf - replace the receive buffer size ts_nfq_open chose
 * (SO_RCVBUFFORCE, at most 1 GiB; the kernel doubles it). Only to
 * reproduce a netlink overrun (ENOBUFS) on purpose: the size chosen at
 * open makes the queue length, not the buffer, the limit. Returns 0 or a
 * negative errno.
 */
int ts_nfq_set_rcvbuf(struct ts_nfq *q, uint32_t bytes);

/* ts_nfq_fd - the socket, for epoll (level-triggered: EPOLLIN, EPOLLERR). */
int ts_nfq_fd(const struct ts_nfq *q);

typedef void (*ts_nfq_pkt_fn)(void *ctx, const struct ts_nfq_pkt *pkt);

/*
 * ts_nfq_receive - read every message readable now without blocking and
 * call @cb once per queued packet, in id order. The callback may call
 * ts_nfq_verdict() and ts_nfq_flush(). Every packet handed to @cb is held
 * until a verdict for its id is flushed.
 * Returns the number of packets handed to @cb (0 if none), or a negative
 * errno from recvmmsg(). A receive overrun (ENOBUFS: the kernel dropped
 * packets it could not deliver) is counted in stats.enobufs and is not an
 * error; NLMSG_ERROR replies are counted in stats.nl_errors. One call
 * stops after about queue_maxlen packets so a steady stream cannot starve
 * the caller; a level-triggered poller wakes again for the rest.
 */
int ts_nfq_receive(struct ts_nfq *q, ts_nfq_pkt_fn cb, void *ctx);

/*
 * ts_nfq_verdict - append the verdict for held packet @id: NF_ACCEPT if
 * @accept is nonzero, else NF_DROP. Nothing is sent until ts_nfq_flush(),
 * except when the batch buffer is full (thousands of verdicts): then the
 * verdicts appended before this one are sent first.
 * Returns 0; -ENOENT if @id is not held (never received, or already
 * given a verdict; checked while the held-id window is exact); or a
 * negative errno from that early sendto(), in which case this verdict is
 * not appended and the earlier ones stay appended.
 */
int ts_nfq_verdict(struct ts_nfq *q, uint32_t id, int accept);

/*
 * ts_nfq_flush - send all appended verdicts in one sendto(): one
 * NFQNL_MSG_VERDICT_BATCH message when that releases exactly the appended
 * packets, else one verdict message each.
 * Returns the number of verdicts sent (0 if none were appended), or a
 * negative errno from sendto(); on error the verdicts stay appended and
 * the next flush sends them again.
 */
int ts_nfq_flush(struct ts_nfq *q);

/* ts_nfq_pending - number of verdicts appended and not yet sent. */
uint32_t ts_nfq_pending(const struct ts_nfq *q);

/* ts_nfq_held - number of packets received and not yet given a verdict. */
uint32_t ts_nfq_held(const struct ts_nfq *q);

/* ts_nfq_stats - the counters; the pointer lives as long as @q. */
const struct ts_nfq_stats *ts_nfq_stats(const struct ts_nfq *q);

/*
 * ts_nfq_kstats - read the kernel's counters for this queue from the
 * namespace the socket was opened in. Returns 0, -ENOENT if the queue is
 * not listed, or a negative errno from reading the file.
 */
int ts_nfq_kstats(struct ts_nfq *q, struct ts_nfq_kstats *ks);

/*
 * ts_nfq_close - unbind (by closing the socket) and free. Packets still
 * held are dropped by the kernel. Verdicts not flushed are lost.
 * @q may be NULL.
 */
void ts_nfq_close(struct ts_nfq *q);

/* Pure helpers, exposed for tests and the runtime. */

/*
 * ts_nfq_kstats_parse - find @queue_num in the text of
 * /proc/net/netfilter/nfnetlink_queue (@len bytes, need not end in NUL).
 * Returns 0 and fills @ks, -ENOENT if absent, -EINVAL if its line is
 * malformed.
 */
int ts_nfq_kstats_parse(const char *text, size_t len, uint16_t queue_num, struct ts_nfq_kstats *ks);

/*
 * ts_nfq_gso_segs - wire packets a GSO unit of L3 length @len stands for.
 * The kernel does not report gso_size over NFQUEUE, so it is estimated as
 * mss = @mtu - hdrs, with hdrs the IP + TCP (with options) or UDP header
 * length read from @hdr: segs = ceil((len - hdrs) / mss). For TCP this is
 * exact when the connection's MSS is the path MTU's (the usual case on a
 * veth); a peer that announced a smaller MSS makes it an under-estimate.
 * Returns 1 when len <= mtu or the headers cannot be read; at most 65535.
 */
uint16_t ts_nfq_gso_segs(const uint8_t *hdr, uint32_t hdrlen, uint32_t len, uint32_t mtu);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * TCP socket statistics of a network namespace through sock_diag
 * (NETLINK_SOCK_DIAG, SOCK_DIAG_BY_FAMILY with inet_diag_req_v2), as
 * `ss -tin` and Flent's --socket-stats read them: struct tcp_info
 * (INET_DIAG_INFO), the congestion control's name (INET_DIAG_CONG) and
 * BBR's own estimates (INET_DIAG_BBRINFO, asked for with the
 * INET_DIAG_VEGASINFO bit, as ss does: idiag_ext has only 8 bits).
 *
 * The socket is opened inside the namespace (ts_netns_run) and stays bound
 * to it. A dump is one request per family and a blocking read of the
 * answer (a receive timeout keeps a misbehaving kernel from hanging the
 * caller); with the few sockets of an experiment it takes microseconds.
 *
 * ts_sockdiag_parse is pure (no libmnl, no syscalls) so unit tests feed it
 * bytes.
 */
#ifndef TS_NET_SOCKDIAG_H
#define TS_NET_SOCKDIAG_H

#include <arpa/inet.h>
#include <linux/tcp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasshape/err.h"

struct ts_sockstat {
	int family; /* AF_INET or AF_INET6 */
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	uint16_t sport, dport; /* host order */
	uint8_t state;	       /* TCP_ESTABLISHED, ... */
	uint32_t inode;
	char cca[16]; /* "" when not reported */
	bool have_info;
	struct tcp_info info; /* zero past what the kernel filled */
	size_t info_len;      /* bytes of it the kernel filled */
	bool have_bbr;
	uint64_t bbr_bw;	  /* bytes/s */
	uint32_t bbr_min_rtt;	  /* us */
	uint32_t bbr_pacing_gain; /* << 8 (256 = 1.0) */
	uint32_t bbr_cwnd_gain;	  /* << 8 */
	/*
	 * Not sock_diag's: set by a caller that dumps several namespaces, which
	 * one held the socket (run/obs.c: the real Wi-Fi station); 0 as parsed.
	 */
	unsigned int station;
};

/*
 * ts_sockdiag_parse - decode one SOCK_DIAG_BY_FAMILY answer: @payload is
 * what follows the nlmsghdr (a struct inet_diag_msg and its attributes),
 * @len its length. Returns 0 and fills @st, or -EINVAL when the message
 * is too short or an attribute overruns it.
 */
int ts_sockdiag_parse(const void *payload, size_t len, struct ts_sockstat *st);

struct ts_sockdiag;

/*
 * ts_sockdiag_open - a sock_diag socket in namespace @netns_fd (-1: the
 * caller's). Returns 0 and a handle in *@out (free with
 * ts_sockdiag_close), or a negative errno with @err set.
 */
int ts_sockdiag_open(struct ts_sockdiag **out, int netns_fd, struct ts_err *err);

typedef void (*ts_sockdiag_fn)(void *ctx, const struct ts_sockstat *st);

/*
 * ts_sockdiag_dump - every TCP socket (IPv4 and IPv6) of the namespace
 * except listening, closed and time-wait ones, one @cb call each.
 * Returns the number of sockets, or a negative errno (the sockets already
 * reported stay reported).
 */
int ts_sockdiag_dump(struct ts_sockdiag *sd, ts_sockdiag_fn cb, void *ctx);

/*
 * ts_sockdiag_get - the one TCP socket with local address @laddr:@lport
 * and remote @raddr:@rport (4 or 16 bytes by @family, ports in host
 * order), one @cb call if it exists. A lookup costs what one socket does,
 * where a dump walks the kernel's whole established hash (every
 * namespace's buckets). Returns 1, 0 when there is no such socket, or a
 * negative errno.
 */
int ts_sockdiag_get(struct ts_sockdiag *sd, int family, const void *laddr, uint16_t lport,
		    const void *raddr, uint16_t rport, ts_sockdiag_fn cb, void *ctx);

/* Close and free; NULL is fine. */
void ts_sockdiag_close(struct ts_sockdiag *sd);

#endif

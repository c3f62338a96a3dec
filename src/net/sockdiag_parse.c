/* SPDX-License-Identifier: MIT */
/* Decoding inet_diag answers (pure: unit tests include this file). */
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <string.h>

#include "net/sockdiag.h"

static void addr_str(int family, const uint32_t *a, char *out)
{
	if (!inet_ntop(family, a, out, INET6_ADDRSTRLEN))
		out[0] = '\0';
}

int ts_sockdiag_parse(const void *payload, size_t len, struct ts_sockstat *st)
{
	const uint8_t *p = payload;
	struct inet_diag_msg msg, *m = &msg;
	size_t off = NLMSG_ALIGN(sizeof(msg));

	memset(st, 0, sizeof(*st));
	if (len < sizeof(msg))
		return -EINVAL;
	memcpy(&msg, p, sizeof(msg));
	st->family = m->idiag_family;
	if (st->family != AF_INET && st->family != AF_INET6)
		return -EINVAL;
	addr_str(st->family, m->id.idiag_src, st->src);
	addr_str(st->family, m->id.idiag_dst, st->dst);
	st->sport = ntohs(m->id.idiag_sport);
	st->dport = ntohs(m->id.idiag_dport);
	st->state = m->idiag_state;
	st->inode = m->idiag_inode;
	while (off + NLA_HDRLEN <= len) {
		const uint8_t *data = p + off + NLA_HDRLEN;
		struct nlattr a;
		size_t alen, dlen;

		memcpy(&a, p + off, sizeof(a)); /* the buffer need not be aligned */
		alen = a.nla_len;
		if (alen < NLA_HDRLEN || off + alen > len)
			return -EINVAL;
		dlen = alen - NLA_HDRLEN;
		switch (a.nla_type & NLA_TYPE_MASK) {
		case INET_DIAG_INFO:
			/* Older or newer kernels fill less or more: keep what both know. */
			st->info_len = dlen < sizeof(st->info) ? dlen : sizeof(st->info);
			memcpy(&st->info, data, st->info_len);
			st->have_info = true;
			break;
		case INET_DIAG_CONG:
			if (dlen) {
				size_t n = strnlen((const char *)data, dlen);

				if (n >= sizeof(st->cca))
					n = sizeof(st->cca) - 1;
				memcpy(st->cca, data, n);
				st->cca[n] = '\0';
			}
			break;
		case INET_DIAG_BBRINFO:
			if (dlen >= sizeof(struct tcp_bbr_info)) {
				struct tcp_bbr_info b;

				memcpy(&b, data, sizeof(b));
				st->have_bbr = true;
				st->bbr_bw = (uint64_t)b.bbr_bw_hi << 32 | b.bbr_bw_lo;
				st->bbr_min_rtt = b.bbr_min_rtt;
				st->bbr_pacing_gain = b.bbr_pacing_gain;
				st->bbr_cwnd_gain = b.bbr_cwnd_gain;
			}
			break;
		default:
			break;
		}
		off += NLA_ALIGN(alen);
	}
	return 0;
}

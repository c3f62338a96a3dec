/* SPDX-License-Identifier: MIT */
/* The two packet I/O backends of the shaper (run/pktio.h). */
#include <errno.h>
#include <string.h>

#include "run/pktio.h"

static int nfq_fd(const void *q)
{
	return ts_nfq_fd(q);
}

static int nfq_receive(void *q, ts_nfq_pkt_fn cb, void *ctx)
{
	return ts_nfq_receive(q, cb, ctx);
}

static int nfq_verdict(void *q, uint32_t id, int accept)
{
	return ts_nfq_verdict(q, id, accept);
}

static int nfq_flush(void *q)
{
	return ts_nfq_flush(q);
}

static uint32_t nfq_pending(const void *q)
{
	return ts_nfq_pending(q);
}

static const struct ts_nfq_stats *nfq_stats(const void *q)
{
	return ts_nfq_stats(q);
}

static int nfq_kstats(void *q, struct ts_nfq_kstats *ks)
{
	return ts_nfq_kstats(q, ks);
}

static void nfq_close(void *q)
{
	ts_nfq_flush(q);
	ts_nfq_close(q);
}

const struct ts_pktio_ops ts_pktio_nfq = {
	.name = "nfqueue",
	.fd = nfq_fd,
	.receive = nfq_receive,
	.verdict = nfq_verdict,
	.flush = nfq_flush,
	.pending = nfq_pending,
	.stats = nfq_stats,
	.kstats = nfq_kstats,
	.close = nfq_close,
};

void ts_pktio_mem_init(struct ts_pktio_mem *m)
{
	memset(m, 0, sizeof(*m));
	m->next_id = 1;
}

uint32_t ts_pktio_mem_push(struct ts_pktio_mem *m, uint32_t len)
{
	struct ts_nfq_pkt *p;

	if (m->nin == TS_PKTIO_MEM_MAX || m->next_id >= TS_PKTIO_MEM_MAX) {
		m->kstats.queue_dropped++;
		return 0;
	}
	p = &m->in[m->nin++];
	memset(p, 0, sizeof(*p));
	p->id = m->next_id++;
	p->len = len;
	p->gso_segs = 1;
	m->kstats.id_sequence = p->id;
	return p->id;
}

static int mem_fd(const void *q)
{
	(void)q;
	return -1;
}

static int mem_receive(void *q, ts_nfq_pkt_fn cb, void *ctx)
{
	struct ts_pktio_mem *m = q;
	unsigned int i, n = m->nin;
	int ret = m->fail_receive;

	if (ret) {
		m->fail_receive = 0;
		return ret;
	}
	m->nin = 0;
	for (i = 0; i < n; i++) {
		m->held[m->in[i].id] = true;
		m->stats.rx_pkts++;
		m->stats.rx_bytes += m->in[i].len;
		m->stats.rx_segs += m->in[i].gso_segs;
		cb(ctx, &m->in[i]);
	}
	return (int)n;
}

static int mem_verdict(void *q, uint32_t id, int accept)
{
	struct ts_pktio_mem *m = q;

	if (id >= TS_PKTIO_MEM_MAX || !m->held[id]) {
		m->stats.nl_errors++;
		m->stats.last_nl_error = -ENOENT;
		return -ENOENT;
	}
	if (m->nappended == TS_PKTIO_MEM_MAX)
		return -ENOBUFS;
	m->held[id] = false;
	m->appended[m->nappended].id = id;
	m->appended[m->nappended].accept = accept;
	m->nappended++;
	if (accept)
		m->stats.accepts++;
	else
		m->stats.drops++;
	return 0;
}

static int mem_flush(void *q)
{
	struct ts_pktio_mem *m = q;
	unsigned int n = m->nappended, i;

	for (i = 0; i < n && m->nsent < TS_PKTIO_MEM_MAX; i++)
		m->sent[m->nsent++] = m->appended[i];
	m->nappended = 0;
	if (n)
		m->stats.tx_calls++;
	m->stats.verdict_msgs += n;
	return (int)n;
}

static uint32_t mem_pending(const void *q)
{
	const struct ts_pktio_mem *m = q;

	return m->nappended;
}

static const struct ts_nfq_stats *mem_stats(const void *q)
{
	const struct ts_pktio_mem *m = q;

	return &m->stats;
}

static int mem_kstats(void *q, struct ts_nfq_kstats *ks)
{
	struct ts_pktio_mem *m = q;
	unsigned int i;

	m->kstats.queue_total = m->nin;
	for (i = 0; i < TS_PKTIO_MEM_MAX; i++)
		m->kstats.queue_total += m->held[i];
	*ks = m->kstats;
	return 0;
}

static void mem_close(void *q)
{
	mem_flush(q);
}

const struct ts_pktio_ops ts_pktio_mem_ops = {
	.name = "memory",
	.fd = mem_fd,
	.receive = mem_receive,
	.verdict = mem_verdict,
	.flush = mem_flush,
	.pending = mem_pending,
	.stats = mem_stats,
	.kstats = mem_kstats,
	.close = mem_close,
};

/* SPDX-License-Identifier: MIT */
/*
 * The station's TCP Small Queues budget at run time (run/tsq_station.h): flows of
 * the station's queue, their sockets' pacing rates, the pacing-ratio
 * lever, and the packets released early (uncharged) and matched again on
 * the link side.
 *
 * Per flow, the packets the sender pipe holds are kept in arrival order
 * on a list through per-descriptor links (no allocation per packet): an
 * uncharged prefix (already across the veth) and a charged rest. Each
 * loop turn the oldest charged packets are released early while the
 * flow's uncharged bytes are below its target (ts_tsq_plan). The MAC
 * delivers a flow's packets in order, so the uncharged ones leave the
 * sender pipe first and enter the uplink network pipe as if they had just
 * crossed the veth; the charged ones get their verdict as usual.
 *
 * An early-released packet is found again at the network hook by a hash
 * of its IP and TCP headers (TTL and checksums left out), looked up among
 * the oldest packets still in transit: the veth delivers in verdict order,
 * so the first few always match.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "net/netns.h"
#include "net/probe.h"
#include "net/sockdiag.h"
#include "io/json.h"
#include "run/shaper.h"
#include "run/tsq_station.h"
#include "tasshape/tsq.h"
#include "tasshape/wifi6.h"

enum dstate {
	D_NONE,		/* not a tracked packet */
	D_CHARGED,	/* held at the sender hook, charged to its socket */
	D_UNC_TRANSIT,	/* released early, not yet queued at the network hook */
	D_UNC_HELD,	/* released early and held at the network hook (net_id) */
	D_SENT_TRANSIT, /* the MAC sent it before the network hook saw it */
	D_DROP_TRANSIT, /* the model dropped it before the network hook saw it */
	D_UNC_LOST,	/* released early, never seen at the network hook: no verdict left */
	D__COUNT,
};

#define NSHIFTLOG 32
#define WINDOW	  256 /* in-transit packets searched per arrival at the network hook */

struct shift_change {
	ts_ns_t t;
	uint8_t shift;
	uint8_t phase;
};

struct flow {
	int family;
	uint8_t saddr[16], daddr[16];
	uint16_t sport, dport; /* host order */
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	char cca[16];
	int32_t head, tail, first_chg; /* descriptor indices, -1: none */
	uint64_t chg_bytes, unc_bytes, target;
	bool have_sock;
	struct ts_tsq_plan plan;
	enum ts_bbr_phase phase;
	bool seen_startup, left_startup; /* BBR: its STARTUP/DRAIN gains were seen; it left them */
	bool bbr; /* BBR's socket info was seen (a closing socket loses it) */
	unsigned int shift;
	struct ts_tsq_qstat q;
	uint64_t unc_peak;
	uint64_t budget_now; /* the station's limit in force (the kernel's with kernel), bytes */
	uint64_t budget_max; /* its largest value while the flow had packets queued */
	uint64_t budget_at_peak; /* its value when the station queue reached its peak */
	uint64_t early;		 /* packets released early */
	/* Per poll while the flow has packets queued: sums for the means. */
	uint64_t nsamples;
	double budget_sum, kbudget_sum, rate_sum;
	struct shift_change log[NSHIFTLOG];
	unsigned int nlog;
	bool log_full;
};

struct ts_tsqst {
	struct ts_shaper *sh;
	struct ts_tsq_conf conf;
	int station_fd;
	struct ts_sockdiag *sd;
	struct ts_tsq_env env;
	bool lever; /* the ratios were changed (restore them) */
	bool tas_params;
	unsigned int tas_startup, tas_steady; /* the tas module's own shifts */
	/* Per descriptor, indexed by its place in the pool. */
	size_t cap;
	uint8_t *state;
	uint16_t *flow;
	uint64_t *key;
	uint32_t *net_id;
	int32_t *next, *prev;
	/* Released early, in verdict order. */
	int32_t ring[TS_TSQST_RING];
	ts_ns_t ring_t[TS_TSQST_RING];
	uint32_t rhead, rcount;
	struct flow flows[TS_TSQST_FLOWS];
	unsigned int nflows;
	uint64_t untracked_pkts, ring_full, lost;
	uint64_t nstate[D__COUNT]; /* descriptors per state */
	ts_ns_t next_poll, last_net;
	ts_ns_t resume;		/* early releases left for the next turn: when; TS_NEVER if none */
	unsigned int burst;	/* early releases this turn */
	unsigned int next_flow; /* where the next turn's refill starts (fairness) */
	int poll_err;
};

/* ---- sysctls of the station namespace ---- */

struct sysctl_arg {
	const char *key;
	char val[32];
	bool write;
};

static int sysctl_io(void *p)
{
	struct sysctl_arg *a = p;
	char path[128];
	ssize_t n;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/%s", a->key);
	fd = open(path, (a->write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (a->write) {
		n = write(fd, a->val, strlen(a->val));
		if (n < 0)
			ret = -errno;
	} else {
		n = read(fd, a->val, sizeof(a->val) - 1);
		if (n < 0)
			ret = -errno;
		else
			a->val[n] = 0;
	}
	close(fd);
	return ret;
}

static int sysctl_get(int fd, const char *key, uint64_t *out, struct ts_err *err)
{
	struct sysctl_arg a = {.key = key};
	char *end;
	int ret = ts_netns_run(fd, sysctl_io, &a, err);

	if (ret < 0) {
		ts_err_set(err, "station: cannot read net.ipv4.%s: %s", key, strerror(-ret));
		return ret;
	}
	errno = 0;
	*out = strtoull(a.val, &end, 10);
	if (errno || end == a.val) {
		ts_err_set(err, "station: net.ipv4.%s: '%s' is not a number", key, a.val);
		return -EINVAL;
	}
	return 0;
}

static int sysctl_set(int fd, const char *key, uint64_t v, struct ts_err *err)
{
	struct sysctl_arg a = {.key = key, .write = true};
	int ret;

	snprintf(a.val, sizeof(a.val), "%" PRIu64, v);
	ret = ts_netns_run(fd, sysctl_io, &a, err);
	if (ret < 0)
		ts_err_set(err, "station: cannot set net.ipv4.%s to %" PRIu64 ": %s", key, v,
			   strerror(-ret));
	return ret;
}

/* The shift unpaced sockets get through the ratios: the only one, or tas's steady one. */
static unsigned int lever_shift(const struct ts_tsq_conf *c)
{
	return c->mode == TS_TSQ_TAS ? c->steady : c->shift;
}

int ts_tsqst_lever_station(const struct ts_linkcfg *cfg, int netns_fd, struct ts_err *err)
{
	const struct ts_tsq_conf *c;
	unsigned int shift;
	int ret;

	if (!cfg->wifi6)
		return 0;
	c = &ts_wifi6_conf_of(cfg->wifi6)->tsq;
	if (c->mode == TS_TSQ_KERNEL)
		return 0;
	/* A new namespace starts from the kernel's defaults, 200% and 120%. */
	shift = lever_shift(c);
	ret = sysctl_set(netns_fd, "tcp_pacing_ss_ratio", ts_tsq_ratio(200, shift), err);
	if (ret == 0)
		ret = sysctl_set(netns_fd, "tcp_pacing_ca_ratio", ts_tsq_ratio(120, shift), err);
	return ret;
}

/*
 * With --gso, what makes the budget one of GSO units (tasshape/tsq.h,
 * ts_tsq_gso_scale): the running kernel's skb head, a full unit of 1448-byte
 * segments (the ratios are one value for every socket of the namespace).
 */
static void gso_scale(struct ts_tsqst *t)
{
	unsigned int major = 0, minor = 0;
	struct utsname u;

	t->env.gso_num = t->env.gso_den = 0;
	if (!t->sh->cfg->gso || uname(&u) < 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return;
	ts_tsq_gso_scale(1448, ts_tsq_head(major, minor), 0, &t->env.gso_num, &t->env.gso_den);
}

static int lever_up(struct ts_tsqst *t, struct ts_err *err)
{
	uint64_t ss, ca, lob;
	int ret;

	ret = sysctl_get(t->station_fd, "tcp_pacing_ss_ratio", &ss, err);
	if (!ret)
		ret = sysctl_get(t->station_fd, "tcp_pacing_ca_ratio", &ca, err);
	if (!ret)
		ret = sysctl_get(t->station_fd, "tcp_limit_output_bytes", &lob, err);
	if (ret < 0)
		return ret;
	t->env.ss_ratio = t->env.ss_applied = (uint32_t)ss;
	t->env.ca_ratio = t->env.ca_applied = (uint32_t)ca;
	t->env.limit_output_bytes = lob;
	if (t->conf.mode == TS_TSQ_KERNEL)
		return 0;
	gso_scale(t);
	t->env.ss_applied = ts_tsq_ratio_scaled((uint32_t)ss, lever_shift(&t->conf), t->env.gso_num,
						t->env.gso_den);
	t->env.ca_applied = ts_tsq_ratio_scaled((uint32_t)ca, lever_shift(&t->conf), t->env.gso_num,
						t->env.gso_den);
	t->lever = true;
	ret = sysctl_set(t->station_fd, "tcp_pacing_ss_ratio", t->env.ss_applied, err);
	if (!ret)
		ret = sysctl_set(t->station_fd, "tcp_pacing_ca_ratio", t->env.ca_applied, err);
	/* The cap of an unpaced socket's limit, in GSO units too. */
	if (!ret && t->env.gso_den) {
		t->env.lob_applied = lob * t->env.gso_num / t->env.gso_den;
		ret = sysctl_set(t->station_fd, "tcp_limit_output_bytes", t->env.lob_applied, err);
	}
	return ret;
}

static void lever_down(struct ts_tsqst *t)
{
	struct ts_err err;

	if (!t->lever)
		return;
	sysctl_set(t->station_fd, "tcp_pacing_ss_ratio", t->env.ss_ratio, &err);
	sysctl_set(t->station_fd, "tcp_pacing_ca_ratio", t->env.ca_ratio, &err);
	if (t->env.lob_applied)
		sysctl_set(t->station_fd, "tcp_limit_output_bytes", t->env.limit_output_bytes,
			   &err);
	t->lever = false;
}

/* The real tas module's shifts, when it is loaded (it writes sk_pacing_shift itself). */
static void read_tas_params(struct ts_tsqst *t)
{
	static const char dir[] = "/sys/module/tcp_bbr_tas/parameters/";
	char path[128], buf[16];
	unsigned int *dst[2] = {&t->tas_startup, &t->tas_steady};
	const char *name[2] = {"tas_pacing_shift_startup", "tas_pacing_shift_steady"};
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s%s", dir, name[i]);
		if (ts_probe_read(path, buf, sizeof(buf)) <= 0)
			return;
		*dst[i] = (unsigned int)strtoul(buf, NULL, 10);
		if (*dst[i] < TS_TSQ_SHIFT_MIN || *dst[i] > TS_TSQ_SHIFT_MAX)
			return;
	}
	t->tas_params = true;
}

/* ---- start and stop ---- */

bool ts_tsqst_wanted(const struct ts_linkcfg *cfg)
{
	/*
	 * The emulation follows one station's sockets; with several real
	 * stations (real=) their sockets keep the kernel's own budget, the same
	 * for all of them (docs/wifi6-model.md, "Real stations").
	 */
	return cfg->wifi6 && ts_wifi6_conf_of(cfg->wifi6)->tsq.mode != TS_TSQ_KERNEL &&
	       ts_wifi6_conf_of(cfg->wifi6)->real <= 1;
}

static void ignore_sock(void *ctx, const struct ts_sockstat *st)
{
	(void)ctx;
	(void)st;
}

int ts_tsqst_start(struct ts_tsqst **out, struct ts_shaper *sh, int station_fd, struct ts_err *err)
{
	const struct ts_stage *mac = sh->dir[TS_UP].mac;
	struct ts_tsqst *t;
	int ret = -ENOMEM;

	*out = NULL;
	if (!sh->cfg->wifi6 || !mac || mac->place != TS_PLACE_SENDER)
		return 0;
	t = calloc(1, sizeof(*t));
	if (!t)
		goto nomem;
	t->sh = sh;
	t->conf = ts_wifi6_conf_of(sh->cfg->wifi6)->tsq;
	/* Real stations (real=): each keeps the kernel's budget, as ts_tsqst_wanted says. */
	if (!ts_tsqst_wanted(sh->cfg))
		t->conf.mode = TS_TSQ_KERNEL;
	t->station_fd = station_fd;
	t->cap = sh->pool.cap;
	t->state = calloc(t->cap, sizeof(*t->state));
	t->flow = calloc(t->cap, sizeof(*t->flow));
	t->key = calloc(t->cap, sizeof(*t->key));
	t->net_id = calloc(t->cap, sizeof(*t->net_id));
	t->next = calloc(t->cap, sizeof(*t->next));
	t->prev = calloc(t->cap, sizeof(*t->prev));
	if (!t->state || !t->flow || !t->key || !t->net_id || !t->next || !t->prev)
		goto nomem;
	t->nstate[D_NONE] = t->cap;
	t->resume = TS_NEVER;
	read_tas_params(t);
	ret = ts_sockdiag_open(&t->sd, station_fd, err);
	if (ret < 0)
		goto fail;
	/*
	 * The kernel loads the TCP part of sock_diag (inet_diag, tcp_diag) at its first request,
	 * running modprobe: 30 ms of a virtual-time guest's CPU during which the loop, waiting in
	 * the request, released nothing (the run's first packet, a SYN, 30.8 ms late). So the
	 * first request is made here, before the loop runs; its answer is not needed.
	 */
	ts_sockdiag_dump(t->sd, ignore_sock, NULL);
	ret = lever_up(t, err);
	if (ret < 0)
		goto fail;
	*out = t;
	return 0;
nomem:
	ts_err_set(err, "station TSQ: out of memory");
fail:
	ts_tsqst_stop(t);
	return ret;
}

void ts_tsqst_stop(struct ts_tsqst *t)
{
	if (!t)
		return;
	lever_down(t);
	ts_sockdiag_close(t->sd);
	free(t->state);
	free(t->flow);
	free(t->key);
	free(t->net_id);
	free(t->next);
	free(t->prev);
	free(t);
}

/* ---- packets ---- */

/*
 * FNV-1a over the IP and TCP headers, eight bytes a step, without what may change between the
 * hooks (TTL or hop limit, the IPv4 header checksum, the TCP checksum), and the length. The
 * payload adds nothing a packet in transit could be told apart by (IP ID, sequence and
 * acknowledgement numbers, timestamps are in the headers) and hashing it byte by byte cost
 * 1,200 guest instructions a packet at each of the two hooks (docs/benchmarks.md).
 */
static uint64_t header_key(const struct ts_nfq_pkt *kp, uint32_t l4, bool v4)
{
	uint8_t b[TS_NFQ_COPY_RANGE + 8];
	uint64_t h = 1469598103934665603ULL, w;
	uint32_t n = l4 + (uint32_t)(kp->hdr[l4 + 12] >> 4) * 4, i;

	if (n > kp->hdrlen)
		n = kp->hdrlen;
	memcpy(b, kp->hdr, n);
	memset(b + n, 0, 8);
	if (v4)
		b[8] = b[10] = b[11] = 0; /* TTL, IPv4 header checksum */
	else
		b[7] = 0; /* hop limit */
	if (l4 + 17 < n)
		b[l4 + 16] = b[l4 + 17] = 0; /* TCP checksum */
	for (i = 0; i < n; i += 8) {
		memcpy(&w, b + i, sizeof(w));
		h ^= w;
		h *= 1099511628211ULL;
	}
	h ^= kp->len;
	return h * 1099511628211ULL;
}

/* A TCP packet's flow and key; false for anything else. */
static bool parse_tcp(const struct ts_nfq_pkt *kp, struct flow *f, uint64_t *key)
{
	const uint8_t *b = kp->hdr;
	uint32_t l4;

	if (kp->hdrlen >= 20 && (b[0] >> 4) == 4) {
		l4 = (uint32_t)(b[0] & 15) * 4;
		if (b[9] != IPPROTO_TCP || kp->hdrlen < l4 + 20)
			return false;
		f->family = AF_INET;
		memset(f->saddr, 0, 32);
		memcpy(f->saddr, b + 12, 4);
		memcpy(f->daddr, b + 16, 4);
	} else if (kp->hdrlen >= 60 && (b[0] >> 4) == 6) {
		l4 = 40;
		if (b[6] != IPPROTO_TCP)
			return false;
		f->family = AF_INET6;
		memcpy(f->saddr, b + 8, 16);
		memcpy(f->daddr, b + 24, 16);
	} else {
		return false;
	}
	f->sport = (uint16_t)(b[l4] << 8 | b[l4 + 1]);
	f->dport = (uint16_t)(b[l4 + 2] << 8 | b[l4 + 3]);
	*key = header_key(kp, l4, f->family == AF_INET);
	return true;
}

static int flow_find(struct ts_tsqst *t, const struct flow *k)
{
	unsigned int i;
	struct flow *f;

	for (i = 0; i < t->nflows; i++) {
		f = &t->flows[i];
		if (f->sport == k->sport && f->dport == k->dport && f->family == k->family &&
		    !memcmp(f->saddr, k->saddr, 16) && !memcmp(f->daddr, k->daddr, 16))
			return (int)i;
	}
	if (t->nflows == TS_TSQST_FLOWS)
		return -1;
	f = &t->flows[t->nflows];
	memset(f, 0, sizeof(*f));
	f->family = k->family;
	memcpy(f->saddr, k->saddr, 16);
	memcpy(f->daddr, k->daddr, 16);
	f->sport = k->sport;
	f->dport = k->dport;
	inet_ntop(f->family, f->saddr, f->src, sizeof(f->src));
	inet_ntop(f->family, f->daddr, f->dst, sizeof(f->dst));
	f->head = f->tail = f->first_chg = -1;
	f->shift = ts_tsq_shift(&t->conf, TS_BBR_NONE);
	f->phase = TS_BBR_NONE;
	return (int)t->nflows++;
}

static void set_state(struct ts_tsqst *t, int32_t i, enum dstate st)
{
	t->nstate[t->state[i]]--;
	t->state[i] = (uint8_t)st;
	t->nstate[st]++;
}

static size_t didx(const struct ts_tsqst *t, const struct ts_pkt *p)
{
	return (size_t)(p - t->sh->pool.mem);
}

static struct ts_pkt *dpkt(const struct ts_tsqst *t, int32_t i)
{
	return &t->sh->pool.mem[i];
}

static void flow_count(struct flow *f, ts_ns_t now)
{
	uint64_t peak = f->q.peak_bytes;

	ts_tsq_qstat_set(&f->q, now, f->chg_bytes + f->unc_bytes);
	if (f->q.peak_bytes > peak)
		f->budget_at_peak = f->budget_now;
	if (f->unc_bytes > f->unc_peak)
		f->unc_peak = f->unc_bytes;
}

/* Take descriptor @i off its flow's list (it left the station). */
static void flow_unlink(struct ts_tsqst *t, int32_t i, ts_ns_t now)
{
	struct flow *f = &t->flows[t->flow[i]];
	uint32_t len = dpkt(t, i)->len;

	if (t->prev[i] >= 0)
		t->next[t->prev[i]] = t->next[i];
	else
		f->head = t->next[i];
	if (t->next[i] >= 0)
		t->prev[t->next[i]] = t->prev[i];
	else
		f->tail = t->prev[i];
	if (f->first_chg == i)
		f->first_chg = t->next[i];
	if (t->state[i] == D_CHARGED)
		f->chg_bytes -= len;
	else
		f->unc_bytes -= len;
	flow_count(f, now);
}

static void ring_push(struct ts_tsqst *t, int32_t i, ts_ns_t now)
{
	uint32_t k = (t->rhead + t->rcount) % TS_TSQST_RING;

	t->ring[k] = i;
	t->ring_t[k] = now;
	t->rcount++;
}

/* Drop given-up and already matched entries at the head of the ring. */
static void ring_trim(struct ts_tsqst *t, ts_ns_t now)
{
	while (t->rcount) {
		int32_t i = t->ring[t->rhead];

		if (i >= 0) {
			if (now - t->ring_t[t->rhead] < TS_TSQST_LOST_NS)
				break;
			/* Never seen on the link side: the kernel lost it (its queue was full). */
			t->lost++;
			if (t->state[i] == D_SENT_TRANSIT || t->state[i] == D_DROP_TRANSIT) {
				set_state(t, i, D_NONE);
				ts_pool_put(&t->sh->pool, dpkt(t, i));
			} else if (t->state[i] == D_UNC_TRANSIT) {
				/* Still queued for the MAC: it will leave with no verdict left to give. */
				set_state(t, i, D_UNC_LOST);
			}
		}
		t->rhead = (t->rhead + 1) % TS_TSQST_RING;
		t->rcount--;
	}
}

/* Release flow @f's oldest charged packets early until its uncharged part reaches the target. */
static void flow_refill(struct ts_tsqst *t, struct flow *f, ts_ns_t now)
{
	struct ts_hook *h = &t->sh->hook[TS_H_UP_SENDER];

	while (f->unc_bytes < f->target && f->first_chg >= 0) {
		int32_t i = f->first_chg;
		struct ts_pkt *p = dpkt(t, i);
		int ret;

		if (t->rcount == TS_TSQST_RING) {
			t->ring_full++;
			return;
		}
		if (t->burst == TS_TSQST_BURST) {
			t->resume = now + TS_TSQST_BURST_GAP;
			return;
		}
		t->burst++;
		ret = h->io->verdict(h->q, p->id, 1);
		if (ret < 0 && !t->sh->fatal)
			t->sh->fatal = ret;
		h->accepted++;
		f->early++;
		set_state(t, i, D_UNC_TRANSIT);
		f->chg_bytes -= p->len;
		f->unc_bytes += p->len;
		f->first_chg = t->next[i];
		ring_push(t, i, now);
		flow_count(f, now);
	}
}

/* Packet @p is now in the uplink network pipe, as if it had just crossed the veth. */
static void hand_over(struct ts_tsqst *t, struct ts_pkt *p, uint32_t net_id, ts_ns_t when)
{
	struct ts_shaper *sh = t->sh;

	p->id = net_id;
	p->src = TS_H_UP_NETWORK;
	when = ts_max(when, t->last_net);
	t->last_net = when;
	if (sh->obs)
		ts_obs_handover(sh->obs, p, TS_UP, TS_PLACE_NETWORK, when);
	ts_pipe_enqueue(&sh->dir[TS_UP].pipe[TS_PLACE_NETWORK], p, when);
}

static void net_verdict_drop(struct ts_tsqst *t, uint32_t id)
{
	struct ts_hook *h = &t->sh->hook[TS_H_UP_NETWORK];
	int ret = h->io->verdict(h->q, id, 0);

	if (ret < 0 && !t->sh->fatal)
		t->sh->fatal = ret;
	h->dropped++;
}

/*
 * At the network hook: is this one we released early? Its descriptor, or
 * -1. The first WINDOW packets still in transit are searched (slots already
 * matched are skipped, at most 4 x WINDOW of them): the veth delivers in
 * verdict order, give or take what two CPUs' backlogs reorder.
 */
static int32_t ring_match(struct ts_tsqst *t, uint64_t key)
{
	uint32_t k, live = 0;

	for (k = 0; k < t->rcount && live < WINDOW && k < 4 * WINDOW; k++) {
		uint32_t slot = (t->rhead + k) % TS_TSQST_RING;
		int32_t i = t->ring[slot];

		if (i < 0)
			continue;
		live++;
		if (t->key[i] == key) {
			t->ring[slot] = -1;
			return i;
		}
	}
	return -1;
}

bool ts_tsqst_packet(struct ts_tsqst *t, int hook, struct ts_pkt *p, const struct ts_nfq_pkt *kp)
{
	struct flow k;
	uint64_t key;
	int32_t i;
	int fi;

	if (hook == TS_H_UP_NETWORK) {
		if (!t->rcount || !parse_tcp(kp, &k, &key))
			return false;
		t->last_net = ts_max(t->last_net, t->sh->now);
		i = ring_match(t, key);
		ring_trim(t, t->sh->now);
		if (i < 0)
			return false;
		ts_pool_put(&t->sh->pool, p); /* the packet keeps its first descriptor */
		switch (t->state[i]) {
		case D_UNC_TRANSIT:
			set_state(t, i, D_UNC_HELD);
			t->net_id[i] = kp->id;
			break;
		case D_SENT_TRANSIT:
			set_state(t, i, D_NONE);
			hand_over(t, dpkt(t, i), kp->id, t->sh->now);
			break;
		default: /* D_DROP_TRANSIT */
			set_state(t, i, D_NONE);
			net_verdict_drop(t, kp->id);
			ts_pool_put(&t->sh->pool, dpkt(t, i));
		}
		return true;
	}
	if (hook != TS_H_UP_SENDER)
		return false;
	i = (int32_t)didx(t, p);
	set_state(t, i, D_NONE);
	if (!parse_tcp(kp, &k, &key))
		return false;
	fi = flow_find(t, &k);
	if (fi < 0) {
		t->untracked_pkts++;
		return false;
	}
	struct flow *f = &t->flows[fi];

	set_state(t, i, D_CHARGED);
	t->flow[i] = (uint16_t)fi;
	t->key[i] = key;
	t->next[i] = -1;
	t->prev[i] = f->tail;
	if (f->tail >= 0)
		t->next[f->tail] = i;
	else
		f->head = i;
	f->tail = i;
	if (f->first_chg < 0)
		f->first_chg = i;
	f->chg_bytes += p->len;
	flow_count(f, t->sh->now);
	return false;
}

/* Only descriptors of the sender pipe are ours; the network pipe's are ordinary. */
static bool ours(const struct ts_tsqst *t, const struct ts_pkt *p)
{
	return p->src == TS_H_UP_SENDER && t->state[didx(t, p)] != D_NONE;
}

/*
 * A descriptor leaves the station, released or dropped: out of its flow's
 * list. Returns the state it had, D_NONE when it is not ours.
 */
static uint8_t leave_station(struct ts_tsqst *t, const struct ts_pkt *p, ts_ns_t when)
{
	int32_t i = (int32_t)didx(t, p);
	uint8_t st;

	if (!ours(t, p))
		return D_NONE;
	st = t->state[i];
	flow_unlink(t, i, when);
	set_state(t, i, D_NONE);
	return st;
}

bool ts_tsqst_release(struct ts_tsqst *t, struct ts_pkt *p, ts_ns_t when)
{
	int32_t i = (int32_t)didx(t, p);
	struct ts_shaper *sh = t->sh;
	uint8_t st = leave_station(t, p, when);

	if (st == D_NONE || st == D_CHARGED)
		return false;
	if (sh->obs)
		ts_obs_release(sh->obs, p, TS_UP, TS_PLACE_SENDER, when);
	if (st == D_UNC_TRANSIT) {
		set_state(t, i, D_SENT_TRANSIT); /* enters the network pipe when the hook sees it */
		return true;
	}
	if (st == D_UNC_LOST) {
		ts_pool_put(&sh->pool, p); /* lost in the kernel: nothing to release */
		return true;
	}
	hand_over(t, p, t->net_id[i], when);
	return true;
}

bool ts_tsqst_drop(struct ts_tsqst *t, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t when)
{
	int32_t i = (int32_t)didx(t, p);
	struct ts_shaper *sh = t->sh;
	uint8_t st = leave_station(t, p, when);

	if (st == D_NONE || st == D_CHARGED)
		return false;
	if (sh->obs)
		ts_obs_drop(sh->obs, p, TS_UP, TS_PLACE_SENDER, cause, when);
	if (st == D_UNC_TRANSIT) {
		set_state(t, i, D_DROP_TRANSIT); /* its NF_DROP goes out when the hook sees it */
		return true;
	}
	if (st == D_UNC_HELD)
		net_verdict_drop(t, t->net_id[i]);
	ts_pool_put(&sh->pool, p);
	return true;
}

void ts_tsqst_in_transit(const struct ts_tsqst *t, uint64_t *verdicts, uint64_t *held_out)
{
	*verdicts -= t->nstate[D_UNC_TRANSIT] + t->nstate[D_UNC_LOST];
	*held_out += t->nstate[D_SENT_TRANSIT] + t->nstate[D_DROP_TRANSIT];
}

/* ---- sockets ---- */

static bool paced_cca(const char *cca, bool have_bbr)
{
	return have_bbr || !strncmp(cca, "bbr", 3) || !strcmp(cca, "tas");
}

static struct flow *flow_of_sock(struct ts_tsqst *t, const struct ts_sockstat *st)
{
	unsigned int i;

	for (i = 0; i < t->nflows; i++) {
		struct flow *f = &t->flows[i];

		if (f->sport == st->sport && f->dport == st->dport && f->family == st->family &&
		    !strcmp(f->src, st->src) && !strcmp(f->dst, st->dst))
			return f;
	}
	return NULL;
}

static void log_shift(struct flow *f, ts_ns_t now)
{
	if (f->nlog && f->log[f->nlog - 1].shift == f->shift &&
	    f->log[f->nlog - 1].phase == f->phase)
		return;
	if (f->nlog && f->log[f->nlog - 1].shift == f->shift && f->phase != TS_BBR_NONE &&
	    f->log[f->nlog - 1].phase != TS_BBR_NONE && f->nlog >= NSHIFTLOG / 2)
		return; /* same shift, other state: only the first few such changes are kept */
	if (f->nlog == NSHIFTLOG) {
		f->log_full = true;
		return;
	}
	f->log[f->nlog++] = (struct shift_change){now, (uint8_t)f->shift, (uint8_t)f->phase};
}

struct poll_ctx {
	struct ts_tsqst *t;
	ts_ns_t now;
};

static void on_sock(void *arg, const struct ts_sockstat *st)
{
	struct poll_ctx *c = arg;
	struct ts_tsqst *t = c->t;
	struct flow *f = flow_of_sock(t, st);
	const struct tcp_info *ti = &st->info;
	struct ts_tsq_sock s;

	if (!f || !st->have_info)
		return;
	snprintf(f->cca, sizeof(f->cca), "%s", st->cca);
	f->have_sock = true;
	/*
	 * A BBR socket that is closing (FIN_WAIT, LAST_ACK) reports no BBR info:
	 * it keeps the state it was last seen in.
	 */
	if (!f->bbr)
		f->phase = TS_BBR_NONE;
	if (st->have_bbr) {
		f->bbr = true;
		/*
		 * BBR starts in STARTUP and never returns to it: gains read before its
		 * first ACK (zero, or not yet a STARTUP gain) are its STARTUP still.
		 */
		f->phase = st->bbr_pacing_gain ? ts_tsq_bbr_phase(st->bbr_pacing_gain)
					       : TS_BBR_STARTUP;
		if (!f->left_startup && f->phase == TS_BBR_STEADY) {
			if (f->seen_startup)
				f->left_startup = true;
			else
				f->phase = TS_BBR_STARTUP;
		} else if (st->bbr_pacing_gain) {
			f->seen_startup = true;
		}
	}
	s = (struct ts_tsq_sock){
		.pacing_rate = ti->tcpi_pacing_rate == UINT64_MAX ? 0 : ti->tcpi_pacing_rate,
		.mss = ti->tcpi_snd_mss,
		.min_rtt_us = ti->tcpi_min_rtt,
		.cwnd = ti->tcpi_snd_cwnd,
		.ssthresh = ti->tcpi_snd_ssthresh,
		.paced = paced_cca(st->cca, f->bbr),
		.kernel_shift = TS_TSQ_KERNEL_SHIFT,
	};
	/* A control that writes the shift itself (the tas module): what it wrote is in force. */
	if (!strcmp(st->cca, "tas") && t->tas_params)
		s.kernel_shift = f->phase == TS_BBR_STARTUP || f->phase == TS_BBR_DRAIN
					 ? t->tas_startup
					 : t->tas_steady;
	f->shift =
		t->conf.mode == TS_TSQ_KERNEL ? s.kernel_shift : ts_tsq_shift(&t->conf, f->phase);
	ts_tsq_plan(&s, &t->env, f->shift, &f->plan);
	f->target = t->conf.mode == TS_TSQ_KERNEL ? 0 : f->plan.uncharged;
	ts_tsq_qstat_rate(&f->q, c->now, f->plan.rate);
	log_shift(f, c->now);
	f->budget_now = t->conf.mode == TS_TSQ_KERNEL ? f->plan.kernel_budget : f->plan.budget;
	if (f->chg_bytes + f->unc_bytes) {
		if (f->budget_now > f->budget_max)
			f->budget_max = f->budget_now;
		f->nsamples++;
		f->budget_sum += (double)(t->conf.mode == TS_TSQ_KERNEL ? f->plan.kernel_budget
									: f->plan.budget);
		f->kbudget_sum += (double)f->plan.kernel_budget;
		f->rate_sum += (double)f->plan.rate;
	}
}

bool ts_tsqst_sample(struct ts_tsqst *t, ts_ns_t now)
{
	struct poll_ctx c = {t, now};
	unsigned int i;

	if (now < t->next_poll)
		return false;
	for (i = 0; i < t->nflows; i++) {
		struct flow *f = &t->flows[i];
		int ret;

		/* Only flows with packets at the station: their sockets are looked up, not dumped. */
		if (f->head < 0)
			continue;
		ret = ts_sockdiag_get(t->sd, f->family, f->saddr, f->sport, f->daddr, f->dport,
				      on_sock, &c);
		if (ret < 0 && !t->poll_err)
			t->poll_err = ret;
	}
	t->next_poll = now + TS_TSQST_POLL_NS;
	return true;
}

void ts_tsqst_tick(struct ts_tsqst *t, ts_ns_t now)
{
	unsigned int i;

	if (t->conf.mode == TS_TSQ_KERNEL || !t->nflows)
		return;
	t->burst = 0;
	t->resume = TS_NEVER;
	for (i = 0; i < t->nflows; i++)
		flow_refill(t, &t->flows[(t->next_flow + i) % t->nflows], now);
	t->next_flow = (t->next_flow + 1) % t->nflows;
}

ts_ns_t ts_tsqst_next_deadline(const struct ts_tsqst *t)
{
	return t ? t->resume : TS_NEVER;
}

bool ts_tsqst_sock_view(const struct ts_tsqst *t, const struct ts_sockstat *st, uint64_t *rate,
			unsigned int *shift, bool *emulated)
{
	struct flow *f = t ? flow_of_sock((struct ts_tsqst *)t, st) : NULL;

	if (!f || !f->have_sock)
		return false;
	*rate = f->plan.rate;
	*shift = f->shift;
	*emulated = t->conf.mode != TS_TSQ_KERNEL;
	return true;
}

/* ---- summary ---- */

static double mean_of(double sum, uint64_t n)
{
	return n ? sum / (double)n : 0.0;
}

static const char *mode_label(const struct ts_tsqst *t)
{
	return t->conf.mode == TS_TSQ_KERNEL ? "the kernel's own (not emulated)" : "emulated";
}

void ts_tsqst_print(FILE *f, const struct ts_tsqst *t, ts_ns_t origin)
{
	char buf[32];
	unsigned int i, k;

	if (!t)
		return;
	fprintf(f, "    TSQ budget      pacing_shift=%s, %s; pacing ratios ss %u%% ca %u%%",
		ts_tsq_conf_str(&t->conf, buf, sizeof(buf)), mode_label(t), t->env.ss_applied,
		t->env.ca_applied);
	if (t->lever)
		fprintf(f, " (were %u%%, %u%%)", t->env.ss_ratio, t->env.ca_ratio);
	if (t->lever && t->env.gso_den)
		fprintf(f, "; in GSO units x%.3f (a segmenting station charges a head per segment)",
			(double)t->env.gso_num / (double)t->env.gso_den);
	fprintf(f, "\n");
	for (i = 0; i < t->nflows; i++) {
		const struct flow *fl = &t->flows[i];
		double rate = mean_of(fl->rate_sum, fl->nsamples);

		fprintf(f,
			"    flow %s:%u %s shift %u, budget %.0f B (%.2f ms at %.1f Mbit/s), "
			"station peak %" PRIu64 " B (%.2f ms; budget then %" PRIu64
			" B), mean %.0f B (%.2f ms), early %" PRIu64 "\n",
			fl->src, fl->sport, fl->cca[0] ? fl->cca : "?", fl->shift,
			mean_of(fl->budget_sum, fl->nsamples),
			rate > 0 ? mean_of(fl->budget_sum, fl->nsamples) * 1e3 / rate : 0.0,
			rate * 8 / 1e6, fl->q.peak_bytes, fl->q.peak_ms, fl->budget_at_peak,
			ts_tsq_qstat_mean_bytes(&fl->q), ts_tsq_qstat_mean_ms(&fl->q), fl->early);
		if (t->conf.mode != TS_TSQ_TAS)
			continue;
		fprintf(f, "      shifts:");
		for (k = 0; k < fl->nlog; k++)
			fprintf(f, " %.3fs %u (%s)", (double)(fl->log[k].t - origin) / 1e9,
				fl->log[k].shift, ts_bbr_phase_name(fl->log[k].phase));
		fprintf(f, "%s\n", fl->log_full ? " ..." : "");
	}
	if (t->untracked_pkts || t->lost || t->ring_full || t->poll_err)
		fprintf(f,
			"    WARNING: TSQ emulation: %" PRIu64
			" packets of untracked flows, %" PRIu64 " early releases lost, %" PRIu64
			" deferred, socket sampling %s\n",
			t->untracked_pkts, t->lost, t->ring_full,
			t->poll_err ? strerror(-t->poll_err) : "ok");
}

static struct json_object *json_flow(const struct ts_tsqst *t, const struct flow *fl,
				     ts_ns_t origin, bool *nomem)
{
	struct json_object *o = json_object_new_object(), *log = json_object_new_array();
	double rate = mean_of(fl->rate_sum, fl->nsamples);
	double budget = mean_of(fl->budget_sum, fl->nsamples);
	char buf[32];
	unsigned int k;

	ts_json_put_str(o, "src", fl->src, nomem);
	ts_json_put(o, "sport", json_object_new_int(fl->sport), nomem);
	ts_json_put_str(o, "dst", fl->dst, nomem);
	ts_json_put(o, "dport", json_object_new_int(fl->dport), nomem);
	ts_json_put_str(o, "cca", fl->cca, nomem);
	ts_json_put(o, "pacing_shift", json_object_new_int((int)fl->shift), nomem);
	ts_json_put_str(o, "pacing_shift_mode", ts_tsq_conf_str(&t->conf, buf, sizeof(buf)), nomem);
	ts_json_put(o, "emulated", json_object_new_boolean(t->conf.mode != TS_TSQ_KERNEL), nomem);
	ts_json_put(o, "tsq_budget_bytes", ts_json_count((uint64_t)budget), nomem);
	ts_json_put(o, "kernel_budget_bytes",
		    ts_json_count((uint64_t)mean_of(fl->kbudget_sum, fl->nsamples)), nomem);
	ts_json_put(o, "pacing_rate_bps", ts_json_count((uint64_t)(rate * 8)), nomem);
	ts_json_put(o, "tsq_budget_ms", json_object_new_double(rate > 0 ? budget * 1e3 / rate : 0),
		    nomem);
	ts_json_put(o, "tsq_budget_max_bytes", ts_json_count(fl->budget_max), nomem);
	ts_json_put(o, "tsq_budget_at_peak_bytes", ts_json_count(fl->budget_at_peak), nomem);
	ts_json_put(o, "station_peak_bytes", ts_json_count(fl->q.peak_bytes), nomem);
	ts_json_put(o, "station_mean_bytes",
		    ts_json_count((uint64_t)ts_tsq_qstat_mean_bytes(&fl->q)), nomem);
	ts_json_put(o, "station_peak_ms", json_object_new_double(fl->q.peak_ms), nomem);
	ts_json_put(o, "station_mean_ms", json_object_new_double(ts_tsq_qstat_mean_ms(&fl->q)),
		    nomem);
	ts_json_put(o, "uncharged_peak_bytes", ts_json_count(fl->unc_peak), nomem);
	ts_json_put(o, "early_released_pkts", ts_json_count(fl->early), nomem);
	ts_json_put(o, "samples", ts_json_count(fl->nsamples), nomem);
	for (k = 0; log && k < fl->nlog; k++) {
		struct json_object *e = json_object_new_object();

		ts_json_put(e, "t_s", json_object_new_double((double)(fl->log[k].t - origin) / 1e9),
			    nomem);
		ts_json_put(e, "shift", json_object_new_int(fl->log[k].shift), nomem);
		ts_json_put_str(e, "state", ts_bbr_phase_name(fl->log[k].phase), nomem);
		ts_json_append(log, e, nomem);
	}
	ts_json_put(o, "shifts", log, nomem);
	ts_json_put(o, "shifts_truncated", json_object_new_boolean(fl->log_full), nomem);
	return o;
}

void ts_tsqst_json(struct json_object *wifi6, const struct ts_tsqst *t, ts_ns_t origin, bool *nomem)
{
	struct json_object *o, *r, *flows;
	char buf[32];
	unsigned int i;

	if (!t)
		return;
	o = json_object_new_object();
	r = json_object_new_object();
	flows = json_object_new_array();
	ts_json_put_str(o, "pacing_shift", ts_tsq_conf_str(&t->conf, buf, sizeof(buf)), nomem);
	ts_json_put(o, "emulated", json_object_new_boolean(t->conf.mode != TS_TSQ_KERNEL), nomem);
	ts_json_put(r, "ss", json_object_new_int((int)t->env.ss_applied), nomem);
	ts_json_put(r, "ca", json_object_new_int((int)t->env.ca_applied), nomem);
	ts_json_put(r, "ss_found", json_object_new_int((int)t->env.ss_ratio), nomem);
	ts_json_put(r, "ca_found", json_object_new_int((int)t->env.ca_ratio), nomem);
	ts_json_put(o, "pacing_ratios", r, nomem);
	ts_json_put(o, "limit_output_bytes", ts_json_count(t->env.limit_output_bytes), nomem);
	/* The budget in GSO units (absent per packet): applied ratios and limit, station budgets. */
	if (t->lever && t->env.gso_den)
		ts_json_put(o, "gso_scale",
			    json_object_new_double((double)t->env.gso_num / (double)t->env.gso_den),
			    nomem);
	ts_json_put(o, "untracked_pkts", ts_json_count(t->untracked_pkts), nomem);
	ts_json_put(o, "lost", ts_json_count(t->lost), nomem);
	ts_json_put(o, "deferred", ts_json_count(t->ring_full), nomem);
	ts_json_put(wifi6, "tsq", o, nomem);
	for (i = 0; flows && i < t->nflows; i++)
		ts_json_append(flows, json_flow(t, &t->flows[i], origin, nomem), nomem);
	ts_json_put(wifi6, "flows", flows, nomem);
}

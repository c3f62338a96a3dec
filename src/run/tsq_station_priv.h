/* SPDX-License-Identifier: MIT */
/*
 * The station's TCP Small Queues budget at run time (run/tsq_station.h),
 * shared by its parts:
 *
 *   tsq_station.c        start and stop, the state a run keeps
 *   tsq_station_match.c  finding a packet's flow and an early-released
 *                        packet again at the network hook (header hash)
 *   tsq_station_lever.c  the station namespace's sysctls (pacing ratios,
 *                        tcp_limit_output_bytes) and the tas module's shifts
 *   tsq_station_state.c  each descriptor's state and the early releases
 *   tsq_station_sock.c   the sockets' pacing rates, read through sock_diag
 *   tsq_station_poll.c   those reads, made by a thread off the loop
 *   tsq_station_report.c the summary lines and the JSON record
 *   tsq_station_sta.c    the other real Wi-Fi stations (wifi6 real=): their
 *                        sockets, their levers, a sender hook's station
 *
 * Per flow, the packets the sender pipe holds are kept in arrival order
 * on a list through per-descriptor links (no allocation per packet): an
 * uncharged prefix (already across the veth) and a charged rest. Each
 * loop turn the oldest charged packets are released early while the
 * flow's uncharged bytes are below its target (ts_tsq_plan). The MAC
 * delivers a flow's packets in order, so the uncharged ones leave the
 * sender pipe first and enter the uplink network pipe as if they had just
 * crossed the veth; the charged ones get their verdict as usual.
 */
#ifndef TS_RUN_TSQ_STATION_PRIV_H
#define TS_RUN_TSQ_STATION_PRIV_H

#include <arpa/inet.h>
#include <sched.h>

#include "net/sockdiag.h"
#include "run/shaper.h"
#include "run/tsq_station.h"
#include "tasshape/tsq.h"

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

#define TS_TSQST_NSHIFTLOG 32

struct ts_tsqst_shift_change {
	ts_ns_t t;
	uint8_t shift;
	uint8_t phase;
};

struct ts_tsqst_flow {
	int family;
	uint8_t saddr[16], daddr[16];
	uint16_t sport, dport; /* host order */
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	char cca[16];
	unsigned int station;	       /* the real Wi-Fi station it is sent from (wifi6 real=), 0 */
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
	struct ts_tsqst_shift_change log[TS_TSQST_NSHIFTLOG];
	unsigned int nlog;
	bool log_full;
};

/* How the thread reads one socket: ts_sockdiag_get's shape. */
typedef int (*ts_tsqst_lookup_fn)(struct ts_sockdiag *sd, int family, const void *laddr,
				  uint16_t lport, const void *raddr, uint16_t rport,
				  ts_sockdiag_fn cb, void *ctx);

struct ts_tsqst {
	struct ts_shaper *sh;
	struct ts_tsq_conf conf;
	int station_fd; /* station 0's namespace (the levers it restores) */
	/* Each real station's sock_diag socket (wifi6 real=; station 0's only without). */
	struct ts_sockdiag *sd[TS_WIFI6_REAL_MAX];
	unsigned int nsta; /* stations with a socket in sd[] */
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
	struct ts_tsqst_flow flows[TS_TSQST_FLOWS];
	unsigned int nflows;
	uint64_t untracked_pkts, ring_full, lost;
	uint64_t nstate[D__COUNT]; /* descriptors per state */
	ts_ns_t next_poll, last_net;
	ts_ns_t resume;		/* early releases left for the next turn: when; TS_NEVER if none */
	unsigned int burst;	/* early releases this turn */
	unsigned int next_flow; /* where the next turn's refill starts (fairness) */
	int poll_err;
	/* The reads' thread (tsq_station_poll.c); NULL until the first poll. */
	struct ts_tsqst_poll *poll;
	ts_tsqst_lookup_fn lookup;     /* ts_sockdiag_get; a made-up one in the unit tests */
	const cpu_set_t *helper_cpus;  /* where it runs; NULL: where the loop does */
	uint64_t polls, polls_skipped; /* requests handed to it; polls due while it still read */
};

/* ---- tsq_station_match.c ---- */

/* A TCP packet's flow (addresses and ports in @f) and header key; false for anything else. */
bool ts_tsqst_parse_tcp(const struct ts_nfq_pkt *kp, struct ts_tsqst_flow *f, uint64_t *key);
/* The index of @k's flow, a new one if it is new; -1 when TS_TSQST_FLOWS are tracked already. */
int ts_tsqst_flow_find(struct ts_tsqst *t, const struct ts_tsqst_flow *k);
/* The tracked flow socket @st belongs to, or NULL. */
struct ts_tsqst_flow *ts_tsqst_flow_of_sock(struct ts_tsqst *t, const struct ts_sockstat *st);
/* Descriptor @i was released early at @now: it is looked for at the network hook. */
void ts_tsqst_ring_push(struct ts_tsqst *t, int32_t i, ts_ns_t now);
/* The descriptor released early whose key is @key, taken off the ring; -1: none. */
int32_t ts_tsqst_ring_match(struct ts_tsqst *t, uint64_t key);

/* ---- tsq_station_poll.c ---- */

/* What a socket read does to its flow's budget, taken at @now (tsq_station_sock.c). */
typedef void (*ts_tsqst_apply_fn)(struct ts_tsqst *t, const struct ts_sockstat *st, ts_ns_t now);
/*
 * Once per loop turn: apply the answers of the last request (by @apply) if they are in, and,
 * every TS_TSQST_POLL_NS, hand the thread the flows with packets at the station (it starts at
 * the first). Never blocks. Returns true when answers were applied.
 */
bool ts_tsqst_poll_turn(struct ts_tsqst *t, ts_ns_t now, ts_tsqst_apply_fn apply);
/* End the thread (a request under way ends first) and free it; before sd[] is closed. */
void ts_tsqst_poll_stop(struct ts_tsqst *t);

/* ---- tsq_station_lever.c ---- */

/* Give the new namespace of another real station @netns_fd the ratios applied to station 0's. */
int ts_tsqst_lever_copy(const struct ts_tsqst *t, int netns_fd, struct ts_err *err);

/* Read the station's sysctls and, unless pacing_shift=kernel, scale them (t->lever). */
int ts_tsqst_lever_up(struct ts_tsqst *t, struct ts_err *err);
/* Restore what ts_tsqst_lever_up changed. */
void ts_tsqst_lever_down(struct ts_tsqst *t);
/* The real tas module's shifts, when it is loaded (t->tas_params). */
void ts_tsqst_read_tas_params(struct ts_tsqst *t);

#endif

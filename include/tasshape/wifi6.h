/* SPDX-License-Identifier: MIT */
/*
 * A Wi-Fi 6 (802.11ax) frame-aggregation MAC (docs/wifi6-model.md).
 *
 * One medium (struct ts_wifi6) is shared by two sides: the station's
 * uplink queue (a SENDER stage, charged to the socket so TCP Small Queues
 * limits what it can aggregate) and the access point's downlink queue
 * (the last NETWORK stage of the downlink). They contend for the channel
 * with their own backoff; one transmits at a time, and two that pick the
 * same slot collide, as in 802.11's distributed coordination function.
 *
 * At each channel access a side waits AIFS plus a seeded random backoff
 * of [0, CW] idle slots, then sends one A-MPDU of
 *
 *   N = min(frames queued, mpdus, frames fitting ampdu_bytes,
 *           frames fitting ppdu_max)
 *
 * and the whole aggregate is released when its BlockAck ends:
 *
 *   airtime(N) = T_preamble + ceil((16 + 8 * sum S + 6) / N_DBPS) * T_sym
 *                + SIFS + T_BlockAck
 *   S = 4 + 26 + 8 + L + 4, padded to a multiple of 4 (1544 B for L = 1500)
 *
 * Times are exact integer nanoseconds. Every random choice (backoff,
 * collisions, MPDU errors) comes from the medium's seeded ts_rng, and
 * events are processed in time order across both sides, so the same
 * seed and arrival times give the same aggregates.
 */
#ifndef TASSHAPE_WIFI6_H
#define TASSHAPE_WIFI6_H

#include <stdbool.h>
#include <stdint.h>

#include "tasshape/err.h"
#include "tasshape/spec.h"
#include "tasshape/stage.h"
#include "tasshape/time.h"
#include "tasshape/trace.h"
#include "tasshape/tsq.h"
#include "tasshape/wifi6_airtime.h"

/* 802.11 constants for the 5 GHz band (docs/wifi6-model.md). */
#define TS_WIFI6_SLOT_NS	   9000LL
#define TS_WIFI6_SIFS_NS	   16000LL
#define TS_WIFI6_SYM_NS		   12800LL   /* HE data symbol without its guard interval */
#define TS_WIFI6_MPDUS_MAX	   256u	     /* 802.11ax A-MPDU limit */
#define TS_WIFI6_AMPDU_BYTES_MAX   6500631u  /* 802.11ax maximum A-MPDU length */
#define TS_WIFI6_PPDU_MAX_NS	   5484000LL /* HE PPDU duration limit */
#define TS_WIFI6_STATIONS_MAX	   64u
#define TS_WIFI6_SERVICE_BITS	   16u /* the data field's SERVICE field */
#define TS_WIFI6_SERVICE_TAIL_BITS 22u /* 16 service bits + 6 tail bits */
#define TS_WIFI6_CTRL_MBPS	   24u /* control responses (Ack, BlockAck) and BlockAckRequests */
#define TS_WIFI6_BASIC_MBPS	   6u  /* the lowest basic rate at 5 GHz: beacons, EIFS's Ack */
#define TS_WIFI6_ACK_BYTES	   14u /* Ack frame */
#define TS_WIFI6_BAR_BYTES	   24u /* compressed BlockAckRequest frame */
#define TS_WIFI6_TU_NS		   1024000LL /* 802.11 time unit */

/* The PHY of a transmission: how long N bits take on the air. */
struct ts_wifi6_phy {
	uint64_t bps;	/* nominal data rate, N_DBPS / T_sym (bit/s, rounded down) */
	uint32_t ndbps; /* data bits per OFDM symbol */
	uint32_t ss;	/* spatial streams (decides the number of HE-LTFs) */
	ts_ns_t t_sym;	/* 12.8 us + guard interval */
	ts_ns_t t_pre;	/* HE SU preamble */
};

/*
 * ts_wifi6_phy_mcs - the PHY of HE-MCS @mcs (0..11) at @bw_mhz (20, 40, 80,
 * 160) with @ss spatial streams (1..8) and guard interval @gi_ns (800,
 * 1600, 3200): N_DBPS = floor(N_SD * N_BPSCS * R * N_SS) as in the
 * 802.11ax rate tables (80 MHz, 2 SS, MCS 11, 0.8 us: 16333 bits, 1201
 * Mbit/s). Returns 0 or -EINVAL with @err set.
 */
int ts_wifi6_phy_mcs(struct ts_wifi6_phy *phy, unsigned int bw_mhz, unsigned int mcs,
		     unsigned int ss, ts_ns_t gi_ns, struct ts_err *err);

/*
 * ts_wifi6_phy_rate - the PHY of a data rate given directly (phy=1201mbit
 * or a PHY-rate trace row): N_DBPS = floor(@bps * T_sym / 1 s), the bits
 * one symbol carries at that rate. Returns 0, or -EINVAL when the rate
 * carries less than one bit per symbol or @ss/@gi_ns are invalid.
 */
int ts_wifi6_phy_rate(struct ts_wifi6_phy *phy, uint64_t bps, unsigned int ss, ts_ns_t gi_ns,
		      struct ts_err *err);

/* HE SU preamble for @ss streams: 36 us + 8 us per HE-LTF (1, 2, 4, 4, 6, 6, 8, 8). */
ts_ns_t ts_wifi6_preamble(unsigned int ss);

/* A-MPDU subframe bytes of an IP packet of @ip_len bytes: 4 + 26 + 8 + L + 4, padded to 4. */
uint32_t ts_wifi6_subframe_bytes(uint32_t ip_len);

/* Data field time of a PSDU of @psdu_bytes: ceil((16 + 8 * bytes + 6) / N_DBPS) * T_sym. */
ts_ns_t ts_wifi6_data_time(const struct ts_wifi6_phy *phy, uint64_t psdu_bytes);

/*
 * ts_wifi6_mpdu_end - when the last symbol of an A-MPDU's subframes up to
 * @cum_bytes of its PSDU arrives, from the PPDU's start: the preamble plus
 * ceil((16 + 8 * cum_bytes) / N_DBPS) symbols (the SERVICE field first; the
 * tail bits follow the last subframe only, so a PPDU's last subframe ends at
 * ts_wifi6_data_time's end or one symbol before). A receiver has each MPDU
 * then (ns-3.37 PhyEntity::EndOfMpdu).
 */
ts_ns_t ts_wifi6_mpdu_end(const struct ts_wifi6_phy *phy, uint64_t cum_bytes);

/*
 * ts_wifi6_legacy_time - a non-HT (legacy OFDM) PPDU of @bytes at @mbps (6,
 * 12, 24 ...): 20 us preamble + ceil((16 + 8 * bytes + 6) / (4 * mbps)) * 4 us.
 * Ack at 24 Mbit/s: 28 us; BlockAckRequest: 32 us; Ack at 6 Mbit/s: 44 us.
 */
ts_ns_t ts_wifi6_legacy_time(uint64_t bytes, unsigned int mbps);

/*
 * Compressed BlockAck of a @ba-bit bitmap (64 or 256) sent at the 24 Mbit/s
 * legacy rate: 20 us preamble + ceil((16 + 8 * (24 + ba / 8) + 6) / 96) * 4 us
 * (32 B: 32 us, 56 B: 40 us).
 */
ts_ns_t ts_wifi6_ba_time(unsigned int ba);

/* The model's parameters (spec keys in docs/wifi6-model.md). */
struct ts_wifi6_conf {
	struct ts_wifi6_phy phy; /* fixed PHY, or the SS and GI used with a PHY trace */
	char phy_trace[256];	 /* phy_trace=FILE (a time_s,phy_mbps CSV), or "" */
	uint32_t mpdus;		 /* max MPDUs per A-MPDU (256) */
	uint64_t ampdu_bytes;	 /* max A-MPDU length (6500631) */
	ts_ns_t ppdu_max;	 /* max PPDU duration (5484 us) */
	uint32_t aifsn;		 /* 3: AIFS = SIFS + 3 slots = 43 us */
	uint32_t cwmin, cwmax;	 /* 15, 1023 */
	uint32_t ba;		 /* BlockAck window and bitmap: 64 or 256 */
	uint32_t retry;		 /* retransmissions of an MPDU before it is dropped (7) */
	uint32_t collision_ppm;	 /* probability an A-MPDU is lost whole (no BlockAck) */
	uint32_t mpdu_err_ppm;	 /* probability one MPDU of an acknowledged A-MPDU failed */
	uint32_t stations;	 /* other saturated stations contending (0) */
	uint32_t real;		 /* real stations, each with its own queues (1) */
	/* sta_mcs=M0/M1/...: each real station's PHY (bw, ss, gi shared); 0: the medium's */
	uint32_t nsta_phy;
	struct ts_wifi6_phy sta_phy[TS_WIFI6_REAL_MAX];
	struct ts_airtime_conf airtime; /* the AP's scheduler: airtime_flags, AQL */
	int32_t backoff;	/* fixed backoff in slots (calibration), or -1: random [0, CW] */
	bool bar;		/* a BlockAckRequest exchange after a missed BlockAck (on) */
	bool lone_ack;		/* an A-MPDU of one MPDU is answered by an Ack (on) */
	bool eifs;		/* EIFS, not AIFS, after hearing a collision (on) */
	bool mpdu_rx;		/* the AP's units reach the station at their last MPDU's end (on) */
	ts_ns_t ba_timeout;	/* a sender's wait for a (Block)Ack that does not come (45 us) */
	ts_ns_t beacon;		/* the AP's beacon interval (100 TU), or 0: no beacons */
	uint32_t beacon_bytes;	/* beacon frame length (199) */
	struct ts_tsq_conf tsq; /* pacing_shift=: the station's TSQ budget (tsq.h) */
};

/* Defaults: 80 MHz, MCS 11, 2 SS, GI 0.8 us (1201 Mbit/s) and the MAC constants of docs/wifi6-model.md. */
void ts_wifi6_conf_init(struct ts_wifi6_conf *c);

/*
 * ts_wifi6_conf_parse - read the keys of a "wifi6:k=v,..." spec over the
 * defaults in @c: phy, bw, mcs, ss, gi, phy_trace, mpdus, ampdu_bytes,
 * ppdu_max, aifsn, cwmin, cwmax, ba, retry, collision, mpdu_err,
 * stations, backoff, bar, lone_ack, eifs, mpdu_rx, ba_timeout, beacon, beacon_bytes,
 * pacing_shift, real, sta_mcs, airtime_flags, airtime_weight, aql,
 * aql_txq_limit, aql_threshold. Unknown keys and out-of-range values are -EINVAL
 * (or -ERANGE) with @err naming the key. The spec's name is not checked.
 */
int ts_wifi6_conf_parse(struct ts_wifi6_conf *c, struct ts_spec *spec, struct ts_err *err);

/* Accepted keys, for messages and --help. */
extern const char ts_wifi6_keys[];

/*
 * PHY-rate traces: a CSV with a time column (time_s or time_ms) and a
 * phy_bps/phy_kbps/phy_mbps/phy_gbps column (other columns, such as a
 * capacity trace's down_mbps, are ignored, so one file can hold both),
 * piecewise constant and looping like a capacity trace; '#' comments and
 * "# duration=60s" as in the capacity CSV. Every rate must be > 0.
 * ts_wifi6_phy_trace_parse reads @len bytes of @text (tests feed
 * strings); ts_wifi6_phy_trace_load reads a file. On success *@out is a
 * TS_TRACE_RATE trace owned by the caller (ts_trace_free). Errors are
 * -EINVAL/-ERANGE/-ENOMEM/-errno with @err "NAME:LINE: ...".
 */
int ts_wifi6_phy_trace_parse(const char *name, const char *text, size_t len, struct ts_trace **out,
			     struct ts_err *err);
int ts_wifi6_phy_trace_load(const char *path, struct ts_trace **out, struct ts_err *err);

/* PHY rate of a rate trace at trace time @at (looping). */
uint64_t ts_wifi6_trace_bps_at(const struct ts_trace *t, ts_ns_t at);

/* The two sides of the medium. */
enum ts_wifi6_side {
	TS_WIFI6_UP,   /* the station's queue (uplink) */
	TS_WIFI6_DOWN, /* the access point's queue (downlink) */
	TS_WIFI6__SIDES
};

/* Per side. Mean aggregate size = mpdus / txops. */
struct ts_wifi6_stats {
	uint64_t accesses;    /* channel accesses: A-MPDUs and BlockAckRequests */
	uint64_t txops;	      /* channel accesses that sent an A-MPDU */
	uint64_t bars;	      /* BlockAckRequests sent (bar=) */
	uint64_t bars_lost;   /* of them, not answered (a tie or collision=) */
	uint64_t mpdus;	      /* MPDUs sent, retransmissions included */
	uint64_t collisions;  /* A-MPDUs lost because another contender chose the same slot */
	uint64_t failures;    /* A-MPDUs lost whole to the collision= probability */
	uint64_t mpdu_errors; /* MPDUs missing from a BlockAck (mpdu_err=) */
	uint64_t retries;     /* MPDU retransmissions */
	uint64_t drops;	      /* MPDUs dropped at the retry limit (cause mac_retry) */
	ts_ns_t airtime;      /* on the air: preamble to end of BlockAck, failed ones too */
	uint64_t n_hist[TS_WIFI6_MPDUS_MAX + 1]; /* A-MPDUs by their N */
};

/* One of the stations= contenders (saturated, 1500-byte frames). */
struct ts_wifi6_sta_stats {
	uint64_t accesses;   /* channel accesses: A-MPDUs and BlockAckRequests */
	uint64_t txops;	     /* A-MPDUs sent */
	uint64_t delivered;  /* MPDUs acknowledged (each a 1500-byte IP packet) */
	uint64_t collisions; /* A-MPDUs lost to a tie */
	uint64_t failures;   /* A-MPDUs lost to the collision= probability */
	uint64_t bars;	     /* BlockAckRequests sent */
	uint64_t bars_lost;  /* of them, not answered */
	ts_ns_t airtime;
};

/* One real station (real=): what it and the AP's queue for it did. */
struct ts_wifi6_real_stats {
	uint64_t up_bytes, down_bytes; /* IP bytes delivered from it, to it */
	uint64_t up_txops, down_txops; /* its A-MPDUs, the AP's A-MPDUs to it */
	ts_ns_t up_airtime;	       /* its transmissions, preamble to end of (Block)Ack */
	ts_ns_t down_airtime;	       /* the AP's transmissions to it */
	uint64_t aql_held;	       /* A-MPDUs AQL cut short (new frames held back) */
};

/* The medium as a whole. */
struct ts_wifi6_medium_stats {
	ts_ns_t busy;		   /* time some contender was transmitting */
	ts_ns_t others_airtime;	   /* airtime of the stations= contenders */
	uint64_t others_txops;	   /* their A-MPDUs */
	uint64_t collision_events; /* TXOPs in which two or more contenders collided */
	uint64_t beacons;	   /* beacons the AP sent (beacon=) */
	ts_ns_t beacon_airtime;
	uint32_t stations;					 /* stations= */
	struct ts_wifi6_sta_stats others[TS_WIFI6_STATIONS_MAX]; /* each of them */
	uint32_t real;						 /* real= */
	struct ts_wifi6_real_stats sta[TS_WIFI6_REAL_MAX];	 /* each real station */
};

/* What a transmission was. */
enum ts_wifi6_kind {
	TS_WIFI6_DATA,	 /* an A-MPDU, answered by a BlockAck (or an Ack if lone_ack) */
	TS_WIFI6_BAR,	 /* a BlockAckRequest, answered by a BlockAck */
	TS_WIFI6_BEACON, /* the AP's beacon: no answer */
};

/* One transmission, for an observer (tests, logs). */
struct ts_wifi6_txop {
	/*
	 * enum ts_wifi6_side (TS_WIFI6_UP: real station 0), 2 + i for other
	 * station i, 2 + stations: beacon, then real stations 1, 2, ...
	 */
	unsigned int who;
	int sta; /* the real station of a data exchange (its own, or the AP's to it), -1 */
	unsigned int kind; /* enum ts_wifi6_kind */
	ts_ns_t start;	   /* first bit of the preamble */
	ts_ns_t end;	   /* end of the BlockAck (or of its timeout) */
	ts_ns_t ppdu_end;  /* last bit of the PPDU */
	uint32_t mpdus;
	uint64_t phy_bps;
	bool ok;	/* acknowledged */
	bool collision; /* lost to a tie with another contender */
};

typedef void (*ts_wifi6_observer_fn)(void *ctx, const struct ts_wifi6_txop *tx);

struct ts_wifi6;

/*
 * ts_wifi6_create - a medium for @conf, holding one reference. Loads the
 * PHY trace named in conf->phy_trace. @seed seeds its ts_rng. Returns 0
 * or a negative errno with @err set.
 */
int ts_wifi6_create(struct ts_wifi6 **out, const struct ts_wifi6_conf *conf, uint64_t seed,
		    struct ts_err *err);

/* References: each attached stage and the link configuration hold one. */
void ts_wifi6_get(struct ts_wifi6 *m);
void ts_wifi6_put(struct ts_wifi6 *m); /* NULL is fine */

const struct ts_wifi6_conf *ts_wifi6_conf_of(const struct ts_wifi6 *m);

/*
 * ts_wifi6_attach - make stage @st side @side of the medium, with a
 * driver queue per real station (real=; the AP's per-station queues on
 * the downlink) built from @qdisc (NULL: TS_QDISC_DEFAULT) seeded by
 * @qseed; @origin is trace time 0 of the PHY trace. The stage's pipe
 * must list the stages in front of it: the medium advances them before
 * it decides anything, so both sides' arrivals are known in time order.
 * Returns 0, -EBUSY if the side is taken, or the queue's error.
 */
int ts_wifi6_attach(struct ts_wifi6 *m, enum ts_wifi6_side side, struct ts_stage *st,
		    const char *qdisc, uint64_t qseed, ts_ns_t origin, struct ts_err *err);

/* Drop everything side @side holds (cause shutdown) and detach its stage. */
void ts_wifi6_detach(struct ts_wifi6 *m, enum ts_wifi6_side side, ts_ns_t now);

/*
 * ts_wifi6_arrive - packet @p reaches side @side at time @t, for real
 * station p->sta (station 0 when out of range). It is only
 * recorded: the medium takes it into the queue, in time order with its
 * own events, at the next ts_wifi6_advance.
 */
void ts_wifi6_arrive(struct ts_wifi6 *m, enum ts_wifi6_side side, struct ts_pkt *p, ts_ns_t t);

/* Earliest time the medium needs advancing (an arrival or an event); TS_NEVER if none. */
ts_ns_t ts_wifi6_next_deadline(const struct ts_wifi6 *m);

/*
 * ts_wifi6_advance - run both sides up to @now: first advance the stages
 * in front of each side to @now, then process arrivals, channel accesses
 * and BlockAck ends in time order, emitting each side's aggregate to the
 * next stage of its own pipe at the exact time its BlockAck ended. The
 * two pipes must be driven by one non-decreasing clock.
 */
void ts_wifi6_advance(struct ts_wifi6 *m, ts_ns_t now);

const struct ts_wifi6_stats *ts_wifi6_stats(const struct ts_wifi6 *m, enum ts_wifi6_side side);
const struct ts_wifi6_medium_stats *ts_wifi6_medium_stats(const struct ts_wifi6 *m);

/* What each station delivered: the real ones (uplink), then the stations= ones. */
struct ts_wifi6_station_rates {
	unsigned int n;						    /* real= + stations= */
	double bps[TS_WIFI6_REAL_MAX + TS_WIFI6_STATIONS_MAX];	    /* IP bit/s, real ones first */
	ts_ns_t airtime[TS_WIFI6_REAL_MAX + TS_WIFI6_STATIONS_MAX]; /* each one's own airtime */
	double medium_bps;					    /* their sum */
	double jain; /* Jain's index (sum x)^2 / (n sum x^2); 1 is fair */
};

/*
 * ts_wifi6_station_rates - fill @r from the medium's statistics @ms over
 * @dt (the contenders' frames are 1500-byte IP packets). With one real
 * station its rate is @station_bytes (what the uplink's stage delivered)
 * and its airtime @station_airtime; with several, each one's own counts.
 * Pure: for the summaries.
 */
void ts_wifi6_station_rates(struct ts_wifi6_station_rates *r, uint64_t station_bytes,
			    ts_ns_t station_airtime, const struct ts_wifi6_medium_stats *ms,
			    ts_ns_t dt);

/* Current contention window of side @side (for tests and logs). */
uint32_t ts_wifi6_cw(const struct ts_wifi6 *m, enum ts_wifi6_side side);

/* Call @fn at the end of every transmission (NULL to stop). */
void ts_wifi6_set_observer(struct ts_wifi6 *m, ts_wifi6_observer_fn fn, void *ctx);

/*
 * The wifi6 stage's view for the summary: its side's statistics and the
 * medium's, still readable after the stage was drained (a copy is kept).
 * NULL if @st is not a wifi6 stage.
 */
const struct ts_wifi6_stats *ts_wifi6_stage_stats(const struct ts_stage *st);
const struct ts_wifi6_medium_stats *ts_wifi6_stage_medium(const struct ts_stage *st);

#endif

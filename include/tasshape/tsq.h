/* SPDX-License-Identifier: MIT */
/*
 * The TCP Small Queues budget of a Wi-Fi station (docs/wifi6-model.md,
 * "TCP Small Queues and the pacing shift").
 *
 * Linux throttles a TCP socket while the bytes charged to it below the
 * TCP layer (sk_wmem_alloc, skb truesize) exceed
 *
 *   limit = max(2 * truesize, sk_pacing_rate >> sk_pacing_shift)
 *
 * and, for a socket that is not paced, also min(limit,
 * tcp_limit_output_bytes) (tcp_small_queue_check(), net/ipv4/tcp_output.c).
 * mac80211 sets sk_pacing_shift to 7 on every frame it transmits; a veth
 * station keeps 10. These functions compute, from what the kernel reports
 * about a socket, the budget a station with shift S gives it, the budget
 * the kernel enforces, and so how many bytes of the flow's station queue
 * the emulator must hold uncharged (released across the veth, still
 * queued for the Wi-Fi MAC) for the socket to be throttled as on the
 * station. Pure: no clock, no syscalls; times and rates are parameters.
 */
#ifndef TASSHAPE_TSQ_H
#define TASSHAPE_TSQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasshape/err.h"
#include "tasshape/time.h"

#define TS_TSQ_KERNEL_SHIFT   10u /* a socket's default sk_pacing_shift */
#define TS_TSQ_MAC80211_SHIFT 7u  /* mac80211's hw.tx_sk_pacing_shift default */
#define TS_TSQ_SHIFT_MIN      1u
#define TS_TSQ_SHIFT_MAX      20u
#define TS_TSQ_RATIO_MAX      1000u  /* tcp_pacing_{ss,ca}_ratio sysctl maximum */
#define TS_TSQ_GSO_MAX	      65536u /* a veth's gso_max_size (GSO_LEGACY_MAX_SIZE) */
#define TS_TSQ_SEG_OVERHEAD   88u    /* truesize beyond the payload, per MSS of a TSO skb */
#define TS_TSQ_WIRE_OVERHEAD  52u    /* IP + TCP + timestamps per MSS on the wire */

/* pacing_shift=: whose shift the station applies. */
enum ts_tsq_mode {
	TS_TSQ_FIXED,  /* a number: every socket, as mac80211's hw.tx_sk_pacing_shift */
	TS_TSQ_KERNEL, /* no emulation: whatever the running kernel's sockets have */
	TS_TSQ_TAS,    /* tas:STARTUP/STEADY: per BBR state, as BBR-TAS sets it */
};

struct ts_tsq_conf {
	enum ts_tsq_mode mode;
	unsigned int shift;   /* FIXED */
	unsigned int startup; /* TAS: in STARTUP and DRAIN */
	unsigned int steady;  /* TAS: otherwise (and for controls that are not BBR) */
};

/* The default: shift 7 for every socket, as mac80211. */
void ts_tsq_conf_init(struct ts_tsq_conf *c);

/*
 * ts_tsq_conf_parse - read "7", "8", "kernel" or "tas:STARTUP/STEADY"
 * (shifts 1 to 20). Returns 0, or -EINVAL with @err naming what was
 * expected.
 */
int ts_tsq_conf_parse(struct ts_tsq_conf *c, const char *val, struct ts_err *err);

/* The value as a user writes it ("7", "kernel", "tas:7/10"), into @buf. */
const char *ts_tsq_conf_str(const struct ts_tsq_conf *c, char *buf, size_t len);

/* BBR's state as far as the shift needs it. */
enum ts_bbr_phase {
	TS_BBR_NONE,	/* not a BBR-family socket (no BBR info) */
	TS_BBR_STARTUP, /* pacing gain above every PROBE_BW gain: 2/ln 2 (v1), 2.77 (v3) */
	TS_BBR_DRAIN,	/* pacing gain below every PROBE_BW gain: ln 2 / 2 (v1), 0.35 (v3) */
	TS_BBR_STEADY,	/* PROBE_BW (gains 0.75 to 1.25) or PROBE_RTT (1.0) */
};

/*
 * ts_tsq_bbr_phase - BBR's state from the pacing gain its socket info
 * reports (<< 8, 256 = 1.0): above 1.25 (320) only STARTUP, below 0.75
 * (192) only DRAIN, anything from 0.75 to 1.25 is PROBE_BW or PROBE_RTT.
 */
enum ts_bbr_phase ts_tsq_bbr_phase(uint32_t pacing_gain);

const char *ts_bbr_phase_name(enum ts_bbr_phase ph);

/*
 * ts_tsq_shift - the station's shift for a socket in @phase: FIXED's
 * shift; TAS's startup shift in STARTUP and DRAIN, its steady shift
 * otherwise; KERNEL: TS_TSQ_KERNEL_SHIFT (nothing is emulated).
 */
unsigned int ts_tsq_shift(const struct ts_tsq_conf *c, enum ts_bbr_phase phase);

/*
 * ts_tsq_ratio - the tcp_pacing_{ss,ca}_ratio that makes an unpaced
 * socket's pacing rate, and so its TSQ limit and TSO autosizing, those of
 * shift @shift: @ratio << (10 - shift) (>> for shifts above 10), at most
 * TS_TSQ_RATIO_MAX, at least 1.
 */
uint32_t ts_tsq_ratio(uint32_t ratio, unsigned int shift);

/*
 * With --gso the station's units reach the hook whole, and the kernel
 * charges a unit of n segments one skb head H: H + n * mss. A station
 * that segments (mac80211's ieee80211_xmit_fast() calls
 * skb_gso_segment(); tcp_gso_segment() moves the charge to the segments)
 * charges each segment a head: n * (H + mss), as tasshape per packet does.
 * So the same budget holds more frames with --gso, by the ratio
 * (H + mss) / (mss + H / n). H, measured (docs/kernels.md, "The paper's
 * Wi-Fi regime": sk_wmem_alloc of tbf-held queues): 1280 bytes on Linux
 * 6.1 (a 640-byte head from kmalloc-1024), 896 from 6.3 (the small-head
 * cache of 640 bytes), for Debian's configurations.
 */
#define TS_TSQ_HEAD_OLD 1280u /* before 6.3 */
#define TS_TSQ_HEAD	896u  /* 6.3 and later */

/* ts_tsq_head - the skb head truesize H of Linux @major.@minor. */
uint32_t ts_tsq_head(unsigned int major, unsigned int minor);

/*
 * ts_tsq_gso_scale - the factor that makes a budget in a segmenting
 * station's charge one in GSO units of @segs segments of @mss bytes, as
 * @num / @den: (segs * mss + head) / (segs * (mss + head)). @segs 0: the
 * most a unit holds, TS_TSQ_GSO_MAX / mss. 1 / 1 when @mss or @head is 0.
 */
void ts_tsq_gso_scale(uint32_t mss, uint32_t head, uint32_t segs, uint64_t *num, uint64_t *den);

/*
 * ts_tsq_ratio_scaled - ts_tsq_ratio times @num / @den (GSO units), before
 * the sysctl's bounds: at most TS_TSQ_RATIO_MAX, at least 1.
 */
uint32_t ts_tsq_ratio_scaled(uint32_t ratio, unsigned int shift, uint64_t num, uint64_t den);

/*
 * ts_tsq_tso_truesize - truesize of the TSO skb a socket with pacing rate
 * @rate (bytes/s) and shift @shift builds, as tcp_tso_autosize() sizes it
 * with tcp_tso_rtt_log 9 and tcp_min_tso_segs 2: bytes = min(rate >> shift
 * + (GSO_MAX >> (min_rtt_us >> 9)), GSO_MAX), segs = max(bytes / mss, 2),
 * truesize = segs * (mss + TS_TSQ_SEG_OVERHEAD).
 */
uint64_t ts_tsq_tso_truesize(uint64_t rate, unsigned int shift, uint32_t mss, uint32_t min_rtt_us);

/*
 * ts_tsq_limit - tcp_small_queue_check()'s limit: max(2 * @truesize,
 * @rate >> @shift), and min(that, @lob) when @unpaced.
 */
uint64_t ts_tsq_limit(uint64_t rate, unsigned int shift, uint64_t truesize, bool unpaced,
		      uint64_t lob);

/* What the kernel reports about one socket (inet_diag tcp_info and BBR info). */
struct ts_tsq_sock {
	uint64_t pacing_rate; /* tcpi_pacing_rate, bytes/s */
	uint32_t mss;	      /* tcpi_snd_mss */
	uint32_t min_rtt_us;  /* tcpi_min_rtt */
	uint32_t cwnd, ssthresh;
	bool paced;		   /* the control paces itself (BBR): pacing ratios do not apply */
	unsigned int kernel_shift; /* the socket's own shift (10 unless its control sets one) */
};

/* The station namespace's sysctls: the values found and the values in force. */
struct ts_tsq_env {
	uint32_t ss_ratio, ca_ratio;	 /* as found (200, 120 by default) */
	uint32_t ss_applied, ca_applied; /* in force (scaled for the shift, or as found) */
	uint64_t limit_output_bytes;	 /* tcp_limit_output_bytes */
	uint64_t gso_num, gso_den;	 /* --gso: ts_tsq_gso_scale of the applied ratios (0: 1) */
	uint64_t lob_applied; /* tcp_limit_output_bytes in force, scaled with --gso (0: as found) */
};

/* One socket's budget at one sample. All byte counts are truesize units except the target. */
struct ts_tsq_plan {
	uint64_t rate;		/* the pacing rate a station socket would have, bytes/s */
	unsigned int shift;	/* the station's shift */
	uint64_t budget;	/* the station's limit at that shift */
	uint64_t kernel_budget; /* the limit the kernel enforces on the charged part */
	uint64_t uncharged;	/* wire bytes to hold uncharged: (budget - kernel) in wire bytes */
};

/*
 * ts_tsq_plan - the budgets of socket @s under @env at station shift
 * @shift. For an unpaced socket the kernel's rate is its ratio (ss while
 * cwnd < ssthresh / 2, as tcp_update_pacing_rate() chooses, else ca)
 * times cwnd * mss / srtt, so the station's rate is the kernel's scaled
 * back by found / applied ratio. The uncharged target is the difference
 * of the limits, never negative, converted from truesize to wire bytes
 * (mss + 52 wire bytes per mss + 88 of truesize). With @env->gso_den the
 * station's budget is in GSO units: times gso_num / gso_den.
 */
void ts_tsq_plan(const struct ts_tsq_sock *s, const struct ts_tsq_env *env, unsigned int shift,
		 struct ts_tsq_plan *out);

/*
 * A flow's station queue over time: peak and time-weighted mean of its
 * bytes, and of those bytes in milliseconds at the flow's pacing rate,
 * over the time from its first packet to the last change. Feed every
 * change (ts_tsq_qstat_set) in time order.
 */
struct ts_tsq_qstat {
	bool started;
	ts_ns_t t_first, t_last;
	uint64_t bytes; /* now */
	uint64_t rate;	/* bytes/s in force now (0: unknown) */
	uint64_t peak_bytes;
	double peak_ms;
	double area_bytes; /* sum of bytes x ns */
	double area_ms;	   /* sum of ms-at-rate x ns, over the time the rate was known */
	ts_ns_t t_rate;	   /* time with a known rate */
};

void ts_tsq_qstat_set(struct ts_tsq_qstat *q, ts_ns_t now, uint64_t bytes);
void ts_tsq_qstat_rate(struct ts_tsq_qstat *q, ts_ns_t now, uint64_t rate);
double ts_tsq_qstat_mean_bytes(const struct ts_tsq_qstat *q);
double ts_tsq_qstat_mean_ms(const struct ts_tsq_qstat *q);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The 802.11ax PHY as far as the MAC model needs it: how many data bits
 * one OFDM symbol carries, how long the preamble is, and so how long an
 * A-MPDU and its BlockAck occupy the medium. Integer arithmetic only, so
 * every airtime is an exact number of nanoseconds (docs/wifi6-model.md,
 * docs/wifi6-model.md).
 */
#include <errno.h>

#include "tasshape/wifi6.h"

/* HE-MCS 0..11: bits per subcarrier and coding rate (802.11ax HE-MCS tables). */
static const struct {
	unsigned int bpscs, rnum, rden;
} he_mcs[12] = {
	{1, 1, 2}, {2, 1, 2}, {2, 3, 4}, {4, 1, 2}, {4, 3, 4},	{6, 2, 3},
	{6, 3, 4}, {6, 5, 6}, {8, 3, 4}, {8, 5, 6}, {10, 3, 4}, {10, 5, 6},
};

/* Data subcarriers of a full-bandwidth HE SU PPDU (242/484/996/2x996-tone RUs). */
static unsigned int he_nsd(unsigned int bw_mhz)
{
	switch (bw_mhz) {
	case 20:
		return 234;
	case 40:
		return 468;
	case 80:
		return 980;
	case 160:
		return 1960;
	default:
		return 0;
	}
}

static int check_ss_gi(unsigned int ss, ts_ns_t gi_ns, struct ts_err *err)
{
	if (ss < 1 || ss > 8) {
		ts_err_set(err, "wifi6: ss: %u spatial streams (expected 1 to 8)", ss);
		return -EINVAL;
	}
	if (gi_ns != 800 && gi_ns != 1600 && gi_ns != 3200) {
		ts_err_set(err, "wifi6: gi: %lld ns (expected 0.8us, 1.6us or 3.2us)",
			   (long long)gi_ns);
		return -EINVAL;
	}
	return 0;
}

ts_ns_t ts_wifi6_preamble(unsigned int ss)
{
	/* HE-LTFs per number of spatial streams (802.11ax, N_HE-LTF). */
	static const unsigned int nltf[9] = {1, 1, 2, 4, 4, 6, 6, 8, 8};
	unsigned int n = nltf[ss <= 8 ? ss : 8];

	/* L-STF + L-LTF 16, L-SIG + RL-SIG 8, HE-SIG-A 8, HE-STF 4, then 8 us per HE-LTF. */
	return (36 + 8 * (ts_ns_t)n) * TS_NSEC_PER_USEC;
}

static void phy_fill(struct ts_wifi6_phy *phy, uint32_t ndbps, unsigned int ss, ts_ns_t gi_ns)
{
	phy->ndbps = ndbps;
	phy->ss = ss;
	phy->t_sym = TS_WIFI6_SYM_NS + gi_ns;
	phy->t_pre = ts_wifi6_preamble(ss);
}

int ts_wifi6_phy_mcs(struct ts_wifi6_phy *phy, unsigned int bw_mhz, unsigned int mcs,
		     unsigned int ss, ts_ns_t gi_ns, struct ts_err *err)
{
	unsigned int nsd = he_nsd(bw_mhz);
	uint64_t bits;
	int ret;

	ret = check_ss_gi(ss, gi_ns, err);
	if (ret < 0)
		return ret;
	if (!nsd) {
		ts_err_set(err, "wifi6: bw: %u MHz (expected 20, 40, 80 or 160)", bw_mhz);
		return -EINVAL;
	}
	if (mcs > 11) {
		ts_err_set(err, "wifi6: mcs: %u (expected 0 to 11)", mcs);
		return -EINVAL;
	}
	/* The rate tables round N_DBPS down (80 MHz, MCS 11, 1 SS: 8166, 600.4 Mbit/s). */
	bits = (uint64_t)nsd * he_mcs[mcs].bpscs * he_mcs[mcs].rnum * ss / he_mcs[mcs].rden;
	phy_fill(phy, (uint32_t)bits, ss, gi_ns);
	phy->bps = bits * (uint64_t)TS_NSEC_PER_SEC / (uint64_t)phy->t_sym;
	return 0;
}

int ts_wifi6_phy_rate(struct ts_wifi6_phy *phy, uint64_t bps, unsigned int ss, ts_ns_t gi_ns,
		      struct ts_err *err)
{
	unsigned __int128 bits;
	int ret;

	ret = check_ss_gi(ss, gi_ns, err);
	if (ret < 0)
		return ret;
	/* The bits one symbol carries at this rate: 1201 Mbit/s * 13.6 us = 16333.6 -> 16333. */
	bits = (unsigned __int128)bps * (uint64_t)(TS_WIFI6_SYM_NS + gi_ns) / TS_NSEC_PER_SEC;
	if (bits < 1 || bits > UINT32_MAX) {
		ts_err_set(err,
			   "wifi6: PHY rate %llu bit/s is outside what one symbol can carry "
			   "(expected 1mbit to 100gbit)",
			   (unsigned long long)bps);
		return -EINVAL;
	}
	phy_fill(phy, (uint32_t)bits, ss, gi_ns);
	phy->bps = bps;
	return 0;
}

uint32_t ts_wifi6_subframe_bytes(uint32_t ip_len)
{
	/* Delimiter 4, QoS data header 26, LLC/SNAP 8, FCS 4; padded to 4 bytes. */
	return (ip_len + 42u + 3u) & ~3u;
}

ts_ns_t ts_wifi6_data_time(const struct ts_wifi6_phy *phy, uint64_t psdu_bytes)
{
	uint64_t bits = TS_WIFI6_SERVICE_TAIL_BITS + 8 * psdu_bytes;
	uint64_t syms = (bits + phy->ndbps - 1) / phy->ndbps;

	return (ts_ns_t)syms * phy->t_sym;
}

ts_ns_t ts_wifi6_mpdu_end(const struct ts_wifi6_phy *phy, uint64_t cum_bytes)
{
	uint64_t bits = TS_WIFI6_SERVICE_BITS + 8 * cum_bytes;
	uint64_t syms = (bits + phy->ndbps - 1) / phy->ndbps;

	return phy->t_pre + (ts_ns_t)syms * phy->t_sym;
}

ts_ns_t ts_wifi6_legacy_time(uint64_t bytes, unsigned int mbps)
{
	/* Non-HT OFDM: 4 us symbols of 4 x mbps data bits after a 20 us preamble. */
	uint64_t bits = TS_WIFI6_SERVICE_TAIL_BITS + 8 * bytes, per_sym = 4ull * mbps;
	uint64_t syms = (bits + per_sym - 1) / per_sym;

	return (20 + 4 * (ts_ns_t)syms) * TS_NSEC_PER_USEC;
}

ts_ns_t ts_wifi6_ba_time(unsigned int ba)
{
	/* Compressed BlockAck: 24 bytes of header, control, SSC and FCS, plus the bitmap. */
	return ts_wifi6_legacy_time(24 + ba / 8, TS_WIFI6_CTRL_MBPS);
}

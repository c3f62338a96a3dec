/* SPDX-License-Identifier: MIT */
/*
 * Wi-Fi 6 PHY-rate traces: the rate a station's rate adaptation would
 * pick over time, for the Wi-Fi MAC model to replay (file columns
 * time_s,phy_mbps). The SNR is a mean (static) or a log-distance path
 * loss for a station walking away from the access point,
 *     SNR(d) = snr1m - 10 * ple * log10(d / 1 m),  d = start + speed * t,
 * plus log-normal shadowing (an AR(1) process in dB with the coherence
 * time). Rate adaptation picks the highest HE MCS whose SNR threshold is
 * met, and moves up only with a 1 dB margin (hysteresis, so it does not
 * flap at a threshold). Below MCS 0's threshold the rate stays at MCS 0:
 * rate adaptation has nothing slower, and the Wi-Fi MAC's PHY-rate
 * reader refuses a rate of 0 (losses and outages belong in the capacity
 * and loss models). PHY rates follow the 802.11ax formula:
 * data subcarriers x bits per subcarrier x coding rate x streams / symbol
 * time (12.8 us + guard interval): 80 MHz, 2 streams, MCS 11, 0.8 us GI
 * is 1201 Mbit/s.
 */
#include <errno.h>

#include "gen_priv.h"
#include "tasshape/wifi6.h"

enum { W_WIDTH, W_SS, W_GI, W_STEP, W_SNR, W_SHADOW, W_COHERENCE, W_START, W_SPEED, W_PLE };

/*
 * SNR (dB) each MCS needs: typical thresholds for SNR-based rate
 * selection, about 6 to 10 dB below the 802.11ax minimum receiver
 * sensitivities (which are conservative by design).
 */
static const int8_t he_snr_db[12] = {5, 8, 11, 14, 18, 22, 24, 26, 30, 32, 35, 37};

/*
 * PHY rate of @mcs in bit/s: the Wi-Fi MAC's own computation
 * (ts_wifi6_phy_mcs), so a generated trace holds exactly the rates the
 * MAC would pick for that MCS; 0 when the parameters are invalid.
 */
static uint64_t he_rate(int mcs, int64_t width, int64_t ss, int64_t gi)
{
	struct ts_wifi6_phy phy;

	if (ts_wifi6_phy_mcs(&phy, (unsigned int)width, (unsigned int)mcs, (unsigned int)ss, gi,
			     NULL) < 0)
		return 0;
	return phy.bps;
}

/* Highest MCS whose threshold plus @margin (Q32 dB) is met, or -1. */
static int best_mcs(q32_t snr, q32_t margin)
{
	int m;

	for (m = 11; m >= 0; m--)
		if (snr >= (q32_t)he_snr_db[m] * Q32_ONE + margin)
			return m;
	return -1;
}

int gen_wifi_run(const struct ts_gen_model *m, const struct gen_args *a, struct ts_series *out,
		 struct ts_err *err)
{
	const int64_t *v = a->v;
	bool walking = m->nparams > W_START;
	int cur = -2, ret;
	ts_ns_t t;
	struct ts_rng rsh;
	struct gm_ar1 sh;

	ret = gen_check_step(m, v[W_STEP], a->duration, err);
	if (ret)
		return ret;
	if (!he_rate(0, v[W_WIDTH], v[W_SS], v[W_GI]) || v[W_SS] > 4) {
		ts_err_set(err,
			   "%s: expected width 20, 40, 80 or 160, ss 1 to 4, gi 800ns, 1600ns "
			   "or 3200ns",
			   m->name);
		return -EINVAL;
	}
	ts_rng_seed(&rsh, ts_rng_derive(a->seed, 1));
	gm_ar1_init(&sh, v[W_STEP], v[W_COHERENCE], &rsh);
	for (t = 0; t < a->duration; t += v[W_STEP]) {
		q32_t snr = q32_from_micro(v[W_SNR]);
		struct ts_series_row row = {.t = t};
		int target;

		if (walking) {
			/* d in m, Q32; the model starts at 1 m (its reference distance). */
			q32_t secs = (q32_t)(((__int128)t << 32) / TS_NSEC_PER_SEC);
			q32_t d = q32_from_micro(v[W_START]) +
				  gm_mul(q32_from_micro(v[W_SPEED]), secs);

			if (d < Q32_ONE)
				d = Q32_ONE;
			snr -= gm_mul(10 * q32_from_micro(v[W_PLE]), gm_log10(d));
		}
		snr += gm_mul(q32_from_micro(v[W_SHADOW]), gm_ar1_next(&sh, &rsh));
		target = best_mcs(snr, 0);
		if (cur == -2 || target < cur)
			cur = target;
		else if (target > cur && best_mcs(snr, Q32_ONE) > cur)
			cur = best_mcs(snr, Q32_ONE);
		row.down = he_rate(cur < 0 ? 0 : cur, v[W_WIDTH], v[W_SS], v[W_GI]);
		ret = ts_series_add(out, &row);
		if (ret) {
			ts_err_set(err, "%s: out of memory", m->name);
			return ret;
		}
	}
	return 0;
}

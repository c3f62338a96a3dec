/* SPDX-License-Identifier: MIT */
/*
 * The Wi-Fi 6 MAC's parameters as a user writes them:
 * "wifi6:phy=1201mbit,mpdus=64,collision=2%". Defaults and their sources
 * are in docs/wifi6-model.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasshape/wifi6.h"

const char ts_wifi6_keys[] =
	"phy, bw, mcs, ss, gi, phy_trace, mpdus, ampdu_bytes, ppdu_max, "
	"aifsn, cwmin, cwmax, ba, retry, collision, mpdu_err, stations, "
	"backoff, bar, lone_ack, eifs, mpdu_rx, ba_timeout, beacon, beacon_bytes, "
	"pacing_shift, real, sta_mcs, airtime_flags, airtime_weight, aql, aql_txq_limit, "
	"aql_threshold";

#define UNSET UINT64_MAX

void ts_wifi6_conf_init(struct ts_wifi6_conf *c)
{
	memset(c, 0, sizeof(*c));
	ts_wifi6_phy_mcs(&c->phy, 80, 11, 2, 800, NULL);
	c->mpdus = TS_WIFI6_MPDUS_MAX;
	c->ampdu_bytes = TS_WIFI6_AMPDU_BYTES_MAX;
	c->ppdu_max = TS_WIFI6_PPDU_MAX_NS;
	c->aifsn = 3;  /* hostapd wmm_ac_be_aifs */
	c->cwmin = 15; /* hostapd wmm_ac_be_cwmin 4: 2^4 - 1 */
	c->cwmax = 1023;
	c->ba = 256;
	c->retry = 7; /* 802.11 dot11ShortRetryLimit */
	c->backoff = -1;
	c->bar = true;	    /* ns-3 QosTxop::UseExplicitBarAfterMissedBlockAck */
	c->lone_ack = true; /* 802.11-2020: an S-MPDU is answered by an Ack */
	c->eifs = true;	    /* 802.11-2020 10.3.2.3.7 */
	c->mpdu_rx = true;  /* ns-3.37 PhyEntity::EndOfMpdu */
	/* aSIFSTime + aSlotTime + the response's PHY start (its 20 us preamble), as ns-3. */
	c->ba_timeout = TS_WIFI6_SIFS_NS + TS_WIFI6_SLOT_NS + 20 * TS_NSEC_PER_USEC;
	c->beacon = 100 * TS_WIFI6_TU_NS; /* hostapd beacon_int */
	c->beacon_bytes = 199;		  /* ns-3.37's HE access point */
	c->real = 1;
	ts_airtime_conf_init(&c->airtime);
	ts_tsq_conf_init(&c->tsq);
}

/* An integer key in [lo, hi]; *@given tells whether it was present. */
static int get_uint(struct ts_spec *spec, const char *key, uint64_t lo, uint64_t hi, uint64_t *out,
		    bool *given, struct ts_err *err)
{
	uint64_t v = UNSET;
	int ret = ts_spec_get_u64(spec, key, &v, err);

	if (given)
		*given = false;
	if (ret < 0 || v == UNSET)
		return ret;
	if (v < lo || v > hi) {
		ts_err_set(err, "%s: %s: %llu is out of range (expected %llu to %llu)", spec->name,
			   key, (unsigned long long)v, (unsigned long long)lo,
			   (unsigned long long)hi);
		return -ERANGE;
	}
	*out = v;
	if (given)
		*given = true;
	return 0;
}

/* A string key (a file name): no units to parse. */
static int get_path(struct ts_spec *spec, const char *key, char *out, size_t len,
		    struct ts_err *err)
{
	unsigned int i;

	for (i = 0; i < spec->nargs; i++) {
		if (strcmp(spec->arg[i].key, key))
			continue;
		spec->arg[i].used = true;
		if (strlen(spec->arg[i].val) >= len) {
			ts_err_set(err, "%s: %s: file name too long", spec->name, key);
			return -ENAMETOOLONG;
		}
		snprintf(out, len, "%s", spec->arg[i].val);
	}
	return 0;
}

/* pacing_shift=7|8|kernel|tas:STARTUP/STEADY: the station's TSQ budget. */
static int get_pacing_shift(struct ts_wifi6_conf *c, struct ts_spec *spec, struct ts_err *err)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < spec->nargs && !ret; i++) {
		if (strcmp(spec->arg[i].key, "pacing_shift"))
			continue;
		spec->arg[i].used = true;
		ret = ts_tsq_conf_parse(&c->tsq, spec->arg[i].val, err);
	}
	return ret;
}

/* One HE-MCS of sta_mcs, from @v up to @end: one or two digits, 0 to 11. */
static int get_mcs(const char *v, const char *end, unsigned int *mcs)
{
	if (end - v < 1 || end - v > 2 || v[0] < '0' || v[0] > '9' ||
	    (end - v == 2 && (v[1] < '0' || v[1] > '9')))
		return -EINVAL;
	*mcs = (unsigned int)(v[0] - '0');
	if (end - v == 2)
		*mcs = *mcs * 10 + (unsigned int)(v[1] - '0');
	return *mcs <= 11 ? 0 : -ERANGE;
}

/*
 * sta_mcs=M0/M1/...: the HE-MCS of each real station (the last one for
 * those after it), at the medium's bandwidth, streams and guard interval.
 */
static int get_sta_mcs(struct ts_wifi6_conf *c, struct ts_spec *spec, unsigned int bw,
		       unsigned int ss, ts_ns_t gi, struct ts_err *err)
{
	unsigned int i, n = 0, mcs;

	for (i = 0; i < spec->nargs; i++) {
		const char *v = spec->arg[i].val, *end;

		if (strcmp(spec->arg[i].key, "sta_mcs"))
			continue;
		spec->arg[i].used = true;
		for (n = 0; n == 0 || *v; n++) {
			end = strchr(v, '/');
			end = end ? end : v + strlen(v);
			if (n == TS_WIFI6_REAL_MAX || get_mcs(v, end, &mcs) < 0 ||
			    ts_wifi6_phy_mcs(&c->sta_phy[n], bw, mcs, ss, gi, NULL) < 0) {
				ts_err_set(
					err,
					"%s: sta_mcs: '%s' (expected up to %u HE-MCS values 0 to "
					"11, one per station, as 11/4)",
					spec->name, spec->arg[i].val, TS_WIFI6_REAL_MAX);
				return -EINVAL;
			}
			v = *end ? end + 1 : end;
		}
	}
	c->nsta_phy = n;
	return 0;
}

static int parse_phy(struct ts_wifi6_conf *c, struct ts_spec *spec, struct ts_err *err)
{
	uint64_t bw = 80, mcs = 11, ss = 2, rate = 0;
	bool bw_given = false, mcs_given = false; /* gcc -O3 cannot see get_uint set them */
	ts_ns_t gi = 800;
	int ret;

	ret = get_uint(spec, "bw", 20, 160, &bw, &bw_given, err);
	if (!ret)
		ret = get_uint(spec, "mcs", 0, 11, &mcs, &mcs_given, err);
	if (!ret)
		ret = get_uint(spec, "ss", 1, 8, &ss, NULL, err);
	if (!ret)
		ret = ts_spec_get_time(spec, "gi", &gi, err);
	if (!ret)
		ret = ts_spec_get_rate(spec, "phy", &rate, err);
	if (!ret)
		ret = get_path(spec, "phy_trace", c->phy_trace, sizeof(c->phy_trace), err);
	if (ret < 0)
		return ret;
	if ((rate || c->phy_trace[0]) && (bw_given || mcs_given)) {
		ts_err_set(err, "%s: give the PHY rate either as %s or as bw/mcs, not both",
			   spec->name, rate ? "phy=RATE" : "phy_trace=FILE");
		return -EINVAL;
	}
	if (rate && c->phy_trace[0]) {
		ts_err_set(err, "%s: phy and phy_trace both give the PHY rate; keep one",
			   spec->name);
		return -EINVAL;
	}
	ret = get_sta_mcs(c, spec, (unsigned int)bw, (unsigned int)ss, gi, err);
	if (ret == 0 && c->nsta_phy && (rate || c->phy_trace[0])) {
		ts_err_set(err, "%s: sta_mcs gives the stations' rates as HE-MCS: not with %s",
			   spec->name, rate ? "phy=RATE" : "phy_trace=FILE");
		ret = -EINVAL;
	}
	if (ret < 0)
		return ret;
	if (rate)
		return ts_wifi6_phy_rate(&c->phy, rate, (unsigned int)ss, gi, err);
	return ts_wifi6_phy_mcs(&c->phy, (unsigned int)bw, (unsigned int)mcs, (unsigned int)ss, gi,
				err);
}

/* One microsecond count of aql_txq_limit=LOW/HIGH, up to @end; 1 to 1 s. */
static int get_us(const char *s, const char *end, uint32_t *out)
{
	unsigned long long v;
	char *e;

	if (s == end || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno || e != end || !v || v > 1000000)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

/* aql_txq_limit=LOW/HIGH in microseconds, as mac80211's debugfs file takes them. */
static int get_aql_limit(struct ts_wifi6_conf *c, struct ts_spec *spec, struct ts_err *err)
{
	unsigned int i;

	for (i = 0; i < spec->nargs; i++) {
		const char *v = spec->arg[i].val, *slash;
		uint32_t lo, hi;

		if (strcmp(spec->arg[i].key, "aql_txq_limit"))
			continue;
		spec->arg[i].used = true;
		slash = strchr(v, '/');
		if (!slash || get_us(v, slash, &lo) < 0 ||
		    get_us(slash + 1, slash + 1 + strlen(slash + 1), &hi) < 0 || lo > hi) {
			ts_err_set(err,
				   "%s: aql_txq_limit: '%s' (expected LOW/HIGH in microseconds, "
				   "1 to 1000000, LOW <= HIGH, e.g. 5000/12000)",
				   spec->name, v);
			return -EINVAL;
		}
		c->airtime.aql_low_us = lo;
		c->airtime.aql_high_us = hi;
	}
	return 0;
}

/*
 * The real stations and the AP's scheduler over its per-station queues:
 * real, airtime_flags (mac80211's AIRTIME_USE_TX 1 | AIRTIME_USE_RX 2),
 * airtime_weight (us, a u16 in mac80211), aql, aql_txq_limit, aql_threshold.
 */
static int parse_stations(struct ts_wifi6_conf *c, struct ts_spec *spec, struct ts_err *err)
{
	uint64_t real = c->real, flags = c->airtime.flags, weight = c->airtime.weight_us;
	uint64_t aql = c->airtime.aql, thr = c->airtime.aql_threshold_us;
	int ret;

	ret = get_uint(spec, "real", 1, TS_WIFI6_REAL_MAX, &real, NULL, err);
	if (!ret)
		ret = get_uint(spec, "airtime_flags", 0, TS_AIRTIME_USE_TX | TS_AIRTIME_USE_RX,
			       &flags, NULL, err);
	if (!ret)
		ret = get_uint(spec, "airtime_weight", 1, 65535, &weight, NULL, err);
	if (!ret)
		ret = get_uint(spec, "aql", 0, 1, &aql, NULL, err);
	if (!ret)
		ret = get_uint(spec, "aql_threshold", 1, 1000000, &thr, NULL, err);
	if (!ret)
		ret = get_aql_limit(c, spec, err);
	c->real = (uint32_t)real;
	c->airtime.flags = (uint32_t)flags;
	c->airtime.weight_us = (uint32_t)weight;
	c->airtime.aql = aql;
	c->airtime.aql_threshold_us = (uint32_t)thr;
	return ret;
}

/* beacon=INTERVAL, or 0 / off: no beacons. */
static int get_beacon(struct ts_wifi6_conf *c, struct ts_spec *spec, struct ts_err *err)
{
	unsigned int i;

	for (i = 0; i < spec->nargs; i++) {
		if (strcmp(spec->arg[i].key, "beacon"))
			continue;
		if (!strcmp(spec->arg[i].val, "0") || !strcmp(spec->arg[i].val, "off")) {
			spec->arg[i].used = true;
			c->beacon = 0;
			return 0;
		}
	}
	return ts_spec_get_time(spec, "beacon", &c->beacon, err);
}

/* The on/off keys: bar, lone_ack, eifs, mpdu_rx (0 or 1). */
static int get_switches(struct ts_wifi6_conf *c, struct ts_spec *spec, struct ts_err *err)
{
	uint64_t bar = c->bar, lone = c->lone_ack, eifs = c->eifs, mrx = c->mpdu_rx;
	int ret;

	ret = get_uint(spec, "bar", 0, 1, &bar, NULL, err);
	if (!ret)
		ret = get_uint(spec, "lone_ack", 0, 1, &lone, NULL, err);
	if (!ret)
		ret = get_uint(spec, "eifs", 0, 1, &eifs, NULL, err);
	if (!ret)
		ret = get_uint(spec, "mpdu_rx", 0, 1, &mrx, NULL, err);
	c->bar = bar;
	c->mpdu_rx = mrx;
	c->lone_ack = lone;
	c->eifs = eifs;
	return ret;
}

/* The keys of what contention costs: switches, BlockAck timeout, beacons. */
static int parse_contention(struct ts_wifi6_conf *c, struct ts_spec *spec, struct ts_err *err)
{
	uint64_t bytes = c->beacon_bytes;
	int ret;

	ret = get_switches(c, spec, err);
	if (!ret)
		ret = ts_spec_get_time(spec, "ba_timeout", &c->ba_timeout, err);
	if (!ret)
		ret = get_beacon(c, spec, err);
	if (!ret)
		ret = get_uint(spec, "beacon_bytes", 24, 2346, &bytes, NULL, err);
	if (ret < 0)
		return ret;
	c->beacon_bytes = (uint32_t)bytes;
	if (c->ba_timeout < 0 || c->ba_timeout > TS_WIFI6_PPDU_MAX_NS) {
		ts_err_set(err, "%s: ba_timeout: expected 0 to 5484us", spec->name);
		return -ERANGE;
	}
	/* A beacon must fit its interval, or the AP would do nothing else. */
	if (c->beacon &&
	    c->beacon < 10 * ts_wifi6_legacy_time(c->beacon_bytes, TS_WIFI6_BASIC_MBPS)) {
		ts_err_set(err, "%s: beacon: an interval of at least 10 beacons' airtime expected",
			   spec->name);
		return -ERANGE;
	}
	return 0;
}

int ts_wifi6_conf_parse(struct ts_wifi6_conf *c, struct ts_spec *spec, struct ts_err *err)
{
	uint64_t mpdus = c->mpdus, ba = c->ba, aifsn = c->aifsn, cwmin = c->cwmin;
	uint64_t cwmax = c->cwmax, retry = c->retry, stations = c->stations, backoff = UNSET;
	bool mpdus_given = false, ba_given = false, backoff_given = false;
	int ret;

	ret = parse_phy(c, spec, err);
	if (!ret)
		ret = get_uint(spec, "mpdus", 1, TS_WIFI6_MPDUS_MAX, &mpdus, &mpdus_given, err);
	if (!ret)
		ret = get_uint(spec, "ba", 64, 256, &ba, &ba_given, err);
	if (!ret)
		ret = ts_spec_get_size(spec, "ampdu_bytes", &c->ampdu_bytes, err);
	if (!ret)
		ret = ts_spec_get_time(spec, "ppdu_max", &c->ppdu_max, err);
	if (!ret)
		ret = get_uint(spec, "aifsn", 1, 15, &aifsn, NULL, err);
	if (!ret)
		ret = get_uint(spec, "cwmin", 0, 32767, &cwmin, NULL, err);
	if (!ret)
		ret = get_uint(spec, "cwmax", 0, 32767, &cwmax, NULL, err);
	if (!ret)
		ret = get_uint(spec, "retry", 0, 255, &retry, NULL, err);
	if (!ret)
		ret = ts_spec_get_ppm(spec, "collision", &c->collision_ppm, err);
	if (!ret)
		ret = ts_spec_get_ppm(spec, "mpdu_err", &c->mpdu_err_ppm, err);
	if (!ret)
		ret = get_uint(spec, "stations", 0, TS_WIFI6_STATIONS_MAX, &stations, NULL, err);
	if (!ret)
		ret = get_uint(spec, "backoff", 0, 32767, &backoff, &backoff_given, err);
	if (!ret)
		ret = parse_contention(c, spec, err);
	if (!ret)
		ret = get_pacing_shift(c, spec, err);
	if (!ret)
		ret = parse_stations(c, spec, err);
	if (!ret)
		ret = ts_spec_check_used(spec, ts_wifi6_keys, err);
	if (ret < 0)
		return ret;
	if (ba != 64 && ba != 256) {
		ts_err_set(err, "%s: ba: %llu (expected 64 or 256, the BlockAck bitmap sizes)",
			   spec->name, (unsigned long long)ba);
		return -EINVAL;
	}
	/* A 64-bit BlockAck window cannot acknowledge more than 64 MPDUs per A-MPDU. */
	if (ba_given && !mpdus_given && mpdus > ba)
		mpdus = ba;
	if (mpdus > ba) {
		ts_err_set(err, "%s: mpdus=%llu does not fit the BlockAck window ba=%llu",
			   spec->name, (unsigned long long)mpdus, (unsigned long long)ba);
		return -EINVAL;
	}
	if (cwmin > cwmax) {
		ts_err_set(err, "%s: cwmin=%llu is above cwmax=%llu", spec->name,
			   (unsigned long long)cwmin, (unsigned long long)cwmax);
		return -EINVAL;
	}
	if (!c->ampdu_bytes || c->ampdu_bytes > TS_WIFI6_AMPDU_BYTES_MAX) {
		ts_err_set(err, "%s: ampdu_bytes: %llu (expected 1B to %uB)", spec->name,
			   (unsigned long long)c->ampdu_bytes, TS_WIFI6_AMPDU_BYTES_MAX);
		return -ERANGE;
	}
	if (c->ppdu_max <= 0 || c->ppdu_max > TS_WIFI6_PPDU_MAX_NS) {
		ts_err_set(err, "%s: ppdu_max: expected more than 0 and at most 5484us",
			   spec->name);
		return -ERANGE;
	}
	c->mpdus = (uint32_t)mpdus;
	c->ba = (uint32_t)ba;
	c->aifsn = (uint32_t)aifsn;
	c->cwmin = (uint32_t)cwmin;
	c->cwmax = (uint32_t)cwmax;
	c->retry = (uint32_t)retry;
	c->stations = (uint32_t)stations;
	c->backoff = backoff_given ? (int32_t)backoff : -1;
	return 0;
}

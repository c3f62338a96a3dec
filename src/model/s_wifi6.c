/* SPDX-License-Identifier: MIT */
/*
 * The wifi6 stage: one side of a shared Wi-Fi 6 medium (wifi6_mac.c) in a
 * pipe. The uplink's is the station's driver queue (a SENDER stage: TCP
 * Small Queues sees it), the downlink's the access point's queue (the last
 * NETWORK stage). Both stages drive the same medium, so advancing either
 * runs the channel for both directions in time order.
 */
#include <errno.h>

#include "tasshape/wifi6.h"

struct wifi6_priv {
	struct ts_wifi6 *m; /* a reference; NULL once drained */
	enum ts_wifi6_side side;
	/* Copies taken when the stage is drained, for the summary. */
	struct ts_wifi6_stats stats;
	struct ts_wifi6_medium_stats mstats;
};

static int wifi6_init(struct ts_stage *st, const struct ts_stage_conf *conf, struct ts_err *err)
{
	struct wifi6_priv *wp = st->priv;
	int ret;

	if (!conf->wifi6) {
		ts_err_set(err, "wifi6: needs the medium it shares with the other direction "
				"(--mac wifi6:...)");
		return -EINVAL;
	}
	if (conf->wifi6_side != TS_WIFI6_UP && conf->wifi6_side != TS_WIFI6_DOWN) {
		ts_err_set(err, "wifi6: side %d is neither the station nor the access point",
			   conf->wifi6_side);
		return -EINVAL;
	}
	wp->side = (enum ts_wifi6_side)conf->wifi6_side;
	ret = ts_wifi6_attach(conf->wifi6, wp->side, st, conf->qdisc, conf->seed, conf->origin,
			      err);
	if (ret < 0)
		return ret;
	ts_wifi6_get(conf->wifi6);
	wp->m = conf->wifi6;
	return 0;
}

static void wifi6_fini(struct ts_stage *st, ts_ns_t now)
{
	struct wifi6_priv *wp = st->priv;

	if (!wp->m)
		return;
	ts_wifi6_detach(wp->m, wp->side, now);
	wp->stats = *ts_wifi6_stats(wp->m, wp->side);
	wp->mstats = *ts_wifi6_medium_stats(wp->m);
	ts_wifi6_put(wp->m);
	wp->m = NULL;
}

static void wifi6_enqueue(struct ts_stage *st, struct ts_pkt *p, ts_ns_t now)
{
	struct wifi6_priv *wp = st->priv;

	ts_wifi6_arrive(wp->m, wp->side, p, now);
}

static ts_ns_t wifi6_next_deadline(const struct ts_stage *st)
{
	const struct wifi6_priv *wp = st->priv;

	return wp->m ? ts_wifi6_next_deadline(wp->m) : TS_NEVER;
}

static void wifi6_advance(struct ts_stage *st, ts_ns_t now)
{
	struct wifi6_priv *wp = st->priv;

	if (wp->m)
		ts_wifi6_advance(wp->m, now);
}

const struct ts_wifi6_stats *ts_wifi6_stage_stats(const struct ts_stage *st)
{
	const struct wifi6_priv *wp;

	if (!st || st->ops != &ts_s_wifi6)
		return NULL;
	wp = st->priv;
	return wp->m ? ts_wifi6_stats(wp->m, wp->side) : &wp->stats;
}

const struct ts_wifi6_medium_stats *ts_wifi6_stage_medium(const struct ts_stage *st)
{
	const struct wifi6_priv *wp;

	if (!st || st->ops != &ts_s_wifi6)
		return NULL;
	wp = st->priv;
	return wp->m ? ts_wifi6_medium_stats(wp->m) : &wp->mstats;
}

const struct ts_stage_ops ts_s_wifi6 = {
	.name = "wifi6",
	.keys = "",
	.priv_size = sizeof(struct wifi6_priv),
	.init = wifi6_init,
	.fini = wifi6_fini,
	.enqueue = wifi6_enqueue,
	.next_deadline = wifi6_next_deadline,
	.advance = wifi6_advance,
};

/* SPDX-License-Identifier: MIT */
/*
 * The station's TSQ budget (run/tsq_station_priv.h) with several real
 * Wi-Fi stations (wifi6 real=): each station's flows are tracked as
 * station 0's are, their sockets read in their own namespace, and each
 * station's paced flows get their uncharged part released from that
 * station's own sender hook.
 */
#include <errno.h>

#include "run/tsq_station_priv.h"

int ts_tsqst_station_of_hook(int hook)
{
	if (hook == TS_H_UP_SENDER)
		return 0;
	if (hook >= TS_H_UP_STA1 && hook < TS_H__COUNT)
		return hook - TS_H_UP_STA1 + 1;
	return -1;
}

static void ignore_sock(void *ctx, const struct ts_sockstat *st)
{
	(void)ctx;
	(void)st;
}

int ts_tsqst_add_station(struct ts_tsqst *t, unsigned int k, int netns_fd, struct ts_err *err)
{
	int ret;

	if (k == 0)
		return 0;
	if (k >= TS_WIFI6_REAL_MAX || t->sd[k]) {
		ts_err_set(err, "station TSQ: station %u added twice or out of range", k);
		return -EINVAL;
	}
	ret = ts_sockdiag_open(&t->sd[k], netns_fd, err);
	if (ret < 0)
		return ret;
	/* The first request loads sock_diag's TCP part: before the loop runs (ts_tsqst_start). */
	ts_sockdiag_dump(t->sd[k], ignore_sock, NULL);
	if (k >= t->nsta)
		t->nsta = k + 1;
	return t->conf.mode == TS_TSQ_KERNEL ? 0 : ts_tsqst_lever_copy(t, netns_fd, err);
}

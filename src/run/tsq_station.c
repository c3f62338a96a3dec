/* SPDX-License-Identifier: MIT */
/*
 * The station's TCP Small Queues budget at run time (run/tsq_station.h): flows of
 * the station's queue, their sockets' pacing rates, the pacing-ratio
 * lever, and the packets released early (uncharged) and matched again on
 * the link side. This file starts and stops it; its parts are listed in
 * run/tsq_station_priv.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "run/tsq_station_priv.h"
#include "tasshape/wifi6.h"

bool ts_tsqst_wanted(const struct ts_linkcfg *cfg)
{
	/* With several real stations (real=) each one's flows are followed (tsq_station_sta.c). */
	return cfg->wifi6 && ts_wifi6_conf_of(cfg->wifi6)->tsq.mode != TS_TSQ_KERNEL;
}

static void ignore_sock(void *ctx, const struct ts_sockstat *st)
{
	(void)ctx;
	(void)st;
}

int ts_tsqst_start(struct ts_tsqst **out, struct ts_shaper *sh, int station_fd,
		   const cpu_set_t *helper_cpus, struct ts_err *err)
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
	t->station_fd = station_fd;
	t->helper_cpus = helper_cpus;
	t->lookup = ts_sockdiag_get;
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
	ts_tsqst_read_tas_params(t);
	ret = ts_sockdiag_open(&t->sd[0], station_fd, err);
	t->nsta = 1;
	if (ret < 0)
		goto fail;
	/*
	 * The kernel loads the TCP part of sock_diag (inet_diag, tcp_diag) at its first request,
	 * running modprobe: 30 ms of a virtual-time guest's CPU during which the loop, waiting in
	 * the request, released nothing (the run's first packet, a SYN, 30.8 ms late). So the
	 * first request is made here, before the loop runs; its answer is not needed.
	 */
	ts_sockdiag_dump(t->sd[0], ignore_sock, NULL);
	ret = ts_tsqst_lever_up(t, err);
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
	unsigned int k;

	if (!t)
		return;
	ts_tsqst_poll_stop(t);
	ts_tsqst_lever_down(t);
	for (k = 0; k < TS_WIFI6_REAL_MAX; k++)
		ts_sockdiag_close(t->sd[k]);
	free(t->state);
	free(t->flow);
	free(t->key);
	free(t->net_id);
	free(t->next);
	free(t->prev);
	free(t);
}

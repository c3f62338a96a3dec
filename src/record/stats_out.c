/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "record/stats_out.h"
#include "io/outfile.h"
#include "tasshape/wifi6.h"

static const char *const dir_name[2] = {"uplink", "downlink"};

/*
 * The Wi-Fi MAC's columns (stats_out.h): each window's part of its
 * counters, the difference from the last row's. Only when the link has a
 * MAC, so that the other columns never move and a file without one keeps
 * its header.
 */
static void mac_header(const struct ts_stats *s)
{
	if (s->mac)
		fputs(",wifi_accesses,wifi_txops,wifi_mpdus,wifi_collisions,wifi_failures,"
		      "wifi_airtime_ns,wifi_busy_ns,wifi_beacons",
		      s->f);
}

/* Direction @d's MAC counters now; false without a MAC. */
static bool mac_now(const struct ts_dir *d, struct ts_stats_mac *c)
{
	const struct ts_wifi6_stats *w = d ? ts_wifi6_stage_stats(d->mac) : NULL;
	const struct ts_wifi6_medium_stats *ms = d ? ts_wifi6_stage_medium(d->mac) : NULL;

	if (!w || !ms)
		return false;
	*c = (struct ts_stats_mac){w->accesses, w->txops,    w->mpdus,	 w->collisions,
				   w->failures, ms->beacons, w->airtime, ms->busy};
	return true;
}

static void mac_row(struct ts_stats *s, int i)
{
	struct ts_stats_mac c, *l = &s->mac_last[i];

	if (!s->mac)
		return;
	if (!mac_now(s->dir[i], &c)) {
		fputs(",,,,,,,,", s->f);
		return;
	}
	fprintf(s->f,
		",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%" PRId64
		",%" PRIu64,
		c.accesses - l->accesses, c.txops - l->txops, c.mpdus - l->mpdus,
		c.collisions - l->collisions, c.failures - l->failures, c.airtime - l->airtime,
		c.busy - l->busy, c.beacons - l->beacons);
	*l = c;
}

void ts_stats_queue(const struct ts_dir *d, uint64_t *bytes, uint64_t *pkts)
{
	unsigned int p, k;

	*bytes = *pkts = 0;
	for (p = 0; p < 2; p++) {
		for (k = 0; k < d->pipe[p].nstages; k++) {
			const struct ts_stage *st = d->pipe[p].stage[k];

			if (st->ops == &ts_s_delay)
				continue;
			*bytes += st->stats.held_bytes;
			*pkts += st->stats.held_pkts;
		}
	}
}

static void win_reset(struct ts_stats_win *w)
{
	w->arr_bytes = w->out_pkts = w->out_bytes = 0;
	memset(w->drops, 0, sizeof(w->drops));
	ts_hist_init(&w->delay);
}

static void write_header(struct ts_stats *s)
{
	int c;

	fputs("time_s,dir,interval_s,capacity_bps,throughput_bps,arrived_bytes,delivered_bytes,"
	      "delivered_pkts,queue_bytes,queue_pkts,qdelay_p50_ms,qdelay_max_ms,drops",
	      s->f);
	for (c = 0; c < TS_DROP__COUNT; c++)
		fprintf(s->f, ",drop_%s", ts_drop_name(c));
	mac_header(s);
	fputc('\n', s->f);
}

/* One row per direction for the window [start, end). */
static void write_rows(struct ts_stats *s, ts_ns_t end)
{
	ts_ns_t len = end - s->win_start;
	int i, c;

	for (i = 0; i < 2; i++) {
		const struct ts_dir *d = s->dir[i];
		struct ts_stats_win *w = &s->w[i];
		uint64_t qb, qp, drops = 0;

		if (!d)
			continue;
		fprintf(s->f, "%.3f,%s,%.3f,", (double)(end - s->origin) / 1e9, dir_name[i],
			(double)len / 1e9);
		if (d->trace) {
			uint64_t cap = ts_trace_capacity_bytes(d->trace, s->win_start - d->origin,
							       end - d->origin);

			fprintf(s->f, "%.0f", (double)cap * 8e9 / (double)len);
		}
		ts_stats_queue(d, &qb, &qp);
		fprintf(s->f, ",%.0f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
			(double)w->out_bytes * 8e9 / (double)len, w->arr_bytes, w->out_bytes,
			w->out_pkts, qb, qp);
		if (w->delay.count)
			fprintf(s->f, "%.3f,%.3f", (double)ts_hist_quantile(&w->delay, 0.5) / 1e6,
				(double)w->delay.max / 1e6);
		else
			fputc(',', s->f);
		for (c = 0; c < TS_DROP__COUNT; c++)
			drops += w->drops[c];
		fprintf(s->f, ",%" PRIu64, drops);
		for (c = 0; c < TS_DROP__COUNT; c++)
			fprintf(s->f, ",%" PRIu64, w->drops[c]);
		mac_row(s, i);
		if (fputc('\n', s->f) == EOF && !s->error)
			s->error = -EIO;
		s->rows++;
		win_reset(w);
	}
}

void ts_stats_init(struct ts_stats *s, FILE *f, const struct ts_dir *const dir[2], ts_ns_t origin,
		   ts_ns_t interval)
{
	memset(s, 0, sizeof(*s));
	s->f = f;
	s->dir[0] = dir[0];
	s->dir[1] = dir[1];
	s->origin = origin;
	s->interval = interval;
	s->win_start = origin;
	win_reset(&s->w[0]);
	win_reset(&s->w[1]);
	/* What the MAC counted before the link's time 0 (nothing, as built) is no window's. */
	s->mac = mac_now(dir[0], &s->mac_last[0]);
	s->mac = mac_now(dir[1], &s->mac_last[1]) || s->mac;
	write_header(s);
}

int ts_stats_open(struct ts_stats *s, const char *path, const struct ts_dir *const dir[2],
		  ts_ns_t origin, ts_ns_t interval, struct ts_err *err)
{
	FILE *f = ts_out_fopen(path, err);

	if (!f)
		return -errno;
	ts_stats_init(s, f, dir, origin, interval);
	s->own = true;
	return 0;
}

void ts_stats_advance(struct ts_stats *s, ts_ns_t t)
{
	if (!s->f)
		return;
	while (t >= s->win_start + s->interval) {
		write_rows(s, s->win_start + s->interval);
		s->win_start += s->interval;
	}
}

void ts_stats_arrival(struct ts_stats *s, int dir, uint32_t len, ts_ns_t t)
{
	ts_stats_advance(s, t);
	s->w[dir].arr_bytes += len;
}

void ts_stats_delivered(struct ts_stats *s, int dir, uint32_t len, ts_ns_t t)
{
	ts_stats_advance(s, t);
	s->w[dir].out_pkts++;
	s->w[dir].out_bytes += len;
}

void ts_stats_link_delay(struct ts_stats *s, int dir, ts_ns_t delay, ts_ns_t t)
{
	ts_stats_advance(s, t);
	ts_hist_add(&s->w[dir].delay, delay);
}

void ts_stats_drop(struct ts_stats *s, int dir, enum ts_drop_cause cause, ts_ns_t t)
{
	ts_stats_advance(s, t);
	s->w[dir].drops[cause]++;
}

int ts_stats_close(struct ts_stats *s, ts_ns_t now)
{
	int ret;

	if (!s->f)
		return 0;
	ts_stats_advance(s, now);
	if (now > s->win_start)
		write_rows(s, now);
	if (fflush(s->f) != 0 && !s->error)
		s->error = -errno;
	if (s->own && fclose(s->f) != 0 && !s->error)
		s->error = -EIO;
	ret = s->error;
	s->f = NULL;
	return ret;
}

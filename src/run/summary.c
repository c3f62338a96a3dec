/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>

#include "run/summary.h"
#include "run/tsq.h"
#include "tasshape/units.h"
#include "tasshape/wifi6.h"

/* Totals over both pipes of a direction. */
struct dir_tot {
	uint64_t in_pkts, in_bytes, out_pkts, out_bytes, held_pkts;
	uint64_t drops[TS_DROP__COUNT], drop_total;
	struct ts_hist sojourn;
	const struct ts_hist *qdelay; /* the trace server's, or NULL */
	uint64_t offered;
};

static void dir_totals(const struct ts_summary *s, const struct ts_dir *d, struct dir_tot *t)
{
	int p, c;

	*t = (struct dir_tot){0};
	ts_hist_init(&t->sojourn);
	for (p = 0; p < 2; p++) {
		const struct ts_pipe *pipe = &d->pipe[p];

		if (!pipe->nstages)
			continue;
		/* A packet enters the direction once, at its first non-empty pipe. */
		if (!t->in_pkts) {
			t->in_pkts = pipe->stats.pkts_in;
			t->in_bytes = pipe->stats.bytes_in;
		}
		t->out_pkts = pipe->stats.pkts_out;
		t->out_bytes = pipe->stats.bytes_out;
		t->held_pkts += ts_pipe_held_pkts(pipe);
		for (c = 0; c < TS_DROP__COUNT; c++) {
			t->drops[c] += pipe->stats.drops[c];
			t->drop_total += pipe->stats.drops[c];
		}
		/*
		 * Delay percentiles of the last pipe a packet crosses. A direction
		 * with stages in both places (the Wi-Fi uplink) reports each place
		 * separately in its stage lines.
		 */
		t->sojourn = pipe->stats.sojourn;
	}
	if (d->rate)
		t->qdelay = &d->rate->stats.qdelay;
	if (d->trace)
		t->offered =
			ts_trace_capacity_bytes(d->trace, s->start - d->origin, s->end - d->origin);
}

static double rate_of(uint64_t bytes, ts_ns_t dt)
{
	return dt > 0 ? (double)bytes * 8e9 / (double)dt : 0.0;
}

static void print_hist(FILE *f, const char *what, const struct ts_hist *h)
{
	char b1[32], b2[32], b3[32], b4[32];

	fprintf(f, "  %-17s p50 %s, p95 %s, p99 %s, max %s\n", what,
		ts_fmt_time(b1, sizeof(b1), ts_hist_quantile(h, 0.50)),
		ts_fmt_time(b2, sizeof(b2), ts_hist_quantile(h, 0.95)),
		ts_fmt_time(b3, sizeof(b3), ts_hist_quantile(h, 0.99)),
		ts_fmt_time(b4, sizeof(b4), h->count ? h->max : 0));
}

static void json_hist(FILE *f, const char *key, const struct ts_hist *h)
{
	fprintf(f, "\"%s\":{\"p50\":%lld,\"p95\":%lld,\"p99\":%lld,\"max\":%lld,\"mean\":%.0f},",
		key, (long long)ts_hist_quantile(h, 0.5), (long long)ts_hist_quantile(h, 0.95),
		(long long)ts_hist_quantile(h, 0.99), (long long)(h->count ? h->max : 0),
		ts_hist_mean(h));
}

/* Smallest aggregate size N with at least @q of the A-MPDUs at or below it. */
static unsigned int wifi_n_quantile(const struct ts_wifi6_stats *w, double q)
{
	uint64_t seen = 0, want;
	unsigned int n;

	if (!w->txops)
		return 0;
	want = (uint64_t)(q * (double)w->txops);
	if (want < 1)
		want = 1;
	for (n = 0; n <= TS_WIFI6_MPDUS_MAX; n++) {
		seen += w->n_hist[n];
		if (seen >= want)
			return n;
	}
	return TS_WIFI6_MPDUS_MAX;
}

static double share(ts_ns_t part, ts_ns_t dt)
{
	return dt > 0 ? (double)part / (double)dt : 0.0;
}

/* The Wi-Fi hop of a direction: aggregate sizes, airtime, collisions, retries. */
static void print_wifi(FILE *f, const struct ts_dir *d, ts_ns_t dt)
{
	const struct ts_wifi6_stats *w = ts_wifi6_stage_stats(d->mac);
	const struct ts_wifi6_medium_stats *ms = ts_wifi6_stage_medium(d->mac);
	unsigned int lo, hi, n;
	uint64_t c;
	int first = 1;

	if (!w)
		return;
	fprintf(f, "  wifi6 (%s)%s %" PRIu64 " A-MPDUs, mean N %.1f, median N %u, max N %u\n",
		ts_place_name(d->mac->place), d->mac->place == TS_PLACE_SENDER ? " " : "", w->txops,
		w->txops ? (double)w->mpdus / (double)w->txops : 0.0, wifi_n_quantile(w, 0.5),
		wifi_n_quantile(w, 1.0));
	fprintf(f, "    airtime         %.1f%% of the run (medium busy %.1f%%",
		100.0 * share(w->airtime, dt), 100.0 * share(ms->busy, dt));
	if (ms->others_txops)
		fprintf(f, ", other stations %.1f%%", 100.0 * share(ms->others_airtime, dt));
	fprintf(f, ")\n");
	fprintf(f,
		"    collisions %" PRIu64 ", failed A-MPDUs %" PRIu64 ", MPDU errors %" PRIu64
		", retries %" PRIu64 ", mac drops %" PRIu64 "\n",
		w->collisions, w->failures, w->mpdu_errors, w->retries, w->drops);
	/* Power-of-two buckets of N: 1, 2-3, 4-7, ..., 128-255, 256. */
	fprintf(f, "    N histogram    ");
	for (lo = 1; lo <= TS_WIFI6_MPDUS_MAX; lo *= 2) {
		hi = lo == TS_WIFI6_MPDUS_MAX ? lo : 2 * lo - 1;
		for (c = 0, n = lo; n <= hi; n++)
			c += w->n_hist[n];
		if (!c)
			continue;
		if (hi == lo)
			fprintf(f, "%s %u: %" PRIu64, first ? "" : ",", lo, c);
		else
			fprintf(f, "%s %u-%u: %" PRIu64, first ? "" : ",", lo, hi, c);
		first = 0;
	}
	fprintf(f, "%s\n", first ? " (none)" : "");
}

static void json_wifi(FILE *f, const struct ts_summary *s, const struct ts_dir *d, ts_ns_t dt)
{
	const struct ts_wifi6_stats *w = ts_wifi6_stage_stats(d->mac);
	const struct ts_wifi6_medium_stats *ms = ts_wifi6_stage_medium(d->mac);
	unsigned int n;
	int first = 1;

	if (!w)
		return;
	fprintf(f,
		",\"wifi6\":{\"place\":\"%s\",\"txops\":%" PRIu64 ",\"mpdus\":%" PRIu64
		",\"mean_n\":%.3f,\"median_n\":%u,\"max_n\":%u,\"airtime_ns\":%lld,"
		"\"airtime_utilisation\":%.6f,\"medium_busy_utilisation\":%.6f,"
		"\"others_airtime_ns\":%lld,\"collisions\":%" PRIu64 ",\"failures\":%" PRIu64
		",\"mpdu_errors\":%" PRIu64 ",\"retries\":%" PRIu64 ",\"mac_drops\":%" PRIu64
		",\"n_hist\":{",
		ts_place_name(d->mac->place), w->txops, w->mpdus,
		w->txops ? (double)w->mpdus / (double)w->txops : 0.0, wifi_n_quantile(w, 0.5),
		wifi_n_quantile(w, 1.0), (long long)w->airtime, share(w->airtime, dt),
		share(ms->busy, dt), (long long)ms->others_airtime, w->collisions, w->failures,
		w->mpdu_errors, w->retries, w->drops);
	for (n = 0; n <= TS_WIFI6_MPDUS_MAX; n++) {
		if (!w->n_hist[n])
			continue;
		fprintf(f, "%s\"%u\":%" PRIu64, first ? "" : ",", n, w->n_hist[n]);
		first = 0;
	}
	fprintf(f, "}");
	if (d->mac->place == TS_PLACE_SENDER)
		ts_tsq_json(f, s->tsq, s->start);
	fprintf(f, "}");
}

void ts_summary_print(FILE *f, const struct ts_summary *s)
{
	ts_ns_t dt = s->end - s->start;
	char b1[32];
	int i, c, p;
	unsigned int k;

	fprintf(f, "== %s: %s ==\n", s->title, ts_fmt_time(b1, sizeof(b1), dt));
	for (i = 0; i < 2; i++) {
		const struct ts_dir *d = s->dir[i];
		const struct ts_dir_extra *x = &s->extra[i];
		struct dir_tot t;

		if (!d)
			continue;
		dir_totals(s, d, &t);
		fprintf(f, "%s:\n", d->name);
		if (d->trace)
			fprintf(f, "  capacity offered  %" PRIu64 " bytes (%s)\n", t.offered,
				ts_fmt_rate(b1, sizeof(b1), (uint64_t)rate_of(t.offered, dt)));
		else
			fprintf(f, "  capacity offered  unlimited\n");
		fprintf(f, "  delivered         %" PRIu64 " bytes (%s)", t.out_bytes,
			ts_fmt_rate(b1, sizeof(b1), (uint64_t)rate_of(t.out_bytes, dt)));
		if (d->trace && t.offered)
			fprintf(f, ", utilisation %.1f%%",
				100.0 * (double)t.out_bytes / (double)t.offered);
		fprintf(f,
			"\n  packets           in %" PRIu64 ", out %" PRIu64 ", dropped %" PRIu64
			", held %" PRIu64 "\n",
			t.in_pkts, t.out_pkts, t.drop_total, t.held_pkts);
		for (c = 0; c < TS_DROP__COUNT; c++)
			if (t.drops[c])
				fprintf(f, "    dropped %-10s%" PRIu64 "\n", ts_drop_name(c),
					t.drops[c]);
		if (t.qdelay)
			print_hist(f, "queueing delay", t.qdelay);
		print_hist(f, "one-way delay", &t.sojourn);
		for (p = 0; p < 2; p++) {
			const struct ts_pipe *pipe = &d->pipe[p];

			for (k = 0; k < pipe->nstages; k++) {
				const struct ts_stage *st = pipe->stage[k];

				if (!st->stats.peak_pkts && st->ops != &ts_s_rate)
					continue;
				fprintf(f,
					"  peak queue        %-6s (%s)  %" PRIu64
					" bytes, %u packets\n",
					st->ops->name, ts_place_name(st->place),
					st->stats.peak_bytes, st->stats.peak_pkts);
			}
		}
		print_wifi(f, d, dt);
		if (d->mac && d->mac->place == TS_PLACE_SENDER)
			ts_tsq_print(f, s->tsq, s->start);
		if (x->no_descriptor)
			fprintf(f,
				"  WARNING: %" PRIu64 " packets dropped for want of descriptors "
				"(raise --descriptors)\n",
				x->no_descriptor);
		if (x->kernel_dropped || x->user_dropped)
			fprintf(f,
				"  kernel drops      queue full %" PRIu64
				", socket overrun %" PRIu64 "\n",
				x->kernel_dropped, x->user_dropped);
		if (x->have_release_err)
			fprintf(f,
				"  release timing    error p50 %" PRIu64 " us, p99 %" PRIu64
				" us, max %" PRIu64 " us\n",
				x->release_err_p50 / 1000, x->release_err_p99 / 1000,
				x->release_err_max / 1000);
		if (x->unexplained)
			fprintf(f, "  WARNING: unexplained drops: %" PRIu64 "\n", x->unexplained);
		else
			fprintf(f, "  unexplained drops: 0\n");
	}
}

int ts_summary_json(FILE *f, const struct ts_summary *s)
{
	ts_ns_t dt = s->end - s->start;
	int i, c, p;
	unsigned int k;

	fprintf(f, "{\"title\":\"%s\",\"duration_ns\":%lld,\"directions\":[", s->title,
		(long long)dt);
	for (i = 0; i < 2; i++) {
		const struct ts_dir *d = s->dir[i];
		const struct ts_dir_extra *x = &s->extra[i];
		struct dir_tot t;
		int first = 1;

		if (!d)
			continue;
		dir_totals(s, d, &t);
		fprintf(f, "%s{\"name\":\"%s\",", i && s->dir[0] ? "," : "", d->name);
		if (d->trace)
			fprintf(f, "\"capacity_bytes\":%" PRIu64 ",\"utilisation\":%.6f,",
				t.offered,
				t.offered ? (double)t.out_bytes / (double)t.offered : 0.0);
		fprintf(f,
			"\"pkts_in\":%" PRIu64 ",\"bytes_in\":%" PRIu64 ",\"pkts_out\":%" PRIu64
			",\"bytes_out\":%" PRIu64 ",\"throughput_bps\":%.0f,\"pkts_held\":%" PRIu64
			",\"drops\":{",
			t.in_pkts, t.in_bytes, t.out_pkts, t.out_bytes, rate_of(t.out_bytes, dt),
			t.held_pkts);
		for (c = 0; c < TS_DROP__COUNT; c++) {
			fprintf(f, "%s\"%s\":%" PRIu64, first ? "" : ",", ts_drop_name(c),
				t.drops[c]);
			first = 0;
		}
		fprintf(f, "},");
		if (t.qdelay)
			json_hist(f, "queueing_delay_ns", t.qdelay);
		json_hist(f, "one_way_delay_ns", &t.sojourn);
		fprintf(f, "\"stages\":[");
		first = 1;
		for (p = 0; p < 2; p++) {
			for (k = 0; k < d->pipe[p].nstages; k++) {
				const struct ts_stage *st = d->pipe[p].stage[k];

				fprintf(f,
					"%s{\"stage\":\"%s\",\"place\":\"%s\",\"pkts_in\":%" PRIu64
					",\"pkts_out\":%" PRIu64 ",\"peak_bytes\":%" PRIu64
					",\"peak_pkts\":%u}",
					first ? "" : ",", st->ops->name, ts_place_name(st->place),
					st->stats.pkts_in, st->stats.pkts_out, st->stats.peak_bytes,
					st->stats.peak_pkts);
				first = 0;
			}
		}
		fprintf(f, "]");
		json_wifi(f, s, d, dt);
		fprintf(f,
			",\"kernel_dropped\":%" PRIu64 ",\"socket_overrun\":%" PRIu64
			",\"no_descriptor\":%" PRIu64 ",\"unexplained_drops\":%" PRIu64,
			x->kernel_dropped, x->user_dropped, x->no_descriptor, x->unexplained);
		if (x->have_release_err)
			fprintf(f,
				",\"release_error_ns\":{\"p50\":%" PRIu64 ",\"p99\":%" PRIu64
				",\"max\":%" PRIu64 "}",
				x->release_err_p50, x->release_err_p99, x->release_err_max);
		fprintf(f, "}");
	}
	fprintf(f, "]}\n");
	return ferror(f) ? -EIO : 0;
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>

#include "io/json.h"
#include "run/rt.h"
#include "run/run_summary.h"
#include "run/tsq_station.h"
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

static struct json_object *jint(int64_t v)
{
	return json_object_new_int64(v);
}

static struct json_object *json_hist(const struct ts_hist *h, bool *nomem)
{
	struct json_object *o = json_object_new_object();

	if (!o) {
		*nomem = true;
		return NULL;
	}
	ts_json_put(o, "p50", jint(ts_hist_quantile(h, 0.5)), nomem);
	ts_json_put(o, "p95", jint(ts_hist_quantile(h, 0.95)), nomem);
	ts_json_put(o, "p99", jint(ts_hist_quantile(h, 0.99)), nomem);
	ts_json_put(o, "max", jint(h->count ? h->max : 0), nomem);
	ts_json_put(o, "mean", jint(llround(ts_hist_mean(h))), nomem);
	return o;
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

/* Each real station (real=): what it sent and received, and the airtime of each way. */
static void print_real(FILE *f, const struct ts_wifi6_medium_stats *ms, ts_ns_t dt)
{
	unsigned int k;

	for (k = 0; k < ms->real; k++) {
		const struct ts_wifi6_real_stats *rs = &ms->sta[k];
		double sec = (double)dt / 1e9;

		fprintf(f,
			"    station %u       up %.1f Mbit/s (airtime %.1f%%), down %.1f Mbit/s "
			"(airtime %.1f%%)",
			k, (double)rs->up_bytes * 8 / sec / 1e6, 100.0 * share(rs->up_airtime, dt),
			(double)rs->down_bytes * 8 / sec / 1e6,
			100.0 * share(rs->down_airtime, dt));
		if (rs->aql_held)
			fprintf(f, ", AQL held %" PRIu64 " times", rs->aql_held);
		fprintf(f, "\n");
	}
}

/* The stations of the medium: the real ones and the stations= ones, and how fair. */
static void print_stations(FILE *f, const struct ts_dir *d, const struct ts_wifi6_medium_stats *ms,
			   ts_ns_t dt)
{
	const struct ts_wifi6_stats *w = ts_wifi6_stage_stats(d->mac);
	unsigned int i, real = ms->real ? ms->real : 1;
	struct ts_wifi6_station_rates r;
	double lo = 0, hi = 0, acc = 0;

	if (real > 1)
		print_real(f, ms, dt);
	if (!ms->stations && real == 1)
		return;
	ts_wifi6_station_rates(&r, d->mac->stats.bytes_out, w->airtime, ms, dt);
	for (i = real; i < r.n; i++) {
		lo = i == real || r.bps[i] < lo ? r.bps[i] : lo;
		hi = i == real || r.bps[i] > hi ? r.bps[i] : hi;
		acc += (double)ms->others[i - real].accesses / ms->stations;
	}
	for (i = 1; i < real; i++)
		r.bps[0] += r.bps[i];
	fprintf(f,
		"    stations        %s %.1f Mbit/s, %u others %.1f to %.1f, medium %.1f "
		"Mbit/s, Jain %.3f\n",
		real > 1 ? "the real ones" : "this one", r.bps[0] / 1e6, ms->stations, lo / 1e6,
		hi / 1e6, r.medium_bps / 1e6, r.jain);
	fprintf(f, "    accesses        %s %" PRIu64 ", the others %.1f on average\n",
		real > 1 ? "the real ones" : "this one", w->accesses, acc);
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
	fprintf(f,
		"    accesses        %" PRIu64 " (BlockAckRequests %" PRIu64 "), beacons %" PRIu64
		" (%.2f%% of the run)\n",
		w->accesses, w->bars, ms->beacons, 100.0 * share(ms->beacon_airtime, dt));
	if (d->mac->place == TS_PLACE_SENDER)
		print_stations(f, d, ms, dt);
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

/* One stations= contender. */
static struct json_object *json_other(const struct ts_wifi6_sta_stats *o, double bps, bool *nomem)
{
	struct json_object *j = json_object_new_object();

	if (!j) {
		*nomem = true;
		return NULL;
	}
	ts_json_put(j, "accesses", ts_json_count(o->accesses), nomem);
	ts_json_put(j, "txops", ts_json_count(o->txops), nomem);
	ts_json_put(j, "bars", ts_json_count(o->bars), nomem);
	ts_json_put(j, "bars_lost", ts_json_count(o->bars_lost), nomem);
	ts_json_put(j, "collisions", ts_json_count(o->collisions), nomem);
	ts_json_put(j, "failures", ts_json_count(o->failures), nomem);
	ts_json_put(j, "airtime_ns", jint(o->airtime), nomem);
	ts_json_put(j, "delivered_bps", json_object_new_double(bps), nomem);
	return j;
}

/* One real station (real=). */
static struct json_object *json_real(const struct ts_wifi6_real_stats *rs, ts_ns_t dt, bool *nomem)
{
	struct json_object *j = json_object_new_object();
	double sec = (double)dt / 1e9;

	if (!j) {
		*nomem = true;
		return NULL;
	}
	ts_json_put(j, "delivered_bps", json_object_new_double((double)rs->up_bytes * 8 / sec),
		    nomem);
	ts_json_put(j, "down_delivered_bps",
		    json_object_new_double((double)rs->down_bytes * 8 / sec), nomem);
	ts_json_put(j, "airtime_ns", jint(rs->up_airtime), nomem);
	ts_json_put(j, "ap_airtime_ns", jint(rs->down_airtime), nomem);
	ts_json_put(j, "txops", ts_json_count(rs->up_txops), nomem);
	ts_json_put(j, "ap_txops", ts_json_count(rs->down_txops), nomem);
	ts_json_put(j, "aql_held", ts_json_count(rs->aql_held), nomem);
	return j;
}

/*
 * The stations of the medium: "stations_delivered_bps" and
 * "stations_airtime_ns" (the real stations first, then each stations=
 * one), their sum, Jain's index, each real station's counts (with real=)
 * and each other's.
 */
static void json_stations(struct json_object *o, const struct ts_dir *d,
			  const struct ts_wifi6_medium_stats *ms, ts_ns_t dt, bool *nomem)
{
	struct json_object *rates = json_object_new_array(), *others = json_object_new_array();
	struct json_object *air = json_object_new_array(), *real = json_object_new_array();
	unsigned int i, nreal = ms->real ? ms->real : 1;
	struct ts_wifi6_station_rates r;

	if (!rates || !others || !air || !real) {
		json_object_put(rates);
		json_object_put(others);
		json_object_put(air);
		json_object_put(real);
		*nomem = true;
		return;
	}
	ts_wifi6_station_rates(&r, d->mac->stats.bytes_out, ts_wifi6_stage_stats(d->mac)->airtime,
			       ms, dt);
	for (i = 0; i < r.n; i++) {
		ts_json_append(rates, json_object_new_double(r.bps[i]), nomem);
		ts_json_append(air, jint(r.airtime[i]), nomem);
	}
	for (i = 0; i < ms->stations; i++)
		ts_json_append(others, json_other(&ms->others[i], r.bps[nreal + i], nomem), nomem);
	for (i = 0; nreal > 1 && i < nreal; i++)
		ts_json_append(real, json_real(&ms->sta[i], dt, nomem), nomem);
	ts_json_put(o, "stations_delivered_bps", rates, nomem);
	ts_json_put(o, "stations_airtime_ns", air, nomem);
	ts_json_put(o, "medium_delivered_bps", json_object_new_double(r.medium_bps), nomem);
	ts_json_put(o, "jain_fairness", json_object_new_double(r.jain), nomem);
	ts_json_put(o, "others", others, nomem);
	if (nreal > 1)
		ts_json_put(o, "real_stations", real, nomem);
	else
		json_object_put(real);
}

static void json_wifi(struct json_object *out, const struct ts_summary *s, const struct ts_dir *d,
		      ts_ns_t dt, bool *nomem)
{
	const struct ts_wifi6_stats *w = ts_wifi6_stage_stats(d->mac);
	const struct ts_wifi6_medium_stats *ms = ts_wifi6_stage_medium(d->mac);
	struct json_object *o, *hist;
	unsigned int n;
	char key[16];

	if (!w)
		return;
	o = json_object_new_object();
	hist = json_object_new_object();
	if (!o || !hist) {
		json_object_put(o);
		json_object_put(hist);
		*nomem = true;
		return;
	}
	ts_json_put(o, "place", json_object_new_string(ts_place_name(d->mac->place)), nomem);
	ts_json_put(o, "txops", ts_json_count(w->txops), nomem);
	ts_json_put(o, "mpdus", ts_json_count(w->mpdus), nomem);
	ts_json_put(o, "mean_n",
		    json_object_new_double(w->txops ? (double)w->mpdus / (double)w->txops : 0.0),
		    nomem);
	ts_json_put(o, "median_n", jint(wifi_n_quantile(w, 0.5)), nomem);
	ts_json_put(o, "max_n", jint(wifi_n_quantile(w, 1.0)), nomem);
	ts_json_put(o, "airtime_ns", jint(w->airtime), nomem);
	ts_json_put(o, "airtime_utilisation", json_object_new_double(share(w->airtime, dt)), nomem);
	ts_json_put(o, "medium_busy_utilisation", json_object_new_double(share(ms->busy, dt)),
		    nomem);
	ts_json_put(o, "others_airtime_ns", jint(ms->others_airtime), nomem);
	ts_json_put(o, "collisions", ts_json_count(w->collisions), nomem);
	ts_json_put(o, "failures", ts_json_count(w->failures), nomem);
	ts_json_put(o, "mpdu_errors", ts_json_count(w->mpdu_errors), nomem);
	ts_json_put(o, "retries", ts_json_count(w->retries), nomem);
	ts_json_put(o, "mac_drops", ts_json_count(w->drops), nomem);
	for (n = 0; n <= TS_WIFI6_MPDUS_MAX; n++) {
		if (!w->n_hist[n])
			continue;
		snprintf(key, sizeof(key), "%u", n);
		ts_json_put(hist, key, ts_json_count(w->n_hist[n]), nomem);
	}
	ts_json_put(o, "n_hist", hist, nomem);
	ts_json_put(o, "accesses", ts_json_count(w->accesses), nomem);
	ts_json_put(o, "bars", ts_json_count(w->bars), nomem);
	ts_json_put(o, "bars_lost", ts_json_count(w->bars_lost), nomem);
	ts_json_put(o, "beacons", ts_json_count(ms->beacons), nomem);
	ts_json_put(o, "beacon_airtime_ns", jint(ms->beacon_airtime), nomem);
	if (d->mac->place == TS_PLACE_SENDER) {
		json_stations(o, d, ms, dt, nomem);
		ts_tsqst_json(o, s->tsq, s->start, nomem);
	}
	ts_json_put(out, "wifi6", o, nomem);
}

/* How the loop was scheduled; a refusal is a warning, said here and nowhere else. */
static void print_rt(FILE *f, const struct ts_rt *rt)
{
	char line[320];

	if (!rt)
		return;
	ts_rt_describe(rt, line, sizeof(line));
	if (rt->want && rt->note[0])
		fprintf(f, "WARNING: real-time scheduling of the shaper: %s; %s\n", rt->note,
			rt->prio
				? "it ran as SCHED_FIFO, but page faults may delay releases"
				: "it ran with normal scheduling, so other processes can delay its "
				  "releases");
	else
		fprintf(f, "shaper scheduling: %s\n", line);
}

struct ts_fidelity ts_summary_fidelity(const struct ts_summary *s, int i)
{
	const struct ts_dir_extra *x = &s->extra[i];

	return (struct ts_fidelity){.have_release_err = x->have_release_err,
				    .release_err_p99_ns = x->release_err_p99,
				    .unexplained = x->unexplained,
				    .kernel_drops =
					    x->kernel_dropped + x->user_dropped + x->ring_dropped};
}

bool ts_summary_loop_saturated(const struct ts_summary *s)
{
	return s->have_loop_work && ts_loop_saturated((int)s->loop_work_max_permille);
}

/* What a direction offered and carried, what it dropped and why, and its delays. */
static void print_traffic(FILE *f, const struct ts_dir *d, const struct dir_tot *t, ts_ns_t dt)
{
	char b1[32];
	int c;

	if (d->trace)
		fprintf(f, "  capacity offered  %" PRIu64 " bytes (%s)\n", t->offered,
			ts_fmt_rate(b1, sizeof(b1), (uint64_t)rate_of(t->offered, dt)));
	else
		fprintf(f, "  capacity offered  unlimited\n");
	fprintf(f, "  delivered         %" PRIu64 " bytes (%s)", t->out_bytes,
		ts_fmt_rate(b1, sizeof(b1), (uint64_t)rate_of(t->out_bytes, dt)));
	if (d->trace && t->offered)
		fprintf(f, ", utilisation %.1f%%",
			100.0 * (double)t->out_bytes / (double)t->offered);
	fprintf(f,
		"\n  packets           in %" PRIu64 ", out %" PRIu64 ", dropped %" PRIu64
		", held %" PRIu64 "\n",
		t->in_pkts, t->out_pkts, t->drop_total, t->held_pkts);
	for (c = 0; c < TS_DROP__COUNT; c++)
		if (t->drops[c])
			fprintf(f, "    dropped %-10s%" PRIu64 "\n", ts_drop_name(c), t->drops[c]);
	if (t->qdelay)
		print_hist(f, "queueing delay", t->qdelay);
	print_hist(f, "one-way delay", &t->sojourn);
}

/* Each stage's peak queue (a rate server's always, others' when they held a packet). */
static void print_peaks(FILE *f, const struct ts_dir *d)
{
	unsigned int k;
	int p;

	for (p = 0; p < 2; p++) {
		const struct ts_pipe *pipe = &d->pipe[p];

		for (k = 0; k < pipe->nstages; k++) {
			const struct ts_stage *st = pipe->stage[k];

			if (!st->stats.peak_pkts && st->ops != &ts_s_rate)
				continue;
			fprintf(f, "  peak queue        %-6s (%s)  %" PRIu64 " bytes, %u packets\n",
				st->ops->name, ts_place_name(st->place), st->stats.peak_bytes,
				st->stats.peak_pkts);
		}
	}
}

/* Where a direction has hooks at both places, each one's release timing. */
static void print_places(FILE *f, const struct ts_dir_extra *x)
{
	int p;

	for (p = 0; p < 2; p++) {
		const struct ts_place_timing *t = &x->place[p];

		if (!t->have)
			continue;
		fprintf(f,
			"    at the %-7s error p50 %" PRIu64 " us, p99 %" PRIu64 " us; %" PRIu64
			" verdict calls, p50 %" PRIu64 " us, p99 %" PRIu64 " us\n",
			ts_place_name((enum ts_place)p), t->release_err_p50 / 1000,
			t->release_err_p99 / 1000, t->verdict_calls, t->verdict_call_p50 / 1000,
			t->verdict_call_p99 / 1000);
	}
}

/* Whether the emulator kept up with direction @i: drops it did not choose, release timing. */
static bool print_fidelity(FILE *f, const struct ts_summary *s, int i)
{
	const struct ts_dir_extra *x = &s->extra[i];
	struct ts_fidelity fid = ts_summary_fidelity(s, i);
	struct ts_err why;

	if (x->no_descriptor)
		fprintf(f,
			"  WARNING: %" PRIu64 " packets dropped for want of descriptors "
			"(raise --descriptors)\n",
			x->no_descriptor);
	if (x->kernel_dropped || x->user_dropped || x->ring_dropped)
		fprintf(f,
			"  kernel drops      queue full %" PRIu64 ", socket overrun %" PRIu64
			", NAPI ring full %" PRIu64 "\n",
			x->kernel_dropped, x->user_dropped, x->ring_dropped);
	if (x->have_release_err)
		fprintf(f,
			"  release timing    error p50 %" PRIu64 " us, p99 %" PRIu64
			" us, max %" PRIu64 " us\n",
			x->release_err_p50 / 1000, x->release_err_p99 / 1000,
			x->release_err_max / 1000);
	print_places(f, x);
	if (x->unexplained)
		fprintf(f, "  WARNING: unexplained drops: %" PRIu64 "\n", x->unexplained);
	else
		fprintf(f, "  unexplained drops: 0\n");
	if (!ts_fell_behind(&fid, &why))
		return false;
	fprintf(f,
		"  WARNING: the emulator fell behind (%s): "
		"this run's timing is not trustworthy\n",
		why.msg);
	return true;
}

/* The shaper's loop: its CPU, its scheduling, its timer; @behind: a direction fell behind. */
static void print_loop(FILE *f, const struct ts_summary *s, bool behind)
{
	/* The loop serves both directions: said once, however many fell behind. */
	if (behind && ts_summary_loop_saturated(s))
		fprintf(f,
			"WARNING: the shaper's loop had no CPU to spare (%u.%u%% of one CPU in its "
			"busiest second): the host set the pace, not the link; --gso sends fewer "
			"packets, or give it more CPU\n",
			s->loop_work_max_permille / 10, s->loop_work_max_permille % 10);
	print_rt(f, s->rt);
	if (s->have_host_steal && s->host_steal_ms)
		fprintf(f,
			"%shost steal        %" PRIu64
			" ms: the hypervisor ran other work on this machine's CPUs%s\n",
			behind ? "WARNING: " : "", s->host_steal_ms,
			behind ? ", and the loop stopped while it did" : "");
	if (s->have_timer_late)
		fprintf(f,
			"timer wake-up     latency p50 %" PRIu64 " us, p99 %" PRIu64
			" us; armed %" PRIu64 " us early, polled %" PRIu64 " ms\n",
			s->timer_late_p50 / 1000, s->timer_late_p99 / 1000, s->timer_lead / 1000,
			s->polled / 1000000);
	if (s->have_loop_work)
		fprintf(f, "shaper loop       work %u.%u%% of one CPU in its busiest second\n",
			s->loop_work_max_permille / 10, s->loop_work_max_permille % 10);
	if (s->have_cpu_idle)
		fprintf(f, "virtual CPU idle %u.%u%% of the run's busiest second\n",
			s->cpu_idle_permille / 10, s->cpu_idle_permille % 10);
}

void ts_summary_print(FILE *f, const struct ts_summary *s)
{
	ts_ns_t dt = s->end - s->start;
	bool behind = false;
	char b1[32];
	int i;

	fprintf(f, "== %s: %s ==\n", s->title, ts_fmt_time(b1, sizeof(b1), dt));
	for (i = 0; i < 2; i++) {
		const struct ts_dir *d = s->dir[i];
		struct dir_tot t;

		if (!d)
			continue;
		dir_totals(s, d, &t);
		fprintf(f, "%s:\n", d->name);
		print_traffic(f, d, &t, dt);
		print_peaks(f, d);
		print_wifi(f, d, dt);
		if (d->mac && d->mac->place == TS_PLACE_SENDER)
			ts_tsqst_print(f, s->tsq, s->start);
		if (print_fidelity(f, s, i))
			behind = true;
	}
	print_loop(f, s, behind);
}

static struct json_object *json_stages(const struct ts_dir *d, bool *nomem)
{
	struct json_object *arr = json_object_new_array(), *o;
	unsigned int k;
	int p;

	if (!arr) {
		*nomem = true;
		return NULL;
	}
	for (p = 0; p < 2; p++) {
		for (k = 0; k < d->pipe[p].nstages; k++) {
			const struct ts_stage *st = d->pipe[p].stage[k];

			o = json_object_new_object();
			if (!o || json_object_array_add(arr, o) < 0) {
				json_object_put(o);
				*nomem = true;
				continue;
			}
			ts_json_put(o, "stage", json_object_new_string(st->ops->name), nomem);
			ts_json_put(o, "place", json_object_new_string(ts_place_name(st->place)),
				    nomem);
			ts_json_put(o, "pkts_in", ts_json_count(st->stats.pkts_in), nomem);
			ts_json_put(o, "pkts_out", ts_json_count(st->stats.pkts_out), nomem);
			ts_json_put(o, "peak_bytes", ts_json_count(st->stats.peak_bytes), nomem);
			ts_json_put(o, "peak_pkts", ts_json_count(st->stats.peak_pkts), nomem);
		}
	}
	return arr;
}

/* {"p50", "p99", "max"} in ns, NULL when out of memory. */
static struct json_object *json_p50_p99_max(uint64_t p50, uint64_t p99, uint64_t max, bool *nomem)
{
	struct json_object *q = json_object_new_object();

	if (q) {
		ts_json_put(q, "p50", ts_json_count(p50), nomem);
		ts_json_put(q, "p99", ts_json_count(p99), nomem);
		ts_json_put(q, "max", ts_json_count(max), nomem);
	}
	return q;
}

/* "by_place": {"sender": {...}, "network": {...}} where the direction has hooks at both. */
static void json_places(struct json_object *o, const struct ts_dir_extra *x, bool *nomem)
{
	struct json_object *by;
	int p;

	if (!x->place[TS_PLACE_SENDER].have)
		return;
	by = json_object_new_object();
	for (p = 0; p < 2; p++) {
		const struct ts_place_timing *t = &x->place[p];
		struct json_object *j = json_object_new_object();

		ts_json_put(j, "releases", ts_json_count(t->releases), nomem);
		ts_json_put(j, "release_error_ns",
			    json_p50_p99_max(t->release_err_p50, t->release_err_p99,
					     t->release_err_max, nomem),
			    nomem);
		ts_json_put(j, "verdict_calls", ts_json_count(t->verdict_calls), nomem);
		ts_json_put(j, "verdict_call_ns",
			    json_p50_p99_max(t->verdict_call_p50, t->verdict_call_p99,
					     t->verdict_call_max, nomem),
			    nomem);
		ts_json_put(by, ts_place_name((enum ts_place)p), j, nomem);
	}
	ts_json_put(o, "by_place", by, nomem);
}

static struct json_object *json_dir(const struct ts_summary *s, int i, bool *nomem)
{
	const struct ts_dir *d = s->dir[i];
	const struct ts_dir_extra *x = &s->extra[i];
	ts_ns_t dt = s->end - s->start;
	struct json_object *o = json_object_new_object(), *drops;
	struct ts_fidelity fid;
	struct ts_err why;
	struct dir_tot t;
	int c;

	if (!o) {
		*nomem = true;
		return NULL;
	}
	dir_totals(s, d, &t);
	ts_json_put(o, "name", json_object_new_string(d->name), nomem);
	if (d->trace) {
		ts_json_put(o, "capacity_bytes", ts_json_count(t.offered), nomem);
		ts_json_put(o, "utilisation",
			    json_object_new_double(
				    t.offered ? (double)t.out_bytes / (double)t.offered : 0.0),
			    nomem);
	}
	ts_json_put(o, "pkts_in", ts_json_count(t.in_pkts), nomem);
	ts_json_put(o, "bytes_in", ts_json_count(t.in_bytes), nomem);
	ts_json_put(o, "pkts_out", ts_json_count(t.out_pkts), nomem);
	ts_json_put(o, "bytes_out", ts_json_count(t.out_bytes), nomem);
	ts_json_put(o, "throughput_bps", jint(llround(rate_of(t.out_bytes, dt))), nomem);
	ts_json_put(o, "pkts_held", ts_json_count(t.held_pkts), nomem);
	drops = json_object_new_object();
	for (c = 0; drops && c < TS_DROP__COUNT; c++)
		ts_json_put(drops, ts_drop_name(c), ts_json_count(t.drops[c]), nomem);
	ts_json_put(o, "drops", drops, nomem);
	if (t.qdelay)
		ts_json_put(o, "queueing_delay_ns", json_hist(t.qdelay, nomem), nomem);
	ts_json_put(o, "one_way_delay_ns", json_hist(&t.sojourn, nomem), nomem);
	ts_json_put(o, "stages", json_stages(d, nomem), nomem);
	json_wifi(o, s, d, dt, nomem);
	ts_json_put(o, "kernel_dropped", ts_json_count(x->kernel_dropped), nomem);
	ts_json_put(o, "socket_overrun", ts_json_count(x->user_dropped), nomem);
	ts_json_put(o, "napi_ring_dropped", ts_json_count(x->ring_dropped), nomem);
	ts_json_put(o, "no_descriptor", ts_json_count(x->no_descriptor), nomem);
	ts_json_put(o, "unexplained_drops", ts_json_count(x->unexplained), nomem);
	if (x->have_release_err)
		ts_json_put(o, "release_error_ns",
			    json_p50_p99_max(x->release_err_p50, x->release_err_p99,
					     x->release_err_max, nomem),
			    nomem);
	if (x->have_verdict_call)
		ts_json_put(o, "verdict_call_ns",
			    json_p50_p99_max(x->verdict_call_p50, x->verdict_call_p99,
					     x->verdict_call_max, nomem),
			    nomem);
	json_places(o, x, nomem);
	fid = ts_summary_fidelity(s, i);
	/* The one rule's verdict (run/fidelity.h), null when the direction kept its timing. */
	if (ts_fell_behind(&fid, &why))
		ts_json_put(o, "fell_behind", json_object_new_string(why.msg), nomem);
	else if (json_object_object_add(o, "fell_behind", NULL) < 0)
		*nomem = true;
	return o;
}

struct json_object *ts_summary_json_object(const struct ts_summary *s)
{
	struct json_object *root = json_object_new_object(), *dirs = json_object_new_array(), *d;
	bool nomem = false;
	int i;

	if (!root || !dirs)
		goto fail;
	ts_json_put(root, "title", json_object_new_string(s->title), &nomem);
	ts_json_put(root, "duration_ns", jint(s->end - s->start), &nomem);
	for (i = 0; i < 2; i++) {
		if (!s->dir[i])
			continue;
		d = json_dir(s, i, &nomem);
		if (!d || json_object_array_add(dirs, d) < 0) {
			json_object_put(d);
			nomem = true;
		}
	}
	ts_json_put(root, "directions", dirs, &nomem);
	dirs = NULL;
	if (s->rt)
		ts_json_put(root, "scheduling", ts_rt_json(s->rt, &nomem), &nomem);
	if (s->have_timer_late) {
		ts_json_put(root, "timer_late_ns",
			    json_p50_p99_max(s->timer_late_p50, s->timer_late_p99,
					     s->timer_late_max, &nomem),
			    &nomem);
		ts_json_put(root, "timer_lead_ns", jint((int64_t)s->timer_lead), &nomem);
		ts_json_put(root, "polled_ns", jint((int64_t)s->polled), &nomem);
	}
	if (s->have_loop_work)
		ts_json_put(root, "loop_work_max_permille",
			    jint((int64_t)s->loop_work_max_permille), &nomem);
	if (s->have_host_steal)
		ts_json_put(root, "host_steal_ms", jint((int64_t)s->host_steal_ms), &nomem);
	/* Virtual time only: how near the guest's CPU came to its budget (run/cpustat.h). */
	if (s->have_cpu_idle)
		ts_json_put(root, "vcpu_idle_min_permille",
			    json_object_new_int((int)s->cpu_idle_permille), &nomem);
	if (nomem)
		goto fail;
	return root;
fail:
	json_object_put(dirs);
	json_object_put(root);
	return NULL;
}

int ts_summary_json(FILE *f, const struct ts_summary *s)
{
	struct json_object *root = ts_summary_json_object(s);
	int ret;

	if (!root)
		return -ENOMEM;
	ret = ts_json_write(f, root, TS_JSON_PLAIN);
	json_object_put(root);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/*
 * The station's TSQ budget (run/tsq_station_priv.h): the summary lines and
 * the members "tsq" and "flows" of the station's wifi6 JSON record.
 */
#include <inttypes.h>
#include <string.h>

#include "io/json.h"
#include "run/tsq_station_priv.h"

static double mean_of(double sum, uint64_t n)
{
	return n ? sum / (double)n : 0.0;
}

static const char *mode_label(const struct ts_tsqst *t)
{
	return t->conf.mode == TS_TSQ_KERNEL ? "the kernel's own (not emulated)" : "emulated";
}

void ts_tsqst_print(FILE *f, const struct ts_tsqst *t, ts_ns_t origin)
{
	char buf[32];
	unsigned int i, k;

	if (!t)
		return;
	fprintf(f, "    TSQ budget      pacing_shift=%s, %s; pacing ratios ss %u%% ca %u%%",
		ts_tsq_conf_str(&t->conf, buf, sizeof(buf)), mode_label(t), t->env.ss_applied,
		t->env.ca_applied);
	if (t->lever)
		fprintf(f, " (were %u%%, %u%%)", t->env.ss_ratio, t->env.ca_ratio);
	if (t->lever && t->env.gso_den)
		fprintf(f, "; in GSO units x%.3f (a segmenting station charges a head per segment)",
			(double)t->env.gso_num / (double)t->env.gso_den);
	fprintf(f, "\n");
	for (i = 0; i < t->nflows; i++) {
		const struct ts_tsqst_flow *fl = &t->flows[i];
		double rate = mean_of(fl->rate_sum, fl->nsamples);

		fprintf(f,
			"    flow %s:%u %s shift %u, budget %.0f B (%.2f ms at %.1f Mbit/s), "
			"station peak %" PRIu64 " B (%.2f ms; budget then %" PRIu64
			" B), mean %.0f B (%.2f ms), early %" PRIu64 "\n",
			fl->src, fl->sport, fl->cca[0] ? fl->cca : "?", fl->shift,
			mean_of(fl->budget_sum, fl->nsamples),
			rate > 0 ? mean_of(fl->budget_sum, fl->nsamples) * 1e3 / rate : 0.0,
			rate * 8 / 1e6, fl->q.peak_bytes, fl->q.peak_ms, fl->budget_at_peak,
			ts_tsq_qstat_mean_bytes(&fl->q), ts_tsq_qstat_mean_ms(&fl->q), fl->early);
		if (t->conf.mode != TS_TSQ_TAS)
			continue;
		fprintf(f, "      shifts:");
		for (k = 0; k < fl->nlog; k++)
			fprintf(f, " %.3fs %u (%s)", (double)(fl->log[k].t - origin) / 1e9,
				fl->log[k].shift, ts_bbr_phase_name(fl->log[k].phase));
		fprintf(f, "%s\n", fl->log_full ? " ..." : "");
	}
	if (t->untracked_pkts || t->lost || t->ring_full || t->poll_err)
		fprintf(f,
			"    WARNING: TSQ emulation: %" PRIu64
			" packets of untracked flows, %" PRIu64 " early releases lost, %" PRIu64
			" deferred, socket sampling %s\n",
			t->untracked_pkts, t->lost, t->ring_full,
			t->poll_err ? strerror(-t->poll_err) : "ok");
}

static struct json_object *json_flow(const struct ts_tsqst *t, const struct ts_tsqst_flow *fl,
				     ts_ns_t origin, bool *nomem)
{
	struct json_object *o = json_object_new_object(), *log = json_object_new_array();
	double rate = mean_of(fl->rate_sum, fl->nsamples);
	double budget = mean_of(fl->budget_sum, fl->nsamples);
	char buf[32];
	unsigned int k;

	ts_json_put(o, "station", json_object_new_int((int)fl->station), nomem);
	ts_json_put_str(o, "src", fl->src, nomem);
	ts_json_put(o, "sport", json_object_new_int(fl->sport), nomem);
	ts_json_put_str(o, "dst", fl->dst, nomem);
	ts_json_put(o, "dport", json_object_new_int(fl->dport), nomem);
	ts_json_put_str(o, "cca", fl->cca, nomem);
	ts_json_put(o, "pacing_shift", json_object_new_int((int)fl->shift), nomem);
	ts_json_put_str(o, "pacing_shift_mode", ts_tsq_conf_str(&t->conf, buf, sizeof(buf)), nomem);
	ts_json_put(o, "emulated", json_object_new_boolean(t->conf.mode != TS_TSQ_KERNEL), nomem);
	ts_json_put(o, "tsq_budget_bytes", ts_json_count((uint64_t)budget), nomem);
	ts_json_put(o, "kernel_budget_bytes",
		    ts_json_count((uint64_t)mean_of(fl->kbudget_sum, fl->nsamples)), nomem);
	ts_json_put(o, "pacing_rate_bps", ts_json_count((uint64_t)(rate * 8)), nomem);
	ts_json_put(o, "tsq_budget_ms", json_object_new_double(rate > 0 ? budget * 1e3 / rate : 0),
		    nomem);
	ts_json_put(o, "tsq_budget_max_bytes", ts_json_count(fl->budget_max), nomem);
	ts_json_put(o, "tsq_budget_at_peak_bytes", ts_json_count(fl->budget_at_peak), nomem);
	ts_json_put(o, "station_peak_bytes", ts_json_count(fl->q.peak_bytes), nomem);
	ts_json_put(o, "station_mean_bytes",
		    ts_json_count((uint64_t)ts_tsq_qstat_mean_bytes(&fl->q)), nomem);
	ts_json_put(o, "station_peak_ms", json_object_new_double(fl->q.peak_ms), nomem);
	ts_json_put(o, "station_mean_ms", json_object_new_double(ts_tsq_qstat_mean_ms(&fl->q)),
		    nomem);
	ts_json_put(o, "uncharged_peak_bytes", ts_json_count(fl->unc_peak), nomem);
	ts_json_put(o, "early_released_pkts", ts_json_count(fl->early), nomem);
	ts_json_put(o, "samples", ts_json_count(fl->nsamples), nomem);
	for (k = 0; log && k < fl->nlog; k++) {
		struct json_object *e = json_object_new_object();

		ts_json_put(e, "t_s", json_object_new_double((double)(fl->log[k].t - origin) / 1e9),
			    nomem);
		ts_json_put(e, "shift", json_object_new_int(fl->log[k].shift), nomem);
		ts_json_put_str(e, "state", ts_bbr_phase_name(fl->log[k].phase), nomem);
		ts_json_append(log, e, nomem);
	}
	ts_json_put(o, "shifts", log, nomem);
	ts_json_put(o, "shifts_truncated", json_object_new_boolean(fl->log_full), nomem);
	return o;
}

void ts_tsqst_json(struct json_object *wifi6, const struct ts_tsqst *t, ts_ns_t origin, bool *nomem)
{
	struct json_object *o, *r, *flows;
	char buf[32];
	unsigned int i;

	if (!t)
		return;
	o = json_object_new_object();
	r = json_object_new_object();
	flows = json_object_new_array();
	ts_json_put_str(o, "pacing_shift", ts_tsq_conf_str(&t->conf, buf, sizeof(buf)), nomem);
	ts_json_put(o, "emulated", json_object_new_boolean(t->conf.mode != TS_TSQ_KERNEL), nomem);
	ts_json_put(o, "stations", json_object_new_int((int)t->nsta), nomem);
	ts_json_put(r, "ss", json_object_new_int((int)t->env.ss_applied), nomem);
	ts_json_put(r, "ca", json_object_new_int((int)t->env.ca_applied), nomem);
	ts_json_put(r, "ss_found", json_object_new_int((int)t->env.ss_ratio), nomem);
	ts_json_put(r, "ca_found", json_object_new_int((int)t->env.ca_ratio), nomem);
	ts_json_put(o, "pacing_ratios", r, nomem);
	ts_json_put(o, "limit_output_bytes", ts_json_count(t->env.limit_output_bytes), nomem);
	/* The budget in GSO units (absent per packet): applied ratios and limit, station budgets. */
	if (t->lever && t->env.gso_den)
		ts_json_put(o, "gso_scale",
			    json_object_new_double((double)t->env.gso_num / (double)t->env.gso_den),
			    nomem);
	ts_json_put(o, "untracked_pkts", ts_json_count(t->untracked_pkts), nomem);
	ts_json_put(o, "lost", ts_json_count(t->lost), nomem);
	ts_json_put(o, "deferred", ts_json_count(t->ring_full), nomem);
	/* The socket reads handed to the thread, and those due while it still read the last. */
	ts_json_put(o, "socket_polls", ts_json_count(t->polls), nomem);
	ts_json_put(o, "socket_polls_skipped", ts_json_count(t->polls_skipped), nomem);
	ts_json_put(wifi6, "tsq", o, nomem);
	for (i = 0; flows && i < t->nflows; i++)
		ts_json_append(flows, json_flow(t, &t->flows[i], origin, nomem), nomem);
	ts_json_put(wifi6, "flows", flows, nomem);
}

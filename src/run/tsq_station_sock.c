/* SPDX-License-Identifier: MIT */
/*
 * The station's TSQ budget (run/tsq_station_priv.h): each flow's socket,
 * read through sock_diag (its control, pacing rate, MSS, cwnd, BBR's
 * state), and the budget that makes for it (ts_tsq_plan).
 */
#include <string.h>

#include "record/sockstats_out.h"
#include "run/tsq_station_priv.h"

static bool paced_cca(const char *cca, bool have_bbr)
{
	return have_bbr || !strncmp(cca, "bbr", 3) || !strcmp(cca, "tas");
}

static void log_shift(struct ts_tsqst_flow *f, ts_ns_t now)
{
	if (f->nlog && f->log[f->nlog - 1].shift == f->shift &&
	    f->log[f->nlog - 1].phase == f->phase)
		return;
	if (f->nlog && f->log[f->nlog - 1].shift == f->shift && f->phase != TS_BBR_NONE &&
	    f->log[f->nlog - 1].phase != TS_BBR_NONE && f->nlog >= TS_TSQST_NSHIFTLOG / 2)
		return; /* same shift, other state: only the first few such changes are kept */
	if (f->nlog == TS_TSQST_NSHIFTLOG) {
		f->log_full = true;
		return;
	}
	f->log[f->nlog++] =
		(struct ts_tsqst_shift_change){now, (uint8_t)f->shift, (uint8_t)f->phase};
}

static void on_sock(struct ts_tsqst *t, const struct ts_sockstat *st, ts_ns_t now)
{
	struct ts_tsqst_flow *f = ts_tsqst_flow_of_sock(t, st);
	const struct tcp_info *ti = &st->info;
	struct ts_tsq_sock s;

	if (!f || !st->have_info)
		return;
	snprintf(f->cca, sizeof(f->cca), "%s", st->cca);
	f->have_sock = true;
	/*
	 * A BBR socket that is closing (FIN_WAIT, LAST_ACK) reports no BBR info:
	 * it keeps the state it was last seen in.
	 */
	if (!f->bbr)
		f->phase = TS_BBR_NONE;
	if (st->have_bbr) {
		f->bbr = true;
		/*
		 * BBR starts in STARTUP and never returns to it: gains read before its
		 * first ACK (zero, or not yet a STARTUP gain) are its STARTUP still.
		 */
		f->phase = st->bbr_pacing_gain ? ts_tsq_bbr_phase(st->bbr_pacing_gain)
					       : TS_BBR_STARTUP;
		if (!f->left_startup && f->phase == TS_BBR_STEADY) {
			if (f->seen_startup)
				f->left_startup = true;
			else
				f->phase = TS_BBR_STARTUP;
		} else if (st->bbr_pacing_gain) {
			f->seen_startup = true;
		}
	}
	s = (struct ts_tsq_sock){
		.pacing_rate = ti->tcpi_pacing_rate == UINT64_MAX ? 0 : ti->tcpi_pacing_rate,
		.mss = ti->tcpi_snd_mss,
		.min_rtt_us = ti->tcpi_min_rtt,
		.cwnd = ti->tcpi_snd_cwnd,
		.ssthresh = ti->tcpi_snd_ssthresh,
		.paced = paced_cca(st->cca, f->bbr),
		.kernel_shift = TS_TSQ_KERNEL_SHIFT,
	};
	/* A control that writes the shift itself (the tas module): what it wrote is in force. */
	if (!strcmp(st->cca, "tas") && t->tas_params)
		s.kernel_shift = f->phase == TS_BBR_STARTUP || f->phase == TS_BBR_DRAIN
					 ? t->tas_startup
					 : t->tas_steady;
	f->shift =
		t->conf.mode == TS_TSQ_KERNEL ? s.kernel_shift : ts_tsq_shift(&t->conf, f->phase);
	ts_tsq_plan(&s, &t->env, f->shift, &f->plan);
	f->target = t->conf.mode == TS_TSQ_KERNEL ? 0 : f->plan.uncharged;
	ts_tsq_qstat_rate(&f->q, now, f->plan.rate);
	log_shift(f, now);
	f->budget_now = t->conf.mode == TS_TSQ_KERNEL ? f->plan.kernel_budget : f->plan.budget;
	if (f->chg_bytes + f->unc_bytes) {
		if (f->budget_now > f->budget_max)
			f->budget_max = f->budget_now;
		f->nsamples++;
		f->budget_sum += (double)(t->conf.mode == TS_TSQ_KERNEL ? f->plan.kernel_budget
									: f->plan.budget);
		f->kbudget_sum += (double)f->plan.kernel_budget;
		f->rate_sum += (double)f->plan.rate;
	}
}

bool ts_tsqst_sample(struct ts_tsqst *t, ts_ns_t now)
{
	return ts_tsqst_poll_turn(t, now, on_sock);
}

bool ts_tsqst_sock_view(const void *station, const struct ts_sockstat *st,
			struct ts_sockstats_station *out)
{
	const struct ts_tsqst *t = station;
	struct ts_tsqst_flow *f = t ? ts_tsqst_flow_of_sock((struct ts_tsqst *)t, st) : NULL;

	if (!f || !f->have_sock)
		return false;
	out->pacing_rate = f->plan.rate;
	out->shift = f->shift;
	out->emulated = t->conf.mode != TS_TSQ_KERNEL;
	return true;
}

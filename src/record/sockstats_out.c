/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <string.h>

#include "record/sockstats_out.h"

/* Names as ss prints them (include/net/tcp_states.h order). */
static const char *const state_name[] = {
	"?",	     "ESTAB",  "SYN-SENT",   "SYN-RECV", "FIN-WAIT-1", "FIN-WAIT-2",
	"TIME-WAIT", "UNCONN", "CLOSE-WAIT", "LAST-ACK", "LISTEN",     "CLOSING",
};

#define INFINITE_SSTHRESH 0x7fffffffu

void ts_sockstats_header(FILE *f)
{
	fputs("time_s,flow,src,sport,dst,dport,state,cca,cwnd_pkts,ssthresh_pkts,mss,srtt_ms,"
	      "rttvar_ms,min_rtt_ms,pacing_rate_bps,delivery_rate_bps,unacked_pkts,inflight_bytes,"
	      "retrans_pkts,total_retrans,bytes_acked,bytes_sent,bbr_bw_bps,bbr_min_rtt_ms,"
	      "bbr_pacing_gain,bbr_cwnd_gain,station_pacing_rate_bps,station_pacing_shift,"
	      "station_tsq,station\n",
	      f);
}

static void endpoint(char *buf, size_t len, int family, const char *addr, uint16_t port)
{
	if (family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", addr, port);
	else
		snprintf(buf, len, "%s:%u", addr, port);
}

/* A rate of bytes/s as bit/s; the kernel reports ~0 for "no limit". */
static void rate(FILE *f, uint64_t bytes_per_s)
{
	if (bytes_per_s != UINT64_MAX && bytes_per_s != UINT32_MAX)
		fprintf(f, "%" PRIu64, bytes_per_s * 8);
}

void ts_sockstats_row(FILE *f, double t_s, const struct ts_sockstat *st,
		      const struct ts_sockstats_station *stn)
{
	const struct tcp_info *ti = &st->info;
	char a[INET6_ADDRSTRLEN + 16], b[INET6_ADDRSTRLEN + 16];
	uint32_t state = st->state < sizeof(state_name) / sizeof(state_name[0]) ? st->state : 0;

	endpoint(a, sizeof(a), st->family, st->src, st->sport);
	endpoint(b, sizeof(b), st->family, st->dst, st->dport);
	fprintf(f, "%.3f,%s-%s,%s,%u,%s,%u,%s,%s,", t_s, a, b, st->src, st->sport, st->dst,
		st->dport, state_name[state], st->cca);
	if (st->have_info) {
		int64_t inflight = (int64_t)ti->tcpi_unacked - ti->tcpi_sacked - ti->tcpi_lost +
				   ti->tcpi_retrans;

		fprintf(f, "%" PRIu32 ",", ti->tcpi_snd_cwnd);
		if (ti->tcpi_snd_ssthresh < INFINITE_SSTHRESH)
			fprintf(f, "%" PRIu32, ti->tcpi_snd_ssthresh);
		fprintf(f, ",%" PRIu32 ",%.3f,%.3f,", ti->tcpi_snd_mss, ti->tcpi_rtt / 1e3,
			ti->tcpi_rttvar / 1e3);
		if (ti->tcpi_min_rtt != UINT32_MAX && ti->tcpi_min_rtt)
			fprintf(f, "%.3f", ti->tcpi_min_rtt / 1e3);
		fputc(',', f);
		rate(f, ti->tcpi_pacing_rate);
		fputc(',', f);
		rate(f, ti->tcpi_delivery_rate);
		fprintf(f,
			",%" PRIu32 ",%" PRId64 ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",",
			ti->tcpi_unacked, (inflight > 0 ? inflight : 0) * ti->tcpi_snd_mss,
			ti->tcpi_retrans, ti->tcpi_total_retrans, (uint64_t)ti->tcpi_bytes_acked,
			(uint64_t)ti->tcpi_bytes_sent);
	} else {
		fputs(",,,,,,,,,,,,,,", f);
	}
	if (st->have_bbr)
		fprintf(f, "%" PRIu64 ",%.3f,%.3f,%.3f,", st->bbr_bw * 8, st->bbr_min_rtt / 1e3,
			st->bbr_pacing_gain / 256.0, st->bbr_cwnd_gain / 256.0);
	else
		fputs(",,,,", f);
	if (stn)
		fprintf(f, "%" PRIu64 ",%u,%s,", stn->pacing_rate * 8, stn->shift,
			stn->emulated ? "emulated" : "kernel");
	else
		fputs(",,,", f);
	fprintf(f, "%u\n", st->station);
}

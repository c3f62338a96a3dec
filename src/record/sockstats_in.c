/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "record/sockstats_in.h"

static const char *const col_name[TS_SS__N] = {"time_s",
					       "flow",
					       "src",
					       "sport",
					       "dst",
					       "dport",
					       "state",
					       "cca",
					       "cwnd_pkts",
					       "ssthresh_pkts",
					       "mss",
					       "srtt_ms",
					       "rttvar_ms",
					       "min_rtt_ms",
					       "pacing_rate_bps",
					       "delivery_rate_bps",
					       "unacked_pkts",
					       "inflight_bytes",
					       "retrans_pkts",
					       "total_retrans",
					       "bytes_acked",
					       "bytes_sent",
					       "bbr_bw_bps",
					       "bbr_min_rtt_ms",
					       "bbr_pacing_gain",
					       "bbr_cwnd_gain",
					       "station_pacing_rate_bps",
					       "station_pacing_shift",
					       "station_tsq",
					       "station"};

enum kind { NUM, INT, PORT, STR };

static const enum kind kind_of[TS_SS__N] = {[TS_SS_TIME] = NUM,
					    [TS_SS_FLOW] = STR,
					    [TS_SS_SRC] = STR,
					    [TS_SS_SPORT] = PORT,
					    [TS_SS_DST] = STR,
					    [TS_SS_DPORT] = PORT,
					    [TS_SS_STATE] = STR,
					    [TS_SS_CCA] = STR,
					    [TS_SS_CWND] = INT,
					    [TS_SS_SSTHRESH] = INT,
					    [TS_SS_MSS] = INT,
					    [TS_SS_SRTT] = NUM,
					    [TS_SS_RTTVAR] = NUM,
					    [TS_SS_MIN_RTT] = NUM,
					    [TS_SS_PACING] = INT,
					    [TS_SS_DELIVERY] = INT,
					    [TS_SS_UNACKED] = INT,
					    [TS_SS_INFLIGHT] = INT,
					    [TS_SS_RETRANS] = INT,
					    [TS_SS_TOTAL_RETRANS] = INT,
					    [TS_SS_BYTES_ACKED] = INT,
					    [TS_SS_BYTES_SENT] = INT,
					    [TS_SS_BBR_BW] = INT,
					    [TS_SS_BBR_MIN_RTT] = NUM,
					    [TS_SS_BBR_PACING_GAIN] = NUM,
					    [TS_SS_BBR_CWND_GAIN] = NUM,
					    [TS_SS_STATION_PACING] = INT,
					    [TS_SS_STATION_SHIFT] = INT,
					    [TS_SS_STATION_TSQ] = STR,
					    [TS_SS_STATION] = INT};

/* Only time_s: a reader that needs more (plot: flow; the executor: ports) checks r->col. */
static const bool required[TS_SS__N] = {[TS_SS_TIME] = true};

/* The states sockstats_out.c names (as ss prints them). */
static const char *const states[] = {"?",	   "ESTAB",	 "SYN-SENT",  "SYN-RECV",
				     "FIN-WAIT-1", "FIN-WAIT-2", "TIME-WAIT", "UNCONN",
				     "CLOSE-WAIT", "LAST-ACK",	 "LISTEN",    "CLOSING"};

void ts_sockstats_in_init(struct ts_sockstats_in *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
}

static bool all_of(const char *s, size_t len, const char *set)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!s[i] || !strchr(set, s[i]))
			return false;
	return true;
}

/* Is string field @k acceptable? Copies it into its place in @row (@s/@len fits: checked). */
static bool string_ok(struct ts_sockstats_row *row, int k, const char *s, size_t len)
{
	char *dst = NULL, tmp[48];
	size_t cap = 0, i;
	bool ok = false;
	unsigned char addr[16];

	switch (k) {
	case TS_SS_FLOW:
		dst = row->flow;
		cap = sizeof(row->flow);
		ok = len && len < cap && all_of(s, len, "0123456789abcdefABCDEF.:[]-") &&
		     memchr(s, '-', len);
		break;
	case TS_SS_SRC:
	case TS_SS_DST:
		dst = k == TS_SS_SRC ? row->src : row->dst;
		cap = sizeof(row->src);
		if (len && len < sizeof(tmp)) {
			memcpy(tmp, s, len);
			tmp[len] = '\0';
			ok = inet_pton(AF_INET, tmp, addr) == 1 ||
			     inet_pton(AF_INET6, tmp, addr) == 1;
		}
		break;
	case TS_SS_STATE:
		dst = row->state;
		cap = sizeof(row->state);
		for (i = 0; i < sizeof(states) / sizeof(states[0]) && !ok; i++)
			ok = ts_csv_in_is(s, len, states[i]);
		break;
	case TS_SS_CCA:
		dst = row->cca;
		cap = sizeof(row->cca);
		ok = len < cap && all_of(s, len, "abcdefghijklmnopqrstuvwxyz0123456789_");
		break;
	default: /* TS_SS_STATION_TSQ */
		dst = row->station_tsq;
		cap = sizeof(row->station_tsq);
		ok = !len || ts_csv_in_is(s, len, "emulated") || ts_csv_in_is(s, len, "kernel");
		break;
	}
	if (ok && len < cap) {
		memcpy(dst, s, len);
		dst[len] = '\0';
	}
	return ok;
}

static const char *expected(int k)
{
	switch (k) {
	case TS_SS_FLOW:
		return "SRC:PORT-DST:PORT";
	case TS_SS_SRC:
	case TS_SS_DST:
		return "an IPv4 or IPv6 address";
	case TS_SS_STATE:
		return "a TCP state as ss names it (ESTAB, SYN-SENT, ...)";
	case TS_SS_CCA:
		return "a congestion control name (a-z, 0-9, _; at most 15) or nothing";
	case TS_SS_STATION_TSQ:
		return "emulated, kernel or nothing";
	case TS_SS_SPORT:
	case TS_SS_DPORT:
		return "a port number (0-65535)";
	case TS_SS_TIME:
		return "a non-negative decimal number";
	default:
		return kind_of[k] == INT ? "a whole number or nothing"
					 : "a non-negative decimal number or nothing";
	}
}

static int field(const struct ts_sockstats_in *r, const struct ts_csv_in_fields *f, int k,
		 struct ts_sockstats_row *row, struct ts_err *err)
{
	const char *s = f->f[r->col[k]];
	size_t len = f->len[r->col[k]];
	bool ok = false;
	uint64_t u;

	row->v[k] = NAN;
	switch (kind_of[k]) {
	case STR:
		ok = string_ok(row, k, s, len);
		break;
	case PORT:
		ok = ts_csv_in_u64(s, len, &u) && u <= 65535;
		row->v[k] = ok ? (double)u : NAN;
		break;
	case INT:
		ok = !len || ts_csv_in_u64(s, len, &u);
		row->v[k] = ok && len ? (double)u : NAN;
		break;
	case NUM:
		ok = (!len && k != TS_SS_TIME) || ts_csv_in_num(s, len, &row->v[k]);
		break;
	}
	if (ok)
		return 0;
	ts_err_set(err, "%s:%lu: %s: expected %s, got '%.*s'", r->name, r->line, col_name[k],
		   expected(k), (int)(len > 60 ? 60 : len), s);
	return -EINVAL;
}

int ts_sockstats_in_line(struct ts_sockstats_in *r, const char *line, size_t len,
			 struct ts_sockstats_row *row, struct ts_err *err)
{
	struct ts_csv_in_fields f;
	int k, ret;

	r->line++;
	ret = ts_csv_in_split(line, len, &f, r->name, r->line, err);
	if (ret)
		return ret;
	if (!r->ncols) {
		ret = ts_csv_in_columns(&f, col_name, required, TS_SS__N, r->col, r->name, err);
		if (!ret)
			r->ncols = f.n;
		return ret;
	}
	if (f.n != r->ncols) {
		ts_err_set(err, "%s:%lu: %zu fields, expected %zu as in the header", r->name,
			   r->line, f.n, r->ncols);
		return -EINVAL;
	}
	memset(row, 0, sizeof(*row));
	for (k = 0; k < TS_SS__N; k++) {
		if (r->col[k] < 0)
			row->v[k] = NAN;
		else if ((ret = field(r, &f, k, row, err)))
			return ret;
	}
	return 1;
}

int ts_sockstats_in_finish(const struct ts_sockstats_in *r, struct ts_err *err)
{
	if (r->ncols)
		return 0;
	ts_err_set(err, "%s: empty, expected a header line naming time_s", r->name);
	return -EINVAL;
}

struct file_ctx {
	struct ts_sockstats_in r;
	ts_sockstats_in_fn fn;
	void *ctx;
};

static int file_line(void *ctx, const char *line, size_t len, unsigned long lineno,
		     struct ts_err *err)
{
	struct file_ctx *c = ctx;
	struct ts_sockstats_row row;
	int ret;

	(void)lineno;
	ret = ts_sockstats_in_line(&c->r, line, len, &row, err);
	return ret == 1 ? c->fn(c->ctx, &row) : ret;
}

int ts_sockstats_in_file(const char *path, ts_sockstats_in_fn fn, void *ctx, struct ts_err *err)
{
	struct file_ctx c = {.fn = fn, .ctx = ctx};
	int ret;

	ts_sockstats_in_init(&c.r, path);
	ret = ts_csv_in_file(path, file_line, &c, err);
	if (!ret)
		ret = ts_sockstats_in_finish(&c.r, err);
	return ret;
}

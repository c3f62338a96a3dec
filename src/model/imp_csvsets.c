/* SPDX-License-Identifier: MIT */
/*
 * Importers of per-second CSV datasets: G-NetTrack Pro logs (the UCC 4G
 * and 5G datasets), Lumos5G 1.0 and 5Gophers 1.0. Each checks the
 * dataset's header, takes its rate columns and handles its quirks (see
 * docs/traces.md). Rows hold one second; a gap in the timeline lets the
 * row before it hold, as in any native CSV.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "import_priv.h"

/* Check a data row has the header's number of fields. */
static int check_fields(struct ts_import *im, const char *s, size_t len, struct ts_err *err)
{
	size_t n = imp_nfields(s, len);

	if (n != im->nfields)
		return imp_fail(im, 0, err, -EINVAL,
				"fields: %zu here, %zu in the header on line 1 (columns are "
				"separated by ',')",
				n, im->nfields);
	return 0;
}

/* An integer field such as seq_num or run_num. */
static int int_field(struct ts_import *im, const char *col, const char *s, size_t len, long k,
		     uint64_t *out, struct ts_err *err)
{
	const char *f = s;
	size_t flen = 0, i;
	char q[48];

	/* The field is @flen bytes of a line that need not end in NUL: no str* function here. */
	ts_csv_field(s, len, (size_t)k, &f, &flen);
	for (i = 0; i < flen && f[i] >= '0' && f[i] <= '9'; i++)
		;
	if (!flen || i < flen)
		return imp_fail(im, 0, err, -EINVAL, "%s: expected a whole number, got '%s'", col,
				imp_quote(q, sizeof(q), f, flen));
	return imp_number(im, 0, col, f, flen, 0, (uint64_t)INT32_MAX, out, err);
}

/* ---- G-NetTrack ----------------------------------------------------------- */

struct gnet {
	long c_ts, c_dl, c_ul, c_state;
	/* the second being collected: rows with the same Timestamp are averaged */
	bool have_sec, any_d;
	int64_t sec;
	unsigned long sec_line;
	uint64_t sum[2], cnt[2], rows_in_sec;
	uint64_t last[2]; /* carried over a missing ('-') value */
	/* idle stretches are cut out: later rows move earlier by shift */
	bool in_idle;
	int64_t idle_start, shift, prev_out;
	bool have_out;
	uint64_t rows, merged, idle, missing, gaps;
};

static int gnet_init(struct ts_import *im, struct ts_err *err)
{
	im->priv = calloc(1, sizeof(struct gnet));
	if (!im->priv) {
		ts_err_set(err, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (March-based years). */
static int64_t civil_days(int64_t y, int64_t m, int64_t d)
{
	int64_t era, yoe, doy, doe;

	if (m <= 2)
		y--;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* "2019.11.28_07.00.01" to seconds since 1970 (the zone does not matter: only differences). */
static int gnet_time(const char *f, size_t flen, int64_t *out)
{
	static const char pat[] = "dddd.dd.dd_dd.dd.dd";
	int64_t v[6] = {0};
	size_t i;
	int k = 0;

	if (flen != sizeof(pat) - 1)
		return -EINVAL;
	for (i = 0; i < flen; i++) {
		if (pat[i] == 'd') {
			if (f[i] < '0' || f[i] > '9')
				return -EINVAL;
			v[k] = v[k] * 10 + (f[i] - '0');
		} else if (f[i] != pat[i]) {
			return -EINVAL;
		} else {
			k++;
		}
	}
	if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 || v[4] > 59 || v[5] > 60)
		return -EINVAL;
	/* Times become nanoseconds in 64 bits: 1970 to 2200 fits with room to spare. */
	if (v[0] < 1970 || v[0] > 2200)
		return -ERANGE;
	*out = civil_days(v[0], v[1], v[2]) * 86400 + v[3] * 3600 + v[4] * 60 + v[5];
	return 0;
}

static int gnet_flush(struct ts_import *im, struct ts_err *err)
{
	struct gnet *g = im->priv;
	uint64_t v[2];
	int d, ret;

	if (!g->have_sec)
		return 0;
	g->have_sec = false;
	if (g->rows_in_sec > 1)
		g->merged += g->rows_in_sec - 1;
	if (!g->any_d && !im->o.keep_idle) {
		g->idle += g->rows_in_sec;
		if (!g->in_idle) {
			g->in_idle = true;
			g->idle_start = g->sec;
		}
		return 0;
	}
	if (g->in_idle) {
		g->shift += g->sec - g->idle_start;
		g->in_idle = false;
	}
	for (d = 0; d < 2; d++) {
		v[d] = g->cnt[d] ? g->sum[d] / g->cnt[d] : g->last[d];
		g->last[d] = v[d];
	}
	if (g->have_out && g->sec - g->shift > g->prev_out + 1)
		g->gaps++;
	g->prev_out = g->sec - g->shift;
	g->have_out = true;
	ret = imp_push(im, (g->sec - g->shift) * TS_NSEC_PER_SEC, v[0], v[1], 0);
	if (ret)
		return imp_push_fail(im, 0, ret, err);
	return 0;
}

static int gnet_header(struct ts_import *im, const char *s, size_t len, struct ts_err *err)
{
	static const char *const need[] = {"Timestamp", "DL_bitrate", "UL_bitrate", "State"};
	struct gnet *g = im->priv;
	long *cols[] = {&g->c_ts, &g->c_dl, &g->c_ul, &g->c_state};
	size_t i;

	im->have_header = true;
	im->nfields = imp_nfields(s, len);
	for (i = 0; i < 4; i++) {
		*cols[i] = imp_col(s, len, need[i]);
		if (*cols[i] < 0)
			return imp_fail(im, 0, err, -EINVAL,
					"not a G-NetTrack CSV: no column '%s'; expected a header "
					"with Timestamp, DL_bitrate, UL_bitrate and State "
					"(Timestamp,Longitude,Latitude,Speed,Operatorname,CellID,"
					"NetworkMode,RSRP,RSRQ,SNR,CQI,RSSI,DL_bitrate,UL_bitrate,"
					"State,...)",
					need[i]);
	}
	return 0;
}

static int gnet_line(struct ts_import *im, size_t input, const char *s, size_t len,
		     struct ts_err *err)
{
	static const char *const names[2] = {"DL_bitrate", "UL_bitrate"};
	struct gnet *g = im->priv;
	const char *f;
	size_t flen;
	int64_t sec;
	char q[48];
	int d, ret;

	(void)input;
	if (!len)
		return 0;
	if (!im->have_header)
		return gnet_header(im, s, len, err);
	ret = check_fields(im, s, len, err);
	if (ret)
		return ret;
	ts_csv_field(s, len, (size_t)g->c_ts, &f, &flen);
	ret = gnet_time(f, flen, &sec);
	if (ret == -ERANGE)
		return imp_fail(im, 0, err, -ERANGE,
				"Timestamp '%s': expected a year from 1970 to 2200",
				imp_quote(q, sizeof(q), f, flen));
	if (ret)
		return imp_fail(im, 0, err, -EINVAL,
				"Timestamp: expected YYYY.MM.DD_hh.mm.ss such as "
				"2019.11.28_07.00.01, got '%s'",
				imp_quote(q, sizeof(q), f, flen));
	if (g->have_sec && sec < g->sec)
		return imp_fail(im, 0, err, -EINVAL,
				"Timestamp '%s' is before the row on line %lu; rows must be in "
				"time order",
				imp_quote(q, sizeof(q), f, flen), g->sec_line);
	if (g->have_sec && sec != g->sec) {
		ret = gnet_flush(im, err);
		if (ret)
			return ret;
	}
	if (!g->have_sec) {
		g->have_sec = true;
		g->sec = sec;
		g->any_d = false;
		g->rows_in_sec = 0;
		memset(g->sum, 0, sizeof(g->sum));
		memset(g->cnt, 0, sizeof(g->cnt));
	}
	g->sec_line = im->line[0];
	g->rows_in_sec++;
	g->rows++;
	ts_csv_field(s, len, (size_t)g->c_state, &f, &flen);
	if (flen != 1 || (f[0] != 'D' && f[0] != 'I'))
		return imp_fail(im, 0, err, -EINVAL,
				"State: expected D (downloading) or I (idle), got '%s'",
				imp_quote(q, sizeof(q), f, flen));
	g->any_d |= f[0] == 'D';
	for (d = 0; d < 2; d++) {
		uint64_t bps;

		ts_csv_field(s, len, (size_t)(d ? g->c_ul : g->c_dl), &f, &flen);
		if (flen == 1 && f[0] == '-') {
			g->missing++;
			continue;
		}
		ret = imp_number(im, 0, names[d], f, flen, 3, IMP_RATE_MAX, &bps, err);
		if (ret)
			return ret;
		g->sum[d] += bps;
		g->cnt[d]++;
	}
	return 0;
}

static int imp_free_privsh(struct ts_import *im, struct ts_series *out, struct ts_text *notes,
			   struct ts_err *err)
{
	struct gnet *g = im->priv;
	int ret = gnet_flush(im, err);

	if (ret)
		return ret;
	out->cols = TS_COL_DOWN | TS_COL_UP;
	ret = imp_rows_to_series(im, TS_NSEC_PER_SEC, out, err);
	if (ret)
		return ret;
	ts_text_printf(notes,
		       "imported from %s (G-NetTrack CSV): %llu rows as %zu seconds\n"
		       "%llu rows in the same second as the one before were averaged with it\n",
		       im->name[0], (unsigned long long)g->rows, im->n,
		       (unsigned long long)g->merged);
	if (im->o.keep_idle)
		ts_text_printf(notes, "rows in State I (idle) kept\n");
	else
		ts_text_printf(notes,
			       "%llu rows in State I (idle) dropped, later rows moved earlier "
			       "(--keep-idle keeps them)\n",
			       (unsigned long long)g->idle);
	ts_text_printf(notes,
		       "%llu missing bitrates ('-') took the value of the row before\n"
		       "%llu gaps in the timestamps: the row before a gap holds through it",
		       (unsigned long long)g->missing, (unsigned long long)g->gaps);
	return 0;
}

const struct imp_ops imp_gnettrack = {gnet_init, gnet_line, imp_free_privsh, imp_free_priv};

/* ---- Lumos5G 1.0 ------------------------------------------------------------ */

#define LUMOS_RUNS 16

struct lumos {
	long c_run, c_seq, c_tp, c_mode;
	bool have_run, have_seq;
	uint64_t run, prev_seq;
	unsigned long prev_line, skipped;
	uint64_t runs[LUMOS_RUNS]; /* distinct runs seen, for messages */
	size_t nruns;
	char mode[48];
};

static int lumos_init(struct ts_import *im, struct ts_err *err)
{
	struct lumos *l = calloc(1, sizeof(*l));

	im->priv = l;
	if (!l) {
		ts_err_set(err, "out of memory");
		return -ENOMEM;
	}
	l->have_run = im->o.has_run;
	l->run = im->o.run;
	return 0;
}

static void note_run(struct lumos *l, uint64_t run)
{
	size_t i;

	for (i = 0; i < l->nruns; i++)
		if (l->runs[i] == run)
			return;
	if (l->nruns < LUMOS_RUNS)
		l->runs[l->nruns++] = run;
}

static int lumos_line(struct ts_import *im, size_t input, const char *s, size_t len,
		      struct ts_err *err)
{
	struct lumos *l = im->priv;
	uint64_t run, seq, bps;
	const char *f;
	size_t flen;
	int ret;

	(void)input;
	if (!len)
		return 0;
	if (!im->have_header) {
		im->have_header = true;
		im->nfields = imp_nfields(s, len);
		l->c_run = imp_col(s, len, "run_num");
		l->c_seq = imp_col(s, len, "seq_num");
		l->c_tp = imp_col(s, len, "Throughput");
		l->c_mode = imp_col(s, len, "mobility_mode");
		if (l->c_run < 0 || l->c_seq < 0 || l->c_tp < 0)
			return imp_fail(
				im, 0, err, -EINVAL,
				"not a Lumos5G CSV: expected a header with run_num, seq_num "
				"and Throughput (run_num,seq_num,abstractSignalStr,...,"
				"Throughput,mobility_mode,...)");
		return 0;
	}
	ret = check_fields(im, s, len, err);
	if (!ret)
		ret = int_field(im, "run_num", s, len, l->c_run, &run, err);
	if (ret)
		return ret;
	note_run(l, run);
	if (!l->have_run) {
		l->have_run = true;
		l->run = run;
	}
	if (run != l->run) {
		l->skipped++;
		return 0;
	}
	ret = int_field(im, "seq_num", s, len, l->c_seq, &seq, err);
	if (ret)
		return ret;
	if (l->have_seq && seq <= l->prev_seq)
		return imp_fail(im, 0, err, -EINVAL,
				"seq_num %llu is not after %llu on line %lu; a run's seconds must "
				"increase",
				(unsigned long long)seq, (unsigned long long)l->prev_seq,
				l->prev_line);
	ts_csv_field(s, len, (size_t)l->c_tp, &f, &flen);
	ret = imp_number(im, 0, "Throughput", f, flen, 6, IMP_RATE_MAX, &bps, err);
	if (ret)
		return ret;
	if (l->c_mode >= 0 && !l->mode[0] && ts_csv_field(s, len, (size_t)l->c_mode, &f, &flen))
		imp_quote(l->mode, sizeof(l->mode), f, flen < 40 ? flen : 40);
	l->have_seq = true;
	l->prev_seq = seq;
	l->prev_line = im->line[0];
	ret = imp_push(im, (ts_ns_t)seq * TS_NSEC_PER_SEC, bps, 0, 0);
	return ret ? imp_push_fail(im, 0, ret, err) : 0;
}

static int lumos_finish(struct ts_import *im, struct ts_series *out, struct ts_text *notes,
			struct ts_err *err)
{
	struct lumos *l = im->priv;
	char runs[LUMOS_RUNS * 12] = "";
	size_t i, used = 0;
	int ret;

	for (i = 0; i < l->nruns && used < sizeof(runs); i++)
		used += (size_t)snprintf(runs + used, sizeof(runs) - used, "%s%llu", i ? ", " : "",
					 (unsigned long long)l->runs[i]);
	if (!im->n && l->nruns)
		return imp_fail_file(
			im, 0, err, -EINVAL, "no rows of run_num %llu (runs in the file: %s%s)",
			(unsigned long long)l->run, runs, l->nruns == LUMOS_RUNS ? ", ..." : "");
	out->cols = TS_COL_DOWN;
	ret = imp_rows_to_series(im, TS_NSEC_PER_SEC, out, err);
	if (ret)
		return ret;
	ts_text_printf(notes,
		       "imported from %s (Lumos5G 1.0): run_num %llu, %zu seconds of iperf "
		       "downlink Throughput%s%s\n%lu rows of other runs skipped (runs in the file: "
		       "%s%s; choose with --run)",
		       im->name[0], (unsigned long long)l->run, im->n, l->mode[0] ? ", " : "",
		       l->mode, l->skipped, runs, l->nruns == LUMOS_RUNS ? ", ..." : "");
	return 0;
}

const struct imp_ops imp_lumos5g = {lumos_init, lumos_line, lumos_finish, imp_free_priv};

/* ---- 5Gophers 1.0 ----------------------------------------------------------- */

#define G5_SUFFIX "_throughput_mbps"

struct g5 {
	long c_seq, c_op;
	bool have_seq;
	uint64_t prev_seq, gaps;
	unsigned long prev_line;
	char col[64];
};

static int g5_init(struct ts_import *im, struct ts_err *err)
{
	im->priv = calloc(1, sizeof(struct g5));
	if (!im->priv) {
		ts_err_set(err, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* The operators of the header ("Sprint, TMobile, Verizon") into @buf; returns how many. */
static size_t g5_operators(const char *s, size_t len, char *buf, size_t size, long *only)
{
	size_t n = imp_nfields(s, len), k, found = 0, used = 0, sl = strlen(G5_SUFFIX);
	const char *f;
	size_t flen;

	buf[0] = '\0';
	for (k = 0; k < n; k++) {
		ts_csv_field(s, len, k, &f, &flen);
		if (flen <= sl || strncasecmp(f + flen - sl, G5_SUFFIX, sl))
			continue;
		*only = (long)k;
		if (used < size)
			used += (size_t)snprintf(buf + used, size - used, "%s%.*s",
						 found ? ", " : "", (int)(flen - sl), f);
		found++;
	}
	return found;
}

static int g5_header(struct ts_import *im, const char *s, size_t len, struct ts_err *err)
{
	struct g5 *g = im->priv;
	char ops[256], want[96];
	long only = -1;
	size_t nops;

	im->have_header = true;
	im->nfields = imp_nfields(s, len);
	g->c_seq = imp_col(s, len, "seq_num");
	nops = g5_operators(s, len, ops, sizeof(ops), &only);
	if (g->c_seq < 0 || !nops)
		return imp_fail(im, 0, err, -EINVAL,
				"not a 5Gophers throughput CSV: expected seq_num and "
				"<Operator>_throughput_mbps columns (protocol,num_tcp_conn,seq_num,"
				"Sprint_throughput_mbps,TMobile_throughput_mbps,"
				"Verizon_throughput_mbps)");
	if (!im->o.operator_name) {
		if (nops > 1)
			return imp_fail(im, 0, err, -EINVAL,
					"%zu operators (%s): choose one with --operator", nops,
					ops);
		g->c_op = only;
	} else {
		snprintf(want, sizeof(want), "%s" G5_SUFFIX, im->o.operator_name);
		g->c_op = imp_col(s, len, want);
		if (g->c_op < 0)
			return imp_fail(im, 0, err, -EINVAL,
					"no column '%s'; the operators in this file are %s", want,
					ops);
	}
	{
		const char *f;
		size_t flen;

		ts_csv_field(s, len, (size_t)g->c_op, &f, &flen);
		imp_quote(g->col, sizeof(g->col), f, flen);
	}
	return 0;
}

static int g5_line(struct ts_import *im, size_t input, const char *s, size_t len,
		   struct ts_err *err)
{
	struct g5 *g = im->priv;
	const char *f;
	size_t flen;
	uint64_t seq, bps;
	int ret;

	(void)input;
	if (!len)
		return 0;
	if (!im->have_header)
		return g5_header(im, s, len, err);
	ret = check_fields(im, s, len, err);
	if (!ret)
		ret = int_field(im, "seq_num", s, len, g->c_seq, &seq, err);
	if (ret)
		return ret;
	if (g->have_seq && seq <= g->prev_seq)
		return imp_fail(im, 0, err, -EINVAL,
				"seq_num %llu is not after %llu on line %lu; seconds must increase",
				(unsigned long long)seq, (unsigned long long)g->prev_seq,
				g->prev_line);
	if (g->have_seq && seq > g->prev_seq + 1)
		g->gaps++;
	ts_csv_field(s, len, (size_t)g->c_op, &f, &flen);
	ret = imp_number(im, 0, g->col, f, flen, 6, IMP_RATE_MAX, &bps, err);
	if (ret)
		return ret;
	g->have_seq = true;
	g->prev_seq = seq;
	g->prev_line = im->line[0];
	ret = imp_push(im, (ts_ns_t)seq * TS_NSEC_PER_SEC, bps, 0, 0);
	return ret ? imp_push_fail(im, 0, ret, err) : 0;
}

static int g5_finish(struct ts_import *im, struct ts_series *out, struct ts_text *notes,
		     struct ts_err *err)
{
	struct g5 *g = im->priv;
	int ret;

	out->cols = TS_COL_DOWN;
	ret = imp_rows_to_series(im, TS_NSEC_PER_SEC, out, err);
	if (ret)
		return ret;
	ts_text_printf(notes,
		       "imported from %s (5Gophers 1.0): column %s, %zu seconds\n"
		       "%llu gaps in seq_num: the row before a gap holds through it",
		       im->name[0], g->col, im->n, (unsigned long long)g->gaps);
	return 0;
}

const struct imp_ops imp_5gophers = {g5_init, g5_line, g5_finish, imp_free_priv};

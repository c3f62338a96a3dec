/* SPDX-License-Identifier: MIT */
/*
 * The reader of the TCP socket statistics that sockstats_out.c writes
 * (sockstats.csv, --sockstats FILE; its columns are described in
 * sockstats_out.h), for everything that reads them back (tasshape plot,
 * the experiment executor). Strict, as stats_in.h: the header names
 * time_s (a reader that needs more columns checks col[]), no column twice; every row has the header's field count;
 * numbers are plain decimals (integers where the writer writes integers)
 * or empty; the strings are what the writer can write: a flow of
 * address characters, addresses that parse, a known TCP state, a
 * congestion control name of [a-z0-9_], a station mode of emulated or
 * kernel. Absent columns read as NAN or "". Rows are not required to be
 * in time order (excerpts of several runs' files are).
 */
#ifndef TS_RECORD_SOCKSTATS_IN_H
#define TS_RECORD_SOCKSTATS_IN_H

#include <stddef.h>

#include "io/csv_in.h"

enum ts_sockstats_col {
	TS_SS_TIME, /* time_s */
	TS_SS_FLOW, /* flow (string) */
	TS_SS_SRC,  /* src (string) */
	TS_SS_SPORT,
	TS_SS_DST, /* dst (string) */
	TS_SS_DPORT,
	TS_SS_STATE, /* state (string) */
	TS_SS_CCA,   /* cca (string) */
	TS_SS_CWND,
	TS_SS_SSTHRESH,
	TS_SS_MSS,
	TS_SS_SRTT,
	TS_SS_RTTVAR,
	TS_SS_MIN_RTT,
	TS_SS_PACING,
	TS_SS_DELIVERY,
	TS_SS_UNACKED,
	TS_SS_INFLIGHT,
	TS_SS_RETRANS,
	TS_SS_TOTAL_RETRANS,
	TS_SS_BYTES_ACKED,
	TS_SS_BYTES_SENT,
	TS_SS_BBR_BW,
	TS_SS_BBR_MIN_RTT,
	TS_SS_BBR_PACING_GAIN,
	TS_SS_BBR_CWND_GAIN,
	TS_SS_STATION_PACING,
	TS_SS_STATION_SHIFT,
	TS_SS_STATION_TSQ, /* station_tsq (string) */
	TS_SS_STATION,	   /* station: the real Wi-Fi station's index */
	TS_SS__N
};

#define TS_SS_STR_MAX 112 /* longest string field, with its NUL: a flow of two IPv6 ends */

/* One row: v[col] for the numeric columns (NAN: empty or absent), the strings checked. */
struct ts_sockstats_row {
	double v[TS_SS__N];
	char flow[TS_SS_STR_MAX], src[48], dst[48];
	char state[16], cca[16], station_tsq[16];
};

struct ts_sockstats_in {
	const char *name;
	unsigned long line;
	size_t ncols;
	int col[TS_SS__N];
};

void ts_sockstats_in_init(struct ts_sockstats_in *r, const char *name);

/* As ts_stats_in_line: 0 header, 1 row, -EINVAL with @err "NAME:LINE: ...". */
int ts_sockstats_in_line(struct ts_sockstats_in *r, const char *line, size_t len,
			 struct ts_sockstats_row *row, struct ts_err *err);

/* End of the file: -EINVAL with @err when there was no header. */
int ts_sockstats_in_finish(const struct ts_sockstats_in *r, struct ts_err *err);

typedef int (*ts_sockstats_in_fn)(void *ctx, const struct ts_sockstats_row *row);

/* Read @path row by row with @fn: 0, @fn's value, or a negative errno with @err. */
int ts_sockstats_in_file(const char *path, ts_sockstats_in_fn fn, void *ctx, struct ts_err *err);

#endif

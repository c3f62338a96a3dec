/* SPDX-License-Identifier: MIT */
/*
 * Capacity traces: how many bytes a link direction can deliver, and when.
 * Two kinds, both replayed byte-accurately:
 *
 *  - TS_TRACE_OPPS, delivery opportunities (the mahimahi format): at each
 *    listed millisecond the link may deliver TS_OPP_BYTES IP bytes. Lines
 *    with the same millisecond are stored once with a count, so memory is
 *    O(distinct milliseconds). The trace loops with period = the last
 *    timestamp; an opportunity at millisecond 0 exists only in the first
 *    pass, so the wrap never doubles an opportunity.
 *  - TS_TRACE_RATE, a piecewise-constant rate (the native CSV format and
 *    "const:RATE"): row i holds from rows[i].t until rows[i + 1].t (the
 *    last row until period). Rows may also carry a one-way delay and a
 *    loss probability.
 *
 * Times in a trace are relative to its start (row 0 at 0 ns).
 */
#ifndef TASSHAPE_TRACE_H
#define TASSHAPE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasshape/err.h"
#include "tasshape/time.h"

/*
 * One mahimahi opportunity carries 1500 IP bytes. mahimahi itself counts
 * 1504 because it charges the 4-byte TUN header to every packet; the
 * IP payload per opportunity is the same.
 */
#define TS_OPP_BYTES 1500u

enum ts_trace_kind {
	TS_TRACE_OPPS,
	TS_TRACE_RATE,
};

struct ts_trace_opp {
	uint32_t ms;	/* millisecond timestamp as written in the file */
	uint32_t count; /* opportunities at that millisecond, >= 1 */
};

struct ts_trace_row {
	ts_ns_t t;    /* start of this row, relative to the trace start */
	uint64_t bps; /* capacity in bit/s from t until the next row */
};

struct ts_trace {
	enum ts_trace_kind kind;
	char name[256]; /* file path or spec, for messages */
	size_t n;	/* entries in opps[] or rows[] */
	size_t cap;	/* allocated entries */
	ts_ns_t period; /* loop period, > 0 */
	struct ts_trace_opp *opps;
	struct ts_trace_row *rows;
	ts_ns_t *delay;	    /* per row one-way delay, or NULL (RATE only) */
	uint32_t *loss_ppm; /* per row loss probability, or NULL (RATE only) */
	unsigned __int128
		*cum; /* capacity (bit-ns) before each entry, n + 1 values; see ts_trace_index */
};

/* Free a trace and its arrays. NULL is fine. */
void ts_trace_free(struct ts_trace *t);

/*
 * A CSV file holds both directions; a mahimahi file one. Loading returns
 * the trace(s) it found: for CSV, @down and @up from the down_* and up_*
 * columns (either may be absent: *down or *up is then NULL and the
 * caller decides whether that is an error).
 */
enum ts_trace_dir {
	TS_DIR_UP,
	TS_DIR_DOWN,
};

/*
 * Incremental reader, in the style of wireguard's config_read_*: the
 * caller feeds one line at a time (without or with its '\n'), so the unit
 * tests feed strings and the fuzzer feeds bytes. Format is detected from
 * the first non-empty line (a header with letters means CSV, an integer
 * means mahimahi) unless forced.
 */
enum ts_trace_format {
	TS_FMT_AUTO,
	TS_FMT_MAHIMAHI,
	TS_FMT_CSV,
};

struct ts_trace_reader;

/*
 * ts_trace_read_init - start reading a trace called @name (used in error
 * messages as "NAME:LINE: ..."). Returns NULL on allocation failure.
 */
struct ts_trace_reader *ts_trace_read_init(const char *name, enum ts_trace_format fmt);

/*
 * ts_trace_read_line - feed one line of @len bytes (need not be
 * NUL-terminated; a trailing "\n" or "\r\n" is ignored). Returns 0, or
 * -EINVAL with @err set to "NAME:LINE: what was wrong (expected ...)",
 * or -ENOMEM. After an error the reader only accepts ts_trace_read_free.
 */
int ts_trace_read_line(struct ts_trace_reader *r, const char *line, size_t len, struct ts_err *err);

/*
 * ts_trace_read_finish - check the whole trace (not empty, not all zero,
 * ...) and hand out the result. On success *@down and *@up are owned by
 * the caller (either may be NULL, for a mahimahi file *@up is NULL and
 * the single direction is in *@down). Frees the reader in every case.
 */
int ts_trace_read_finish(struct ts_trace_reader *r, struct ts_trace **down, struct ts_trace **up,
			 struct ts_err *err);

void ts_trace_read_free(struct ts_trace_reader *r);

/*
 * ts_trace_load - read a file through the incremental reader. Reads in
 * large blocks; errors as above, plus "NAME: cannot open: ..." (-errno).
 */
int ts_trace_load(const char *path, enum ts_trace_format fmt, struct ts_trace **down,
		  struct ts_trace **up, struct ts_err *err);

/* A constant rate, for "const:50mbit". Returns NULL on allocation failure. */
struct ts_trace *ts_trace_const(uint64_t bps);

/*
 * ts_trace_open_spec - a trace from what a user wrote after --trace:
 * "const:RATE" or a file path. Same ownership as ts_trace_load.
 */
int ts_trace_open_spec(const char *spec, struct ts_trace **down, struct ts_trace **up,
		       struct ts_err *err);

/*
 * ts_trace_index - build the cumulative-capacity index (16 bytes per entry)
 * so ts_trace_capacity_bytes is O(log n) instead of O(n): worth it when
 * capacity is asked for often (per-millisecond logs, stats windows).
 * Returns 0 or -ENOMEM (the trace still works, only slower).
 */
int ts_trace_index(struct ts_trace *t);

/* Capacity in bytes the trace offers in [t0, t1) when looped. */
uint64_t ts_trace_capacity_bytes(const struct ts_trace *t, ts_ns_t t0, ts_ns_t t1);

/* One-way delay and loss (ppm) at time @t, when the trace has them. */
bool ts_trace_delay_at(const struct ts_trace *t, ts_ns_t at, ts_ns_t *delay);
bool ts_trace_loss_at(const struct ts_trace *t, ts_ns_t at, uint32_t *ppm);

/*
 * A cursor replays a trace for one server. It remembers where in the
 * trace it is (so serving is O(1) amortised) and how many bytes of the
 * current opportunity are left for packets already waiting.
 */
struct ts_trace_cursor {
	const struct ts_trace *trace;
	bool once;		     /* stop at the end of the trace instead of looping */
	ts_ns_t origin;		     /* absolute time of trace time 0 */
	uint64_t pass;		     /* completed loops */
	size_t idx;		     /* current entry */
	uint32_t sub;		     /* OPPS: opportunities of entry idx already used */
	ts_ns_t left_t;		     /* time the last packet finished, or TS_NEVER */
	uint32_t left;		     /* OPPS: bytes left in the opportunity at left_t */
	unsigned __int128 left_work; /* RATE: bit-ns of capacity left over at left_t */
};

void ts_trace_cursor_init(struct ts_trace_cursor *c, const struct ts_trace *t, ts_ns_t origin,
			  bool once);

/*
 * ts_trace_cursor_start - the earliest time >= @t at which capacity is
 * available to a packet that is ready at @t. TS_NEVER when a --once
 * trace has ended.
 */
ts_ns_t ts_trace_cursor_start(struct ts_trace_cursor *c, ts_ns_t t);

/*
 * ts_trace_cursor_serve - transmit @bytes starting at @t (a time returned
 * by ts_trace_cursor_start) and return when the last byte is delivered;
 * TS_NEVER when a --once trace ends first. Capacity before @t is never
 * used: what an idle link could have sent is lost, except the unused part
 * of an opportunity at exactly @t.
 */
ts_ns_t ts_trace_cursor_serve(struct ts_trace_cursor *c, ts_ns_t t, uint64_t bytes);

#endif

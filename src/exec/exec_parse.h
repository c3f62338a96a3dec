/* SPDX-License-Identifier: MIT */
/*
 * Reading what the tools of one run wrote, into the pieces of result.json
 * (docs/experiments.md, "Per-run result"): iperf3's JSON (read with
 * json-c; iperf3 3.12 repeats keys in "start" with -P > 1, which json-c
 * accepts, the last one winning), ping -D's text, irtt's JSON and the
 * wrapper's --summary-json. Pure: text in, numbers and json-c objects out,
 * no clock and no files, so unit tests feed fixtures captured from the
 * real tools.
 *
 * Times: every "t" is seconds since the run's t0 (Unix time of the start
 * of its first delay); the caller passes t0, and for iperf3 the Unix time
 * its client was started.
 */
#ifndef TS_EXEC_EXEC_PARSE_H
#define TS_EXEC_EXEC_PARSE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "tasshape/err.h"

struct ts_exp_iperf {
	uint64_t bytes;			       /* received (end.sum_received), either direction */
	double seconds;			       /* the receiver's */
	double throughput_mbps;		       /* bytes * 8 / seconds / 1e6 */
	int64_t retransmits;		       /* end.sum_sent.retransmits; -1 when not reported */
	char sender_cca[16], receiver_cca[16]; /* end.sender/receiver_tcp_congestion */
	unsigned local_port;		       /* the data connection's, start.connected[0] */
	unsigned tos;			       /* start.test_start.tos */
	bool reverse;
	json_object *series; /* {"t": [...], "mbps": [...]} per interval, owned by the caller */
};

/*
 * ts_exp_parse_iperf3 - @text is one iperf3 client's --json output,
 * started at Unix time @started; @t0 the run's. Returns 0, or -EINVAL
 * with @err saying what is missing, or iperf3's own "error" message, or
 * -ENOMEM. On success the caller owns out->series (json_object_put).
 */
int ts_exp_parse_iperf3(const char *text, double started, double t0, struct ts_exp_iperf *out,
			struct ts_err *err);

/*
 * ts_exp_parse_ping - ping -D output into {"t","seq","rtt_ms"} (replies
 * only; t is the reply's receive time). Sets *@sent to the packets ping
 * says it transmitted (-1 when its statistics line is missing). Returns
 * the object (owned by the caller) or NULL when out of memory.
 */
json_object *ts_exp_parse_ping(const char *text, double t0, long *sent);

/*
 * ts_exp_parse_irtt - irtt client -o JSON into {"t","seq","rtt_ms"}
 * (round trips that came back; t is the send time) and *@lost. Returns
 * the object or NULL with @err set.
 */
json_object *ts_exp_parse_irtt(const char *text, double t0, long *lost, struct ts_err *err);

/* Fidelity of one direction, from the wrapper's summary JSON. */
struct ts_exp_fidelity {
	bool present;
	bool have_release_err;
	double release_err_p50_us, release_err_p99_us, release_err_max_us;
	uint64_t unexplained, kernel_drops, no_descriptor;
	double utilisation; /* < 0: unlimited capacity */
	/*
	 * The shaper loop's work in the run's busiest second, permille of one
	 * CPU (run/run_summary.h); one loop serves both directions, so both get
	 * it. -1: not in the summary.
	 */
	int loop_work_permille;
	/* The host's steal time over the run, ms (run/cpustat.h); both get it. -1: not there. */
	int64_t host_steal_ms;
};

/*
 * ts_exp_parse_summary - the wrapper's --summary-json into @f[0] (uplink)
 * and @f[1] (downlink). kernel_drops counts both ways the kernel lost a
 * queued packet: queue full and netlink socket overrun. Returns 0 or
 * -EINVAL with @err set.
 */
int ts_exp_parse_summary(const char *text, struct ts_exp_fidelity f[2], struct ts_err *err);

/*
 * ts_exp_fell_behind - did the emulator fall behind in this direction, by
 * the one rule (run/fidelity.h: release timing error p99 above 200 us, or
 * any unexplained or kernel drop)? Writes the reason into @why (may be
 * NULL) when it did. An absent direction never fell behind.
 */
bool ts_exp_fell_behind(const struct ts_exp_fidelity *f, struct ts_err *why);

/*
 * ts_exp_host_cpu - did a direction of the run fall behind while the shaper's loop worked
 * TS_LOOP_SATURATED_PERMILLE of one CPU or more in its busiest second (run/fidelity.h)?
 * Then the host's CPU set the pace, not the link, and the executor flags the run `host_cpu`
 * beside its `fell_behind:DIR`.
 */
bool ts_exp_host_cpu(const struct ts_exp_fidelity f[2]);

/*
 * ts_exp_host_steal - did a direction of the run fall behind while the host's hypervisor took
 * its CPUs for TS_EXP_STEAL_MS or more (a stall of that length stops the loop: one scheduler
 * tick of a 100 Hz host)? Then the executor flags the run `host_steal`, whatever else it says.
 */
#define TS_EXP_STEAL_MS 10
bool ts_exp_host_steal(const struct ts_exp_fidelity f[2]);

/* The bytes iperf3's client writes on a new connection before it sets its -C (COOKIE_SIZE). */
#define TS_EXP_IPERF3_COOKIE 37

/* One socket's samples from the wrapper's --sockstats CSV. */
struct ts_exp_sock {
	unsigned port;	     /* the socket's local port */
	unsigned peer;	     /* and its peer's, 0: any */
	int station;	     /* the real Wi-Fi station it is behind (the file's station), -1: any */
	json_object *series; /* {"t","cwnd","rtt_ms","pacing_rate_bps","delivery_rate_bps"} */
	size_t rows;
	size_t evidence; /* rows taken after the socket had sent data (beyond the cookie) */
	char cca[64];	 /* distinct congestion controls of those rows, comma separated */
};

/*
 * ts_exp_parse_sockstats - pick the rows of the sockets whose source port
 * is @socks[i].port (and destination port @socks[i].peer, station
 * @socks[i].station: each station's namespace has ports of its own; a
 * file without the column is station 0's) out of @text (the CSV of record/sockstats_out.h, columns
 * found by the header's names); @t_off is added to its time_s (link time
 * 0 to the run's t0). Each socks[i].series is created (the caller puts
 * it). The file is read by record/sockstats_in.h's reader; a row it refuses
 * (a row cut short by a killed wrapper) is left out. Returns 0, -EINVAL
 * with @err set when the header lacks a column or is malformed, or -ENOMEM.
 */
int ts_exp_parse_sockstats(const char *text, double t_off, struct ts_exp_sock *socks, size_t n,
			   struct ts_err *err);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What one run of a test starts, as Flent's test definitions describe it
 * (names, directions, DSCP marks, timing), turned into the iperf3, ping
 * and irtt command lines that carry it out. Pure: no processes, no clock.
 *
 * Timing as Flent's: the latency probes start at 0 and run
 * length + 2 x delay; the flows start at delay and run length.
 *
 * Marks: Flent's rrul marks its four flows per direction CS0 (BE), CS1
 * (BK), CS5 and EF and sends UDP probes as EF, CS1 and BE. Both iperf3's
 * -S and irtt's --dscp take the whole TOS byte (DSCP << 2; checked on the
 * wire: irtt --dscp=0xb8 sends TOS 184, EF), so marks are kept as DSCP
 * codepoints and given to both tools as TOS bytes.
 */
#ifndef TS_EXEC_EXEC_PLAN_H
#define TS_EXEC_EXEC_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "tasshape/err.h"

#include "plan/run.h"

#define TS_EXP_MAX_FLOWS  16
#define TS_EXP_MAX_PROBES 8
#define TS_EXP_MAX_ARGV	  24
#define TS_EXP_NAME_MAX	  48
#define TS_EXP_IPERF_PORT 5201 /* first iperf3 server port; one server per flow */
#define TS_EXP_IRTT_PORT  2112 /* irtt's default; one server per far-side host */

enum ts_exp_dir { TS_EXP_UP, TS_EXP_DOWN };
enum ts_exp_probe_kind { TS_EXP_ICMP, TS_EXP_UDP };

struct ts_exp_mark {
	const char *name; /* "BE", "BK", "CS5", "EF" */
	unsigned dscp;	  /* codepoint: 0, 8, 40, 46 */
};

struct ts_exp_flow_plan {
	char name[TS_EXP_NAME_MAX]; /* Flent's series name: "TCP upload BK" */
	enum ts_exp_dir dir;
	struct ts_exp_mark mark;
	unsigned server;	    /* index of the far-side host */
	unsigned port;		    /* its iperf3 server's port */
	char file[TS_EXP_NAME_MAX]; /* iperf3 JSON in the run directory */
	unsigned station;	    /* the real Wi-Fi station it runs behind (plan/flowsta.h) */
};

struct ts_exp_probe_plan {
	char name[TS_EXP_NAME_MAX]; /* "Ping (ms) ICMP", "Ping (ms) UDP EF" */
	enum ts_exp_probe_kind kind;
	struct ts_exp_mark mark;
	unsigned server;
	char file[TS_EXP_NAME_MAX]; /* ping text or irtt JSON in the run directory */
};

struct ts_exp_plan {
	size_t nflows;
	struct ts_exp_flow_plan flow[TS_EXP_MAX_FLOWS];
	size_t nprobes;
	struct ts_exp_probe_plan probe[TS_EXP_MAX_PROBES];
	size_t nservers;
	unsigned stations; /* real Wi-Fi stations of the link; probes run behind station 0 */
	ts_ns_t length, delay;
	ts_ns_t step; /* probe and iperf3 interval: Flent's default step, 200 ms */
};

/*
 * ts_exp_plan_build - the flows and probes of @run's test. Returns 0, or
 * -EINVAL with @err naming the test when it is unknown or its stream
 * counts or server count do not fit.
 */
int ts_exp_plan_build(const struct ts_exp_run *run, struct ts_exp_plan *p, struct ts_err *err);

/* One command line: words point into @buf, NULL-terminated. */
struct ts_exp_argv {
	char *argv[TS_EXP_MAX_ARGV];
	char buf[1024];
	size_t used;
};

/*
 * ts_exp_flow_argv - the iperf3 client of flow @f against @host with
 * congestion control @cca (-C sets it on both ends, client and server,
 * for the whole test). ts_exp_probe_argv - the ping or irtt client of
 * probe @pr; irtt writes its JSON to @outpath itself. Return 0 or -E2BIG.
 */
int ts_exp_flow_argv(const struct ts_exp_plan *p, const struct ts_exp_flow_plan *f,
		     const char *host, const char *cca, struct ts_exp_argv *a);
int ts_exp_probe_argv(const struct ts_exp_plan *p, const struct ts_exp_probe_plan *pr,
		      const char *host, const char *outpath, struct ts_exp_argv *a);

/* The seconds a probe runs: length + 2 x delay. */
double ts_exp_probe_seconds(const struct ts_exp_plan *p);

#endif

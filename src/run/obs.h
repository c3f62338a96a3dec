/* SPDX-License-Identifier: MIT */
/*
 * Observability of a shaping run: everything recorded besides the summary
 * (docs/observability.md). The shaper calls in at each packet event and
 * once per loop turn; this module owns the outputs:
 *
 *   pcap_out.c      --pcap-up/--pcap-down (released), --pcap-ingress (arrived),
 *                   --pcap-drops (dropped, with a side CSV of causes)
 *   mmlog.c         --uplink-log/--downlink-log in mahimahi's mm-link format
 *   stats_out.c     --stats: per-window CSV
 *   sockstats_out.c --sockstats: TCP socket statistics (net/sockdiag.c)
 *   progress.c      the live status line on a terminal
 *
 * Which pipe is which, per direction: a packet enters at its first pipe
 * with stages (arrival, ingress capture) and leaves the direction from its
 * last (delivered, release capture). "The link" (mahimahi log, queueing
 * delay) is the pipe with the trace server, else the last one; a packet
 * leaves the link when it enters the delay line (its t_enq at release)
 * or, without a delay line, when it is released.
 *
 * Memory: with a capture on, the headers of every held packet are kept in
 * one array allocated at the start, indexed by descriptor (no allocation
 * per packet).
 */
#ifndef TS_RUN_OBS_H
#define TS_RUN_OBS_H

#include <sched.h>
#include <stdio.h>

#include "net/nfq.h"
#include "link/linkcfg.h"
#include "net/topo.h"
#include "record/mmlog.h"
#include "record/pcap_out.h"
#include "run/status_line.h"
#include "record/stats_out.h"

struct ts_sockdiag;	     /* net/sockdiag.h */
struct ts_sampler;	     /* run/sampler.h */
struct ts_obs_sockrow;	     /* one socket of a taken sample (obs.c) */
struct ts_sockstat;	     /* net/sockdiag.h */
struct ts_sockstats_station; /* record/sockstats_out.h */

/*
 * What the Wi-Fi station knows of a socket, for the --sockstats rows: get
 * fills *@out and returns true for a socket of a flow it tracks (the
 * station's TSQ budget provides one, run/tsq_station.h). Handed in rather
 * than called by name so that obs, which the station calls at its packet
 * events, does not call back into it. NULL get: no station.
 */
struct ts_obs_sockview {
	bool (*get)(const void *ctx, const struct ts_sockstat *st,
		    struct ts_sockstats_station *out);
	const void *ctx;
};

/* What the user asked for (common options of the wrapper and attach). */
struct ts_obs_opts {
	const char *out_dir;	  /* --out DIR: fixed file names in DIR */
	bool out_pcap;		  /* --out-pcap: the captures into DIR too */
	const char *pcap[2];	  /* --pcap-up, --pcap-down: released packets */
	const char *pcap_ingress; /* --pcap-ingress: arrivals, both directions */
	const char *pcap_drops;	  /* --pcap-drops FILE (and FILE.csv) */
	uint32_t snaplen;	  /* --pcap-snaplen (<= TS_NFQ_COPY_RANGE) */
	const char *mmlog[2];	  /* --uplink-log, --downlink-log */
	bool log_drops;		  /* --log-drops: "d" lines in them */
	const char *stats;	  /* --stats */
	ts_ns_t interval;	  /* --interval (stats) */
	const char *sockstats;	  /* --sockstats */
	ts_ns_t sock_interval;	  /* --sockstats-interval */
	int progress;		  /* -1 --no-progress, 0 auto, 1 --progress */
};

void ts_obs_opts_init(struct ts_obs_opts *o);

/* What the run provides. */
struct ts_obs_env {
	const struct ts_linkcfg *link;
	const struct ts_dir *dir[2];
	const struct ts_pool *pool;
	ts_ns_t origin;	     /* model time 0 of the link (CLOCK_MONOTONIC) */
	ts_ns_t duration;    /* --duration, 0: none */
	const char *cmdline; /* the full command line, for the logs */
	int cmd_netns_fd;    /* namespace whose sockets --sockstats samples */
	/* The other real Wi-Fi stations' namespaces (station 1 ..), sampled too. */
	int sta_netns_fd[TS_TOPO_STA_MAX];
	unsigned int nsta;
	struct ts_obs_sockview station; /* for --sockstats */
	bool quiet;			/* --quiet: never a status line */
	bool interactive; /* CMD is an interactive shell: no status line unless --progress */
	/* Where the sampler thread runs (ts_sampler_start); read when it starts, NULL: anywhere. */
	const cpu_set_t *helper_cpus;
};

#define TS_OBS_PATH 4096

struct ts_obs {
	const struct ts_obs_opts *o;
	struct ts_obs_env env;
	int64_t wall_off; /* CLOCK_REALTIME - CLOCK_MONOTONIC at the start, ns */
	const struct ts_pkt *pool_mem;
	size_t pool_cap;
	uint8_t *hdr;	 /* pool_cap * TS_NFQ_COPY_RANGE: headers of held packets */
	uint8_t *hdrlen; /* bytes kept per descriptor */
	bool present[2];
	enum ts_place first[2], last[2], link[2];
	bool link_has_delay[2]; /* the link pipe ends with the delay line */
	bool want_hdr;
	struct ts_pcap_out pcap[2], ingress, drops;
	FILE *drops_csv;
	bool mm_on[2];
	struct ts_mmlog mm[2];
	struct ts_stats stats;
	/* --sockstats: station k's namespace in sd[k], 0 CMD's; nsd 0: not sampled */
	struct ts_sockdiag *sd[1 + TS_TOPO_STA_MAX];
	unsigned int nsd;
	struct ts_sampler *sampler; /* dumps @sd off the loop's thread (run/sampler.h) */
	FILE *sock_f;
	ts_ns_t sock_next; /* when the loop looks for a finished sample next */
	/* The sample taken last, TS_OBS_SOCK_ROWS_PER_TURN of its rows written per turn. */
	struct ts_obs_sockrow *rows; /* TS_OBS_SOCK_MAX */
	size_t nrows, irows;
	double rows_t_s;
	ts_ns_t rows_next; /* the next turn that writes a row, while rows wait */
	uint64_t sock_rows, sock_samples;
	int sock_err;
	char ccas[8][16]; /* congestion controls seen by --sockstats */
	unsigned int nccas;
	struct ts_progress progress;
	int error; /* first write error */
	/* Paths actually written, for the manifest. */
	char path[12][TS_OBS_PATH];
	unsigned int npath;
	int out_fd; /* --out DIR, locked while the run writes it; -1 without --out */
};

/* Paths inside --out DIR. */
#define TS_OUT_SUMMARY	 "summary.json"
#define TS_OUT_MANIFEST	 "manifest.json"
#define TS_OUT_STATS	 "stats.csv"
#define TS_OUT_SOCKSTATS "sockstats.csv"

/* Sockets kept per --sockstats sample: more are counted and reported, not written. */
#define TS_OBS_SOCK_MAX 1024
/*
 * Rows of a taken sample written per loop turn, and the longest a waiting row waits for one.
 * A row is some 30 formatted fields: written all at once, the rows of a sample of 16 sockets
 * held the releases due meanwhile (a virtual-time guest's tcp_8up: downlink release p99 463 us
 * with --sockstats, 150 without; docs/kernels.md, "Who holds the CPU while the loop waits").
 */
#define TS_OBS_SOCK_ROWS_PER_TURN 1
#define TS_OBS_SOCK_ROW_GAP	  (50 * TS_NSEC_PER_USEC)

/*
 * ts_obs_start - open every output @o asks for (creating --out DIR), with
 * model time 0 at env->origin. Returns 1 when something is recorded or
 * shown (the shaper must call in), 0 when nothing is, or a negative errno
 * with @err set (then ts_obs_finish cleans up).
 */
int ts_obs_start(struct ts_obs *ob, const struct ts_obs_opts *o, const struct ts_obs_env *env,
		 struct ts_err *err);

/* A packet the kernel queued at direction @dir, place @place, at @now; @kp has its header. */
void ts_obs_arrival(struct ts_obs *ob, const struct ts_pkt *p, const struct ts_nfq_pkt *kp, int dir,
		    enum ts_place place, ts_ns_t now);

/*
 * Packet @p enters pipe @place of @dir at @t without a new arrival from the
 * kernel (the station's TSQ emulation, run/tsq_station.h, matched it): what an
 * arrival records, except its header, which @p's descriptor already has.
 */
void ts_obs_handover(struct ts_obs *ob, const struct ts_pkt *p, int dir, enum ts_place place,
		     ts_ns_t t);

/* A packet dropped on arrival for want of a descriptor. */
void ts_obs_nodesc(struct ts_obs *ob, const struct ts_nfq_pkt *kp, int dir, enum ts_place place,
		   ts_ns_t now);

/* The model released @p from pipe @place of @dir at model time @t. */
void ts_obs_release(struct ts_obs *ob, const struct ts_pkt *p, int dir, enum ts_place place,
		    ts_ns_t t);

/* The model dropped @p in pipe @place of @dir at @t. */
void ts_obs_drop(struct ts_obs *ob, const struct ts_pkt *p, int dir, enum ts_place place,
		 enum ts_drop_cause cause, ts_ns_t t);

/* Once per loop turn, after the verdicts went out: windows, logs, samples, status line. */
void ts_obs_tick(struct ts_obs *ob, ts_ns_t now);

/* When the loop must wake next for the outputs (TS_NEVER: no need). */
ts_ns_t ts_obs_next_deadline(const struct ts_obs *ob);

/*
 * ts_obs_finish - end of run at @now (after the model dropped what it
 * held): last windows, flush and close everything, erase the status line.
 * Returns 0 or the first negative errno with @err set. Idempotent.
 */
int ts_obs_finish(struct ts_obs *ob, ts_ns_t now, struct ts_err *err);

/* Wall-clock ns since the epoch of model time @t. */
static inline int64_t ts_obs_wall(const struct ts_obs *ob, ts_ns_t t)
{
	return t + ob->wall_off;
}

/*
 * ts_obs_out_path - DIR/NAME of --out into @buf; NULL when there is no
 * --out or the name does not fit.
 */
const char *ts_obs_out_path(const struct ts_obs_opts *o, const char *name, char *buf, size_t len);

#endif

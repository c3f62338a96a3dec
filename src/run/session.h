/* SPDX-License-Identifier: MIT */
/*
 * A shaping session: the namespaces and interfaces the link sits on, the
 * NFQUEUE rules that feed the shaper, the shaper itself and the signal
 * handling, set up and torn down in one place for both ways of using
 * tasshape: the wrapper (a new namespace and veth, ts_session_open) and
 * attach (an existing namespace, ts_session_attach). Whatever the way
 * out (CMD exit, a signal, an error), ts_session_close removes every rule
 * and interface the session made.
 */
#ifndef TS_RUN_SESSION_H
#define TS_RUN_SESSION_H

#include <arpa/inet.h>

#include "net/ipt.h"
#include "net/sockdiag.h"
#include "net/topo.h"
#include "run/guard.h"
#include "run/manifest.h"
#include "run/obs.h"
#include "run/rt.h"
#include "run/shaper.h"

/* Options every shaping command shares. */
struct ts_run_common {
	const char *summary_json; /* --summary-json FILE */
	bool quiet;		  /* --quiet: no summary on stderr */
	ts_ns_t duration;	  /* --duration (attach; 0: until a signal) */
	ts_ns_t linger;		/* --linger: most time the drain may take; -1: ts_linkcfg_linger */
	uint32_t queue_len;	/* --kernel-queue: NFQUEUE max length per hook */
	uint32_t pool;		/* descriptors */
	struct ts_obs_opts obs; /* --out, --pcap-*, --*-log, --stats, --sockstats, progress */
	bool interactive;	/* the wrapper runs an interactive shell: no status line */
	bool force_host;	/* attach --force: the host's own namespace may be shaped */
	/*
	 * The wrapper runs in a user namespace of its own (net/userns.h): the
	 * outer namespace is private, so no leftover sweep, no guard, no
	 * names under /run/netns, no ip_forward marker (docs/rootless.md).
	 */
	bool rootless;
	/*
	 * Rootless, and the outer namespace leads further (--outside pasta, or
	 * a nested run's, which is its parent run's CMD namespace): it forwards
	 * and masquerades the run's block.
	 */
	bool outside;
	int argc; /* the full command line, for logs and the manifest */
	char **argv;
};

void ts_run_common_init(struct ts_run_common *c);

/*
 * Conservation check mode (docs/reliability.md): with TASSHAPE_CHECK set
 * (and not "0") in the environment, the shaper checks after every turn
 * that every counter adds up (ts_shaper_check) and that no packet is held
 * after the end, and a run that breaks it fails with the count that
 * disagrees. The integration tests run with it.
 */
#define TS_CHECK_ENV "TASSHAPE_CHECK"
bool ts_conservation_wanted(void);

struct ts_session {
	struct ts_run_common *common;
	struct ts_linkcfg *link;
	bool have_topo; /* wrapper: we made the namespace and veth */
	struct ts_topo topo;
	int hook_fd[TS_H__COUNT]; /* namespace each hook's queue and rule live in (not owned) */
	struct ts_netns attached, peer;
	char hook_dev[TS_H__COUNT][TS_TOPO_IFNAMSIZ]; /* interface each hook's rule matches */
	struct ts_ipt rules;			      /* the NFQUEUE rules */
	int sigfd;
	sigset_t oldmask;
	bool shaper_up;
	struct ts_shaper shaper;
	char base[INET_ADDRSTRLEN], base6[INET6_ADDRSTRLEN];
	bool ran;
	int stop; /* enum ts_stop of the run */
	struct ts_obs obs;
	char cmdline[4096];
	struct ts_manifest manifest; /* path NULL: no --out */
	/* For the drain: each station's namespace's sockets (0: CMD's; NULL: not counted). */
	struct ts_sockdiag *drain_sd[1 + TS_TOPO_STA_MAX];
	struct ts_guard guard;	  /* removes what the run made if tasshape dies (run/guard.h) */
	struct ts_rt rt;	  /* the loop's real-time scheduling (run/rt.h), for the run only */
	bool napi_deferred[2];	  /* [TS_UP/TS_DOWN]: deliveries in a NAPI thread (net/topo.h) */
	uint64_t ring_dropped[2]; /* lost at its full NAPI ring */
	char manifest_path[TS_OBS_PATH], summary_path[TS_OBS_PATH];
	bool have_host0;	 /* real time: /proc/stat when the shaper started */
	struct ts_cpustat host0; /* for the run's steal time (run/cpustat.h) */
};

/* The Wi-Fi hop's real stations (--mac wifi6:...,real=N): N, or 1 without a Wi-Fi hop. */
unsigned int ts_session_stations(const struct ts_linkcfg *link);

/*
 * ts_session_open - the wrapper's session: check privileges and tools,
 * block the terminating signals, create the namespace, veth, addresses,
 * routes, forwarding and NAT, open one NFQUEUE per place that has stages
 * and install its rule. Returns 0 or a negative errno with @err set;
 * on error nothing is left behind.
 */
int ts_session_open(struct ts_session *s, struct ts_linkcfg *link, struct ts_run_common *common,
		    struct ts_err *err);

/*
 * ts_session_attach - shape the link of an existing namespace @netns,
 * whose interface @dev (NULL: its only non-loopback interface) is one end
 * of a veth whose other end is in namespace @peer_netns (NULL: the
 * caller's). Same contract as ts_session_open.
 */
int ts_session_attach(struct ts_session *s, struct ts_linkcfg *link, struct ts_run_common *common,
		      const char *netns, const char *dev, const char *peer_netns,
		      struct ts_err *err);

/*
 * Run the shaper until @child exits (0: until a signal or --duration).
 * With a child (the wrapper), the link then drains: it keeps shaping until
 * it holds nothing and no TCP socket of the inner namespace is left
 * outside TIME_WAIT and CLOSE, for at most --linger.
 */
int ts_session_run(struct ts_session *s, pid_t child, struct ts_err *err);

/*
 * ts_session_close - end of the run: drop what the model still holds
 * (counted), remove the rules, close the queues, remove the namespace and
 * veth if the session made them, print the summary (unless quiet) and
 * write the JSON one. Returns 0 or the first negative errno with @err set
 * (@err may be NULL); it always tries every step.
 */
int ts_session_close(struct ts_session *s, struct ts_err *err);

#endif

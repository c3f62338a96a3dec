/* SPDX-License-Identifier: MIT */
/*
 * The Wi-Fi station's TCP Small Queues budget on a stock kernel
 * (docs/wifi6-model.md, "TCP Small Queues and the pacing shift"; the
 * arithmetic is include/tasshape/tsq.h).
 *
 * The station's queue (the uplink sender pipe) is held where the kernel
 * charges it to the socket, so the kernel throttles a socket at its own
 * shift-10 limit. To give it the limit of shift S:
 *
 *  - unpaced controls (CUBIC, Reno): the station namespace's
 *    tcp_pacing_ss_ratio / tcp_pacing_ca_ratio are scaled by 2^(10 - S)
 *    while the run lasts, which gives exactly shift S's TSQ limit and TSO
 *    autosizing (the ss ratio stops at the sysctl's maximum, 1000; the
 *    rest is made up as below);
 *  - paced controls (BBR), and what the ratios could not reach: the
 *    oldest packets of each flow's station queue, up to the difference of
 *    the two limits, are released across the veth early (uncharged) while
 *    the MAC still counts them as queued; the link side matches each one
 *    when the kernel queues it at the uplink network hook and holds it
 *    there until the MAC has sent the A-MPDU it belongs to.
 *
 * Each flow's pacing rate, cwnd, MSS and BBR gains are read from the
 * kernel through sock_diag (net/sockdiag.h) every TS_TSQST_POLL_NS while
 * the station holds packets, by a thread off the loop (a read waits for
 * the socket's lock), and applied after a turn's verdicts went out. With pacing_shift=kernel nothing is changed
 * and the flows are only observed (the same statistics, the kernel's own
 * budget).
 *
 * The shaper calls in at each packet event and once per loop turn; every
 * packet still gets exactly one verdict per hook.
 */
#ifndef TS_RUN_TSQ_STATION_H
#define TS_RUN_TSQ_STATION_H

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>

#include "net/nfq.h"
#include "link/linkcfg.h"
#include "tasshape/drop.h"
#include "tasshape/pkt.h"

#define TS_TSQST_POLL_NS (1 * TS_NSEC_PER_MSEC)
#define TS_TSQST_FLOWS	 64    /* flows tracked per run; more are left to the kernel, counted */
#define TS_TSQST_RING	 16384 /* packets released early and not yet seen on the link side */
#define TS_TSQST_LOST_NS (50 * TS_NSEC_PER_MSEC) /* one not seen by then is given up (counted) */
/*
 * Early releases per loop turn. A verdict sends its packets through the
 * veth into the receiving CPU's backlog, which drops beyond
 * net.core.netdev_max_backlog (1000): with the MAC's own A-MPDUs (at most
 * 256) a turn stays well below it. The rest goes TS_TSQST_BURST_GAP later.
 */
#define TS_TSQST_BURST	   128
#define TS_TSQST_BURST_GAP (20 * TS_NSEC_PER_USEC)

struct ts_shaper;
struct ts_tsqst;
struct ts_sockstat;

/*
 * True when @cfg's station releases packets early (a Wi-Fi hop and a
 * pacing_shift other than kernel): the uplink network hook is then needed
 * even without network stages.
 */
bool ts_tsqst_wanted(const struct ts_linkcfg *cfg);

/*
 * ts_tsqst_start - begin for shaper @sh whose station namespace is @station_fd:
 * open the sock_diag socket there and, unless pacing_shift=kernel, scale
 * its pacing ratios. The sockets are read by a thread that runs on
 * *@helper_cpus when they are read at its start (NULL or empty: the
 * loop's CPUs), which must outlive the run. *@out is NULL (and 0
 * returned) when the run has no Wi-Fi station. Returns 0 or a negative
 * errno with @err set.
 */
int ts_tsqst_start(struct ts_tsqst **out, struct ts_shaper *sh, int station_fd,
		   const cpu_set_t *helper_cpus, struct ts_err *err);

/*
 * The shaper's packet events. ts_tsqst_packet: the kernel queued @p (@kp)
 * at hook @hook; returns true when the packet was one released early and
 * has been taken over (the caller does nothing more with @p). The
 * release and drop hooks return true when they handled the verdict.
 */
bool ts_tsqst_packet(struct ts_tsqst *t, int hook, struct ts_pkt *p, const struct ts_nfq_pkt *kp);
bool ts_tsqst_release(struct ts_tsqst *t, struct ts_pkt *p, ts_ns_t when);
bool ts_tsqst_drop(struct ts_tsqst *t, struct ts_pkt *p, enum ts_drop_cause cause, ts_ns_t when);

/*
 * For the shaper's conservation check: packets in a pipe whose verdict
 * already went out (released early, not yet queued again at the network
 * hook) are taken off *@verdicts; descriptors outside every pipe (sent or
 * dropped by the model before the network hook saw them) are added to
 * *@held_out.
 */
void ts_tsqst_in_transit(const struct ts_tsqst *t, uint64_t *verdicts, uint64_t *held_out);

/* Once per loop turn, before the verdicts go out: release early within the budgets. */
void ts_tsqst_tick(struct ts_tsqst *t, ts_ns_t now);

/*
 * ts_tsqst_sample - update the budgets of the flows with packets at the
 * station from their sockets (pacing rates, cwnd, BBR gains) as read by
 * the thread, and ask it for the next reads, at most every
 * TS_TSQST_POLL_NS (tsq_station_poll.c). Never blocks. The shaper calls it
 * after a turn's verdicts went out. Returns true when new reads were
 * applied (the caller then runs ts_tsqst_tick again, so that new budgets
 * act in the same turn).
 */
bool ts_tsqst_sample(struct ts_tsqst *t, ts_ns_t now);

/* When the loop must turn again for early releases a turn's burst left over; TS_NEVER: none. */
ts_ns_t ts_tsqst_next_deadline(const struct ts_tsqst *t);

/*
 * The station's view of a socket for the socket-statistics series: the
 * pacing rate its budget uses (bytes/s), the shift in force, and whether
 * it is emulated, in *@out. @station is the run's struct ts_tsqst, or
 * NULL; untyped, as struct ts_obs_sockview's get (run/obs.h) takes it.
 * Returns false when the socket is not a tracked flow (or @station is
 * NULL).
 */
struct ts_sockstats_station;
bool ts_tsqst_sock_view(const void *station, const struct ts_sockstat *st,
			struct ts_sockstats_station *out);

/*
 * Summary lines, and the members "tsq" and "flows" of the station's wifi6
 * JSON record (*@nomem set when an allocation failed). NULL @t: nothing.
 */
void ts_tsqst_print(FILE *f, const struct ts_tsqst *t, ts_ns_t origin);
struct json_object;
void ts_tsqst_json(struct json_object *wifi6, const struct ts_tsqst *t, ts_ns_t origin,
		   bool *nomem);

/* Restore the namespace's sysctls and free; NULL is fine. */
void ts_tsqst_stop(struct ts_tsqst *t);

/*
 * ts_tsqst_add_station - with real Wi-Fi stations (wifi6 real=), follow
 * station @k's flows too: open a sock_diag socket in its namespace
 * @netns_fd and, unless pacing_shift=kernel, give it the pacing ratios
 * (and limit) applied to station 0's (its namespace is new, as station
 * 0's: nothing to restore). Its paced flows then get their uncharged part
 * as station 0's do. Nothing to do for station 0 (ts_tsqst_start). Returns
 * 0 or a negative errno with @err set.
 */
int ts_tsqst_add_station(struct ts_tsqst *t, unsigned int k, int netns_fd, struct ts_err *err);

/* The real Wi-Fi station whose sender hook @hook is (run/shaper.h), or -1 for another hook. */
int ts_tsqst_station_of_hook(int hook);

/*
 * ts_tsqst_lever_station - with real Wi-Fi stations (wifi6 real=) when the
 * station's queue is not at its sender hook (no ts_tsqst runs), the part
 * of the station's TSQ budget that holds for unpaced controls: the pacing
 * ratios of the station's namespace @netns_fd (new, so from the kernel's
 * defaults, and removed with the run: nothing to restore) scaled to the
 * pacing_shift. Paced controls (BBR) keep the kernel's budget. Does
 * nothing under pacing_shift=kernel. Returns 0 or a negative errno with
 * @err set.
 */
int ts_tsqst_lever_station(const struct ts_linkcfg *cfg, int netns_fd, struct ts_err *err);

#endif

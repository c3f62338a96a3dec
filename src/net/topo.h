/* SPDX-License-Identifier: MIT */
/*
 * The emulated host's topology: three network namespaces in a line. The
 * caller's ("outer") reaches a "link" namespace that only forwards, which
 * reaches a fresh "inner" namespace where CMD runs:
 *
 *   outer [veth_out] <==> [veth_lu] link [veth_ld] <==> [veth_in] inner
 *
 * with IPv4 and IPv6 addresses and routes, optional forwarding and NAT in
 * the outer namespace, and the NFQUEUE rules of the data path (see
 * docs/datapath.md):
 *
 *   inner: mangle POSTROUTING -o veth_in -> uplink sender stages
 *   link:  mangle PREROUTING  -i veth_ld -> uplink network stages
 *   link:  mangle PREROUTING  -i veth_lu -> downlink network stages
 *
 * Why the link namespace: a packet held by NFQUEUE at the PREROUTING of
 * the namespace it is delivered to already carries its receive timestamp,
 * taken when the veth handed it over, so applications reading kernel
 * receive timestamps (SO_TIMESTAMP: ping, irtt) would not see the
 * emulated delay. Held in the link namespace, the packet is forwarded
 * afterwards and crosses one more veth into its destination namespace;
 * that cross-namespace transmit scrubs the skb (skb_scrub_packet), so the
 * timestamp is taken again after the hold. And the link namespace is
 * exactly a router: packets held there are charged to no socket, unlike
 * those of the sender stages (inner POSTROUTING, before the veth), which
 * TCP Small Queues still sees. POSTROUTING rather than OUTPUT so the
 * sender stages also see what the inner namespace forwards for an
 * instance nested inside it.
 *
 * Names carry the owner's pid so `tasshape cleanup` can find what a dead
 * run left behind: namespaces /run/netns/tas-<pid>-<n> (inner) and
 * tas-<pid>-<n>-link, links tas<pid>-<n>o (outer), tas<pid>-<n>u (link,
 * facing outer), tas<pid>-<n>d (link, facing inner), tas<pid>-<n>i
 * (inner), iptables comment "tas:<pid>". A pid has at most 7 digits, so
 * with n < 1000 a link name fits the kernel's 15 characters.
 *
 * Addresses: one /29 block from 100.64.0.0/10 (or 198.18.0.0/15 when that
 * range is taken), split into two /30s. The first, subnet B, joins outer
 * and link: outer .1, link .2. The second, subnet A, joins link and
 * inner: link .5, inner .6 (.1 and .2 of its /30). IPv6: each /30 N gets
 * the /64 fd74:6173:AABB:CCDD::/64 where AABBCCDD is N ("ta" "s" in the
 * ULA global ID), hosts ::1 and ::2 as in IPv4; both /64s lie in the /61
 * that the /29 maps to. Routes: inner default via A's link end, link
 * default via the outer address, outer to subnet A via B's link end (so
 * the outer side reaches servers inside too).
 *
 * The block is chosen from a pid-derived start, skipping any that
 * overlap an address or main-table route of the outer namespace, so
 * parallel instances do not collide. An instance nested inside another's
 * inner namespace sees the parent's subnet A there; as A and B are halves
 * of one aligned /29 (and /61), avoiding A avoids the parent's B too.
 */
#ifndef TS_NET_TOPO_H
#define TS_NET_TOPO_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "net/ipt.h"
#include "net/netns.h"
#include "tasshape/err.h"

#define TS_TOPO_IFNAMSIZ 16 /* IFNAMSIZ, without pulling in <net/if.h> */

/*
 * ts_topo_create flags. The forwarding sysctls are namespace-wide: IPv4's
 * is put back after the last run from the namespace ends (net/fwd.h, by
 * the session, its guard or the next sweep), IPv6's is not restored. The
 * link namespace always forwards (it is ours); these are about the outer
 * namespace, for traffic to and from other links.
 */
#define TS_TOPO_FWD_V4 (1u << 0) /* net.ipv4.ip_forward=1 in the outer namespace */
/*
 * net.ipv6.conf.all.forwarding=1 in the outer namespace. Note: on a host
 * that learns its IPv6 default route from router advertisements
 * (accept_ra=1), enabling forwarding stops accepting them; leave this off
 * there unless the interfaces use accept_ra=2.
 */
#define TS_TOPO_FWD_V6 (1u << 1)
/* MASQUERADE the /29 (subnets A and B) in the outer namespace when leaving by other links */
#define TS_TOPO_NAT_V4 (1u << 2)
#define TS_TOPO_NAT_V6 (1u << 3) /* same for the /61 (ip6tables nat) */
/*
 * The outer namespace is the run's own (a rootless run, net/userns.h):
 * its lo is brought up, and the inner and link namespaces are not pinned
 * under /run/netns (ts_netns_create_anon), so they go with the run; with
 * TS_TOPO_FWD_V4, ip_forward is written there without a marker (nothing
 * to restore). The inner namespace's net.ipv4.ping_group_range is "0 0":
 * the group 0 of the run's user namespace (the user's) may open ICMP echo
 * sockets, so ping works for a CMD without capabilities.
 */
#define TS_TOPO_PRIVATE (1u << 4)

/* Where an NFQUEUE rule hooks the data path. */
enum ts_topo_hook {
	TS_HOOK_UP_SENDER,    /* inner mangle POSTROUTING -o veth_in */
	TS_HOOK_UP_NETWORK,   /* link mangle PREROUTING -i veth_ld */
	TS_HOOK_DOWN_NETWORK, /* link mangle PREROUTING -i veth_lu */
};

/*
 * Wi-Fi stations beside the inner one (--mac wifi6:...,real=N, topo_sta.c):
 * station k (1 .. N-1) is namespace tas-<pid>-<n>-s<k> with one veth to
 * the link namespace (the AP), in a /30 of its own: the second /30 of a
 * /29 picked as the run's is (link end .1, station .2; IPv6 ::1 and ::2
 * of its /64). The first /30 of that /29 stays unused, so the block is
 * found and avoided by the same rule as the run's.
 */
#define TS_TOPO_STA_MAX 7

struct ts_topo_sta {
	struct ts_netns ns;
	char veth_l[TS_TOPO_IFNAMSIZ]; /* in the link namespace */
	char veth_s[TS_TOPO_IFNAMSIZ]; /* in the station's */
	int ifindex_l, ifindex_s;
	struct in_addr v4_net, v4_l, v4_s; /* its /29; link end, station end */
	struct in6_addr v6_net, v6_l, v6_s;
	char v4_block[INET_ADDRSTRLEN + 4], v6_block[INET6_ADDRSTRLEN + 5]; /* for NAT */
};

struct ts_topo {
	pid_t owner;
	unsigned int index; /* the <n> in the names */
	int outer_fd;	    /* the namespace ts_topo_create was called in */
	struct ts_netns inner;
	struct ts_netns link; /* forwarding only; holds the network stages */
	/* outer end, link end facing outer, link end facing inner, inner end */
	char veth_out[TS_TOPO_IFNAMSIZ], veth_lu[TS_TOPO_IFNAMSIZ];
	char veth_ld[TS_TOPO_IFNAMSIZ], veth_in[TS_TOPO_IFNAMSIZ];
	int ifindex_out, ifindex_lu, ifindex_ld, ifindex_in; /* each in its own namespace */
	bool veth_made;					     /* veth_out exists */
	bool v6;			      /* false when the kernel has IPv6 disabled */
	bool private_outer;		      /* TS_TOPO_PRIVATE */
	struct in_addr v4_net;		      /* the /29 block: subnet B, then subnet A */
	struct in_addr v4_out, v4_lu;	      /* subnet B: outer .1 (TASSHAPE_BASE), link .2 */
	struct in_addr v4_ld, v4_in;	      /* subnet A: link .5, inner .6 */
	unsigned int v4_plen;		      /* of subnets A and B: 30 */
	struct in6_addr v6_net;		      /* the /61 block, also subnet B's /64 */
	struct in6_addr v6_out, v6_lu;	      /* subnet B's /64: outer ::1, link ::2 */
	struct in6_addr v6_ld, v6_in;	      /* subnet A's /64: link ::1, inner ::2 */
	unsigned int v6_plen;		      /* of subnets A and B: 64 */
	char v4_subnet[INET_ADDRSTRLEN + 4];  /* the block, "100.64.12.0/29", for rules */
	char v6_subnet[INET6_ADDRSTRLEN + 5]; /* the block, "fd74:6173:6440:c00::/61" */
	struct ts_ipt rules;		      /* every rule installed for this topology */
	unsigned int nsta;		      /* extra stations made (ts_topo_add_stations) */
	struct ts_topo_sta sta[TS_TOPO_STA_MAX];
	unsigned int flags; /* what ts_topo_create was asked for (TS_TOPO_*) */
};

/*
 * ts_topo_create - build the topology from the calling thread's namespace
 * (which becomes "outer"): inner and link namespaces, two veth pairs (each
 * end created in its namespace), accept_dad=0 on all four ends, forwarding
 * on and rp_filter off in the link namespace, addresses, links up (and lo
 * in the inner and link namespaces), the routes described above, then
 * what @flags asks (TS_TOPO_*). The calling thread stays in the outer
 * namespace. Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN).
 * Returns 0 with @t filled, or a negative errno with @err set, in which
 * case everything created so far has been removed and @t is safe to pass
 * to ts_topo_destroy (which does nothing more).
 */
int ts_topo_create(struct ts_topo *t, unsigned int flags, struct ts_err *err);

/*
 * ts_topo_add_stations - after ts_topo_create, @n more station namespaces
 * (1 .. TS_TOPO_STA_MAX), each with its veth to the link namespace, its
 * address, a default route via the link end, the outer namespace's route
 * to it, and NAT as ts_topo_create was asked. On error what was made is
 * removed by ts_topo_destroy. Returns 0 or a negative errno with @err set.
 */
int ts_topo_add_stations(struct ts_topo *t, unsigned int n, struct ts_err *err);

/*
 * ts_topo_queue - install the NFQUEUE rule for @hook with queue @qnum,
 * for IPv4 and (if t->v6) IPv6; @qflags takes TS_IPT_BYPASS. The rules
 * are remembered in t->rules and removed by ts_topo_destroy. Queue
 * numbers are per namespace: UP_NETWORK and DOWN_NETWORK both live in the
 * link namespace (t->link.fd), so their queues must differ; UP_SENDER's
 * lives in the inner one (t->inner.fd).
 * Returns 0 or a negative errno with @err set (a rule already added for
 * the other family stays remembered).
 */
int ts_topo_queue(struct ts_topo *t, enum ts_topo_hook hook, unsigned int qnum, unsigned int qflags,
		  struct ts_err *err);

/*
 * ts_topo_run_inner - call @fn(@arg) with the calling thread in the inner
 * namespace, then return to where it was. Returns as ts_netns_run.
 */
int ts_topo_run_inner(const struct ts_topo *t, int (*fn)(void *arg), void *arg, struct ts_err *err);

/*
 * ts_topo_steer_rx - Receive Packet Steering of the two ends that deliver
 * released packets to their receivers (veth_in for the downlink, veth_out
 * for the uplink) to the CPUs in @mask (ts_netdev_rps_cpus): their backlog,
 * the receiver's TCP and its wake-up then run there, not in the verdict
 * call of the shaper's CPU (run/cpupin.h says why). Both ends or neither:
 * when the inner end fails, the outer one is set back to "0". Returns 0 or
 * a negative errno with @err set (the first end that failed; the run can go
 * on), -ENOTRECOVERABLE when the thread could not come back to its
 * namespace (the caller must not go on).
 */
int ts_topo_steer_rx(const struct ts_topo *t, const char *mask, struct ts_err *err);

/*
 * ts_topo_defer_rx - one direction's deliveries in a kernel thread: the
 * receiving end (veth_in for the downlink, veth_out for the uplink, @up)
 * gets NAPI (GRO on) run by its own thread (threaded NAPI), the sending
 * end (veth_ld, veth_lu) loses TSO (a veth hands its peer's NAPI only what
 * GRO could merge, which with TSO on excludes TCP; a GSO unit is then cut
 * into packets there and put back together by the receiving end's GRO). A
 * verdict at that direction's network hook then only puts the packet in
 * the receiving end's ring and wakes the thread; the receiver's work runs
 * when the thread does, not in the verdict call, and the packets released
 * before it runs reach GRO in one poll (one ACK for a merged burst).
 * Linux 5.13 or later (veth NAPI without XDP, threaded NAPI). Returns 0,
 * or a negative errno with @err set at the first step that failed (what
 * was done stays: the veths go with the run), -ENOTRECOVERABLE as
 * ts_netns_run.
 */
int ts_topo_defer_rx(const struct ts_topo *t, bool up, struct ts_err *err);

/*
 * ts_topo_rx_dropped - packets of one direction (@up as ts_topo_defer_rx)
 * that the sending end could not hand to the receiving end: its NAPI ring
 * (256 packets) was full. Returns 0 with *@drops set, or a negative errno
 * with @err set.
 */
int ts_topo_rx_dropped(const struct ts_topo *t, bool up, uint64_t *drops, struct ts_err *err);

/*
 * ts_topo_destroy - remove the rules (newest first), both veth pairs
 * (the outer route goes with veth_out), the link and inner namespaces,
 * and close the fds. Processes still running in the inner namespace keep
 * it alive until they exit, but its link and the names are gone.
 * Idempotent. Returns 0 or the first negative errno (it always tries
 * everything) with @err set.
 */
int ts_topo_destroy(struct ts_topo *t, struct ts_err *err);

/* Leftover removal, for `tasshape cleanup` (topo_cleanup.c). */
struct ts_cleanup_opts {
	bool force;	   /* also remove objects whose owner pid is alive */
	pid_t only_pid;	   /* > 0: only objects of this owner pid (and of @pids) */
	const pid_t *pids; /* with only_pid: objects of these owners go too */
	size_t npids;
	/*
	 * Only namespaces of runs started from the calling thread's namespace
	 * (their outer link tas<pid>-<n>o is there): what a start sweeps, so
	 * that it never reaches into runs started elsewhere.
	 */
	bool local;
	/* Optional: told one line per object removed or kept. */
	void (*note)(void *arg, const char *line);
	void *note_arg;
};

struct ts_cleanup_stats {
	unsigned int procs;		  /* processes killed in the namespaces removed */
	unsigned int rules, links, netns; /* removed */
	unsigned int kept;		  /* skipped: owner alive */
};

/*
 * ts_topo_cleanup - remove leftovers in the calling thread's namespace
 * and /run/netns: first SIGKILL every process still running in a
 * namespace about to be removed (CMD and what it started, which would
 * otherwise keep the namespace alive and running), then iptables and ip6tables rules (all tables) whose comment
 * is "tas:<pid>", links named tas<pid>-<n>o/u/d/i (the outer route goes
 * with its link), namespaces /run/netns/tas-<pid>-<n> and
 * tas-<pid>-<n>-link; only those whose owner pid is not running, unless
 * @o->force. A missing iptables tool is not an error (there can be no
 * rules then). Namespaces nested in other namespaces are freed with
 * their parent. @st (may be NULL) receives counts. Keeps going after a
 * failure; returns 0 or the first negative errno with @err set.
 */
int ts_topo_cleanup(const struct ts_cleanup_opts *o, struct ts_cleanup_stats *st,
		    struct ts_err *err);

/*
 * ts_topo_link_pid - if @name is a link name this module makes
 * ("tas<pid>-<n>" then 'o', 'u', 'd' or 'i'), store the pid and return 0;
 * else -EINVAL.
 */
int ts_topo_link_pid(const char *name, pid_t *pid);

/*
 * ts_topo_netns_pid - if @name is a namespace name this module makes
 * ("tas-<pid>-<n>" or "tas-<pid>-<n>-link"), store the pid and return 0;
 * else -EINVAL.
 */
int ts_topo_netns_pid(const char *name, pid_t *pid);

#endif

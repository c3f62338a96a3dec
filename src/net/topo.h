/* SPDX-License-Identifier: MIT */
/*
 * The emulated host's topology: a fresh network namespace ("inner", where
 * CMD runs) joined to the caller's namespace ("outer") by a veth pair,
 * with IPv4 and IPv6 addresses, default routes, optional forwarding and
 * NAT, and the NFQUEUE rules of the data path (see ARCHITECTURE.md,
 * "The data path"):
 *
 *   inner: mangle OUTPUT     -o veth_in  -> uplink sender stages
 *   outer: mangle PREROUTING -i veth_out -> uplink network stages
 *   inner: mangle PREROUTING -i veth_in  -> downlink network stages
 *
 * Names carry the owner's pid so `tasshape cleanup` can find what a dead
 * run left behind: namespace /run/netns/tas-<pid>-<n>, links
 * tas<pid>-<n>o (outer) and tas<pid>-<n>i (inner), iptables comment
 * "tas:<pid>". A pid has at most 7 digits, so with n < 1000 a link name
 * fits the kernel's 15 characters.
 *
 * Addresses: a /30 from 100.64.0.0/10 (or 198.18.0.0/15 when that range is
 * taken), outer .1, inner .2; IPv6 a /64 fd74:6173:AABB:CCDD::/64 where
 * AABBCCDD is the IPv4 /30 network address ("ta" "s" in the ULA global
 * ID), outer ::1, inner ::2. The /30 is chosen from a pid-derived start,
 * skipping any that overlap an address or main-table route of the outer
 * namespace, so parallel instances and instances nested inside another
 * instance's inner namespace do not collide.
 */
#ifndef TS_NET_TOPO_H
#define TS_NET_TOPO_H

#include <netinet/in.h>
#include <stdbool.h>
#include <sys/types.h>

#include "net/ipt.h"
#include "net/netns.h"
#include "tasshape/err.h"

#define TS_TOPO_IFNAMSIZ 16 /* IFNAMSIZ, without pulling in <net/if.h> */

/*
 * ts_topo_create flags. The forwarding sysctls are namespace-wide and are
 * not restored by ts_topo_destroy: a parallel instance may rely on them.
 */
#define TS_TOPO_FWD_V4 (1u << 0) /* net.ipv4.ip_forward=1 in the outer namespace */
/*
 * net.ipv6.conf.all.forwarding=1 in the outer namespace. Note: on a host
 * that learns its IPv6 default route from router advertisements
 * (accept_ra=1), enabling forwarding stops accepting them; leave this off
 * there unless the interfaces use accept_ra=2.
 */
#define TS_TOPO_FWD_V6 (1u << 1)
#define TS_TOPO_NAT_V4 (1u << 2) /* MASQUERADE the inner /30 leaving by other links */
#define TS_TOPO_NAT_V6 (1u << 3) /* same for the inner /64 (ip6tables nat) */

/* Where an NFQUEUE rule hooks the data path. */
enum ts_topo_hook {
	TS_HOOK_UP_SENDER,    /* inner mangle OUTPUT -o veth_in */
	TS_HOOK_UP_NETWORK,   /* outer mangle PREROUTING -i veth_out */
	TS_HOOK_DOWN_NETWORK, /* inner mangle PREROUTING -i veth_in */
};

struct ts_topo {
	pid_t owner;
	unsigned int index; /* the <n> in the names */
	int outer_fd;	    /* the namespace ts_topo_create was called in */
	struct ts_netns inner;
	char veth_out[TS_TOPO_IFNAMSIZ], veth_in[TS_TOPO_IFNAMSIZ];
	int ifindex_out, ifindex_in; /* each in its own namespace */
	bool veth_made;
	bool v6; /* false when the kernel has IPv6 disabled */
	struct in_addr v4_net, v4_out, v4_in;
	unsigned int v4_plen;
	struct in6_addr v6_net, v6_out, v6_in;
	unsigned int v6_plen;
	char v4_subnet[INET_ADDRSTRLEN + 4];  /* "100.64.12.4/30", for rules */
	char v6_subnet[INET6_ADDRSTRLEN + 5]; /* "fd74:6173:6440:c04::/64" */
	struct ts_ipt rules;		      /* every rule installed for this topology */
};

/*
 * ts_topo_create - build the topology from the calling thread's namespace
 * (which becomes "outer"): inner namespace, veth pair (inner end created
 * inside it), accept_dad=0 on both ends, addresses, links up (and lo in
 * the inner namespace), inner default routes via the outer addresses,
 * then what @flags asks (TS_TOPO_*). The calling thread stays in the
 * outer namespace. Needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN).
 * Returns 0 with @t filled, or a negative errno with @err set, in which
 * case everything created so far has been removed and @t is safe to pass
 * to ts_topo_destroy (which does nothing more).
 */
int ts_topo_create(struct ts_topo *t, unsigned int flags, struct ts_err *err);

/*
 * ts_topo_queue - install the NFQUEUE rule for @hook with queue @qnum,
 * for IPv4 and (if t->v6) IPv6; @qflags takes TS_IPT_BYPASS. The rules
 * are remembered in t->rules and removed by ts_topo_destroy. Queue
 * numbers are per namespace: UP_NETWORK's queue lives in the outer
 * namespace, shared with parallel instances, so pick it unique there.
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
 * ts_topo_destroy - remove the rules (newest first), the veth pair and
 * the inner namespace, and close the fds. Processes still running in the
 * inner namespace keep it (and its end of the link) alive until they
 * exit, but the outer end and the name are gone. Idempotent. Returns 0
 * or the first negative errno (it always tries everything) with @err set.
 */
int ts_topo_destroy(struct ts_topo *t, struct ts_err *err);

/* Leftover removal, for `tasshape cleanup` (topo_cleanup.c). */
struct ts_cleanup_opts {
	bool force;	/* also remove objects whose owner pid is alive */
	pid_t only_pid; /* > 0: only objects of this owner pid */
	/* Optional: told one line per object removed or kept. */
	void (*note)(void *arg, const char *line);
	void *note_arg;
};

struct ts_cleanup_stats {
	unsigned int rules, links, netns; /* removed */
	unsigned int kept;		  /* skipped: owner alive */
};

/*
 * ts_topo_cleanup - remove leftovers in the calling thread's namespace
 * and /run/netns: iptables and ip6tables rules (all tables) whose comment
 * is "tas:<pid>", links named tas<pid>-<n>i/o, namespaces
 * /run/netns/tas-<pid>-<n>; only those whose owner pid is not running,
 * unless @o->force. A missing iptables tool is not an error (there can be
 * no rules then). Namespaces nested in other namespaces are freed with
 * their parent. @st (may be NULL) receives counts. Keeps going after a
 * failure; returns 0 or the first negative errno with @err set.
 */
int ts_topo_cleanup(const struct ts_cleanup_opts *o, struct ts_cleanup_stats *st,
		    struct ts_err *err);

/*
 * ts_topo_link_pid - if @name is a link name this module makes
 * ("tas<pid>-<n>i" or "...o"), store the pid and return 0; else -EINVAL.
 */
int ts_topo_link_pid(const char *name, pid_t *pid);

/*
 * ts_topo_netns_pid - if @name is a namespace name this module makes
 * ("tas-<pid>-<n>"), store the pid and return 0; else -EINVAL.
 */
int ts_topo_netns_pid(const char *name, pid_t *pid);

#endif

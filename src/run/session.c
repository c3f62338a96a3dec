/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/fwd.h"
#include "net/rtnl.h"
#include "run/awake.h"
#include "run/child.h"
#include "io/clock.h"
#include "run/cpupin.h"
#include "run/napi.h"
#include "run/session.h"
#include "tasshape/units.h"
#include "io/outfile.h"

/* Queue numbers: a pid-derived start keeps parallel shapers apart; binding settles ties. */
#define QBASE(pid) ((uint16_t)(1000 + ((unsigned int)(pid) % 60000u)))

static void keep_first(int *ret, int r, struct ts_err *err, const struct ts_err *e)
{
	if (r < 0 && !*ret) {
		*ret = r;
		if (err && e)
			*err = *e;
	}
}

bool ts_conservation_wanted(void)
{
	const char *v = getenv(TS_CHECK_ENV);

	return v && *v && strcmp(v, "0") != 0;
}

/* Check mode, after the last verdicts: every packet seen got exactly one. */
static void final_check(struct ts_session *s, int *ret, struct ts_err *err)
{
	struct ts_err e;
	int r;

	if (!s->shaper.check)
		return;
	r = ts_shaper_check(&s->shaper, &e);
	if (!r && s->shaper.pool.used) {
		ts_err_set(&e, "conservation: %zu packets still held after the end of the run",
			   s->shaper.pool.used);
		r = -EPROTO;
	}
	if (r < 0) {
		fprintf(stderr, "tasshape: %s\n", e.msg);
		keep_first(ret, r, err, &e);
	}
}

void ts_run_common_init(struct ts_run_common *c)
{
	memset(c, 0, sizeof(*c));
	c->queue_len = 65536;
	c->pool = 3 * 65536;
	c->linger = -1;
	ts_obs_opts_init(&c->obs);
}

static void session_init(struct ts_session *s, struct ts_linkcfg *link,
			 struct ts_run_common *common)
{
	memset(s, 0, sizeof(*s));
	s->link = link;
	s->common = common;
	s->sigfd = -1;
	s->stop = -1;
	ts_netns_init(&s->attached);
	ts_netns_init(&s->peer);
	ts_ipt_init(&s->rules, getpid());
	ts_guard_init(&s->guard);
	ts_rt_init(&s->rt, link->rt_priority);
}

/*
 * Block the signals that end a run before anything is created, so a
 * Ctrl-C during set-up cannot leave rules behind; the loop reads them
 * from a signalfd.
 */
static int block_signals(struct ts_session *s, struct ts_err *err)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &s->oldmask) < 0 ||
	    (s->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
		ts_err_set(err, "signalfd: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static int check_privileges(struct ts_err *err)
{
	int ret;

	if (geteuid() != 0) {
		ts_err_set(err,
			   "needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) to create namespaces "
			   "and NFQUEUE rules: run it with sudo (only the wrapper runs without: "
			   "docs/rootless.md)");
		return -EPERM;
	}
	ret = ts_ipt_check(AF_INET, err);
	if (ret < 0)
		return ret;
	return 0;
}

/*
 * The chain each hook's rule sits in (docs/datapath.md). The sender hook
 * uses POSTROUTING, not OUTPUT: it sees the station's own packets (still
 * charged to their socket) and also those it forwards for a nested run.
 * The network hooks hold packets that have crossed the veth.
 */
static const struct {
	const char *chain;
	enum ts_ipt_dir dir;
} hook_rule[TS_H_UP_STA1] = {
	/* the other stations' sender hooks: as TS_H_UP_SENDER */
	[TS_H_UP_SENDER] = {"POSTROUTING", TS_IPT_OUT},
	[TS_H_UP_NETWORK] = {"PREROUTING", TS_IPT_IN},
	[TS_H_DOWN_NETWORK] = {"PREROUTING", TS_IPT_IN},
};

/*
 * TASSHAPE_NFQ_RCVBUF=SIZE: a netlink receive buffer of SIZE instead of
 * the one sized from --kernel-queue, so that the fault tests can make the
 * socket overrun (ENOBUFS) on purpose (docs/reliability.md).
 */
static int small_rcvbuf(void *nfq, struct ts_err *err)
{
	const char *v = getenv("TASSHAPE_NFQ_RCVBUF");
	struct ts_err e;
	uint64_t bytes;
	int ret;

	if (!v || !*v)
		return 0;
	if (ts_parse_size(v, &bytes, &e) < 0 || bytes < 4096 || bytes > (1u << 30)) {
		ts_err_set(err, "TASSHAPE_NFQ_RCVBUF: expected a size from 4KB to 1GB, got '%s'",
			   v);
		return -EINVAL;
	}
	ret = ts_nfq_set_rcvbuf(nfq, (uint32_t)bytes);
	if (ret < 0)
		ts_err_set(err, "TASSHAPE_NFQ_RCVBUF: %s", strerror(-ret));
	return ret;
}

/* Open the queues and install their rules, for every place that has stages. */
static int hook_up(struct ts_session *s, bool v6, struct ts_err *err)
{
	unsigned int nfq_flags = s->link->gso ? TS_NFQ_GSO : 0;
	int i, ret;

	ret = ts_shaper_init(&s->shaper, s->link, ts_clock_now(), s->common->pool, err);
	s->shaper_up = true;
	if (ret < 0)
		return ret;
	s->shaper.quiet = s->common->quiet;
	s->shaper.check = ts_conservation_wanted();
	/*
	 * In a guest in virtual time the CPU's instruction budget can pace a run (cpustat.h), and
	 * polling ahead of a deadline only spends it (run/shaper.h).
	 */
	if (ts_awake_in_vclock()) {
		s->shaper.cpustat = ts_cpustat_read;
		s->shaper.no_poll = true;
	} else {
		/* A hypervisor that takes a CPU back stops the loop: the summary says how long. */
		s->have_host0 = ts_cpustat_read(&s->host0) == 0;
	}
	for (i = 0; i < TS_H__COUNT; i++) {
		int fd = s->hook_fd[i], r = i < TS_H_UP_STA1 ? i : TS_H_UP_SENDER;
		const char *dev = s->hook_dev[i];

		if (!ts_shaper_needs(&s->shaper, i))
			continue;
		ret = ts_shaper_open(&s->shaper, i, fd, QBASE(getpid()) + (uint16_t)(i * 64),
				     s->common->queue_len, nfq_flags, err);
		if (ret < 0)
			return ret;
		ret = small_rcvbuf(s->shaper.hook[i].q, err);
		if (ret < 0)
			return ret;
		ret = ts_ipt_add_nfqueue(&s->rules, fd, AF_INET, "mangle", hook_rule[r].chain,
					 hook_rule[r].dir, dev, s->shaper.hook[i].qnum, 0, err);
		if (ret < 0)
			return ret;
		if (v6) {
			ret = ts_ipt_add_nfqueue(&s->rules, fd, AF_INET6, "mangle",
						 hook_rule[r].chain, hook_rule[r].dir, dev,
						 s->shaper.hook[i].qnum, 0, err);
			if (ret < 0)
				return ret;
		}
	}
	/* The Wi-Fi station's TSQ budget (run/tsq_station.h): sockets are sampled in its namespace. */
	return ts_tsqst_start(&s->shaper.tsq, &s->shaper, s->hook_fd[TS_H_UP_SENDER], &s->rt.others,
			      err);
}

static void manifest_if(struct ts_session *s, unsigned int k, int fd, const char *ifname,
			const char *role)
{
	s->manifest.ifs[k].netns_fd = fd;
	s->manifest.ifs[k].ifname = ifname;
	s->manifest.ifs[k].role = role;
}

/*
 * Start the recording (captures, logs, time series, socket samples of the
 * namespace @cmd_fd and of every other real station's, status line) and,
 * with --out, write the manifest.
 */
static int obs_up(struct ts_session *s, int cmd_fd, const char *mode, struct ts_err *err)
{
	struct ts_run_common *c = s->common;
	struct ts_obs_env env = {
		.link = s->link,
		.dir = {&s->shaper.dir[0], &s->shaper.dir[1]},
		.pool = &s->shaper.pool,
		.origin = s->shaper.origin,
		.duration = c->duration,
		.cmdline = ts_cmdline_join(s->cmdline, sizeof(s->cmdline), c->argc, c->argv),
		.cmd_netns_fd = cmd_fd,
		.station = {ts_tsqst_sock_view, s->shaper.tsq},
		.quiet = c->quiet,
		.interactive = c->interactive,
		/* Filled by ts_rt_enter before the loop's first turn starts the sampler. */
		.helper_cpus = &s->rt.others,
	};
	unsigned int k;
	int ret;

	/* Every real station's flows are sampled, not only CMD's first namespace's. */
	for (k = 0; k < s->topo.nsta && k < TS_TOPO_STA_MAX; k++)
		env.sta_netns_fd[env.nsta++] = s->topo.sta[k].ns.fd;
	ret = ts_obs_start(&s->obs, &c->obs, &env, err);
	if (ret < 0)
		return ret;
	if (ret > 0)
		s->shaper.obs = &s->obs;
	if (c->summary_json)
		snprintf(s->summary_path, sizeof(s->summary_path), "%s", c->summary_json);
	else
		ts_obs_out_path(&c->obs, TS_OUT_SUMMARY, s->summary_path, sizeof(s->summary_path));
	if (!ts_obs_out_path(&c->obs, TS_OUT_MANIFEST, s->manifest_path, sizeof(s->manifest_path)))
		return 0;
	s->manifest.path = s->manifest_path;
	s->manifest.mode = mode;
	s->manifest.link = s->link;
	s->manifest.common = c;
	s->manifest.obs = &s->obs;
	s->manifest.cmd_netns_fd = cmd_fd;
	s->manifest.start_wall_ns = ts_obs_wall(&s->obs, s->shaper.origin);
	s->manifest.exit_code = -1;
	s->manifest.rt = &s->rt;
	return ts_manifest_write(&s->manifest, err);
}

/*
 * The summary is written when the run ends: a directory that does not
 * exist (or cannot be written) is reported now, not after the run.
 */
static int check_summary_path(const char *path, struct ts_err *err)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) + (slash == path), path);
	if (access(dir, W_OK | X_OK) < 0) {
		int e = errno;

		ts_err_set(err, "%s: cannot write the summary: %s: %s", path, dir, strerror(e));
		return -e;
	}
	return 0;
}

/*
 * What both ways of starting share: privileges and tools first, then the
 * traces (read before anything is created, so a bad file leaves nothing
 * behind) and the summary's directory, then the signals. The caller's
 * fail path closes the session.
 */
static int session_begin(struct ts_session *s, struct ts_linkcfg *link,
			 struct ts_run_common *common, const char *const *netns, struct ts_err *err)
{
	struct ts_cleanup_opts dead = {.local = true};
	int ret;

	session_init(s, link, common);
	/*
	 * A closed stderr (tasshape ... | head) must not kill the run before it
	 * removed what it made: write errors are reported, not fatal.
	 */
	signal(SIGPIPE, SIG_IGN);
	ret = check_privileges(err);
	if (ret < 0)
		return ret;
	ret = ts_linkcfg_load(link, err);
	if (ret < 0)
		return ret;
	if (common->summary_json) {
		ret = check_summary_path(common->summary_json, err);
		if (ret < 0)
			return ret;
	}
	ret = block_signals(s, err);
	if (ret < 0)
		return ret;
	/*
	 * Rootless: everything the wrapper makes is in namespaces that only
	 * this process and what it starts hold, and that go with them; nothing
	 * of another run is reachable from here, and there is nothing a guard
	 * could remove that the kernel does not (docs/rootless.md). attach's
	 * rules, though, are in the user's own namespaces, which outlive the
	 * run: a guard removes them if tasshape dies.
	 */
	if (common->rootless)
		return netns ? ts_guard_start(&s->guard, netns, err) : 0;
	/*
	 * What runs started from this namespace left when they died with their
	 * guard (a power cut): only objects whose owner pid is not running;
	 * processes inside are killed first.
	 */
	ts_topo_cleanup(&dead, NULL, NULL);
	return ts_guard_start(&s->guard, netns, err);
}

/* The Wi-Fi hop's real stations (wifi6 real=), 1 without one. */
unsigned int ts_session_stations(const struct ts_linkcfg *link)
{
	return link->wifi6 ? ts_wifi6_conf_of(link->wifi6)->real : 1;
}

/*
 * The other real stations' namespaces (net/topo.h), and their sender
 * hooks: each station's CMD sends through its own namespace's POSTROUTING
 * hook, into the uplink's sender pipe with its station number.
 */
static int stations_up(struct ts_session *s, struct ts_err *err)
{
	unsigned int k, n = ts_session_stations(s->link);
	int ret;

	if (n <= 1)
		return 0;
	ret = ts_topo_add_stations(&s->topo, n - 1, err);
	if (ret < 0)
		return ret;
	for (k = 1; k < n; k++) {
		enum ts_hook_id h = ts_hook_of_station(k);

		s->hook_fd[h] = s->topo.sta[k - 1].ns.fd;
		snprintf(s->hook_dev[h], TS_TOPO_IFNAMSIZ, "%s", s->topo.sta[k - 1].veth_s);
	}
	return 0;
}

/*
 * Once the queues are open: what the other stations send reaches the
 * link namespace on their own veths, so the uplink network hook's rule is
 * repeated for each; and the shaper learns each station's address, to
 * put every downlink packet in the AP's queue for its station.
 */
static int stations_hooked(struct ts_session *s, bool v6, struct ts_err *err)
{
	unsigned int k, n = ts_session_stations(s->link);
	struct ts_hook *h = &s->shaper.hook[TS_H_UP_NETWORK];
	int ret = 0;

	if (n <= 1)
		return 0;
	s->shaper.nsta = n;
	s->shaper.sta_v4[0] = s->topo.v4_in.s_addr;
	s->shaper.sta_v6[0] = s->topo.v6_in;
	/* Station 0's levers are ts_tsqst_start's when it runs (restored with the run). */
	ret = s->shaper.tsq ? 0 : ts_tsqst_lever_station(s->link, s->topo.inner.fd, err);
	for (k = 1; k < n && ret == 0; k++) {
		const struct ts_topo_sta *st = &s->topo.sta[k - 1];

		s->shaper.sta_v4[k] = st->v4_s.s_addr;
		s->shaper.sta_v6[k] = st->v6_s;
		/* Its flows' budgets as station 0's (run/tsq_station.h); else its ratios alone. */
		ret = s->shaper.tsq ? ts_tsqst_add_station(s->shaper.tsq, k, st->ns.fd, err)
				    : ts_tsqst_lever_station(s->link, st->ns.fd, err);
		if (ret < 0 || !h->io)
			continue;
		ret = ts_ipt_add_nfqueue(&s->rules, s->topo.link.fd, AF_INET, "mangle",
					 "PREROUTING", TS_IPT_IN, st->veth_l, h->qnum, 0, err);
		if (ret == 0 && v6)
			ret = ts_ipt_add_nfqueue(&s->rules, s->topo.link.fd, AF_INET6, "mangle",
						 "PREROUTING", TS_IPT_IN, st->veth_l, h->qnum, 0,
						 err);
	}
	return ret;
}

/*
 * The inner subnet is masqueraded to reach beyond the outer namespace, except in a guest in
 * virtual time: it has no network device (tasshape vm), so there is nothing beyond, and the
 * NAT rule is what makes the kernel track every connection of the outer namespace
 * (nf_conntrack), 1,800 guest instructions a data packet of an upload (docs/benchmarks.md).
 * A rootless run's outer namespace is private (docs/rootless.md): it leads nowhere unless pasta
 * gave it a way out (--outside pasta).
 */
static unsigned int topo_flags(const struct ts_run_common *common)
{
	unsigned int flags = TS_TOPO_FWD_V4 | (ts_awake_in_vclock() ? 0 : TS_TOPO_NAT_V4);

	if (common->rootless)
		flags = TS_TOPO_PRIVATE | (common->outside ? flags : 0);
	return flags;
}

int ts_session_open(struct ts_session *s, struct ts_linkcfg *link, struct ts_run_common *common,
		    struct ts_err *err)
{
	bool v6;
	int ret;

	ret = session_begin(s, link, common, NULL, err);
	if (ret < 0)
		goto fail;
	ret = ts_topo_create(&s->topo, topo_flags(common), err);
	if (ret < 0)
		goto fail;
	s->have_topo = true;
	ret = stations_up(s, err);
	if (ret < 0)
		goto fail;
	s->hook_fd[TS_H_UP_SENDER] = s->topo.inner.fd;
	s->hook_fd[TS_H_UP_NETWORK] = s->topo.link.fd;
	s->hook_fd[TS_H_DOWN_NETWORK] = s->topo.link.fd;
	snprintf(s->hook_dev[TS_H_UP_SENDER], TS_TOPO_IFNAMSIZ, "%s", s->topo.veth_in);
	snprintf(s->hook_dev[TS_H_UP_NETWORK], TS_TOPO_IFNAMSIZ, "%s", s->topo.veth_ld);
	snprintf(s->hook_dev[TS_H_DOWN_NETWORK], TS_TOPO_IFNAMSIZ, "%s", s->topo.veth_lu);
	inet_ntop(AF_INET, &s->topo.v4_out, s->base, sizeof(s->base));
	if (s->topo.v6)
		inet_ntop(AF_INET6, &s->topo.v6_out, s->base6, sizeof(s->base6));
	v6 = s->topo.v6 && ts_ipt_check(AF_INET6, NULL) == 0;
	ret = hook_up(s, v6, err);
	if (ret == 0)
		ret = stations_hooked(s, v6, err);
	if (ret < 0)
		goto fail;
	manifest_if(s, 0, s->topo.inner.fd, s->topo.veth_in, "station (CMD's namespace)");
	manifest_if(s, 1, s->topo.link.fd, s->topo.veth_ld, "router, station side");
	manifest_if(s, 2, s->topo.link.fd, s->topo.veth_lu, "router, outside side");
	manifest_if(s, 3, s->topo.outer_fd, s->topo.veth_out, "outside");
	ret = obs_up(s, s->topo.inner.fd, "wrapper", err);
	if (ret < 0)
		goto fail;
	return 0;
fail:
	ts_session_close(s, NULL);
	return ret;
}

struct find_dev {
	const char *want; /* name asked for, or NULL: the only non-loopback link */
	int ifindex, peer, count;
	char name[TS_TOPO_IFNAMSIZ];
	char names[256]; /* what was found, for the message */
};

static int pick_dev(void *arg, int ifindex, const char *name, int peer)
{
	struct find_dev *f = arg;
	size_t len = strlen(f->names);

	if (!strcmp(name, "lo"))
		return 0;
	snprintf(f->names + len, sizeof(f->names) - len, "%s%s", len ? ", " : "", name);
	if (f->want ? strcmp(name, f->want) != 0 : false)
		return 0;
	f->count++;
	f->ifindex = ifindex;
	f->peer = peer;
	snprintf(f->name, sizeof(f->name), "%s", name);
	return 0;
}

struct find_peer {
	int ifindex, peer_of; /* the link we look for, and the station end it must point back to */
	char name[TS_TOPO_IFNAMSIZ];
};

static int pick_peer(void *arg, int ifindex, const char *name, int peer)
{
	struct find_peer *f = arg;

	if (ifindex == f->ifindex && peer == f->peer_of)
		snprintf(f->name, sizeof(f->name), "%s", name);
	return 0;
}

/* Find the station's interface and the veth end facing it in the peer namespace. */
static int find_link(struct ts_session *s, const char *netns, const char *dev,
		     const char *peer_desc, struct ts_err *err)
{
	struct find_dev fd = {.want = dev};
	struct find_peer fp = {0};
	struct ts_rtnl r;
	int ret;

	ret = ts_rtnl_open(&r, s->attached.fd, err);
	if (ret < 0)
		return ret;
	ret = ts_rtnl_link_list(&r, pick_dev, &fd, err);
	ts_rtnl_close(&r);
	if (ret < 0)
		return ret;
	if (fd.count != 1) {
		if (dev && !strcmp(dev, "lo"))
			ts_err_set(err,
				   "--dev lo: the loopback interface never leaves namespace %s "
				   "(expected the interface of its link to another namespace: %s)",
				   netns, fd.names[0] ? fd.names : "it has none besides lo");
		else if (dev)
			ts_err_set(err, "namespace %s has no interface '%s' (it has: %s)", netns,
				   dev, fd.names[0] ? fd.names : "none besides lo");
		else
			ts_err_set(
				err,
				"namespace %s has %d interfaces besides lo (%s): choose one with "
				"--dev",
				netns, fd.count, fd.names[0] ? fd.names : "none");
		return -ENODEV;
	}
	fp.ifindex = fd.peer;
	fp.peer_of = fd.ifindex;
	ret = ts_rtnl_open(&r, s->peer.fd, err);
	if (ret < 0)
		return ret;
	ret = ts_rtnl_link_list(&r, pick_peer, &fp, err);
	ts_rtnl_close(&r);
	if (ret < 0)
		return ret;
	if (!fd.peer || !fp.name[0]) {
		ts_err_set(err,
			   "%s in namespace %s is not a veth whose other end is in %s (name the "
			   "namespace of the other end with --peer-netns)",
			   fd.name, netns, peer_desc);
		return -ENODEV;
	}
	snprintf(s->hook_dev[TS_H_UP_SENDER], TS_TOPO_IFNAMSIZ, "%s", fd.name);
	snprintf(s->hook_dev[TS_H_DOWN_NETWORK], TS_TOPO_IFNAMSIZ, "%s", fd.name);
	snprintf(s->hook_dev[TS_H_UP_NETWORK], TS_TOPO_IFNAMSIZ, "%s", fp.name);
	return 0;
}

int ts_session_attach(struct ts_session *s, struct ts_linkcfg *link, struct ts_run_common *common,
		      const char *netns, const char *dev, const char *peer_netns,
		      struct ts_err *err)
{
	const char *names[3] = {netns, peer_netns, NULL};
	int ret;

	ret = session_begin(s, link, common, names, err);
	if (ret < 0)
		goto fail;
	if (ts_session_stations(link) > 1) {
		ts_err_set(err, "--mac wifi6:...,real=N: attach shapes one namespace, one station; "
				"real stations need the wrapper (tasshape --mac ... -- CMD)");
		ret = -EINVAL;
		goto fail;
	}
	ret = ts_netns_open(&s->attached, netns, err);
	if (ret < 0)
		goto fail;
	if (ts_netns_is_host(s->attached.fd) && !common->force_host) {
		ts_err_set(err,
			   "namespace %s is the host's own network namespace (that of pid 1): "
			   "shaping it shapes the machine's own traffic; add --force if that is "
			   "meant",
			   netns);
		ret = -EPERM;
		goto fail;
	}
	if (peer_netns) {
		ret = ts_netns_open(&s->peer, peer_netns, err);
	} else {
		ret = ts_netns_current(err);
		if (ret >= 0) {
			s->peer.fd = ret; /* not owned by name: destroy only closes it */
			ret = 0;
		}
	}
	if (ret < 0)
		goto fail;
	ret = find_link(s, netns, dev, peer_netns ? peer_netns : "this namespace", err);
	if (ret < 0)
		goto fail;
	s->hook_fd[TS_H_UP_SENDER] = s->attached.fd;
	s->hook_fd[TS_H_DOWN_NETWORK] = s->attached.fd;
	s->hook_fd[TS_H_UP_NETWORK] = s->peer.fd;
	ret = hook_up(s, ts_ipt_check(AF_INET6, NULL) == 0, err);
	if (ret < 0)
		goto fail;
	manifest_if(s, 0, s->attached.fd, s->hook_dev[TS_H_UP_SENDER], "station");
	manifest_if(s, 1, s->peer.fd, s->hook_dev[TS_H_UP_NETWORK], "peer");
	ret = obs_up(s, s->attached.fd, "attach", err);
	if (ret < 0)
		goto fail;
	return 0;
fail:
	ts_session_close(s, NULL);
	return ret;
}

static void count_one(void *ctx, const struct ts_sockstat *st)
{
	(void)ctx;
	(void)st;
}

/*
 * The drain's test: TCP sockets not yet TIME_WAIT or CLOSE, in CMD's
 * namespace and every other real station's (each ran CMD too). Returns
 * their number, or a negative errno when no namespace could be counted
 * and none had one open.
 */
static int open_sockets(void *ctx)
{
	struct ts_session *s = ctx;
	int n = 0, err = 0, ret;
	unsigned int k;

	for (k = 0; k < sizeof(s->drain_sd) / sizeof(s->drain_sd[0]); k++) {
		if (!s->drain_sd[k])
			continue;
		/* The dump leaves out listening, closed and time-wait sockets already. */
		ret = ts_sockdiag_dump(s->drain_sd[k], count_one, NULL);
		if (ret < 0 && !err)
			err = ret;
		else if (ret > 0)
			n += ret;
	}
	return n > 0 || !err ? n : err;
}

/*
 * The sockets the drain counts: one handle per station's namespace. Those
 * that cannot be opened are not counted (the drain still empties the
 * queues). Returns true when any was opened.
 */
static bool drain_count_open(struct ts_session *s)
{
	unsigned int k, n = 1 + s->topo.nsta;
	struct ts_err e;
	bool any = false;

	for (k = 0; k < n && k < sizeof(s->drain_sd) / sizeof(s->drain_sd[0]); k++)
		any |= ts_sockdiag_open(&s->drain_sd[k],
					k ? s->topo.sta[k - 1].ns.fd : s->topo.inner.fd, &e) == 0;
	return any;
}

/* Tell the user what the linger limit cut short: those packets are the summary's "shutdown". */
static void drain_report(struct ts_session *s)
{
	struct ts_shaper *sh = &s->shaper;

	if (sh->phase != TS_PH_DONE || sh->drain_complete || !sh->linger || s->common->quiet)
		return;
	if (sh->signals > sh->drain_signals)
		fprintf(stderr, "tasshape: drain cut short by a signal after %.3f s: ",
			(double)(sh->now - sh->drain_start) / 1e9);
	else
		fprintf(stderr, "tasshape: --linger %.3f s reached: ", (double)sh->linger / 1e9);
	fprintf(stderr, "%zu packets still held are dropped (shutdown)", sh->pool.used);
	if (sh->sockets_open > 0)
		fprintf(stderr, ", %d connections had not closed", sh->sockets_open);
	fprintf(stderr, "\n");
}

/*
 * The loop is pinned to one CPU (run/cpupin.h): the veths that deliver its
 * releases take that work to the others. attach has no veth of its own and
 * leaves the user's links alone. A failure is a note in the summary, not a
 * failed run: the loop is unpinned and the deliveries stay in it, as they
 * were before. Returns 0, or -ENOTRECOVERABLE when the thread could not
 * come back to its namespace (the run must not go on).
 */
/*
 * A guest in virtual time has one CPU, so RPS has nowhere to steer the deliveries, and a verdict
 * call runs each packet's receiver before it takes the next verdict. With --gso the station gets
 * one ACK per unit the server received and the access point sends them in A-MPDUs of up to 25:
 * one call then delivered them one after the other, 8.6 us of the guest's CPU each (the last
 * ACK 245 us after the release, the run flagged). The downlink's veth pair hands them to a NAPI
 * thread instead (net/topo.h), real-time one below the loop (run/napi.h), which runs when the
 * loop sleeps. Per packet the same holds behind a Wi-Fi MAC: each ACK of an access point's
 * A-MPDU runs the station's TCP, which sends its next packets within the call (downlink release
 * p99 270 us at 20 MHz MCS 0 with A-MPDUs of 2.3 ACKs, 56 us deferred; 393 and 158 at MCS 1).
 * Not per packet on a wired link: at 200 Mbit/s the thread's batches (64 packets, not
 * preemptible) delayed the loop's wake-ups more than the calls they spared, and its ring
 * overflowed. Per packet behind a Wi-Fi MAC the uplink's veth pair too: the server then has
 * GRO, as a real receiver's NIC gives it, and merges what was released before its thread ran
 * (run/napi.h, ts_napi_dirs). A failure is a note in the summary: the deliveries stay in the
 * loop, as before.
 */
/* One direction's deliveries to a NAPI thread; 0 (a note on failure) or -ENOTRECOVERABLE. */
static int defer_one(struct ts_session *s, bool up, struct ts_err *err)
{
	struct ts_rt *rt = &s->rt;
	struct ts_err e;
	int ret;

	ret = ts_topo_defer_rx(&s->topo, up, &e);
	if (ret == -ENOTRECOVERABLE)
		*err = e;
	if (ret < 0) {
		snprintf(rt->napi_note, sizeof(rt->napi_note), "%.*s",
			 (int)sizeof(rt->napi_note) - 1, e.msg);
		return ret == -ENOTRECOVERABLE ? ret : 0;
	}
	s->napi_deferred[up ? TS_UP : TS_DOWN] = true;
	return 0;
}

static int defer_deliveries(struct ts_session *s, struct ts_err *err)
{
	struct ts_rt *rt = &s->rt;
	const char *devs[2];
	struct ts_err why = {"no NAPI thread found"};
	unsigned int dirs, done = 0;
	size_t n = 0;
	int ret = 0;

	if (!s->have_topo || !rt->prio || rt->pin == TS_SHAPER_CPU_OFF || !ts_awake_in_vclock())
		return 0;
	dirs = ts_napi_dirs(s->link->gso, s->link->wifi6,
			    s->shaper.hook[TS_H_DOWN_NETWORK].io != NULL);
	if (dirs & TS_NAPI_DOWN)
		ret = defer_one(s, false, err);
	if (ret == 0 && (dirs & TS_NAPI_UP))
		ret = defer_one(s, true, err);
	if (ret < 0)
		return ret;
	if (s->napi_deferred[TS_DOWN]) {
		devs[n++] = s->topo.veth_in;
		done |= TS_NAPI_DOWN;
	}
	if (s->napi_deferred[TS_UP]) {
		devs[n++] = s->topo.veth_out;
		done |= TS_NAPI_UP;
	}
	if (!n)
		return 0;
	snprintf(rt->napi, sizeof(rt->napi), "%s", ts_napi_label(done));
	if (ts_napi_rt(devs, n, rt->prio > 1 ? rt->prio - 1 : 1, &why) <= 0)
		snprintf(rt->napi_note, sizeof(rt->napi_note), "NAPI thread not real-time: %.280s",
			 why.msg);
	return 0;
}

/* Packets lost at a full NAPI ring: outside the model, so the fell-behind rule counts them. */
static void napi_drops(struct ts_session *s)
{
	struct ts_err e;
	int d;

	for (d = TS_UP; d <= TS_DOWN; d++)
		if (s->napi_deferred[d] &&
		    ts_topo_rx_dropped(&s->topo, d == TS_UP, &s->ring_dropped[d], &e) < 0)
			s->ring_dropped[d] = 0;
}

static int steer_deliveries(struct ts_session *s, struct ts_err *err)
{
	struct ts_rt *rt = &s->rt;
	struct ts_err e;
	int ret;

	if (rt->cpu < 0)
		return defer_deliveries(s, err);
	/* The buffer holds any set's text (TS_CPUMASK_HEX_MAX), so this cannot fail. */
	ts_cpumask_hex(&rt->others, rt->rps_cpus, sizeof(rt->rps_cpus));
	ret = ts_topo_steer_rx(&s->topo, rt->rps_cpus, &e);
	if (ret == -ENOTRECOVERABLE)
		*err = e;
	if (ret < 0) {
		/* Cut to fit: the note says why, a whole path is not needed. */
		snprintf(rt->rps_note, sizeof(rt->rps_note), "%.*s", (int)sizeof(rt->rps_note) - 1,
			 e.msg);
		rt->rps_cpus[0] = 0;
		ts_rt_unpin(rt);
	}
	return ret == -ENOTRECOVERABLE ? ret : 0;
}

int ts_session_run(struct ts_session *s, pid_t child, struct ts_err *err)
{
	int ret;

	/* attach drains too, but has no CMD whose connections it could wait for. */
	s->shaper.linger = s->common->linger >= 0 ? s->common->linger : ts_linkcfg_linger(s->link);
	if (child > 0) {
		/* Without the socket count the drain still empties the queues. */
		if (s->have_topo && s->shaper.linger > 0 && drain_count_open(s)) {
			s->shaper.sockets = open_sockets;
			s->shaper.sockets_ctx = s;
		}
	}
	/*
	 * Real time for the loop only: CMD, the servers and the guard were
	 * started before and keep normal scheduling, anything started later is
	 * reset on fork, and the teardown after needs no priority. A refusal
	 * is reported once, by the summary and the manifest.
	 */
	s->rt.pin = s->have_topo ? s->link->shaper_cpu : TS_SHAPER_CPU_OFF;
	ts_rt_enter(&s->rt);
	ret = steer_deliveries(s, err);
	if (ret == 0)
		ret = ts_shaper_run(&s->shaper, s->sigfd, child, s->common->duration, err);
	ts_rt_leave(&s->rt);
	napi_drops(s);
	if (ret >= 0)
		drain_report(s);
	s->ran = true;
	s->stop = ret >= 0 ? ret : -1;
	return ret;
}

/* The steal time since the shaper started, when /proc/stat could be read at both ends. */
static void host_steal(const struct ts_session *s, struct ts_summary *sum)
{
	struct ts_cpustat now;
	int64_t ms;

	if (!s->have_host0 || ts_cpustat_read(&now) < 0)
		return;
	ms = ts_cpustat_steal_ms(&s->host0, &now, sysconf(_SC_CLK_TCK));
	if (ms < 0)
		return;
	sum->have_host_steal = true;
	sum->host_steal_ms = (uint64_t)ms;
}

static void print_summary(struct ts_session *s, int *ret, struct ts_err *err)
{
	struct ts_summary sum;
	struct ts_err e;
	int bad;
	FILE *f;

	ts_shaper_summary(&s->shaper, &sum, "tasshape");
	host_steal(s, &sum);
	sum.extra[TS_UP].ring_dropped = s->ring_dropped[TS_UP];
	sum.extra[TS_DOWN].ring_dropped = s->ring_dropped[TS_DOWN];
	sum.rt = &s->rt;
	if (!s->common->quiet)
		ts_summary_print(stderr, &sum);
	if (!s->summary_path[0])
		return;
	f = ts_out_fopen(s->summary_path, &e);
	if (f) {
		bad = ts_summary_json(f, &sum) < 0;
		bad |= fclose(f) != 0;
		if (bad)
			ts_err_set(&e, "%s: cannot write the summary: %s", s->summary_path,
				   strerror(errno));
	}
	if (!f || bad) {
		keep_first(ret, -EIO, err, &e);
		fprintf(stderr, "tasshape: %s\n", e.msg);
	}
}

static const char *const stop_name[] = {
	[TS_STOP_CHILD] = "command exited",
	[TS_STOP_SIGNAL] = "signal",
	[TS_STOP_DURATION] = "duration",
	[TS_STOP_TRACE] = "trace ended",
};

/* The manifest again, now that the run is over. */
static void final_manifest(struct ts_session *s, int *ret, struct ts_err *err)
{
	struct ts_err e;
	int r;

	if (!s->manifest.path)
		return;
	s->manifest.end_wall_ns = ts_obs_wall(&s->obs, s->shaper.now);
	s->manifest.stop = s->stop >= 0 ? stop_name[s->stop] : "error";
	if (s->shaper.child && s->shaper.child_done)
		s->manifest.exit_code = ts_child_exit_code(s->shaper.child_status);
	r = ts_manifest_write(&s->manifest, &e);
	if (r < 0) {
		keep_first(ret, r, err, &e);
		fprintf(stderr, "tasshape: %s\n", e.msg);
	}
}

int ts_session_close(struct ts_session *s, struct ts_err *err)
{
	struct ts_err e;
	unsigned int k;
	int ret = 0;

	if (s->shaper_up) {
		/* Stop new packets first, then drop (and count) what is still held. */
		keep_first(&ret, ts_ipt_clear(&s->rules, &e), err, &e);
		ts_shaper_finish(&s->shaper);
		final_check(s, &ret, err);
		/* The held packets' drops are recorded; now the files are complete. */
		if (ts_obs_finish(&s->obs, s->shaper.now, &e) < 0) {
			keep_first(&ret, -EIO, err, &e);
			fprintf(stderr, "tasshape: %s\n", e.msg);
		}
		s->shaper.obs = NULL;
		if (s->ran) {
			print_summary(s, &ret, err);
			final_manifest(s, &ret, err);
		}
		ts_shaper_fini(&s->shaper);
		s->shaper_up = false;
	} else {
		keep_first(&ret, ts_ipt_clear(&s->rules, &e), err, &e);
	}
	if (s->have_topo) {
		/*
		 * What CMD left running (background jobs, daemons) must not outlive
		 * the link: in its namespace and in each other real station's.
		 */
		ts_netns_kill_all(s->topo.inner.fd, SIGKILL);
		for (k = 0; k < s->topo.nsta && k < TS_TOPO_STA_MAX; k++)
			ts_netns_kill_all(s->topo.sta[k].ns.fd, SIGKILL);
		keep_first(&ret, ts_topo_destroy(&s->topo, &e), err, &e);
		s->have_topo = false;
		/* The last run from here: ip_forward as found; if it cannot, the next sweep does. */
		if (!s->common->rootless)
			ts_fwd_restore();
	}
	for (k = 0; k < sizeof(s->drain_sd) / sizeof(s->drain_sd[0]); k++) {
		ts_sockdiag_close(s->drain_sd[k]);
		s->drain_sd[k] = NULL;
	}
	ts_netns_destroy(&s->attached, NULL);
	ts_netns_destroy(&s->peer, NULL);
	if (s->sigfd >= 0) {
		struct signalfd_siginfo si;

		/* Signals that came during teardown are consumed here, not re-raised. */
		while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
		close(s->sigfd);
		s->sigfd = -1;
		sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	}
	/* Everything is removed: the guard has nothing left to do. */
	ts_guard_stop(&s->guard);
	return ret;
}

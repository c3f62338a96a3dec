/* SPDX-License-Identifier: MIT */
/*
 * tasshape doctor [--json] [--rate RATE]: what this host can run, one line
 * per check, each problem with the command that fixes it. The checks are a
 * table (like the subcommands); the core ones (privileges, iptables,
 * namespaces and veth, NFQUEUE) decide the exit status: 0 only when the
 * wrapper and attach can run. The namespace and NFQUEUE check builds a
 * throw-away topology and removes it (src/net/probe.c); nothing else
 * changes the host.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/json.h"
#include "io/which.h"
#include "net/probe.h"
#include "run/awake.h"
#include "run/cpupin.h"
#include "run/preempt.h"
#include "run/rt.h"
#include "tasshape/units.h"
#include "vm/vm.h"

enum dr_status { DR_OK, DR_WARN, DR_FAIL, DR_INFO };

static const char *const dr_status_name[] = {"ok", "warn", "fail", "info"};

struct dr_result {
	const char *check;
	enum dr_status status;
	bool core;
	char detail[1024]; /* a program's line names what was refused before it */
	char fix[256];	   /* a command, or "" */
};

#define DR_MAX 40

struct doctor {
	struct dr_result r[DR_MAX];
	size_t n;
	bool privileged; /* CAP_NET_ADMIN and CAP_SYS_ADMIN: the probes can run */
	uint64_t rate;	 /* --rate, bit/s; 0: not given */
};

static void dr_add(struct doctor *d, const char *check, bool core, enum dr_status st,
		   const char *fix, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void dr_add(struct doctor *d, const char *check, bool core, enum dr_status st,
		   const char *fix, const char *fmt, ...)
{
	struct dr_result *r;
	va_list ap;

	if (d->n == DR_MAX)
		return;
	r = &d->r[d->n++];
	r->check = check;
	r->core = core;
	r->status = st;
	snprintf(r->fix, sizeof(r->fix), "%s", fix ? fix : "");
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
}

/* ---- the checks ------------------------------------------------------------ */

/*
 * Where @name runs from (io/which.h) into @w, and into @note what was
 * refused on the way ("; refused: found ./ip but it is in a relative $PATH
 * entry"), "" when nothing was. Returns ts_which's result.
 */
static int dr_which(const char *name, struct ts_which *w, char *note, size_t len)
{
	int ret = ts_which(name, w);

	snprintf(note, len, "%s%s", w->skipped[0] ? "; refused: " : "", w->skipped);
	return ret;
}

static void check_privileges(struct doctor *d)
{
	uint64_t eff = 0;
	bool net, sys;

	if (ts_probe_caps(&eff) < 0) {
		dr_add(d, "privileges", true, DR_FAIL, "sudo tasshape doctor",
		       "cannot read this process's capabilities (/proc/self/status)");
		return;
	}
	net = eff & (1ull << TS_CAP_NET_ADMIN);
	sys = eff & (1ull << TS_CAP_SYS_ADMIN);
	d->privileged = net && sys;
	if (d->privileged)
		dr_add(d, "privileges", true, DR_OK, NULL,
		       "%s with CAP_NET_ADMIN and CAP_SYS_ADMIN",
		       geteuid() == 0 ? "root" : "not root, but");
	else
		dr_add(d, "privileges", true, DR_FAIL, "sudo tasshape doctor",
		       "missing %s%s%s: namespaces, veth pairs, iptables rules and NFQUEUE need "
		       "root (run tasshape through sudo; CMD still runs as you); the wrapper "
		       "alone can run without: see rootless",
		       net ? "" : "CAP_NET_ADMIN", net || sys ? "" : " and ",
		       sys ? "" : "CAP_SYS_ADMIN");
}

/* The sysctl that forbids a user's user namespaces, as a fix line, or NULL when none does. */
static const char *userns_fix(void)
{
	char v[32];

	if (ts_probe_read("/proc/sys/user/max_user_namespaces", v, sizeof(v)) >= 0 &&
	    !strcmp(v, "0"))
		return "sudo sysctl -w user.max_user_namespaces=15000";
	/* Debian's kernels before 6.1 and Ubuntu's: a switch of their own. */
	if (ts_probe_read("/proc/sys/kernel/unprivileged_userns_clone", v, sizeof(v)) >= 0 &&
	    !strcmp(v, "0"))
		return "sudo sysctl -w kernel.unprivileged_userns_clone=1";
	if (ts_probe_read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", v, sizeof(v)) >=
		    0 &&
	    !strcmp(v, "1"))
		return "an AppArmor profile for tasshape allowing userns, or sudo";
	return NULL;
}

/* The rootless line of a user who tried it (ts_probe_rootless). */
static void rootless_tried(struct doctor *d)
{
	struct ts_probe_rootless pr;
	struct ts_err err = {{0}};
	char map[320];
	const char *fix;

	if (ts_probe_rootless(&pr, &err) == 0) {
		struct ts_which w;
		const char *outside =
			ts_which("pasta", &w) < 0
				? "not available: pasta is not installed (Debian: "
				  "apt install passt)"
			: access("/dev/net/tun", R_OK | W_OK) < 0
				? "not available: /dev/net/tun is not open to you (Debian makes it "
				  "0666)"
				: "available";

		if (pr.helpers)
			snprintf(map, sizeof(map),
				 "your /etc/subuid and /etc/subgid ranges mapped "
				 "by newuidmap/newgidmap");
		else
			snprintf(map, sizeof(map), "only your own ids mapped (%s)", pr.note);
		dr_add(d, "rootless", false, DR_OK, NULL,
		       "tasshape -- CMD runs without root or sudo here: a user namespace of its "
		       "own (%s) held the namespaces, veth pairs and NFQUEUE rule, and a queued "
		       "packet passed; CMD runs as you; %s. The outside is a private namespace; "
		       "the host's network through --outside pasta: %s. exp run (guests too), "
		       "vm and plot run as you; attach shapes namespaces you made (unshare -Urn), "
		       "root's need sudo, as cleanup does (docs/rootless.md)",
		       map,
		       pr.pidns ? "what CMD leaves running dies with the run (a PID namespace)"
				: pr.pidns_note,
		       outside);
		return;
	}
	fix = !pr.userns ? userns_fix() : NULL;
	dr_add(d, "rootless", false, DR_FAIL,
	       fix	    ? fix
	       : !pr.userns ? "sudo tasshape ..."
	       : pr.link.topo && !pr.link.nfq
		       ? "sudo modprobe nfnetlink_queue xt_NFQUEUE nft_compat"
		       : "sudo tasshape ...",
	       "a run without root would fail%s: %s", !pr.userns ? " (user namespace)" : "",
	       err.msg);
}

/*
 * Rootless runs (docs/rootless.md): a user tries one; root is told what a
 * user would get, as far as it can be read from here.
 */
static void check_rootless(struct doctor *d)
{
	char v[32] = "?";
	struct ts_which w;
	bool maps;

	if (geteuid() != 0) {
		rootless_tried(d);
		return;
	}
	ts_probe_read("/proc/sys/user/max_user_namespaces", v, sizeof(v));
	maps = ts_which("newuidmap", &w) == 0 && ts_which("newgidmap", &w) == 0;
	dr_add(d, "rootless", false, DR_INFO,
	       userns_fix() ? userns_fix() : "tasshape doctor  # as a user, to try a rootless run",
	       "root: the run is not rootless. A user without sudo gets a user namespace of its "
	       "own (user.max_user_namespaces %s%s); %s (run tasshape doctor as that user to "
	       "try it)",
	       v, userns_fix() ? ", but refused: see the fix" : "",
	       maps ? "newuidmap/newgidmap map their /etc/subuid ranges"
		    : "no newuidmap/newgidmap (apt install uidmap): only their own ids are mapped");
}

static void check_iptables(struct doctor *d)
{
	char *v4[] = {"iptables", "--version", NULL};
	char *v6[] = {"ip6tables", "--version", NULL};
	char out[256], out6[256], note[1100], note6[1100];
	struct ts_which w, w6;
	const char *backend;
	int ret;

	if (dr_which(v4[0], &w, note, sizeof(note)) < 0) {
		dr_add(d, "iptables", true, DR_FAIL, "sudo apt-get install iptables",
		       "iptables not found: the NFQUEUE rules are installed with it%s", note);
		return;
	}
	ret = ts_probe_output(v4, out, sizeof(out));
	if (ret != 0) {
		dr_add(d, "iptables", true, DR_FAIL, "sudo apt-get install --reinstall iptables",
		       "%s --version failed (%s %d): the NFQUEUE rules are installed with it%s",
		       w.path, ret < 0 ? "error" : "exit status", ret < 0 ? -ret : ret, note);
		return;
	}
	backend = strstr(out, "nf_tables") ? "nf_tables"
		  : strstr(out, "legacy")  ? "legacy"
					   : "unknown back-end";
	if (dr_which(v6[0], &w6, note6, sizeof(note6)) < 0 ||
	    ts_probe_output(v6, out6, sizeof(out6)) != 0)
		dr_add(d, "iptables", true, DR_WARN, "sudo apt-get install iptables",
		       "%s at %s (%s), but no ip6tables: IPv6 traffic would not be shaped%s%s", out,
		       w.path, backend, note, note6);
	else
		dr_add(d, "iptables", true, DR_OK, NULL,
		       "%s at %s, ip6tables at %s, back-end %s (both work: NFQUEUE is reached "
		       "through the xt compatibility layer)%s%s",
		       out, w.path, w6.path, backend, note, note6);
}

static void check_link(struct doctor *d)
{
	struct ts_probe_link pl;
	struct ts_err err = {{0}};
	int ret;

	if (!d->privileged) {
		dr_add(d, "namespaces", true, DR_FAIL, "sudo tasshape doctor",
		       "not tried: creating namespaces and veth pairs needs root");
		dr_add(d, "nfqueue", true, DR_FAIL, "sudo tasshape doctor",
		       "not tried: binding an NFQUEUE needs root");
		return;
	}
	ret = ts_probe_link(&pl, &err);
	if (pl.topo)
		dr_add(d, "namespaces", true, DR_OK, NULL,
		       "created two network namespaces joined by veth pairs, with addresses "
		       "and routes (then removed them)");
	else
		dr_add(d, "namespaces", true, DR_FAIL,
		       "sudo modprobe veth  # and a kernel with CONFIG_NET_NS, CONFIG_VETH", "%s",
		       err.msg);
	if (!pl.topo)
		dr_add(d, "nfqueue", true, DR_FAIL, "sudo tasshape doctor",
		       "not tried: no namespace to try it in");
	else if (!ret)
		dr_add(d, "nfqueue", true, DR_OK, NULL,
		       "bound a queue in a throw-away namespace, one UDP packet queued, "
		       "accepted and delivered");
	else
		dr_add(d, "nfqueue", true, DR_FAIL,
		       "sudo modprobe nfnetlink_queue xt_NFQUEUE  # or a kernel with "
		       "CONFIG_NETFILTER_NETLINK_QUEUE and CONFIG_NETFILTER_XT_TARGET_NFQUEUE",
		       "%s", err.msg);
}

static void check_ipv6(struct doctor *d)
{
	char v[16];

	if (ts_probe_read("/proc/sys/net/ipv6/conf/all/disable_ipv6", v, sizeof(v)) < 0)
		dr_add(d, "ipv6", false, DR_WARN, "a kernel with CONFIG_IPV6",
		       "the kernel has no IPv6: links carry IPv4 only");
	else if (!strcmp(v, "1"))
		dr_add(d, "ipv6", false, DR_WARN, "sudo sysctl -w net.ipv6.conf.all.disable_ipv6=0",
		       "IPv6 is disabled: links carry IPv4 only");
	else
		dr_add(d, "ipv6", false, DR_OK, NULL, "available: links carry IPv4 and IPv6");
}

/* Is @word one of the blank-separated words of @list? */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return true;
		p += n;
	}
	return false;
}

static void check_cca(struct doctor *d)
{
	char avail[512], allowed[512], missing[512] = "", fix[1024], v[64], s1[16], s2[16];
	size_t n = 0;
	char *save = NULL, *w, copy[512];

	if (ts_probe_read("/proc/sys/net/ipv4/tcp_available_congestion_control", avail,
			  sizeof(avail)) < 0) {
		dr_add(d, "congestion controls", false, DR_WARN, NULL,
		       "cannot read tcp_available_congestion_control");
		return;
	}
	dr_add(d, "congestion controls", false, DR_OK, NULL, "the kernel offers: %s", avail);
	if (ts_probe_read("/proc/sys/net/ipv4/tcp_allowed_congestion_control", allowed,
			  sizeof(allowed)) < 0)
		allowed[0] = '\0';
	snprintf(copy, sizeof(copy), "%s", avail);
	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (!has_word(allowed, w) && n < sizeof(missing))
			n += (size_t)snprintf(missing + n, sizeof(missing) - n, "%s%s",
					      n ? " " : "", w);
	if (missing[0]) {
		snprintf(fix, sizeof(fix),
			 "sudo sysctl -w net.ipv4.tcp_allowed_congestion_control='%s'", avail);
		dr_add(d, "unprivileged choice", false, DR_WARN, fix,
		       "CMD running as you may pick only: %s (not %s); namespace defaults set by "
		       "tasshape apply to everyone",
		       allowed, missing);
	} else {
		dr_add(d, "unprivileged choice", false, DR_OK, NULL,
		       "CMD running as you may pick every one: %s", allowed);
	}
	if (!has_word(avail, "bbr"))
		dr_add(d, "bbr", false, DR_WARN, "sudo modprobe tcp_bbr",
		       "not offered (a kernel with CONFIG_TCP_CONG_BBR, or its module)");
	else if (ts_probe_read("/sys/module/tcp_bbr/version", v, sizeof(v)) > 0)
		dr_add(d, "bbr", false, DR_OK, NULL, "BBR version %s (/sys/module/tcp_bbr/version)",
		       v);
	else
		dr_add(d, "bbr", false, DR_INFO,
		       "tasshape vm --kernel BZIMAGE  # a BBRv3 kernel, docs/kernels.md",
		       "BBR v1 (the kernel reports no version; BBRv3 kernels have "
		       "/sys/module/tcp_bbr/version)");
	if (!has_word(avail, "tas")) {
		dr_add(d, "tas", false, DR_INFO,
		       "sudo insmod tcp_bbr_tas.ko  # built against a BBRv3 kernel, "
		       "docs/kernels.md",
		       "BBR-TAS (module tcp_bbr_tas, congestion control tas) is not loaded");
		return;
	}
	if (ts_probe_read("/sys/module/tcp_bbr_tas/parameters/tas_pacing_shift_startup", s1,
			  sizeof(s1)) < 0)
		snprintf(s1, sizeof(s1), "?");
	if (ts_probe_read("/sys/module/tcp_bbr_tas/parameters/tas_pacing_shift_steady", s2,
			  sizeof(s2)) < 0)
		snprintf(s2, sizeof(s2), "?");
	dr_add(d, "tas", false, DR_OK, NULL,
	       "BBR-TAS loaded: tas_pacing_shift_startup=%s, tas_pacing_shift_steady=%s", s1, s2);
}

static void check_bpf(struct doctor *d)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		dr_add(d, "bpf struct_ops", false, DR_OK, NULL,
		       "kernel BTF present (/sys/kernel/btf/vmlinux): BPF congestion controls "
		       "can be loaded");
	else
		dr_add(d, "bpf struct_ops", false, DR_WARN,
		       "a kernel with CONFIG_DEBUG_INFO_BTF=y and CONFIG_BPF_JIT=y",
		       "no kernel BTF: BPF struct_ops congestion controls (bpf:FILE.bpf.o) "
		       "cannot be loaded");
}

static void check_vm(struct doctor *d)
{
	struct ts_err err = {{0}};
	struct ts_which w;
	char note[1100];

	if (dr_which("qemu-system-x86_64", &w, note, sizeof(note)) < 0) {
		dr_add(d, "qemu", false, DR_WARN, "sudo apt-get install qemu-system-x86",
		       "qemu-system-x86_64 not found: tasshape vm (other kernels) cannot run%s",
		       note);
		return;
	}
	dr_add(d, "qemu", false, DR_OK, NULL, "%s, for tasshape vm%s", w.path, note);
	if (ts_vm_kvm_usable(w.path, &err) == 0)
		dr_add(d, "kvm", false, DR_OK, NULL,
		       "a test guest booted with -accel kvm and ran its loop fast: tasshape vm "
		       "runs at near native speed");
	else
		dr_add(d, "kvm", false, DR_WARN,
		       access("/dev/kvm", F_OK) == 0 && access("/dev/kvm", R_OK | W_OK) < 0
			       ? "sudo usermod -aG kvm \"$USER\"  # then log in again"
			       : "tasshape vm --accel tcg  # what auto falls back to",
		       "KVM not usable (%s): tasshape vm falls back to TCG, about 10-20 times "
		       "the release timing error",
		       err.msg);
}

/* The programs features run, the Debian package that has each, and what needs it. */
static const struct {
	const char *prog, *pkg, *use;
} tools[] = {
	{"iperf3", "iperf3", "TCP/UDP load of the examples and of tasshape exp"},
	{"irtt", "irtt", "UDP latency probes of tasshape exp (rrul)"},
	{"ping", "iputils-ping", "ICMP latency of tasshape exp"},
	{"gnuplot", "gnuplot-nox", "tasshape plot and tasshape trace plot"},
	{"flent", "flent", "reading the .flent.gz results of tasshape exp in Flent's GUI"},
	{"tcpdump", "tcpdump",
	 "capturing inside the namespace (tasshape also writes pcaps itself)"},
};

static void check_tools(struct doctor *d)
{
	char note[1100], fix[128];
	struct ts_which w;
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		/* Found as a run finds them, whether tasshape or CMD runs them. */
		if (dr_which(tools[i].prog, &w, note, sizeof(note)) == 0) {
			dr_add(d, tools[i].prog, false, DR_OK, NULL, "%s%s", w.path, note);
			continue;
		}
		snprintf(fix, sizeof(fix), "sudo apt-get install %s", tools[i].pkg);
		dr_add(d, tools[i].prog, false, DR_WARN, fix,
		       "not found in an absolute $PATH directory or %s: needed for %s%s",
		       TS_WHICH_SBIN, tools[i].use, note);
	}
}

/* Per-packet mode measured about 2 Gbit/s of one shaper core (docs/bench-datapath.md). */
#define PER_PACKET_BPS (2000ull * 1000 * 1000)

static void check_cpus(struct doctor *d)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 2)
		dr_add(d, "cpus", false, DR_WARN, NULL,
		       "%ld CPU: the shaper (one core, per packet) competes with CMD and the "
		       "kernel; expect release timing errors under load",
		       n);
	else if (d->rate > PER_PACKET_BPS)
		dr_add(d, "cpus", false, DR_WARN, "tasshape --gso ...",
		       "%ld CPUs; %llu Mbit/s is above the ~2000 Mbit/s one shaper core handles "
		       "per "
		       "packet: use --gso (super-packets) or expect the link to fall behind",
		       n, (unsigned long long)(d->rate / 1000000));
	else
		dr_add(d, "cpus", false, DR_OK, NULL,
		       "%ld CPUs; per-packet mode needs one spare core for the shaper (about "
		       "2000 Mbit/s per link; --gso for more)%s",
		       n, d->rate ? ", enough for --rate" : "");
}

/*
 * The shaper's real-time scheduling (run/rt.h): granted here, and bounded
 * by the kernel so that it can never starve the host: its fair server since
 * Linux 6.12, real-time throttling before (docs/datapath.md, "It never
 * starves the host"). And where its loop will run (run/cpupin.h).
 */
static void check_rt(struct doctor *d)
{
	long budget = ts_rt_budget();
	struct ts_err why;
	int prio = ts_rt_probe(&why);

	if (prio < 0) {
		dr_add(d, "realtime", false, DR_WARN,
		       budget == 0 ? "sudo sysctl -w kernel.sched_rt_runtime_us=950000"
		       : geteuid() != 0
			       ? "a rootless run gets SCHED_FIFO within RLIMIT_RTPRIO and "
				 "RLIMIT_MEMLOCK "
				 "(limits.conf: rtprio 10, memlock unlimited), or keeps the "
				 "SCHED_FIFO "
				 "it is started with (systemd's CPUSchedulingPolicy=fifo), or run "
				 "through sudo"
			       : "run as root (CAP_SYS_NICE, CAP_IPC_LOCK) outside an RT-limited "
				 "container",
		       "%s: the shaper will run with normal scheduling, and other processes can "
		       "delay its releases (--rt-priority off silences this)",
		       why.msg);
	} else if (budget < 0) {
		dr_add(d, "realtime", false, DR_WARN,
		       "sudo sysctl -w kernel.sched_rt_runtime_us=950000",
		       "SCHED_FIFO %d and locked memory granted, but real-time throttling is off "
		       "(kernel.sched_rt_runtime_us -1): on a kernel before 6.12, which has no "
		       "fair server, only the shaper's poll bound (a quarter of one CPU) keeps a "
		       "CPU for normal tasks when it is overloaded",
		       prio);
	} else {
		enum ts_awake_mode awake = ts_awake_host();
		cpu_set_t allowed, others;
		char where[256], list[160];
		int cpu = -1;

		if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
			cpu = ts_cpupin_choose(&allowed, TS_SHAPER_CPU_AUTO, &others);
		if (cpu >= 0 && ts_cpulist(&others, list, sizeof(list)) >= 0)
			snprintf(where, sizeof(where),
				 "the wrapper's loop runs on CPU %d and its deliveries on CPU %s "
				 "(--shaper-cpu)",
				 cpu, list);
		else
			snprintf(where, sizeof(where),
				 "one CPU: the wrapper's loop is not pinned (--shaper-cpu)");

		dr_add(d, "realtime", false, DR_OK, NULL,
		       "SCHED_FIFO %d and locked memory granted to the shaper; normal tasks keep "
		       "at least 5%% of every CPU (the kernel's fair server since 6.12, real-time "
		       "throttling before it: kernel.sched_rt_runtime_us %ld); %s; while it "
		       "shapes, the CPUs are kept out of idle by %s",
		       prio, budget, where,
		       awake == TS_AWAKE_POLL ? "SCHED_IDLE polling threads (no cpuidle driver)"
		       : awake == TS_AWAKE_PM_QOS
			       ? "a PM QoS request of 0 us (/dev/cpu_dma_latency)"
			       : "nothing (a guest in virtual time needs nothing)");
	}
}

/*
 * The kernel's preemption model (run/preempt.h): without full preemption
 * the real-time loop waits for other tasks' kernel work on its CPU.
 * Information, not a warning: a quiet host keeps its timing either way.
 */
static void check_preempt(struct doctor *d)
{
	const char *from;
	bool dynamic;
	enum ts_preempt m = ts_preempt_host(&from, &dynamic);

	if (ts_preempt_is_full(m))
		dr_add(d, "preemption", false, DR_OK, NULL,
		       "%s (%s): the shaper's real-time wake-up preempts other tasks' system calls",
		       ts_preempt_name(m), from);
	else if (m == TS_PREEMPT_UNKNOWN)
		dr_add(d, "preemption", false, DR_INFO,
		       "sudo mount -t debugfs none /sys/kernel/debug  # then run doctor again",
		       "unknown (%s in the version, the command line, debugfs or the kernel's "
		       "configuration): without full preemption other processes' system calls "
		       "delay the shaper's real-time wake-up (docs/datapath.md, \"What real time "
		       "cannot fix\")",
		       from);
	else
		dr_add(d, "preemption", false, DR_INFO,
		       dynamic ? "boot with preempt=full  # this kernel is PREEMPT_DYNAMIC"
			       : "a kernel built with CONFIG_PREEMPT, or PREEMPT_DYNAMIC and "
				 "preempt=full",
		       "%s (%s): the shaper's real-time wake-up waits for other processes' system "
		       "calls and process starts on its CPU, so a busy host adds to its release "
		       "timing error (docs/datapath.md, \"What real time cannot fix\")",
		       ts_preempt_name(m), from);
}

static void (*const checks[])(struct doctor *) = {
	check_privileges, check_iptables, check_link,  check_rootless, check_ipv6, check_cca,
	check_bpf,	  check_vm,	  check_tools, check_cpus,     check_rt,   check_preempt,
};

/* ---- output ---------------------------------------------------------------- */

static bool dr_core_ok(const struct doctor *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->r[i].core && d->r[i].status == DR_FAIL)
			return false;
	return true;
}

static void print_text(const struct doctor *d)
{
	static const char *const tag[] = {"OK  ", "WARN", "FAIL", "info"};
	size_t i;

	for (i = 0; i < d->n; i++) {
		const struct dr_result *r = &d->r[i];

		printf("%s  %-20s %s\n", tag[r->status], r->check, r->detail);
		if (r->fix[0] && r->status != DR_OK)
			printf("      %-20s fix: %s\n", "", r->fix);
	}
	printf("\n%s\n", dr_core_ok(d) ? "tasshape can run here (core checks passed)."
				       : "tasshape cannot run here yet: fix the FAIL lines above.");
}

static int print_json(const struct doctor *d)
{
	json_object *root = json_object_new_object(), *arr = json_object_new_array();
	bool nomem = false;
	size_t i;
	int ret;

	ts_json_put(root, "ok", json_object_new_boolean(dr_core_ok(d)), &nomem);
	for (i = 0; i < d->n; i++) {
		const struct dr_result *r = &d->r[i];
		json_object *o = json_object_new_object();

		ts_json_put_str(o, "check", r->check, &nomem);
		ts_json_put_str(o, "status", dr_status_name[r->status], &nomem);
		ts_json_put(o, "core", json_object_new_boolean(r->core), &nomem);
		ts_json_put_str(o, "detail", r->detail, &nomem);
		if (r->fix[0])
			ts_json_put_str(o, "fix", r->fix, &nomem);
		ts_json_append(arr, o, &nomem);
	}
	ts_json_put(root, "checks", arr, &nomem);
	if (nomem) {
		json_object_put(root);
		return ts_cli_error("doctor: out of memory");
	}
	ret = puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return ret < 0 ? 1 : 0;
}

/* ---- command line ---------------------------------------------------------- */

struct doctor_cli {
	bool json;
	uint64_t rate;
};

enum { OPT_JSON = 0x600, OPT_RATE };

static const struct argp_option doctor_options[] = {
	{"json", OPT_JSON, NULL, 0,
	 "Print the checks as JSON (ok, checks[]: check, status, core, "
	 "detail, fix)",
	 0},
	{"rate", OPT_RATE, "RATE", 0,
	 "The highest link rate you plan to emulate (e.g. 1gbit), checked against the CPUs", 0},
	{0}};

static error_t doctor_parse(int key, char *arg, struct argp_state *state)
{
	struct doctor_cli *a = state->input;
	struct ts_err err;

	switch (key) {
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_RATE:
		if (ts_parse_rate(arg, &a->rate, 0, &err) < 0)
			argp_error(state, "--rate: %s", err.msg);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "'%s': doctor takes no arguments", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp doctor_argp = {
	doctor_options,
	doctor_parse,
	NULL,
	"Check what this host can run: privileges, iptables, namespaces and veth, NFQUEUE (a "
	"throw-away namespace passes one packet through a queue, then is removed), IPv6, "
	"congestion controls (bbr's version, tas and its parameters, what an unprivileged user "
	"may pick), BPF struct_ops, QEMU and KVM, the tools the features use, and the CPUs. "
	"Each problem comes with the command that fixes it. Exit status 0 when the core checks "
	"(privileges, iptables, namespaces, nfqueue) pass, else 1.\v"
	"Examples:\n"
	"  sudo tasshape doctor\n"
	"  sudo tasshape doctor --rate 2gbit\n"
	"  sudo tasshape doctor --json | jq -r '.checks[] | select(.status == \"fail\") | .fix'",
	NULL,
	NULL,
	NULL};

int cmd_doctor(int argc, char **argv)
{
	struct doctor_cli a = {0};
	struct doctor *d;
	size_t i;
	int ret;

	argp_parse(&doctor_argp, argc, argv, 0, NULL, &a);
	d = calloc(1, sizeof(*d));
	if (!d)
		return ts_cli_error("out of memory");
	d->rate = a.rate;
	for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		checks[i](d);
	ret = a.json ? print_json(d) : (print_text(d), 0);
	if (!ret && !dr_core_ok(d))
		ret = 1;
	free(d);
	return ret;
}

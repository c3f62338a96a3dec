/* SPDX-License-Identifier: MIT */
/*
 * Root-only check of the topology layer (src/net/topo.c, ipt.c, netns.c,
 * rtnl.c) against the real kernel. It runs in a private network namespace
 * of its own, so the namespace it treats as "outer" is not the host's:
 * no host forwarding sysctl, link or rule is touched. /run/netns is
 * shared with the host, so it only looks at names carrying its own pids.
 *
 *   1. two topologies side by side: distinct subnets, TCP over IPv4 and
 *      IPv6 from each inner namespace to the outer address, `ip netns exec`
 *      sees the namespace, NFQUEUE rules (with --queue-bypass, nobody
 *      listens) count the packets of the data path; destroy leaves nothing.
 *      A third one nested in the first's inner namespace avoids its /30.
 *   2. a child builds a topology and is SIGKILLed; cleanup keeps its
 *      objects while it lives, removes exactly them after it died.
 *
 * Also: namespace create/open/run edge cases.
 *
 * Exit status: 0 pass, 1 fail, 77 skipped (not root, no namespaces).
 * `topo_check --here` uses the caller's namespace as outer instead.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/ipt.h"
#include "net/netns.h"
#include "net/prog.h"
#include "net/rtnl.h"
#include "net/topo.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                       \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			failures++;                                                                \
			goto out;                                                                  \
		}                                                                                  \
	} while (0)

/* --- pure parsing checks (no root needed) --- */

static void check_parsers(void)
{
	char line[] = "-A PREROUTING -i tas12-0o -m comment --comment \"tas:12\" "
		      "-j NFQUEUE --queue-num 5";
	char quoted[] = "-A X -m comment --comment \"a b\\\"c\\\\\" -j ACCEPT";
	char bad[] = "-A X --comment \"open";
	char many[] = "-A X -j ACCEPT";
	char *w[16];
	pid_t pid = 0;
	int n;

	n = ts_ipt_split(line, w, 15);
	/*
	 * -A PREROUTING -i tas12-0o -m comment --comment tas:12 -j NFQUEUE --queue-num 5:
	 * 12 words, the quotes around tas:12 removed.
	 */
	CHECK(n == 12, "split: %d words, want 12", n);
	CHECK(!strcmp(w[7], "tas:12") && !strcmp(w[11], "5") && w[12] == NULL,
	      "split words: '%s' '%s'", w[7], w[11]);
	n = ts_ipt_split(quoted, w, 15);
	CHECK(n == 8 && !strcmp(w[5], "a b\"c\\"), "quoted: n=%d '%s'", n, n > 5 ? w[5] : "");
	CHECK(ts_ipt_split(bad, w, 15) == -EINVAL, "unterminated quote accepted");
	CHECK(ts_ipt_split(many, w, 2) == -E2BIG, "overlong line accepted");

	CHECK(ts_ipt_tag_pid("tas:4194304", &pid) == 0 && pid == 4194304, "tag pid");
	CHECK(ts_ipt_tag_pid("tas:0", &pid) < 0 && ts_ipt_tag_pid("tas:12x", &pid) < 0 &&
		      ts_ipt_tag_pid("tas:", &pid) < 0 && ts_ipt_tag_pid("xtas:1", &pid) < 0 &&
		      ts_ipt_tag_pid("tas:99999999999", &pid) < 0,
	      "bad tags accepted");
	CHECK(ts_topo_link_pid("tas4194304-999o", &pid) == 0 && pid == 4194304, "link name");
	CHECK(ts_topo_link_pid("tas7-0i", &pid) == 0 && pid == 7, "link name short");
	CHECK(ts_topo_link_pid("tas7-0", &pid) < 0 && ts_topo_link_pid("tas7-0ox", &pid) < 0 &&
		      ts_topo_link_pid("tas-7-0o", &pid) < 0 &&
		      ts_topo_link_pid("tas07-0o", &pid) < 0 && ts_topo_link_pid("eth0", &pid) < 0,
	      "bad link names accepted");
	CHECK(ts_topo_netns_pid("tas-31-2", &pid) == 0 && pid == 31, "netns name");
	CHECK(ts_topo_netns_pid("tas-31-2x", &pid) < 0 && ts_topo_netns_pid("tas-31", &pid) < 0 &&
		      ts_topo_netns_pid("tas31-2", &pid) < 0,
	      "bad netns names accepted");
out:
	return;
}

/* --- helpers --- */

static int run_capture(int netns_fd, const char *const *args, struct ts_buf *out)
{
	char path[PATH_MAX], errtxt[256];
	int ret;

	ret = ts_prog_find(args[0], path, sizeof(path));
	if (ret < 0) {
		fprintf(stderr, "%s not found\n", args[0]);
		return ret;
	}
	ret = ts_prog_run(netns_fd, path, (char *const *)args, out, errtxt, sizeof(errtxt));
	if (ret != 0)
		fprintf(stderr, "%s: exit %d: %s\n", args[0], ret, errtxt);
	return ret;
}

/* True when @buf holds the tag "tas:<pid>" not followed by another digit. */
static int has_tag(const char *buf, pid_t pid)
{
	char tag[32];
	const char *p;
	size_t len;

	len = (size_t)snprintf(tag, sizeof(tag), "tas:%ld", (long)pid);
	for (p = buf; p && (p = strstr(p, tag)) != NULL; p += len)
		if (p[len] < '0' || p[len] > '9')
			return 1;
	return 0;
}

/* Counts what is left of owner @pid; prints each kind found. */
static int leftovers(pid_t pid)
{
	static const char *const link_args[] = {"ip", "-o", "link", "show", NULL};
	char want[32];
	struct ts_buf out = {0};
	struct ts_err err;
	struct dirent *de;
	int n = 0, fam;
	DIR *d;

	if (run_capture(-1, link_args, &out) == 0) {
		snprintf(want, sizeof(want), " tas%ld-", (long)pid);
		if (strstr(out.data, want)) {
			fprintf(stderr, "  found: link%s...\n", want);
			n++;
		}
	} else {
		n++;
	}
	ts_buf_free(&out);
	snprintf(want, sizeof(want), "tas-%ld-", (long)pid);
	d = opendir(TS_NETNS_DIR);
	while (d && (de = readdir(d)) != NULL) {
		if (!strncmp(de->d_name, want, strlen(want))) {
			fprintf(stderr, "  found: %s/%s\n", TS_NETNS_DIR, de->d_name);
			n++;
		}
	}
	if (d)
		closedir(d);
	for (fam = 0; fam < 2; fam++) {
		if (ts_ipt_save(-1, fam ? AF_INET6 : AF_INET, false, &out, &err) < 0) {
			fprintf(stderr, "  %s\n", err.msg);
			n++;
		} else if (out.data && has_tag(out.data, pid)) {
			fprintf(stderr, "  found: %s rule tagged tas:%ld\n",
				fam ? "ip6tables" : "iptables", (long)pid);
			n++;
		}
		ts_buf_free(&out);
	}
	return n;
}

/*
 * Packets counted by the first rule in `iptables-save -c` output of
 * namespace @fd whose line holds both @a and @b; -1 when there is none.
 */
static long long rule_packets(int fd, int family, const char *a, const char *b)
{
	struct ts_buf out = {0};
	struct ts_err err;
	long long pk = -1;
	char *line, *save = NULL;

	if (ts_ipt_save(fd, family, true, &out, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	for (line = out.data ? strtok_r(out.data, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '[' && strstr(line, a) && strstr(line, b) &&
		    sscanf(line, "[%lld:", &pk) == 1)
			break;
	}
	ts_buf_free(&out);
	return pk;
}

static void set_timeouts(int s)
{
	struct timeval tv = {.tv_sec = 3};

	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* In a child inside the inner namespace: connect, send "ping", expect "pong". */
static void __attribute__((noreturn))
tcp_client(int inner_fd, const struct sockaddr *sa, socklen_t salen)
{
	char buf[4];
	int s;

	if (setns(inner_fd, CLONE_NEWNET) < 0)
		_exit(2);
	s = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		_exit(3);
	set_timeouts(s);
	if (connect(s, sa, salen) < 0)
		_exit(4);
	if (send(s, "ping", 4, 0) != 4)
		_exit(5);
	if (recv(s, buf, 4, MSG_WAITALL) != 4 || memcmp(buf, "pong", 4) != 0)
		_exit(6);
	_exit(0);
}

/*
 * TCP from the inner namespace to the outer address of @t: proves the
 * addresses, the links, ARP/ND and the routes in both directions.
 */
static int tcp_check(const struct ts_topo *t, int family)
{
	struct sockaddr_storage ss = {0};
	socklen_t len =
		family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	struct pollfd pfd;
	int ls = -1, cs = -1, status = 0, ok = 0;
	char buf[4];
	pid_t pid = -1;

	if (family == AF_INET) {
		s4->sin_family = AF_INET;
		s4->sin_addr = t->v4_out;
	} else {
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = t->v6_out;
	}
	ls = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(ls >= 0, "socket: %s", strerror(errno));
	CHECK(bind(ls, (struct sockaddr *)&ss, len) == 0 && listen(ls, 1) == 0 &&
		      getsockname(ls, (struct sockaddr *)&ss, &len) == 0,
	      "listen on the outer address: %s", strerror(errno));
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		tcp_client(t->inner.fd, (struct sockaddr *)&ss, len);
	pfd.fd = ls;
	pfd.events = POLLIN;
	CHECK(poll(&pfd, 1, 5000) == 1, "no connection from the inner namespace (IPv%d)",
	      family == AF_INET ? 4 : 6);
	cs = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
	CHECK(cs >= 0, "accept: %s", strerror(errno));
	set_timeouts(cs);
	CHECK(recv(cs, buf, 4, MSG_WAITALL) == 4 && !memcmp(buf, "ping", 4), "no ping received");
	CHECK(send(cs, "pong", 4, 0) == 4, "send pong: %s", strerror(errno));
	ok = 1;
out:
	if (cs >= 0)
		close(cs);
	if (ls >= 0)
		close(ls);
	if (pid > 0) {
		waitpid(pid, &status, 0);
		if (ok && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			fprintf(stderr, "FAIL: IPv%d client exited with status %d\n",
				family == AF_INET ? 4 : 6, status);
			failures++;
			ok = 0;
		}
	}
	return ok ? 0 : -1;
}

/* --- namespace API edge cases --- */

static int ns_inode(unsigned long *ino)
{
	struct stat st;

	if (stat("/proc/thread-self/ns/net", &st) < 0)
		return -errno;
	*ino = (unsigned long)st.st_ino;
	return 0;
}

static int report_inode(void *arg)
{
	return ns_inode(arg) < 0 ? -EIO : 42;
}

static void part_netns(void)
{
	struct ts_netns ns, dup;
	struct ts_err err;
	char name[64];
	unsigned long before = 0, inside = 0, after = 0;
	int made = 0, r;

	CHECK(ts_netns_create(&ns, "a/b", &err) == -EINVAL, "name with '/' accepted");
	CHECK(ts_netns_open(&ns, "tas-no-such-namespace", &err) == -ENOENT, "open missing: %s",
	      err.msg);
	snprintf(name, sizeof(name), "tas-%ld-999", (long)getpid());
	CHECK(ts_netns_create(&ns, name, &err) == 0, "create: %s", err.msg);
	made = 1;
	CHECK(ts_netns_create(&dup, name, &err) == -EEXIST, "duplicate name accepted");
	CHECK(ns_inode(&before) == 0, "stat ns");
	/* fn's value comes back, and the thread is home again afterwards. */
	r = ts_netns_run(ns.fd, report_inode, &inside, &err);
	CHECK(r == 42, "run returned %d: %s", r, err.msg);
	CHECK(ns_inode(&after) == 0 && after == before && inside != before,
	      "namespace inodes before %lu inside %lu after %lu", before, inside, after);
	CHECK(ts_netns_destroy(&ns, &err) == 0, "destroy: %s", err.msg);
	made = 0;
	snprintf(name, sizeof(name), "%s/tas-%ld-999", TS_NETNS_DIR, (long)getpid());
	CHECK(access(name, F_OK) < 0 && errno == ENOENT, "%s left", name);
out:
	if (made)
		ts_netns_destroy(&ns, NULL);
}

/* --- part 1: build, use, destroy --- */

struct nested {
	struct ts_topo *t;
	struct ts_err *err;
	int made;
};

static int nested_create(void *arg)
{
	struct nested *n = arg;

	n->made = 1;
	return ts_topo_create(n->t, TS_TOPO_FWD_V4, n->err);
}

static int nested_tcp(void *arg)
{
	struct nested *n = arg;

	return tcp_check(n->t, AF_INET);
}

static void part_topology(void)
{
	struct ts_topo a, b, c;
	struct ts_rtnl rt = {0};
	char stale_o[32], stale_i[32];
	int stale = 0;
	struct nested nest = {0};
	struct ts_err err = {{0}};
	struct ts_buf out = {0};
	char in4[INET_ADDRSTRLEN], in6[INET6_ADDRSTRLEN], needle[64];
	struct stat st;
	int made_a = 0, made_b = 0, r, fam;
	long long pk;

	/*
	 * A stale link with index 0's name (as a dead process with our pid
	 * would leave): create must give up index 0, remove the namespace it
	 * had reserved for it, and use index 1.
	 */
	snprintf(stale_o, sizeof(stale_o), "tas%ld-0o", (long)getpid());
	snprintf(stale_i, sizeof(stale_i), "tas%ld-0i", (long)getpid());
	CHECK(ts_rtnl_open(&rt, -1, &err) == 0, "%s", err.msg);
	CHECK(ts_rtnl_veth_add(&rt, stale_o, stale_i, -1, &err) == 0, "%s", err.msg);
	stale = 1;
	CHECK(ts_rtnl_veth_add(&rt, stale_o, "tasx", -1, &err) == -EEXIST, "EEXIST expected: %s",
	      err.msg);
	r = ts_topo_create(&a, TS_TOPO_FWD_V4 | TS_TOPO_FWD_V6 | TS_TOPO_NAT_V4 | TS_TOPO_NAT_V6,
			   &err);
	made_a = 1;
	CHECK(r == 0, "create a: %s", err.msg);
	snprintf(needle, sizeof(needle), "%s/tas-%ld-0", TS_NETNS_DIR, (long)getpid());
	CHECK(a.index == 1 && stat(needle, &st) < 0, "index %u, %s exists: %d", a.index, needle,
	      stat(needle, &st) == 0);
	CHECK(ts_rtnl_link_del(&rt, stale_o, &err) == 0, "%s", err.msg);
	stale = 0;
	r = ts_topo_create(&b, 0, &err);
	made_b = 1;
	CHECK(r == 0, "create b: %s", err.msg);
	printf("a: %s %s/%s %s %s\n", a.inner.name, a.veth_out, a.veth_in, a.v4_subnet,
	       a.v6_subnet);
	printf("b: %s %s/%s %s %s\n", b.inner.name, b.veth_out, b.veth_in, b.v4_subnet,
	       b.v6_subnet);
	CHECK(a.v6 && b.v6, "IPv6 unavailable");
	CHECK(a.index != b.index && strcmp(a.veth_out, b.veth_out) != 0, "same names");
	CHECK(a.v4_net.s_addr != b.v4_net.s_addr, "same subnet for two instances");
	/* The inner address is the outer one plus 1 in the same /30. */
	CHECK(ntohl(a.v4_in.s_addr) == ntohl(a.v4_out.s_addr) + 1 &&
		      (ntohl(a.v4_net.s_addr) & 3u) == 0 &&
		      ntohl(a.v4_out.s_addr) == ntohl(a.v4_net.s_addr) + 1,
	      "address layout");
	CHECK(stat(a.inner.path, &st) == 0, "%s missing", a.inner.path);

	/* iproute2 finds the namespace by name and sees our addresses in it. */
	{
		const char *args[] = {"ip",   "netns", "exec", a.inner.name, "ip", "-o",
				      "addr", "show",  "dev",  a.veth_in,    NULL};

		CHECK(run_capture(-1, args, &out) == 0, "ip netns exec %s failed", a.inner.name);
		inet_ntop(AF_INET, &a.v4_in, in4, sizeof(in4));
		inet_ntop(AF_INET6, &a.v6_in, in6, sizeof(in6));
		CHECK(strstr(out.data, in4) && strstr(out.data, in6), "addresses not seen: %s",
		      out.data);
		ts_buf_free(&out);
	}

	CHECK(tcp_check(&a, AF_INET) == 0, "IPv4 a");
	CHECK(tcp_check(&a, AF_INET6) == 0, "IPv6 a");
	CHECK(tcp_check(&b, AF_INET) == 0, "IPv4 b");
	CHECK(tcp_check(&b, AF_INET6) == 0, "IPv6 b");

	/* An instance inside a's inner namespace: a's /30 is taken there. */
	nest.t = &c;
	nest.err = &err;
	r = ts_topo_run_inner(&a, nested_create, &nest, &err);
	CHECK(r == 0, "nested create: %s", err.msg);
	printf("c (inside a): %s %s\n", c.inner.name, c.v4_subnet);
	CHECK(c.v4_net.s_addr != a.v4_net.s_addr, "nested instance reused the parent's subnet");
	CHECK(ts_topo_run_inner(&a, nested_tcp, &nest, &err) == 0, "IPv4 c");
	r = ts_topo_destroy(&c, &err);
	nest.made = 0;
	CHECK(r == 0, "destroy c: %s", err.msg);

	/* All three hooks with bypass: nobody listens, packets pass and are counted. */
	CHECK(ts_topo_queue(&a, TS_HOOK_UP_SENDER, 10, TS_IPT_BYPASS, &err) == 0, "%s", err.msg);
	CHECK(ts_topo_queue(&a, TS_HOOK_UP_NETWORK, 11, TS_IPT_BYPASS, &err) == 0, "%s", err.msg);
	CHECK(ts_topo_queue(&a, TS_HOOK_DOWN_NETWORK, 12, TS_IPT_BYPASS, &err) == 0, "%s", err.msg);
	/* 3 hooks x 2 families + 2 MASQUERADE rules */
	CHECK(a.rules.n == 8, "%zu rules remembered, want 8", a.rules.n);
	CHECK(tcp_check(&a, AF_INET) == 0, "IPv4 a with NFQUEUE bypass rules");
	CHECK(tcp_check(&a, AF_INET6) == 0, "IPv6 a with NFQUEUE bypass rules");
	for (fam = AF_INET; fam; fam = fam == AF_INET ? AF_INET6 : 0) {
		snprintf(needle, sizeof(needle), "-o %s ", a.veth_in);
		pk = rule_packets(a.inner.fd, fam, "-A OUTPUT", needle);
		CHECK(pk > 0, "uplink sender rule (family %d) counted %lld packets", fam, pk);
		snprintf(needle, sizeof(needle), "-i %s ", a.veth_in);
		pk = rule_packets(a.inner.fd, fam, "-A PREROUTING", needle);
		CHECK(pk > 0, "downlink network rule (family %d) counted %lld packets", fam, pk);
		snprintf(needle, sizeof(needle), "-i %s ", a.veth_out);
		pk = rule_packets(-1, fam, "-A PREROUTING", needle);
		CHECK(pk > 0, "uplink network rule (family %d) counted %lld packets", fam, pk);
		pk = rule_packets(-1, fam, "MASQUERADE",
				  fam == AF_INET ? a.v4_subnet : a.v6_subnet);
		CHECK(pk >= 0, "MASQUERADE rule (family %d) missing", fam);
	}

	r = ts_topo_destroy(&a, &err);
	made_a = 0;
	CHECK(r == 0, "destroy a: %s", err.msg);
	r = ts_topo_destroy(&b, &err);
	made_b = 0;
	CHECK(r == 0, "destroy b: %s", err.msg);
	CHECK(ts_topo_destroy(&a, &err) == 0, "second destroy: %s", err.msg);
	CHECK(leftovers(getpid()) == 0, "objects left after destroy");
out:
	ts_buf_free(&out);
	if (stale)
		ts_rtnl_link_del(&rt, stale_o, NULL);
	ts_rtnl_close(&rt);
	if (nest.made)
		ts_topo_destroy(&c, NULL); /* before a: it lives inside a */
	if (made_a)
		ts_topo_destroy(&a, NULL);
	if (made_b)
		ts_topo_destroy(&b, NULL);
}

/* --- part 2: a crashed owner --- */

static void __attribute__((noreturn)) crash_child(int wfd)
{
	struct ts_topo t;
	struct ts_err err = {{0}};
	char msg[TS_ERR_MAX + 8];
	int n;

	if (ts_topo_create(&t, TS_TOPO_FWD_V4 | TS_TOPO_NAT_V4, &err) < 0 ||
	    ts_topo_queue(&t, TS_HOOK_UP_NETWORK, 20, TS_IPT_BYPASS, &err) < 0) {
		n = snprintf(msg, sizeof(msg), "ERR %s", err.msg);
		if (write(wfd, msg, (size_t)n) < 0)
			_exit(1);
		_exit(1);
	}
	if (write(wfd, "OK", 2) != 2)
		_exit(1);
	for (;;)
		pause(); /* until SIGKILL: no destructor runs */
}

static void note_line(void *arg, const char *line)
{
	(void)arg;
	printf("  cleanup: %s\n", line);
}

static void part_crash(void)
{
	struct ts_cleanup_opts o = {.note = note_line};
	struct ts_cleanup_stats st;
	struct ts_err err = {{0}};
	struct pollfd pfd;
	char msg[TS_ERR_MAX + 8] = "";
	int p[2] = {-1, -1}, status;
	pid_t child = -1;
	ssize_t n;

	CHECK(pipe2(p, O_CLOEXEC) == 0, "pipe: %s", strerror(errno));
	child = fork();
	CHECK(child >= 0, "fork: %s", strerror(errno));
	if (child == 0) {
		close(p[0]);
		crash_child(p[1]);
	}
	close(p[1]);
	p[1] = -1;
	pfd.fd = p[0];
	pfd.events = POLLIN;
	CHECK(poll(&pfd, 1, 10000) == 1, "child did not report");
	n = read(p[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	CHECK(!strcmp(msg, "OK"), "child: %s", msg);
	/* link, namespace, an iptables and an ip6tables rule */
	CHECK(leftovers(child) == 4, "child's netns, link and rules not all visible");

	o.only_pid = child;
	CHECK(ts_topo_cleanup(&o, &st, &err) == 0, "cleanup: %s", err.msg);
	/* Alive owner: 3 rules (v4+v6 NFQUEUE, v4 MASQUERADE) + 1 link + 1 netns kept. */
	CHECK(st.rules == 0 && st.links == 0 && st.netns == 0 && st.kept == 5,
	      "live owner: removed %u/%u/%u kept %u, want 0/0/0 kept 5", st.rules, st.links,
	      st.netns, st.kept);

	kill(child, SIGKILL);
	CHECK(waitpid(child, &status, 0) == child, "waitpid: %s", strerror(errno));
	CHECK(ts_topo_cleanup(&o, &st, &err) == 0, "cleanup: %s", err.msg);
	CHECK(st.rules == 3 && st.links == 1 && st.netns == 1 && st.kept == 0,
	      "dead owner: removed %u rules, %u links, %u netns, kept %u; want 3/1/1/0", st.rules,
	      st.links, st.netns, st.kept);
	CHECK(leftovers(child) == 0, "objects left after cleanup");
	child = -1;
out:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		o.only_pid = child;
		o.force = true;
		ts_topo_cleanup(&o, &st, NULL);
	}
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

int main(int argc, char **argv)
{
	struct ts_cleanup_opts own = {.force = true};
	struct ts_err err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	check_parsers();
	if (failures)
		return 1;
	if (geteuid() != 0) {
		printf("SKIP: topo_check needs root\n");
		return 77;
	}
	if (!(argc > 1 && !strcmp(argv[1], "--here")) && unshare(CLONE_NEWNET) < 0) {
		printf("SKIP: cannot create a network namespace: %s\n", strerror(errno));
		return 77;
	}
	if (ts_ipt_check(AF_INET, &err) < 0 || ts_ipt_check(AF_INET6, &err) < 0) {
		printf("SKIP: %s\n", err.msg);
		return 77;
	}
	part_netns();
	if (!failures)
		part_topology();
	if (!failures)
		part_crash();
	/* Whatever happened, leave nothing of ours behind. */
	own.only_pid = getpid();
	ts_topo_cleanup(&own, NULL, NULL);
	printf("%s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}

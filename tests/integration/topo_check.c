/* SPDX-License-Identifier: MIT */
/*
 * Root-only check of the topology layer (src/net/topo.c, ipt.c, netns.c,
 * rtnl.c) against the real kernel. It runs in a private network namespace
 * of its own, so the namespace it treats as "outer" is not the host's:
 * no host forwarding sysctl, link or rule is touched. /run/netns is
 * shared with the host, so it only looks at names carrying its own pids.
 *
 *   1. two topologies (outer <-> link <-> inner) side by side: distinct
 *      /29 blocks, the address layout, `ip netns exec` sees both
 *      namespaces and their addresses, the link namespace forwards with
 *      rp_filter off, the outer route to the inner subnet; TCP over IPv4
 *      and IPv6 from each inner namespace to the outer address and from
 *      the outer side to the inner address; NFQUEUE rules (with
 *      --queue-bypass, nobody listens) count the packets at the three
 *      hooks. A third one nested in the first's inner namespace avoids its
 *      block, works both ways, and reaches the top namespace through both
 *      link namespaces (NAT in the first's inner one), seen by the first's
 *      sender hook. Destroy leaves nothing (namespaces, links, rules,
 *      routes).
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
#include <stdint.h>
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
	CHECK(ts_topo_link_pid("tas7-0u", &pid) == 0 && pid == 7 &&
		      ts_topo_link_pid("tas8-1d", &pid) == 0 && pid == 8,
	      "link namespace link names");
	CHECK(ts_topo_link_pid("tas7-0", &pid) < 0 && ts_topo_link_pid("tas7-0ox", &pid) < 0 &&
		      ts_topo_link_pid("tas-7-0o", &pid) < 0 &&
		      ts_topo_link_pid("tas07-0o", &pid) < 0 &&
		      ts_topo_link_pid("eth0", &pid) < 0 && ts_topo_link_pid("tas7-0x", &pid) < 0,
	      "bad link names accepted");
	CHECK(ts_topo_netns_pid("tas-31-2", &pid) == 0 && pid == 31, "netns name");
	CHECK(ts_topo_netns_pid("tas-32-2-link", &pid) == 0 && pid == 32, "link netns name");
	CHECK(ts_topo_netns_pid("tas-33-2-s7", &pid) == 0 && pid == 33, "station netns name");
	CHECK(ts_topo_netns_pid("tas-33-2-s", &pid) < 0 &&
		      ts_topo_netns_pid("tas-33-2-s0", &pid) < 0 &&
		      ts_topo_netns_pid("tas-33-2-s1x", &pid) < 0,
	      "bad station netns names accepted");
	CHECK(ts_topo_netns_pid("tas-31-2x", &pid) < 0 && ts_topo_netns_pid("tas-31", &pid) < 0 &&
		      ts_topo_netns_pid("tas31-2", &pid) < 0 &&
		      ts_topo_netns_pid("tas-31-2-lin", &pid) < 0 &&
		      ts_topo_netns_pid("tas-31-2-linkx", &pid) < 0 &&
		      ts_topo_netns_pid("tas-31-2-", &pid) < 0,
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

/* True when the output of `ip [-6] -o route show` in the caller's namespace holds "@pfx ". */
static int route_present(int family, const char *pfx)
{
	const char *args4[] = {"ip", "-o", "route", "show", NULL};
	const char *args6[] = {"ip", "-6", "-o", "route", "show", NULL};
	struct ts_buf out = {0};
	char want[INET6_ADDRSTRLEN + 8];
	int found;

	if (run_capture(-1, family == AF_INET6 ? args6 : args4, &out) != 0)
		return -1;
	snprintf(want, sizeof(want), "%s ", pfx);
	found = out.data && strstr(out.data, want) != NULL;
	ts_buf_free(&out);
	return found;
}

/* Subnet A (the inner side) of @t as `ip route` prints it: "a.b.c.d/30", "fd74:...::/64". */
static void subnet_a(const struct ts_topo *t, int family, char *buf, size_t len)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (family == AF_INET) {
		a4.s_addr = htonl(ntohl(t->v4_in.s_addr) & ~3u);
		inet_ntop(AF_INET, &a4, buf, (socklen_t)len);
		snprintf(buf + strlen(buf), len - strlen(buf), "/30");
	} else {
		a6 = t->v6_in;
		a6.s6_addr[15] = 0;
		inet_ntop(AF_INET6, &a6, buf, (socklen_t)len);
		snprintf(buf + strlen(buf), len - strlen(buf), "/64");
	}
}

/*
 * Counts what is left of owner @pid (links, namespaces, tagged rules) and
 * of the outer routes @routes4/@routes6 (NULL-terminated, may be NULL);
 * prints each kind found.
 */
static int leftovers(pid_t pid, const char *const *routes4, const char *const *routes6)
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
	for (; routes4 && *routes4; routes4++)
		if (route_present(AF_INET, *routes4) != 0) {
			fprintf(stderr, "  found: route to %s (or no `ip`)\n", *routes4);
			n++;
		}
	for (; routes6 && *routes6; routes6++)
		if (route_present(AF_INET6, *routes6) != 0) {
			fprintf(stderr, "  found: route to %s (or no `ip`)\n", *routes6);
			n++;
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

struct sysctl_read {
	const char *key;
	long val;
};

static int sysctl_read_here(void *arg)
{
	struct sysctl_read *r = arg;
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/%s", r->key);
	r->val = -1;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fscanf(f, "%ld", &r->val) != 1)
		r->val = -1;
	fclose(f);
	return 0;
}

/* The number in /proc/sys/@key of namespace @fd; -1 on error. */
static long sysctl_in(int fd, const char *key)
{
	struct sysctl_read r = {.key = key, .val = -1};
	struct ts_err err;

	if (ts_netns_run(fd, sysctl_read_here, &r, &err) < 0)
		return -1;
	return r.val;
}

static void set_timeouts(int s)
{
	struct timeval tv = {.tv_sec = 3};

	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* In a child, in namespace @ns_fd (-1: the parent's): connect, send "ping", expect "pong". */
static void __attribute__((noreturn))
tcp_client(int ns_fd, const struct sockaddr *sa, socklen_t salen)
{
	char buf[4];
	int s;

	if (ns_fd >= 0 && setns(ns_fd, CLONE_NEWNET) < 0)
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

struct listener {
	struct sockaddr_storage ss; /* in: the address; out: with the port */
	socklen_t len;
	int fd;
};

static int listen_here(void *arg)
{
	struct listener *l = arg;

	l->fd = socket(l->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l->fd < 0)
		return -errno;
	if (bind(l->fd, (struct sockaddr *)&l->ss, l->len) < 0 || listen(l->fd, 1) < 0 ||
	    getsockname(l->fd, (struct sockaddr *)&l->ss, &l->len) < 0)
		return -errno;
	return 0;
}

/*
 * TCP from namespace @cli_ns to address @addr (in_addr/in6_addr by
 * @family) of a listener in namespace @srv_ns (either -1: the calling
 * thread's): proves the addresses, links, ARP/ND, routes and forwarding
 * on the way, in both directions.
 */
static int tcp_check(int srv_ns, const void *addr, int family, int cli_ns)
{
	struct listener l = {.fd = -1};
	struct sockaddr_in *s4 = (struct sockaddr_in *)&l.ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&l.ss;
	char txt[INET6_ADDRSTRLEN];
	struct ts_err err = {{0}};
	struct pollfd pfd;
	int cs = -1, status = 0, ok = 0, r;
	char buf[4];
	pid_t pid = -1;

	inet_ntop(family, addr, txt, sizeof(txt));
	if (family == AF_INET) {
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, addr, sizeof(s4->sin_addr));
		l.len = sizeof(*s4);
	} else {
		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, addr, sizeof(s6->sin6_addr));
		l.len = sizeof(*s6);
	}
	r = srv_ns >= 0 ? ts_netns_run(srv_ns, listen_here, &l, &err) : listen_here(&l);
	CHECK(r == 0, "listen on %s: %s %s", txt, strerror(-r), err.msg);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		tcp_client(cli_ns, (struct sockaddr *)&l.ss, l.len);
	pfd.fd = l.fd;
	pfd.events = POLLIN;
	CHECK(poll(&pfd, 1, 5000) == 1, "no connection to %s", txt);
	cs = accept4(l.fd, NULL, NULL, SOCK_CLOEXEC);
	CHECK(cs >= 0, "accept: %s", strerror(errno));
	set_timeouts(cs);
	CHECK(recv(cs, buf, 4, MSG_WAITALL) == 4 && !memcmp(buf, "ping", 4), "no ping received");
	CHECK(send(cs, "pong", 4, 0) == 4, "send pong: %s", strerror(errno));
	ok = 1;
out:
	if (cs >= 0)
		close(cs);
	if (l.fd >= 0)
		close(l.fd);
	if (pid > 0) {
		waitpid(pid, &status, 0);
		if (ok && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			fprintf(stderr, "FAIL: client to %s exited with status %d\n", txt, status);
			failures++;
			ok = 0;
		}
	}
	return ok ? 0 : -1;
}

/* Both directions between the inner and the outer namespace of @t, over @family. */
static int tcp_both(const struct ts_topo *t, int family)
{
	int up = tcp_check(-1, family == AF_INET ? (const void *)&t->v4_out : &t->v6_out, family,
			   t->inner.fd);
	int down = tcp_check(t->inner.fd, family == AF_INET ? (const void *)&t->v4_in : &t->v6_in,
			     family, -1);

	return up == 0 && down == 0 ? 0 : -1;
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
	return ts_topo_create(n->t, TS_TOPO_FWD_V4 | TS_TOPO_NAT_V4, n->err);
}

/* Run inside the parent's inner namespace, which is the nested instance's outer one. */
static int nested_tcp(void *arg)
{
	struct nested *n = arg;
	int r4 = tcp_both(n->t, AF_INET), r6 = tcp_both(n->t, AF_INET6);

	return r4 == 0 && r6 == 0 ? 0 : -1;
}

/* `ip netns exec @ns ip -o addr show` holds every address in @want (NULL-terminated). */
static int addrs_seen(const char *ns, const char *const *want)
{
	const char *args[] = {"ip", "netns", "exec", ns, "ip", "-o", "addr", "show", NULL};
	struct ts_buf out = {0};
	int ok = 1;

	if (run_capture(-1, args, &out) != 0)
		return 0;
	for (; *want; want++)
		if (!out.data || !strstr(out.data, *want)) {
			fprintf(stderr, "%s not in namespace %s: %s\n", *want, ns,
				out.data ? out.data : "");
			ok = 0;
		}
	ts_buf_free(&out);
	return ok;
}

/*
 * The layout of topo.h: a /29 block N, outer N+1, link N+2 | link N+5,
 * inner N+6, and the /64 of each /30 with ::1 and ::2; names by index.
 */
static void check_layout(const struct ts_topo *t)
{
	uint32_t n = ntohl(t->v4_net.s_addr);
	struct in6_addr b6 = {{{0xfd, 0x74, 0x61, 0x73}}}, a6;
	char name[64], txt[4][INET6_ADDRSTRLEN];
	long pid = (long)getpid();
	uint32_t a_net = htonl(n + 4);
	const char *want[5];

	CHECK((n & 7u) == 0 && ntohl(t->v4_out.s_addr) == n + 1 &&
		      ntohl(t->v4_lu.s_addr) == n + 2 && ntohl(t->v4_ld.s_addr) == n + 5 &&
		      ntohl(t->v4_in.s_addr) == n + 6 && t->v4_plen == 30,
	      "IPv4 layout of %s", t->v4_subnet);
	memcpy(&b6.s6_addr[4], &t->v4_net.s_addr, 4);
	a6 = b6;
	memcpy(&a6.s6_addr[4], &a_net, 4);
	b6.s6_addr[15] = 1;
	CHECK(!memcmp(&t->v6_out, &b6, 16), "IPv6 outer address");
	b6.s6_addr[15] = 2;
	CHECK(!memcmp(&t->v6_lu, &b6, 16), "IPv6 link (outer side) address");
	a6.s6_addr[15] = 1;
	CHECK(!memcmp(&t->v6_ld, &a6, 16), "IPv6 link (inner side) address");
	a6.s6_addr[15] = 2;
	CHECK(!memcmp(&t->v6_in, &a6, 16) && t->v6_plen == 64, "IPv6 inner address");
	CHECK(strstr(t->v4_subnet, "/29") && strstr(t->v6_subnet, "::/61"), "blocks %s %s",
	      t->v4_subnet, t->v6_subnet);
	snprintf(name, sizeof(name), "tas-%ld-%u-link", pid, t->index);
	CHECK(!strcmp(t->link.name, name), "link namespace %s, want %s", t->link.name, name);
	snprintf(name, sizeof(name), "tas%ld-%uu", pid, t->index);
	CHECK(!strcmp(t->veth_lu, name), "veth_lu %s", t->veth_lu);
	snprintf(name, sizeof(name), "tas%ld-%ud", pid, t->index);
	CHECK(!strcmp(t->veth_ld, name), "veth_ld %s", t->veth_ld);

	/* iproute2 finds both namespaces by name and sees the addresses in them. */
	inet_ntop(AF_INET, &t->v4_in, txt[0], sizeof(txt[0]));
	inet_ntop(AF_INET6, &t->v6_in, txt[1], sizeof(txt[1]));
	want[0] = txt[0];
	want[1] = txt[1];
	want[2] = NULL;
	CHECK(addrs_seen(t->inner.name, want), "inner addresses");
	inet_ntop(AF_INET, &t->v4_lu, txt[0], sizeof(txt[0]));
	inet_ntop(AF_INET6, &t->v6_lu, txt[1], sizeof(txt[1]));
	inet_ntop(AF_INET, &t->v4_ld, txt[2], sizeof(txt[2]));
	inet_ntop(AF_INET6, &t->v6_ld, txt[3], sizeof(txt[3]));
	want[2] = txt[2];
	want[3] = txt[3];
	want[4] = NULL;
	CHECK(addrs_seen(t->link.name, want), "link namespace addresses");

	/* The link namespace routes, whatever the host's defaults. */
	snprintf(name, sizeof(name), "net/ipv4/conf/%s/rp_filter", t->veth_lu);
	CHECK(sysctl_in(t->link.fd, "net/ipv4/ip_forward") == 1 &&
		      sysctl_in(t->link.fd, "net/ipv6/conf/all/forwarding") == 1 &&
		      sysctl_in(t->link.fd, "net/ipv4/conf/all/rp_filter") == 0 &&
		      sysctl_in(t->link.fd, name) == 0,
	      "link namespace sysctls");

	/* The outer route to subnet A, via the link namespace. */
	subnet_a(t, AF_INET, txt[0], sizeof(txt[0]));
	CHECK(route_present(AF_INET, txt[0]) == 1, "no outer route to %s", txt[0]);
	subnet_a(t, AF_INET6, txt[0], sizeof(txt[0]));
	CHECK(route_present(AF_INET6, txt[0]) == 1, "no outer route to %s", txt[0]);
out:
	return;
}

/* The /29 blocks of @x and @y are disjoint. */
static int blocks_apart(const struct ts_topo *x, const struct ts_topo *y)
{
	return (ntohl(x->v4_net.s_addr) & ~7u) != (ntohl(y->v4_net.s_addr) & ~7u);
}

static void part_topology(void)
{
	struct ts_topo a, b, c;
	struct ts_rtnl rt = {0};
	char stale_o[32], stale_i[32];
	int stale = 0;
	struct nested nest = {0};
	struct ts_err err = {{0}};
	char needle[96], pfx[4][INET6_ADDRSTRLEN + 4];
	const char *r4[3] = {pfx[0], pfx[1], NULL}, *r6[3] = {pfx[2], pfx[3], NULL};
	struct stat st;
	int made_a = 0, made_b = 0, r, fam;
	long long pk, before;

	/*
	 * A stale link with index 0's name (as a dead process with our pid
	 * would leave): create must give up index 0, remove the namespaces it
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
	snprintf(needle, sizeof(needle), "%s/tas-%ld-0-link", TS_NETNS_DIR, (long)getpid());
	CHECK(stat(needle, &st) < 0, "%s left behind", needle);
	CHECK(ts_rtnl_link_del(&rt, stale_o, &err) == 0, "%s", err.msg);
	stale = 0;
	r = ts_topo_create(&b, 0, &err);
	made_b = 1;
	CHECK(r == 0, "create b: %s", err.msg);
	printf("a: %s %s %s/%s/%s/%s %s %s\n", a.inner.name, a.link.name, a.veth_out, a.veth_lu,
	       a.veth_ld, a.veth_in, a.v4_subnet, a.v6_subnet);
	printf("b: %s %s %s/%s/%s/%s %s %s\n", b.inner.name, b.link.name, b.veth_out, b.veth_lu,
	       b.veth_ld, b.veth_in, b.v4_subnet, b.v6_subnet);
	CHECK(a.v6 && b.v6, "IPv6 unavailable");
	CHECK(a.index != b.index && strcmp(a.veth_out, b.veth_out) != 0, "same names");
	CHECK(blocks_apart(&a, &b), "same block for two instances");
	check_layout(&a);
	check_layout(&b);
	CHECK(!failures, "layout");
	subnet_a(&a, AF_INET, pfx[0], sizeof(pfx[0]));
	subnet_a(&b, AF_INET, pfx[1], sizeof(pfx[1]));
	subnet_a(&a, AF_INET6, pfx[2], sizeof(pfx[2]));
	subnet_a(&b, AF_INET6, pfx[3], sizeof(pfx[3]));

	CHECK(tcp_both(&a, AF_INET) == 0, "IPv4 a");
	CHECK(tcp_both(&a, AF_INET6) == 0, "IPv6 a");
	CHECK(tcp_both(&b, AF_INET) == 0, "IPv4 b");
	CHECK(tcp_both(&b, AF_INET6) == 0, "IPv6 b");

	/* An instance inside a's inner namespace: a's subnet A is taken there. */
	nest.t = &c;
	nest.err = &err;
	r = ts_topo_run_inner(&a, nested_create, &nest, &err);
	CHECK(r == 0, "nested create: %s", err.msg);
	printf("c (inside a): %s %s %s\n", c.inner.name, c.link.name, c.v4_subnet);
	CHECK(blocks_apart(&a, &c), "nested instance reused the parent's block");
	CHECK(ts_topo_run_inner(&a, nested_tcp, &nest, &err) == 0, "c inner <-> c outer");
	/* c's inner to the top namespace: c link, a's inner (NAT), a's link, outer. */
	CHECK(tcp_check(-1, &a.v4_out, AF_INET, c.inner.fd) == 0, "c inner -> a outer");

	/* All three hooks with bypass: nobody listens, packets pass and are counted. */
	CHECK(ts_topo_queue(&a, TS_HOOK_UP_SENDER, 10, TS_IPT_BYPASS, &err) == 0, "%s", err.msg);
	CHECK(ts_topo_queue(&a, TS_HOOK_UP_NETWORK, 11, TS_IPT_BYPASS, &err) == 0, "%s", err.msg);
	CHECK(ts_topo_queue(&a, TS_HOOK_DOWN_NETWORK, 12, TS_IPT_BYPASS, &err) == 0, "%s", err.msg);
	/* 3 hooks x 2 families + 2 MASQUERADE rules */
	CHECK(a.rules.n == 8, "%zu rules remembered, want 8", a.rules.n);
	CHECK(tcp_both(&a, AF_INET) == 0, "IPv4 a with NFQUEUE bypass rules");
	CHECK(tcp_both(&a, AF_INET6) == 0, "IPv6 a with NFQUEUE bypass rules");
	for (fam = AF_INET; fam; fam = fam == AF_INET ? AF_INET6 : 0) {
		snprintf(needle, sizeof(needle), "-o %s ", a.veth_in);
		pk = rule_packets(a.inner.fd, fam, "-A POSTROUTING", needle);
		CHECK(pk > 0, "uplink sender rule (family %d) counted %lld packets", fam, pk);
		snprintf(needle, sizeof(needle), "-i %s ", a.veth_ld);
		pk = rule_packets(a.link.fd, fam, "-A PREROUTING", needle);
		CHECK(pk > 0, "uplink network rule (family %d) counted %lld packets", fam, pk);
		snprintf(needle, sizeof(needle), "-i %s ", a.veth_lu);
		pk = rule_packets(a.link.fd, fam, "-A PREROUTING", needle);
		CHECK(pk > 0, "downlink network rule (family %d) counted %lld packets", fam, pk);
		pk = rule_packets(-1, fam, "MASQUERADE",
				  fam == AF_INET ? a.v4_subnet : a.v6_subnet);
		CHECK(pk >= 0, "MASQUERADE rule (family %d) missing", fam);
	}
	/* What a's inner namespace forwards for c passes a's sender hook too. */
	snprintf(needle, sizeof(needle), "-o %s ", a.veth_in);
	before = rule_packets(a.inner.fd, AF_INET, "-A POSTROUTING", needle);
	CHECK(tcp_check(-1, &a.v4_out, AF_INET, c.inner.fd) == 0, "c inner -> a outer, hooked");
	pk = rule_packets(a.inner.fd, AF_INET, "-A POSTROUTING", needle);
	CHECK(pk > before, "sender hook: %lld packets before c's flow, %lld after", before, pk);

	r = ts_topo_destroy(&c, &err);
	nest.made = 0;
	CHECK(r == 0, "destroy c: %s", err.msg);
	r = ts_topo_destroy(&a, &err);
	made_a = 0;
	CHECK(r == 0, "destroy a: %s", err.msg);
	r = ts_topo_destroy(&b, &err);
	made_b = 0;
	CHECK(r == 0, "destroy b: %s", err.msg);
	CHECK(ts_topo_destroy(&a, &err) == 0, "second destroy: %s", err.msg);
	CHECK(leftovers(getpid(), r4, r6) == 0, "objects left after destroy");
out:
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
	char msg[TS_ERR_MAX + 8], a4[INET6_ADDRSTRLEN + 4], a6[INET6_ADDRSTRLEN + 4];
	int n;

	if (ts_topo_create(&t, TS_TOPO_FWD_V4 | TS_TOPO_NAT_V4 | TS_TOPO_NAT_V6, &err) < 0 ||
	    ts_topo_queue(&t, TS_HOOK_UP_NETWORK, 20, TS_IPT_BYPASS, &err) < 0) {
		n = snprintf(msg, sizeof(msg), "ERR %s", err.msg);
		if (write(wfd, msg, (size_t)n) < 0)
			_exit(1);
		_exit(1);
	}
	/* The outer routes to the inner subnet, for the parent to look for. */
	subnet_a(&t, AF_INET, a4, sizeof(a4));
	subnet_a(&t, AF_INET6, a6, sizeof(a6));
	n = snprintf(msg, sizeof(msg), "OK %s %s", a4, a6);
	if (write(wfd, msg, (size_t)n) != n)
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
	char msg[TS_ERR_MAX + 8] = "", a4[INET6_ADDRSTRLEN + 4], a6[INET6_ADDRSTRLEN + 4];
	const char *r4[2] = {a4, NULL}, *r6[2] = {a6, NULL};
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
	CHECK(sscanf(msg, "OK %49s %49s", a4, a6) == 2, "child: %s", msg);
	CHECK(route_present(AF_INET, a4) == 1 && route_present(AF_INET6, a6) == 1,
	      "child's outer routes to %s, %s missing", a4, a6);
	/* link, 2 namespaces, an iptables and an ip6tables rule; the routes are there */
	CHECK(leftovers(child, NULL, NULL) == 5, "child's netns, link and rules not all visible");

	o.only_pid = child;
	CHECK(ts_topo_cleanup(&o, &st, &err) == 0, "cleanup: %s", err.msg);
	/*
	 * Alive owner: 2 MASQUERADE rules (v4, v6) + 1 link + 2 netns kept; the
	 * NFQUEUE rules live in its link namespace, not here.
	 */
	CHECK(st.rules == 0 && st.links == 0 && st.netns == 0 && st.kept == 5,
	      "live owner: removed %u/%u/%u kept %u, want 0/0/0 kept 5", st.rules, st.links,
	      st.netns, st.kept);

	kill(child, SIGKILL);
	CHECK(waitpid(child, &status, 0) == child, "waitpid: %s", strerror(errno));
	CHECK(ts_topo_cleanup(&o, &st, &err) == 0, "cleanup: %s", err.msg);
	CHECK(st.rules == 2 && st.links == 1 && st.netns == 2 && st.kept == 0,
	      "dead owner: removed %u rules, %u links, %u netns, kept %u; want 2/1/2/0", st.rules,
	      st.links, st.netns, st.kept);
	CHECK(leftovers(child, r4, r6) == 0, "objects left after cleanup");
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

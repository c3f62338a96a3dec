/* SPDX-License-Identifier: MIT */
/*
 * nfq_check - src/net/nfq.c against the kernel.
 *
 * Pure part (any user): /proc line parsing and the GSO segment estimate.
 * Root part: two namespaces "tasnfq-a-<pid>" and "tasnfq-b-<pid>" joined
 * by a veth; in a, "iptables -t mangle -A OUTPUT -o <veth> -j NFQUEUE
 * --queue-num 7"; the queue is opened inside a. Cases:
 *   1. ping -c 20, accept all: 20 echo requests seen, 20 replies, no
 *      kernel-side drops.
 *   2. ping -c 20, drop every other packet: 10 replies (50% loss); the
 *      same over IPv6 (ip6tables rule on echo requests, same queue).
 *   3. ping -c 40 in 50 ms turns, holding one packet per turn (the lowest
 *      id in odd turns, the highest in even turns) and dropping it the
 *      turn after: checks that a batch verdict is used exactly when it
 *      cannot release the held packet (ping must lose exactly the held
 *      ones, the kernel must report no unknown-id error).
 *   4. iperf3 TCP for 2 s through the queue, accept all, without and with
 *      TS_NFQ_GSO: reports packets/s handled (not asserted).
 * The namespaces (and with them the veth, rule and processes) are removed
 * by a supervising parent even if the checking child fails or crashes.
 * Exit: 0 pass, 1 fail, 77 skipped (not root or a tool is missing).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "net/nfq.h"

#define QNUM	   7
#define QMAXLEN	   4096
#define ADDR_A	   "198.18.0.1"
#define ADDR_B	   "198.18.0.2"
#define IPERF_PORT "5201"
/* IPv6 benchmarking range (RFC 5180). */
#define ADDR6_A "2001:2::1"
#define ADDR6_B "2001:2::2"

static char ns_a[64], ns_b[64], if_a[16], if_b[16];
static int failures, checks;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		checks++;                                                                          \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);            \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Split a formatted command line on spaces (test commands have no quoting). */
static int split(char *line, char **argv, int max)
{
	int n = 0;
	char *save = NULL, *tok;

	for (tok = strtok_r(line, " ", &save); tok && n < max - 1; tok = strtok_r(NULL, " ", &save))
		argv[n++] = tok;
	argv[n] = NULL;
	return n;
}

/* A child process with its stdout+stderr captured through a pipe. */
struct child {
	pid_t pid;
	int pidfd;
	int out;
	char buf[16384];
	size_t len;
	int status;
	bool done;
};

static int child_start(struct child *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int child_start(struct child *c, const char *fmt, ...)
{
	char line[512], *argv[32];
	int pfd[2];
	va_list ap;

	memset(c, 0, sizeof(*c));
	c->pidfd = -1;
	c->out = -1;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	split(line, argv, 32);
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	c->pid = fork();
	if (c->pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (c->pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		dup2(devnull, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	c->out = pfd[0];
	fcntl(c->out, F_SETFL, O_NONBLOCK);
	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	return c->pidfd < 0 ? -errno : 0;
}

static void child_read(struct child *c)
{
	ssize_t n;

	while (c->out >= 0 && c->len < sizeof(c->buf) - 1) {
		n = read(c->out, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
		if (n <= 0)
			break;
		c->len += (size_t)n;
	}
	c->buf[c->len] = '\0';
}

/* Collect a child that has exited (pidfd readable); returns its exit code. */
static int child_reap(struct child *c)
{
	int fl;

	if (c->done)
		return c->status;
	if (waitpid(c->pid, &c->status, 0) < 0)
		c->status = -1;
	else
		c->status = WIFEXITED(c->status) ? WEXITSTATUS(c->status) : 128;
	/* Read what is left in the pipe, now blocking: the writer is gone
	 * (unless it left a grandchild holding the pipe, hence the flag). */
	fl = fcntl(c->out, F_GETFL);
	fcntl(c->out, F_SETFL, fl & ~O_NONBLOCK);
	child_read(c);
	close(c->out);
	close(c->pidfd);
	c->out = -1;
	c->pidfd = -1;
	c->done = true;
	return c->status;
}

static void child_kill(struct child *c)
{
	if (c->done || c->pid <= 0)
		return;
	kill(c->pid, SIGKILL);
	child_reap(c);
}

/* Run a command to completion; returns its exit code (output discarded
 * unless it fails, then printed). */
static int runf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int runf(const char *fmt, ...)
{
	char line[512];
	struct child c;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (child_start(&c, "%s", line) < 0)
		return -1;
	while (!c.done) {
		struct pollfd p[2] = {{c.out, POLLIN, 0}, {c.pidfd, POLLIN, 0}};

		poll(p, 2, 1000);
		child_read(&c);
		if (p[1].revents)
			child_reap(&c);
	}
	ret = c.status;
	if (ret != 0)
		fprintf(stderr, "command failed (%d): %s\n%s", ret, line, c.buf);
	return ret;
}

static bool have(const char *prog)
{
	const char *path = getenv("PATH");
	char dir[4096], full[4200];
	const char *p, *e;

	if (!path)
		path = "/usr/sbin:/usr/bin:/sbin:/bin";
	for (p = path; *p; p = *e ? e + 1 : e) {
		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		if ((size_t)(e - p) >= sizeof(dir))
			continue;
		memcpy(dir, p, (size_t)(e - p));
		dir[e - p] = '\0';
		snprintf(full, sizeof(full), "%s/%s", dir, prog);
		if (access(full, X_OK) == 0)
			return true;
	}
	return false;
}

/* --- pure part ---------------------------------------------------------- */

static void check_pure(void)
{
	/* Two lines as the kernel prints them ("%5u %6u %-2u %8u %5u %5u %5u %8u %2d"). */
	static const char text[] = "    0  31337 0         2   128     0     0        0  1\n"
				   "    7   4242 3         2   128     5     6      999  1\n";
	static const char bad[] = "    7   4242 x\n";
	struct ts_nfq_kstats ks;
	uint8_t h[128];
	int ret;

	memset(&ks, 0, sizeof(ks));
	ret = ts_nfq_kstats_parse(text, sizeof(text) - 1, 7, &ks);
	CHECK(ret == 0, "parse queue 7: %d", ret);
	CHECK(ks.portid == 4242 && ks.queue_total == 3 && ks.copy_mode == 2 &&
		      ks.copy_range == 128 && ks.queue_dropped == 5 && ks.user_dropped == 6 &&
		      ks.id_sequence == 999,
	      "fields %u %u %u %u %u %u %u", ks.portid, ks.queue_total, ks.copy_mode, ks.copy_range,
	      ks.queue_dropped, ks.user_dropped, ks.id_sequence);
	ret = ts_nfq_kstats_parse(text, sizeof(text) - 1, 0, &ks);
	CHECK(ret == 0 && ks.portid == 31337, "queue 0: %d %u", ret, ks.portid);
	ret = ts_nfq_kstats_parse(text, sizeof(text) - 1, 9, &ks);
	CHECK(ret == -ENOENT, "absent queue: %d", ret);
	ret = ts_nfq_kstats_parse(bad, sizeof(bad) - 1, 7, &ks);
	CHECK(ret == -EINVAL, "malformed line: %d", ret);

	/* IPv4 (IHL 5 = 20 B) + TCP with doff 8 (32 B, timestamps): hdrs 52,
	 * mss 1500 - 52 = 1448. len 52 + 10 * 1448 = 14532 -> 10 segments,
	 * one byte more -> 11; len 1500 -> 1. */
	memset(h, 0, sizeof(h));
	h[0] = 0x45;
	h[9] = 6;
	h[20 + 12] = 8 << 4;
	CHECK(ts_nfq_gso_segs(h, 128, 14532, 1500) == 10, "v4 tcp 14532");
	CHECK(ts_nfq_gso_segs(h, 128, 14533, 1500) == 11, "v4 tcp 14533");
	CHECK(ts_nfq_gso_segs(h, 128, 1500, 1500) == 1, "v4 tcp 1500");
	/* Headers not copied (hdrlen 20 < 33): cannot estimate -> 1. */
	CHECK(ts_nfq_gso_segs(h, 20, 14532, 1500) == 1, "v4 short copy");
	/* IPv4 + UDP: hdrs 28, mss 1472; len 28 + 2 * 1472 + 1 = 2973 -> 3. */
	h[9] = 17;
	CHECK(ts_nfq_gso_segs(h, 128, 2973, 1500) == 3, "v4 udp 2973");
	/* IPv6 (40 B) + TCP doff 8: hdrs 72, mss 1428; 72 + 3 * 1428 = 4356
	 * -> 3, 4357 -> 4. */
	memset(h, 0, sizeof(h));
	h[0] = 0x60;
	h[6] = 6;
	h[40 + 12] = 8 << 4;
	CHECK(ts_nfq_gso_segs(h, 128, 4356, 1500) == 3, "v6 tcp 4356");
	CHECK(ts_nfq_gso_segs(h, 128, 4357, 1500) == 4, "v6 tcp 4357");
	/* IPv6 + hop-by-hop (hdr ext len 0 = 8 B) + TCP: hdrs 80, mss 1420;
	 * 80 + 2 * 1420 = 2920 -> 2. */
	memset(h, 0, sizeof(h));
	h[0] = 0x60;
	h[6] = 0;
	h[40] = 6;
	h[41] = 0;
	h[48 + 12] = 8 << 4;
	CHECK(ts_nfq_gso_segs(h, 128, 2920, 1500) == 2, "v6 hbh tcp 2920");
}

/* --- namespaces --------------------------------------------------------- */

static int enter_netns(const char *name)
{
	char path[128];
	int saved, fd, ret = 0;

	saved = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (saved < 0 || fd < 0 || setns(fd, CLONE_NEWNET) < 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (ret < 0) {
		if (saved >= 0)
			close(saved);
		return ret;
	}
	return saved;
}

static void leave_netns(int saved)
{
	if (setns(saved, CLONE_NEWNET) < 0)
		perror("setns back");
	close(saved);
}

static int setup(void)
{
	if (runf("ip netns add %s", ns_a) || runf("ip netns add %s", ns_b))
		return -1;
	if (runf("ip -n %s link add %s type veth peer name %s netns %s", ns_a, if_a, if_b, ns_b))
		return -1;
	if (runf("ip -n %s addr add " ADDR_A "/30 dev %s", ns_a, if_a) ||
	    runf("ip -n %s addr add " ADDR_B "/30 dev %s", ns_b, if_b) ||
	    runf("ip -n %s link set lo up", ns_a) || runf("ip -n %s link set lo up", ns_b) ||
	    runf("ip -n %s link set %s up", ns_a, if_a) ||
	    runf("ip -n %s link set %s up", ns_b, if_b))
		return -1;
	if (runf("ip -n %s addr add " ADDR6_A "/64 dev %s nodad", ns_a, if_a) ||
	    runf("ip -n %s addr add " ADDR6_B "/64 dev %s nodad", ns_b, if_b))
		return -1;
	if (runf("ip netns exec %s iptables -t mangle -A OUTPUT -o %s -j NFQUEUE --queue-num %d",
		 ns_a, if_a, QNUM))
		return -1;
	/* IPv6: echo requests only, so neighbour discovery is not counted. */
	if (runf("ip netns exec %s ip6tables -t mangle -A OUTPUT -o %s -p ipv6-icmp "
		 "--icmpv6-type echo-request -j NFQUEUE --queue-num %d",
		 ns_a, if_a, QNUM))
		return -1;
	return 0;
}

/* Kill what still runs in our namespaces, then delete them (and with
 * them the veth and the rule). */
static void teardown(void)
{
	const char *names[2] = {ns_a, ns_b};
	struct child c;
	int i;

	for (i = 0; i < 2; i++) {
		char *p, *end;

		if (child_start(&c, "ip netns pids %s", names[i]) == 0) {
			while (!c.done) {
				struct pollfd pf[2] = {{c.out, POLLIN, 0}, {c.pidfd, POLLIN, 0}};

				poll(pf, 2, 1000);
				child_read(&c);
				if (pf[1].revents)
					child_reap(&c);
			}
			for (p = c.buf; *p; p = end) {
				long pid = strtol(p, &end, 10);

				if (end == p)
					break;
				if (pid > 1)
					kill((pid_t)pid, SIGKILL);
			}
		}
		if (child_start(&c, "ip netns del %s", names[i]) == 0) {
			while (!c.done) {
				struct pollfd pf[1] = {{c.pidfd, POLLIN, 0}};

				poll(pf, 1, 1000);
				if (pf[0].revents)
					child_reap(&c);
			}
		}
	}
}

/* --- the loop ----------------------------------------------------------- */

enum mode { ACCEPT, ALTERNATE, HOLD, HOLD_FIRST };

struct run {
	struct ts_nfq *q;
	enum mode mode;
	uint16_t want_l3; /* expected l3proto of every packet */
	uint32_t pkts, echo_req, verdict_err, rx_err, flush_err, bad_meta;
	uint64_t bytes, segs, gso_units;
	uint32_t max_len, max_hdrlen;
	int64_t t_first, t_last, busy_ns;
	/* HOLD mode */
	uint32_t ids[512], nids;
	uint32_t held_id;
	bool has_held;
	uint32_t turns, ndropped, echo_total;
	uint32_t batch_expected, batch_forbidden, batch_wrong;
	int dup_verdict; /* ts_nfq_verdict() on an id already given one */
};

static bool is_echo_request(const struct ts_nfq_pkt *p)
{
	uint32_t ihl;

	/* IPv6 without extension headers: ICMPv6 (58) echo request (128). */
	if (p->hdrlen > 40 && p->hdr[0] >> 4 == 6)
		return p->hdr[6] == 58 && p->hdr[40] == 128;
	if (p->hdrlen < 20 || p->hdr[0] >> 4 != 4 || p->hdr[9] != 1)
		return false;
	ihl = (p->hdr[0] & 0x0fu) * 4;
	return p->hdrlen > ihl && p->hdr[ihl] == 8;
}

static void on_pkt(void *arg, const struct ts_nfq_pkt *p)
{
	struct run *r = arg;
	int ret = 0;

	r->pkts++;
	r->bytes += p->len;
	r->segs += p->gso_segs;
	if (p->gso)
		r->gso_units++;
	if (p->len > r->max_len)
		r->max_len = p->len;
	if (p->hdrlen > r->max_hdrlen)
		r->max_hdrlen = p->hdrlen;
	if (p->l3proto != r->want_l3 || p->hook != NF_INET_LOCAL_OUT || p->hdrlen > p->len ||
	    p->hdrlen > TS_NFQ_COPY_RANGE || p->outdev == 0)
		r->bad_meta++;
	if (is_echo_request(p))
		r->echo_req++;
	switch (r->mode) {
	case ACCEPT:
		ret = ts_nfq_verdict(r->q, p->id, 1);
		if (r->pkts == 1)
			r->dup_verdict = ts_nfq_verdict(r->q, p->id, 1);
		break;
	case ALTERNATE: /* accept the 1st, drop the 2nd, ... */
		ret = ts_nfq_verdict(r->q, p->id, r->pkts % 2);
		break;
	case HOLD:
		if (r->nids < sizeof(r->ids) / sizeof(r->ids[0]))
			r->ids[r->nids++] = p->id;
		else
			ret = ts_nfq_verdict(r->q, p->id, 1);
		break;
	case HOLD_FIRST: /* keep the first packet until the end */
		if (r->pkts == 1) {
			r->held_id = p->id;
			r->has_held = true;
		} else {
			ret = ts_nfq_verdict(r->q, p->id, 1);
		}
		break;
	}
	if (ret < 0)
		r->verdict_err++;
}

static void serve(struct run *r)
{
	int64_t t = now_ns();
	int n, f;

	n = ts_nfq_receive(r->q, on_pkt, r);
	if (n < 0)
		r->rx_err++;
	f = ts_nfq_flush(r->q);
	if (f < 0)
		r->flush_err++;
	if (n > 0) {
		if (!r->t_first)
			r->t_first = t;
		r->t_last = now_ns();
	}
	r->busy_ns += now_ns() - t;
}

/* Drop the packet held since the previous turn, in a flush of its own. */
static void drop_held(struct run *r)
{
	if (!r->has_held)
		return;
	if (ts_nfq_verdict(r->q, r->held_id, 0) < 0)
		r->verdict_err++;
	if (ts_nfq_flush(r->q) < 0)
		r->flush_err++;
	r->has_held = false;
	r->ndropped++;
}

/*
 * One HOLD turn: of the k packets read, keep one (lowest id in odd turns,
 * highest in even turns) and accept the others in one flush. A batch
 * verdict is exact only in even turns (the held id is above the others).
 */
static void hold_turn(struct run *r)
{
	uint64_t batches;
	uint32_t i, k, keep;

	if (ts_nfq_receive(r->q, on_pkt, r) < 0)
		r->rx_err++;
	drop_held(r);
	k = r->nids;
	r->nids = 0;
	if (k == 0)
		return;
	keep = (r->turns % 2) ? 0 : k - 1;
	for (i = 0; i < k; i++)
		if (i != keep && ts_nfq_verdict(r->q, r->ids[i], 1) < 0)
			r->verdict_err++;
	r->held_id = r->ids[keep];
	r->has_held = true;
	batches = ts_nfq_stats(r->q)->batch_msgs;
	if (ts_nfq_flush(r->q) < 0)
		r->flush_err++;
	batches = ts_nfq_stats(r->q)->batch_msgs - batches;
	if (k - 1 >= 2 && keep == k - 1)
		r->batch_expected++;
	if (k - 1 >= 2 && keep == 0)
		r->batch_forbidden++;
	if ((keep == 0 && batches) || (k - 1 >= 2 && keep == k - 1 && batches != 1))
		r->batch_wrong++;
	if (ts_nfq_held(r->q) != 1)
		r->batch_wrong++;
	r->turns++;
	/* Every request seen: end now so the accepted ones are answered well
	 * within ping's deadline. */
	if (r->echo_req >= r->echo_total)
		drop_held(r);
}

/*
 * Serve the queue until @c exits (or @timeout_ms passes), then 200 ms more
 * so that packets sent at its exit (FINs) get their verdict too.
 * @turn_ms > 0: HOLD mode, read only at turn boundaries.
 */
static void pump(struct run *r, struct child *c, int turn_ms, int timeout_ms)
{
	int64_t start = now_ns(), deadline = start + (int64_t)timeout_ms * 1000000;
	int64_t next_turn = start + (int64_t)turn_ms * 1000000, grace_end = 0, now;
	int fd = ts_nfq_fd(r->q);

	for (;;) {
		struct pollfd p[3] = {{turn_ms ? -1 : fd, POLLIN, 0},
				      {c->done ? -1 : c->pidfd, POLLIN, 0},
				      {c->done ? -1 : c->out, POLLIN, 0}};
		int wait_ms = 100;

		now = now_ns();
		if (turn_ms) {
			wait_ms = (int)((next_turn - now) / 1000000);
			if (wait_ms < 0)
				wait_ms = 0;
		}
		poll(p, 3, wait_ms);
		if (p[0].revents)
			serve(r);
		now = now_ns();
		if (turn_ms && now >= next_turn) {
			hold_turn(r);
			next_turn += (int64_t)turn_ms * 1000000;
		}
		if (p[2].revents)
			child_read(c);
		if (p[1].revents) {
			child_reap(c);
			grace_end = now + 200 * 1000000LL;
		}
		if (!c->done && now > deadline) {
			fprintf(stderr, "timeout: killing the child\n");
			child_kill(c);
			grace_end = now;
		}
		if (c->done && now >= grace_end)
			break;
	}
	if (turn_ms) {
		hold_turn(r);
		drop_held(r);
	}
	serve(r);
}

static int open_queue(struct run *r, enum mode mode, uint32_t maxlen, unsigned flags)
{
	struct ts_err err = {{0}};
	int saved, ret;

	memset(r, 0, sizeof(*r));
	r->mode = mode;
	r->want_l3 = ETH_P_IP;
	saved = enter_netns(ns_a);
	if (saved < 0) {
		fprintf(stderr, "setns %s: %s\n", ns_a, strerror(-saved));
		return saved;
	}
	ret = ts_nfq_open(&r->q, QNUM, maxlen, flags, &err);
	leave_netns(saved);
	if (ret < 0)
		fprintf(stderr, "ts_nfq_open: %s\n", err.msg);
	return ret;
}

/* Check the kernel's view after a case: nothing queued, nothing lost. */
static void check_kernel(struct run *r, const char *name, bool expect_all_released)
{
	const struct ts_nfq_stats *st = ts_nfq_stats(r->q);
	struct ts_nfq_kstats ks;
	int ret;

	memset(&ks, 0, sizeof(ks));
	ret = ts_nfq_kstats(r->q, &ks);
	CHECK(ret == 0, "%s: kstats: %s", name, strerror(-ret));
	CHECK(ks.queue_dropped == 0 && ks.user_dropped == 0, "%s: kernel dropped %u + %u", name,
	      ks.queue_dropped, ks.user_dropped);
	if (expect_all_released)
		CHECK(ks.queue_total == 0 && ts_nfq_held(r->q) == 0,
		      "%s: still queued: kernel %u, held %u", name, ks.queue_total,
		      ts_nfq_held(r->q));
	CHECK(ks.copy_mode == 2 && ks.copy_range == TS_NFQ_COPY_RANGE, "%s: copy %u/%u", name,
	      ks.copy_mode, ks.copy_range);
	CHECK(st->nl_errors == 0, "%s: %llu netlink errors (last %d)", name,
	      (unsigned long long)st->nl_errors, st->last_nl_error);
	CHECK(st->enobufs == 0 && st->truncated == 0 && st->bad_msgs == 0,
	      "%s: enobufs %llu truncated %llu bad %llu", name, (unsigned long long)st->enobufs,
	      (unsigned long long)st->truncated, (unsigned long long)st->bad_msgs);
	CHECK(r->verdict_err == 0 && r->rx_err == 0 && r->flush_err == 0 && r->bad_meta == 0,
	      "%s: verdict errors %u rx errors %u flush errors %u bad metadata %u", name,
	      r->verdict_err, r->rx_err, r->flush_err, r->bad_meta);
}

static bool ping_summary(const struct child *c, unsigned *tx, unsigned *rx)
{
	const char *l = strstr(c->buf, "packets transmitted");

	if (!l)
		return false;
	while (l > c->buf && l[-1] != '\n')
		l--;
	return sscanf(l, "%u packets transmitted, %u received", tx, rx) == 2;
}

/* A second socket cannot take a queue that is bound. */
static void check_second_bind(void)
{
	struct ts_err err = {{0}};
	struct ts_nfq *q2 = NULL;
	int saved, ret;

	saved = enter_netns(ns_a);
	if (saved < 0) {
		CHECK(0, "setns: %s", strerror(-saved));
		return;
	}
	ret = ts_nfq_open(&q2, QNUM, QMAXLEN, 0, &err);
	leave_netns(saved);
	CHECK(ret == -EPERM && q2 == NULL && err.msg[0], "second bind: %d (%s)", ret, err.msg);
	ts_nfq_close(q2);
}

static void case_ping_accept(void)
{
	struct child c;
	struct run r;
	unsigned tx = 0, rx = 0;

	if (open_queue(&r, ACCEPT, QMAXLEN, 0) < 0) {
		CHECK(0, "open");
		return;
	}
	check_second_bind();
	CHECK(child_start(&c, "ip netns exec %s ping -n -c 20 -i 0.01 -W 1 " ADDR_B, ns_a) == 0,
	      "spawn ping");
	pump(&r, &c, 0, 10000);
	CHECK(c.status == 0, "ping exit %d:\n%s", c.status, c.buf);
	CHECK(ping_summary(&c, &tx, &rx) && tx == 20 && rx == 20, "ping %u/%u:\n%s", tx, rx, c.buf);
	CHECK(r.echo_req == 20 && r.pkts == 20, "echo requests seen %u of %u packets", r.echo_req,
	      r.pkts);
	CHECK(ts_nfq_stats(r.q)->accepts == 20, "accepts %llu",
	      (unsigned long long)ts_nfq_stats(r.q)->accepts);
	CHECK(r.dup_verdict == -ENOENT, "second verdict for one id: %d", r.dup_verdict);
	check_kernel(&r, "ping accept", true);
	printf("ping accept: %u echo requests, %u/%u replies\n", r.echo_req, rx, tx);
	ts_nfq_close(r.q);
}

static void case_ping6(void)
{
	struct child c;
	struct run r;
	unsigned tx = 0, rx = 0;

	if (open_queue(&r, ALTERNATE, QMAXLEN, 0) < 0) {
		CHECK(0, "open");
		return;
	}
	r.want_l3 = ETH_P_IPV6;
	CHECK(child_start(&c, "ip netns exec %s ping -6 -n -c 10 -i 0.01 -W 1 " ADDR6_B, ns_a) == 0,
	      "spawn ping");
	pump(&r, &c, 0, 10000);
	CHECK(ping_summary(&c, &tx, &rx) && tx == 10 && rx == 5, "ping -6 %u/%u:\n%s", tx, rx,
	      c.buf);
	CHECK(r.echo_req == 10 && r.pkts == 10, "echo requests seen %u of %u packets", r.echo_req,
	      r.pkts);
	check_kernel(&r, "ping6 alternate", true);
	printf("ping -6 drop every other: %u echo requests, %u/%u replies\n", r.echo_req, rx, tx);
	ts_nfq_close(r.q);
}

static void case_ping_alternate(void)
{
	struct child c;
	struct run r;
	unsigned tx = 0, rx = 0;

	if (open_queue(&r, ALTERNATE, QMAXLEN, 0) < 0) {
		CHECK(0, "open");
		return;
	}
	/* No -w: with a deadline ping sends until it has count replies. */
	CHECK(child_start(&c, "ip netns exec %s ping -n -c 20 -i 0.01 -W 1 " ADDR_B, ns_a) == 0,
	      "spawn ping");
	pump(&r, &c, 0, 10000);
	CHECK(ping_summary(&c, &tx, &rx) && tx == 20 && rx == 10, "ping %u/%u:\n%s", tx, rx, c.buf);
	CHECK(strstr(c.buf, " 50% packet loss") != NULL, "no 50%% loss:\n%s", c.buf);
	CHECK(r.echo_req == 20, "echo requests seen %u", r.echo_req);
	CHECK(ts_nfq_stats(r.q)->drops == 10 && ts_nfq_stats(r.q)->accepts == 10,
	      "drops %llu accepts %llu", (unsigned long long)ts_nfq_stats(r.q)->drops,
	      (unsigned long long)ts_nfq_stats(r.q)->accepts);
	check_kernel(&r, "ping alternate", true);
	printf("ping drop every other: %u echo requests, %u/%u replies\n", r.echo_req, rx, tx);
	ts_nfq_close(r.q);
}

static void case_ping_hold(void)
{
	struct child c;
	struct run r;
	unsigned tx = 0, rx = 0;

	if (open_queue(&r, HOLD, QMAXLEN, 0) < 0) {
		CHECK(0, "open");
		return;
	}
	r.echo_total = 40;
	CHECK(child_start(&c, "ip netns exec %s ping -n -c 40 -i 0.01 -W 1 " ADDR_B, ns_a) == 0,
	      "spawn ping");
	pump(&r, &c, 50, 10000);
	CHECK(r.echo_req == 40, "echo requests seen %u", r.echo_req);
	CHECK(ping_summary(&c, &tx, &rx) && tx == 40 && rx == 40 - r.ndropped,
	      "ping %u/%u, expected %u lost:\n%s", tx, rx, r.ndropped, c.buf);
	CHECK(r.ndropped >= 4 && r.batch_expected >= 2 && r.batch_forbidden >= 2,
	      "too few turns to check: dropped %u, batch turns %u, no-batch turns %u", r.ndropped,
	      r.batch_expected, r.batch_forbidden);
	CHECK(r.batch_wrong == 0, "%u turns used the wrong verdict kind", r.batch_wrong);
	check_kernel(&r, "ping hold", true);
	printf("ping hold: %u turns, %u held and dropped, %u/%u replies, batch verdicts %llu "
	       "(turns allowing one %u, forbidding one %u)\n",
	       r.turns, r.ndropped, rx, tx, (unsigned long long)ts_nfq_stats(r.q)->batch_msgs,
	       r.batch_expected, r.batch_forbidden);
	ts_nfq_close(r.q);
}

/*
 * Hold the first of 6000 flood pings while the others pass. With a queue
 * length of 256 the held-id window is its minimum, 4096 ids, so it
 * overflows and tracking pauses; the verdicts must stay exact, and
 * dropping the held packet at the end must release exactly it.
 */
static void case_ping_hold_long(void)
{
	const struct ts_nfq_stats *st;
	unsigned tx = 0, rx = 0;
	uint64_t batches;
	struct child c;
	struct run r;

	if (open_queue(&r, HOLD_FIRST, 256, 0) < 0) {
		CHECK(0, "open");
		return;
	}
	CHECK(child_start(&c, "ip netns exec %s ping -n -q -f -c 6000 -W 1 " ADDR_B, ns_a) == 0,
	      "spawn ping");
	pump(&r, &c, 0, 20000);
	st = ts_nfq_stats(r.q);
	CHECK(r.echo_req == 6000, "echo requests seen %u", r.echo_req);
	CHECK(r.has_held && ts_nfq_held(r.q) == 1, "held %u", ts_nfq_held(r.q));
	CHECK(st->untracked >= 1, "window never overflowed");
	drop_held(&r);
	CHECK(ping_summary(&c, &tx, &rx) && tx == 6000 && rx == 5999, "ping %u/%u:\n%s", tx, rx,
	      c.buf);
	/* Nothing held: tracking is exact again and knows the id is gone. */
	CHECK(ts_nfq_verdict(r.q, r.held_id, 0) == -ENOENT, "held id released twice");
	batches = st->batch_msgs;
	check_kernel(&r, "ping hold long", true);
	printf("ping hold long: %u requests, one held while %llu others passed, %u/%u replies, "
	       "window overflows %llu, batch verdicts %llu\n",
	       r.echo_req, (unsigned long long)st->accepts, rx, tx,
	       (unsigned long long)st->untracked, (unsigned long long)batches);
	ts_nfq_close(r.q);
}

static bool listening(const char *ns, const char *port)
{
	struct child c;

	if (child_start(&c, "ip netns exec %s ss -Hltn sport = :%s", ns, port) < 0)
		return false;
	while (!c.done) {
		struct pollfd p[2] = {{c.out, POLLIN, 0}, {c.pidfd, POLLIN, 0}};

		poll(p, 2, 1000);
		child_read(&c);
		if (p[1].revents)
			child_reap(&c);
	}
	return c.status == 0 && strstr(c.buf, "LISTEN") != NULL;
}

static void case_iperf(unsigned flags)
{
	const char *name = flags & TS_NFQ_GSO ? "iperf3 gso" : "iperf3";
	const struct ts_nfq_stats *st;
	struct child srv, cli;
	const char *sum;
	struct run r;
	double secs, mbit;
	int i;

	if (open_queue(&r, ACCEPT, QMAXLEN, flags) < 0) {
		CHECK(0, "open");
		return;
	}
	CHECK(child_start(&srv, "ip netns exec %s iperf3 -s -1 -B " ADDR_B " -p " IPERF_PORT,
			  ns_b) == 0,
	      "spawn server");
	for (i = 0; i < 150 && !listening(ns_b, IPERF_PORT); i++)
		usleep(20000);
	CHECK(child_start(&cli, "ip netns exec %s iperf3 -c " ADDR_B " -p " IPERF_PORT " -t 2 -f m",
			  ns_a) == 0,
	      "spawn client");
	pump(&r, &cli, 0, 15000);
	CHECK(cli.status == 0, "%s client exit %d:\n%s", name, cli.status, cli.buf);
	/* The one-off server exits after the test. */
	for (i = 0; i < 100 && !srv.done; i++) {
		struct pollfd p = {srv.pidfd, POLLIN, 0};

		if (poll(&p, 1, 20) > 0)
			child_reap(&srv);
	}
	child_kill(&srv);
	st = ts_nfq_stats(r.q);
	check_kernel(&r, name, true);
	CHECK(st->batch_msgs > 0, "%s: no batch verdict used", name);
	if (flags & TS_NFQ_GSO) {
		CHECK(r.gso_units > 0 && r.segs > r.pkts, "%s: gso units %llu segs %llu pkts %u",
		      name, (unsigned long long)r.gso_units, (unsigned long long)r.segs, r.pkts);
	} else {
		/* The kernel segments GSO packets before queueing: wire-sized
		 * units, the payload cut at the copy range, the length from
		 * NFQA_CAP_LEN. */
		CHECK(r.gso_units == 0 && r.segs == r.pkts && r.max_len == 1500 &&
			      r.max_hdrlen == TS_NFQ_COPY_RANGE,
		      "%s: gso units %llu segs %llu pkts %u max len %u max hdrlen %u", name,
		      (unsigned long long)r.gso_units, (unsigned long long)r.segs, r.pkts,
		      r.max_len, r.max_hdrlen);
	}
	secs = (double)(r.t_last - r.t_first) / 1e9;
	mbit = secs > 0 ? (double)r.bytes * 8 / secs / 1e6 : 0;
	printf("%s: %u units (%llu wire packets), %.0f Mbit/s IP through the queue, "
	       "%.0f units/s over %.2f s; loop busy %.1f%% -> capacity about %.0f units/s; "
	       "%.1f packets per recvmmsg, %llu sendto, %llu verdict messages of which %llu "
	       "batch\n",
	       name, r.pkts, (unsigned long long)r.segs, mbit, secs > 0 ? r.pkts / secs : 0, secs,
	       secs > 0 ? 100.0 * (double)r.busy_ns / 1e9 / secs : 0,
	       r.busy_ns > 0 ? r.pkts / ((double)r.busy_ns / 1e9) : 0,
	       st->rx_calls ? (double)st->rx_pkts / (double)st->rx_calls : 0,
	       (unsigned long long)st->tx_calls, (unsigned long long)st->verdict_msgs,
	       (unsigned long long)st->batch_msgs);
	sum = strstr(cli.buf, "sender");
	if (sum) {
		while (sum > cli.buf && sum[-1] != '\n')
			sum--;
		printf("  iperf3: %.*s\n", (int)strcspn(sum, "\n"), sum);
	}
	ts_nfq_close(r.q);
}

static int worker(void)
{
	if (setup() < 0) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}
	case_ping_accept();
	case_ping_alternate();
	case_ping6();
	case_ping_hold();
	case_ping_hold_long();
	case_iperf(0);
	case_iperf(TS_NFQ_GSO);
	printf("nfq_check: %d passed, %d failed\n", checks - failures, failures);
	fflush(stdout);
	return failures ? 1 : 0;
}

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

int main(void)
{
	static const char *const tools[] = {"ip", "iptables", "ip6tables", "ping", "iperf3", "ss"};
	struct sigaction sa;
	pid_t pid;
	int status = 0, ret;
	size_t i;

	check_pure();
	if (failures) {
		printf("nfq_check: %d passed, %d failed (pure part)\n", checks - failures,
		       failures);
		return 1;
	}
	if (geteuid() != 0) {
		printf("nfq_check: pure part passed; kernel part skipped: needs root\n");
		return 77;
	}
	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		if (!have(tools[i])) {
			printf("nfq_check: kernel part skipped: %s not installed\n", tools[i]);
			return 77;
		}
	}
	snprintf(ns_a, sizeof(ns_a), "tasnfq-a-%d", (int)getpid());
	snprintf(ns_b, sizeof(ns_b), "tasnfq-b-%d", (int)getpid());
	snprintf(if_a, sizeof(if_a), "tnfq%da", (int)getpid());
	snprintf(if_b, sizeof(if_b), "tnfq%db", (int)getpid());
	fflush(stdout);

	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0)
		_exit(worker());
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm(90);
	for (;;) {
		ret = waitpid(pid, &status, 0);
		if (ret == pid)
			break;
		if (ret < 0 && errno == EINTR && timed_out) {
			fprintf(stderr, "nfq_check: timed out, killing the worker\n");
			kill(pid, SIGKILL);
			timed_out = 0;
			continue;
		}
		if (ret < 0 && errno != EINTR)
			break;
	}
	alarm(0);
	teardown();
	if (!WIFEXITED(status)) {
		fprintf(stderr, "nfq_check: worker died (status %d)\n", status);
		return 1;
	}
	return WEXITSTATUS(status);
}
